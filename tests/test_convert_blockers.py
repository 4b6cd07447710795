"""`opset convert` reports every node that cannot move (node, opset step, operator, why) in each
output format, converts model-local functions (whose outputs are plain strings) and raises
`ir_version` to what the target opsets need."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.convert import ConversionError, convert_model  # noqa: E402
from toolkit.onnx_bridge.overlay import apply_overlay  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402


@pytest.fixture(scope="session")
def registry(onnx_registry: Registry, shipped_registry: Registry) -> Registry:
    return merge_registries(apply_overlay(onnx_registry), shipped_registry)


def f32(name: str, shape: list[int] | None) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def axes_const(name: str, values: list[int]) -> Any:
    return helper.make_node(
        "Constant", [], [name], value=numpy_helper.from_array(np.array(values, "int64"), name)
    )


def function_model(opset: int = 13) -> Any:
    """A model calling a model-local function whose body squeezes with an axes input (opset 13)."""
    body = [axes_const("ax", [0]), helper.make_node("Squeeze", ["x", "ax"], ["y"], name="sq")]
    function = helper.make_function(
        "local", "SqueezeFirst", ["x"], ["y"], body, [helper.make_opsetid("", opset)]
    )
    call = helper.make_node("SqueezeFirst", ["a"], ["b"], domain="local")
    relu = helper.make_node("Relu", ["b"], ["c"])
    graph = helper.make_graph([call, relu], "g", [f32("a", [1, 3])], [f32("c", [3])])
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("local", 1)],
        functions=[function],
        ir_version=8,
    )


def run(model: Any, feeds: dict[str, Any]) -> list[Any]:
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


def test_downgrading_a_model_local_function_with_a_moved_node(registry: Registry) -> None:
    model = function_model()
    down = convert_model(model, registry, {"": 11}).model
    body = down.functions[0]
    assert [n.op_type for n in body.node] == ["Squeeze"], (
        "the axes constant became an attribute and was dropped"
    )
    assert helper.get_attribute_value(body.node[0].attribute[0]) == [0]
    assert [(o.domain, o.version) for o in body.opset_import] == [("", 11)]
    onnx.checker.check_model(down, full_check=True)
    feeds = {"a": np.array([[1.0, -2.0, 3.0]], "float32")}
    assert np.array_equal(run(model, feeds)[0], run(down, feeds)[0])
    back = convert_model(down, registry, {"": 13}).model
    onnx.checker.check_model(back, full_check=True)
    assert np.array_equal(run(back, feeds)[0], run(model, feeds)[0])


def blocked_model() -> Any:
    """Opset 13, to be downgraded to 11: four nodes that cannot move, one in an If branch and one in
    a function body, and nodes that can."""
    axes = numpy_helper.from_array(np.array([1], "int64"), "axes")
    then_branch = helper.make_graph(
        [helper.make_node("Celu", ["x"], ["t"], name="celu_in_if")], "then", [], [f32("t", None)]
    )
    else_branch = helper.make_graph([helper.make_node("Relu", ["x"], ["e"])], "else", [], [f32("e", None)])
    nodes = [
        helper.make_node("ReduceSum", ["x", "axes"], ["r"], name="sum_noop", noop_with_empty_axes=1),
        helper.make_node("Squeeze", ["x", "k"], ["s"], name="squeeze_runtime_axes"),
        helper.make_node("Celu", ["x"], ["c"], name="celu"),
        helper.make_node(
            "If", ["cond"], ["i"], name="branch", then_branch=then_branch, else_branch=else_branch
        ),
        helper.make_node("Relu", ["x"], ["ok"], name="fine"),
        helper.make_node("SqueezeFirst", ["a"], ["b"], domain="local", name="call"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            f32("x", [2, 1]),
            helper.make_tensor_value_info("k", TensorProto.INT64, [1]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            f32("a", [1, 3]),
        ],
        [f32("r", None), f32("s", None), f32("c", None), f32("i", None), f32("ok", None), f32("b", [3])],
        initializer=[axes],
    )
    model = function_model()
    model.graph.CopyFrom(graph)
    model.functions[0].node.append(helper.make_node("Celu", ["x"], ["unused"], name="celu_in_function"))
    return model


EXPECTED = {
    ("g/sum_noop/0", "CONVERT-REFUSED", "attribute 'noop_with_empty_axes' is 1"),
    ("g/squeeze_runtime_axes/1", "CONVERT-REFUSED", "must be a constant"),
    ("g/celu/2", "CONVERT-NO-OPERATOR", "ai.onnx.Celu does not exist yet"),
    ("g/branch/3/then_branch/celu_in_if/0", "CONVERT-NO-OPERATOR", "ai.onnx.Celu does not exist yet"),
    (
        "function:local.SqueezeFirst/celu_in_function/1",
        "CONVERT-NO-OPERATOR",
        "ai.onnx.Celu does not exist yet",
    ),
}


def test_every_blocker_is_reported_at_once(registry: Registry) -> None:
    with pytest.raises(ConversionError) as info:
        convert_model(blocked_model(), registry, {"": 11})
    blockers = info.value.blockers
    found = {(b.finding.path, b.finding.rule) for b in blockers}
    assert found == {(path, rule) for path, rule, _ in EXPECTED}, blockers
    for path, rule, why in EXPECTED:
        (blocker,) = [b for b in blockers if (b.finding.path, b.finding.rule) == (path, rule)]
        assert why in blocker.finding.message
        assert blocker.step == "ai.onnx 13 -> 12" or blocker.step == "ai.onnx 12 -> 11"
    assert {b.step for b in blockers if "Celu" in b.finding.message} == {"ai.onnx 12 -> 11"}
    assert {b.step for b in blockers if b.finding.rule == "CONVERT-REFUSED"} == {"ai.onnx 13 -> 12"}


def test_cli_reports_every_blocker_in_each_format(tmp_path: Path, opset_cli: Any) -> None:
    cli = opset_cli
    source, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(blocked_model(), source)
    base = ("convert", str(source), "--to", "ai.onnx=11", "--out", str(out))
    text = cli(*base)
    assert text.returncode == 1 and "Traceback" not in text.stderr
    for path, rule, why in EXPECTED:
        assert any(
            line.startswith(f"{source}:{path}: error[{rule}]: ") and why in line
            for line in text.stderr.splitlines()
        ), (path, text.stderr)
    assert f"{source}: 5 blocker(s); nothing written" in text.stderr
    assert not out.exists()
    report = json.loads(cli(*base, "--format", "json").stdout)
    assert report["kind"] == "convert" and report["converted"] is False
    assert {(b["path"], b["rule"]) for b in report["findings"]} == {(p, r) for p, r, _ in EXPECTED}
    assert all(
        b["step"] in ("ai.onnx 13 -> 12", "ai.onnx 12 -> 11") and b["operator"] for b in report["findings"]
    )
    github = cli(*base, "--format", "github")
    assert github.returncode == 1
    errors = [line for line in github.stdout.splitlines() if line.startswith("::error ")]
    assert sorted(line.split("title=")[1].split("::")[0] for line in errors) == sorted(
        r for _, r, _ in EXPECTED
    )
    sarif = json.loads(cli(*base, "--format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == sorted(r for _, r, _ in EXPECTED)
    rules = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    assert {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in results} == {
        p for p, _, _ in EXPECTED
    }


def test_cli_success_report_and_domain_not_imported(tmp_path: Path, opset_cli: Any) -> None:
    cli = opset_cli
    source, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(function_model(), source)
    done = json.loads(
        cli("convert", str(source), "--to", "ai.onnx=11", "--out", str(out), "--format", "json").stdout
    )
    # Relu, the function's Constant and Squeeze change version at 13 -> 12; nothing at 12 -> 11.
    assert done["converted"] is True and done["findings"] == [] and done["moves"] == 3
    assert done["steps"] == ["ai.onnx 13 -> 12: 3 node(s) moved", "ai.onnx 12 -> 11: 0 node(s) moved"]
    assert onnx.load(out).opset_import[0].version == 11
    text = cli("convert", str(source), "--to", "ai.onnx=12", "--out", str(out))
    assert text.returncode == 0 and "wrote" in text.stdout and text.stderr == ""
    missing = cli("convert", str(source), "--to", "ai.onnx.ml=3", "--out", str(out), "--format", "json")
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    (blocker,) = json.loads(missing.stdout)["findings"]
    assert blocker["rule"] == "CONVERT-DOMAIN-NOT-IMPORTED" and "ai.onnx.ml" in blocker["message"]


def test_a_target_domain_the_model_does_not_import(registry: Registry) -> None:
    with pytest.raises(ConversionError) as info:
        convert_model(function_model(), registry, {"ai.onnx.ml": 3, "": 11})
    (blocker,) = info.value.blockers
    assert blocker.finding.rule == "CONVERT-DOMAIN-NOT-IMPORTED"
    assert blocker.finding.message == "the model does not import domain 'ai.onnx.ml'"


def test_ir_version_is_raised_for_the_target_opset(registry: Registry) -> None:
    model = helper.make_model(
        helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [f32("x", [2])], [f32("y", [2])]),
        opset_imports=[helper.make_opsetid("", 11)],
        ir_version=6,
    )
    up = convert_model(model, registry, {"": 21}).model
    assert up.ir_version == onnx.helper.find_min_ir_version_for([helper.make_opsetid("", 21)])
    down = convert_model(up, registry, {"": 11}).model
    assert down.ir_version == up.ir_version, "never lowered"
