"""`opset convert`: declarative adapters against onnx.version_converter, and on vendor specs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper, version_converter  # noqa: E402

from toolkit.model.node_moves import moves_unchanged  # noqa: E402
from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.convert import ConversionError, convert_model  # noqa: E402
from toolkit.onnx_bridge.overlay import apply_overlay, load_overlay  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
REDUCE_18 = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
             "ReduceMin", "ReduceProd", "ReduceSumSquare")  # fmt: skip
CONSUMED_6 = ("Abs", "Ceil", "Exp", "Floor", "Log", "Neg", "Reciprocal", "Relu", "Sigmoid", "Sqrt", "Tanh")


@pytest.fixture(scope="session")
def registry(onnx_registry: Registry, shipped_registry: Registry) -> Registry:
    return merge_registries(apply_overlay(onnx_registry), shipped_registry)


def canonical_nodes(model: Any) -> list[tuple[Any, ...]]:
    """Nodes with generated value names replaced by their order of appearance."""
    graph = model.graph
    fixed = {v.name for v in (*graph.input, *graph.output, *graph.initializer)}
    names: dict[str, str] = {}

    def name(value: str) -> str:
        if not value or value in fixed:
            return value
        return names.setdefault(value, f"v{len(names)}")

    def attr(a: Any) -> tuple[str, int, Any]:
        value = helper.get_attribute_value(a)
        if isinstance(value, onnx.TensorProto):
            value = (value.data_type, numpy_helper.to_array(value).tolist())
        return (a.name, a.type, value)

    return [
        (
            n.op_type,
            n.domain,
            [name(i) for i in n.input],
            [name(o) for o in n.output],
            sorted(attr(a) for a in n.attribute),
        )
        for n in graph.node
    ]


def check_same_as_onnx(model: Any, registry: Registry, target: int) -> Any:
    ours = convert_model(model, registry, {"": target}).model
    theirs = version_converter.convert_version(model, target)
    assert canonical_nodes(ours) == canonical_nodes(theirs)
    assert [(o.domain, o.version) for o in ours.opset_import] == [
        (o.domain, o.version) for o in theirs.opset_import
    ]
    onnx.checker.check_model(ours, full_check=True)
    return ours


def model_of(
    nodes: list[Any], inputs: list[Any], outputs: list[Any], opset: int, initializers: list[Any] | None = None
) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers or [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def f32(name: str, shape: list[int] | None) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_overlay_covers_the_required_facts(registry: Registry) -> None:
    overlay = load_overlay()
    for op in ("Squeeze", "Unsqueeze", "ReduceSum"):
        assert overlay["", op, 13].upgrade[0].kind == "attribute_to_input"
    for op in REDUCE_18:
        assert overlay["", op, 18].upgrade[0].kind == "attribute_to_input"
    for op in (*CONSUMED_6, "Add", "BatchNormalization", "Clip"):
        assert overlay["", op, 6].upgrade[0].kind == "remove_attribute"
    # Computed from the catalog: Relu-13 only added bfloat16, Relu-14 only integer types.
    relu13, relu14 = registry.get_schema("Relu", 13), registry.get_schema("Relu", 14)
    assert moves_unchanged(registry.get_schema("Relu", 6), relu13)
    assert relu13.adapter is not None and [s.kind for s in relu13.adapter.upgrade] == ["compatible"]
    assert relu14.adapter is not None and relu14.adapter.downgrade is not None
    assert [s.kind for s in relu14.adapter.downgrade] == ["type_restriction"]
    # GroupNormalization-21 changed what scale and bias mean (per channel instead of per group):
    # its signature fits every old node, so the overlay states that no step moves one.
    group_norm = registry.get_schema("GroupNormalization", 21).adapter
    assert group_norm is not None and [s.kind for s in group_norm.upgrade] == ["python"]
    assert str(group_norm.upgrade[0].arg("callable")).endswith(":no_adapter")
    assert [s.kind for s in registry.get_schema("Split", 13).adapter.upgrade] == ["attribute_to_input"]


@pytest.mark.parametrize("op", ["Squeeze", "Unsqueeze", "ReduceSum"])
def test_axes_move_at_13_matches_onnx(registry: Registry, op: str) -> None:
    shape = [1, 3, 1] if op != "Unsqueeze" else [3]
    out_shape = {"Squeeze": [3], "Unsqueeze": [1, 3, 1], "ReduceSum": [3]}[op]
    extra = {"keepdims": 0} if op == "ReduceSum" else {}
    node = helper.make_node(op, ["x"], ["y"], name="n", axes=[0, 2], **extra)
    model = model_of([node], [f32("x", shape)], [f32("y", out_shape)], 11)
    up = check_same_as_onnx(model, registry, 13)
    assert [n.op_type for n in up.graph.node] == ["Constant", op]
    down = check_same_as_onnx(up, registry, 11)
    assert canonical_nodes(down) == canonical_nodes(model)


@pytest.mark.parametrize("op", REDUCE_18)
def test_axes_move_at_18_matches_onnx(registry: Registry, op: str) -> None:
    node = helper.make_node(op, ["x"], ["y"], axes=[1], keepdims=1)
    model = model_of([node], [f32("x", [2, 3])], [f32("y", [2, 1])], 17)
    up = check_same_as_onnx(model, registry, 18)
    assert [n.op_type for n in up.graph.node] == ["Constant", op]
    down = check_same_as_onnx(up, registry, 17)
    assert canonical_nodes(down) == canonical_nodes(model)


def test_downgrade_reads_axes_from_an_initializer(registry: Registry) -> None:
    axes = numpy_helper.from_array(__import__("numpy").array([1], dtype="int64"), "axes")
    node = helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=1)
    model = model_of([node], [f32("x", [2, 3])], [f32("y", [2, 1])], 18, [axes])
    down = check_same_as_onnx(model, registry, 17)
    assert [a.name for a in down.graph.node[0].attribute] == ["keepdims", "axes"]
    assert list(down.graph.initializer) == []


@pytest.mark.parametrize("op", CONSUMED_6)
def test_consumed_inputs_removal_at_6_matches_onnx(registry: Registry, op: str) -> None:
    node = helper.make_node(op, ["x"], ["y"], consumed_inputs=[0])
    model = model_of([node], [f32("x", [2, 3])], [f32("y", [2, 3])], 5)
    up = check_same_as_onnx(model, registry, 6)
    assert [a.name for a in up.graph.node[0].attribute] == []


def test_type_only_versions_are_compatible_and_match_onnx(registry: Registry) -> None:
    nodes = [
        helper.make_node("Abs", ["x"], ["a"]),
        helper.make_node("Neg", ["a"], ["b"]),
        helper.make_node("Relu", ["b"], ["y"]),
    ]
    model = model_of(nodes, [f32("x", [2])], [f32("y", [2])], 6)
    up = check_same_as_onnx(model, registry, 14)
    # onnx has no downgrade for these; ours restricts types and finds none in use.
    assert canonical_nodes(convert_model(up, registry, {"": 6}).model) == canonical_nodes(model)


def test_downgrade_refuses_a_type_the_old_version_lacks(registry: Registry) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.INT32, [2])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, [2])
    model = model_of([helper.make_node("Relu", ["x"], ["y"])], [x], [y], 14)
    with pytest.raises(ConversionError, match=r"Relu.*tensor\(int32\)"):
        convert_model(model, registry, {"": 13})


def test_missing_adapter_names_operator_and_version(registry: Registry) -> None:
    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=1, name="gn")
    model = model_of([node], [f32("x", [1, 2, 2]), f32("s", [1]), f32("b", [1])], [f32("y", [1, 2, 2])], 18)
    with pytest.raises(ConversionError) as info:
        convert_model(model, registry, {"": 21})
    message = str(info.value)
    assert "ai.onnx.GroupNormalization:18 -> ai.onnx.GroupNormalization:21" in message
    assert "opset 20 -> 21" in message
    assert message.startswith("g/gn/0")
    (blocker,) = info.value.blockers
    assert blocker.finding.rule == "CONVERT-NO-ADAPTER" and blocker.step == "ai.onnx 20 -> 21"


# -- vendor domain -----------------------------------------------------------------------------

ACME = "com.acme.vision"


def acme_model(
    nodes: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    version: int,
    initializers: list[Any] | None = None,
) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers or [])
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(ACME, version)]
    )


def test_vendor_attribute_and_type_adapters(registry: Registry) -> None:
    from toolkit.onnx_bridge.check import check_model

    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain=ACME, group=1)
    model = acme_model([node], [f32("x", [1, 1, 4, 4]), f32("w", [1, 1, 3, 3])], [f32("y", None)], 1)
    up = convert_model(model, registry, {ACME: 2}).model
    attrs = {a.name: helper.get_attribute_value(a) for a in up.graph.node[0].attribute}
    assert attrs == {"group": 1, "activation": b"none"}
    assert check_model(up, registry).errors == ()
    down = convert_model(up, registry, {ACME: 1}).model
    assert canonical_nodes(down) == canonical_nodes(model)
    bf16 = helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [1, 1, 4, 4])
    model16 = acme_model(
        [helper.make_node("FusedConv", ["x", "x"], ["y"], domain=ACME)], [bf16], [f32("y", None)], 2
    )
    with pytest.raises(ConversionError, match="bfloat16"):
        convert_model(model16, registry, {ACME: 1})


def test_downgrade_refuses_to_drop_a_non_default_attribute(registry: Registry, tmp_path: Path) -> None:
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain=ACME, name="conv", activation="relu")
    model = acme_model([node], [f32("x", [1, 1, 4, 4]), f32("w", [1, 1, 3, 3])], [f32("y", None)], 2)
    with pytest.raises(ConversionError) as info:
        convert_model(model, registry, {ACME: 1})
    message = str(info.value)
    assert message.startswith(
        f"g/conv/0: {ACME} 2 -> 1: downgrade com.acme.vision.FusedConv:2 -> com.acme.vision.FusedConv:1"
    )
    assert "attribute 'activation' is 'relu'" in message
    source, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(model, source)
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "convert", str(source), "--to", f"{ACME}=1", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 1 and "attribute 'activation' is 'relu'" in done.stderr, done.stderr
    assert not out.exists(), "nothing is written"
    # ReduceSum-13's noop_with_empty_axes=1 has no opset-11 equivalent; 0 (the default) has.
    axes = numpy_helper.from_array(__import__("numpy").array([1], dtype="int64"), "axes")
    for flag, ok in ((0, True), (1, False)):
        reduce = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=1, noop_with_empty_axes=flag)
        reduced = model_of([reduce], [f32("x", [2, 3])], [f32("y", [2, 1])], 13, [axes])
        if ok:  # onnx's converter keeps the attribute, which opset 11 does not know; we drop it
            down = convert_model(reduced, registry, {"": 11}).model
            assert [a.name for a in down.graph.node[0].attribute] == ["keepdims", "axes"]
            onnx.checker.check_model(down, full_check=True)
        else:
            with pytest.raises(ConversionError, match="attribute 'noop_with_empty_axes' is 1"):
                convert_model(reduced, registry, {"": 11})


def forgetful_adapter(node: Any, ctx: Any) -> Any:
    """A `python` upgrade that forgets the attribute the new version requires."""
    return node.copy()


def test_an_adapter_that_produces_an_invalid_node_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit import load_registry

    monkeypatch.setenv(
        "OPSET_TOOLKIT_ALLOW_PYTHON_ADAPTERS", "1"
    )  # the invoker's opt-in to the spec's python step

    folder = tmp_path / "com.example.gain"
    folder.mkdir()
    (folder / "domain.yaml").write_text(
        "domain: com.example.gain\nopset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 9}]\n",
        encoding="utf-8",
    )
    (folder / "Gain.yaml").write_text(
        """operator: Gain
domain: com.example.gain
versions:
  - since_version: 1
    inputs: [{name: X, type: tensor(float)}]
    outputs: [{name: Y, type: tensor(float)}]
  - since_version: 2
    based_on: 1
    attributes:
      alpha: {type: float, required: true}
    adapter:
      upgrade:
        - {kind: python, callable: "test_convert:forgetful_adapter"}
      downgrade:
        - {kind: remove_attribute, attribute: alpha}
""",
        encoding="utf-8",
    )
    gain = load_registry([tmp_path], cache=False)
    node = helper.make_node("Gain", ["x"], ["y"], domain="com.example.gain", name="amp")
    graph = helper.make_graph([node], "g", [f32("x", [2])], [f32("y", [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("com.example.gain", 1)])
    with pytest.raises(ConversionError) as info:
        convert_model(model, gain, {"com.example.gain": 2})
    message = str(info.value)
    assert message.startswith(
        "g/amp/0: com.example.gain 1 -> 2: the adapter of com.example.gain.Gain:2 produced a node that is not a valid"
    )
    assert "requires attribute 'alpha' (float) [MODEL-ATTR-REQUIRED]" in message


def test_vendor_attribute_to_input_and_back(registry: Registry) -> None:
    from toolkit.onnx_bridge.check import check_model

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 3, 2, 2])
    node = helper.make_node(
        "Normalize", ["x"], ["y"], domain=ACME, name="norm", mean=[0.5] * 3, std=[2.0] * 3
    )
    model = acme_model([node], [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)], 1)
    up = convert_model(model, registry, {ACME: 3})
    nodes = up.model.graph.node
    assert [n.op_type for n in nodes] == ["Constant", "Constant", "Normalize"]
    assert [n.attribute[0].t.data_type for n in nodes[:2]] == [TensorProto.FLOAT16] * 2  # like X
    assert len(nodes[2].input) == 3 and not nodes[2].attribute
    assert check_model(up.model, registry).errors == ()
    assert up.steps == [f"{ACME} 1 -> 2: 0 node(s) moved", f"{ACME} 2 -> 3: 1 node(s) moved"]
    back = convert_model(up.model, registry, {ACME: 1}).model
    assert canonical_nodes(back) == canonical_nodes(model)


def test_vendor_removed_operator_is_named(registry: Registry) -> None:
    removed = [op for op in registry.operators(ACME) if op.removed_in is not None]
    assert removed, "com.acme.vision ships a removed operator"
    op = removed[0]
    first = op.versions[0]
    inputs = [f32(f"i{k}", None) for k in range(first.min_input)]
    node = helper.make_node(op.name, [i.name for i in inputs], ["y"], domain=ACME)
    for attr in first.attributes:
        if attr.required:
            node.attribute.append(helper.make_attribute(attr.name, 1))
    model = acme_model([node], inputs, [f32("y", None)], first.since_version)
    with pytest.raises(ConversionError, match=rf"{ACME}.{op.name} was removed in opset {op.removed_in}"):
        convert_model(model, registry, {ACME: op.removed_in})


def test_cli_convert(tmp_path: Path, opset_cli: Any) -> None:
    node = helper.make_node("Squeeze", ["x"], ["y"], axes=[0])
    model = model_of([node], [f32("x", [1, 3])], [f32("y", [3])], 11)
    source, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(model, source)

    run = opset_cli
    done = run("convert", str(source), "--to", "ai.onnx=13", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "ai.onnx 12 -> 13: 1 node(s) moved" in done.stdout
    assert onnx.load(out).opset_import[0].version == 13
    bad = run("convert", str(source), "--to", "ai.onnx", "--out", str(out))
    assert bad.returncode == 2 and "DOMAIN=N" in bad.stderr and "Traceback" not in bad.stderr
    for target, message in [
        ("ai.onnx=0", "--to ai.onnx=0: opset versions start at 1"),
        ("com.unknown=3", "--to com.unknown=3: no specs for domain 'com.unknown'"),
        ("ai.onnx=999", "--to ai.onnx=999: ai.onnx has no opset 999"),
        ("=3", "write DOMAIN=N"),
    ]:
        usage = run("convert", str(source), "--to", target, "--out", str(out))
        assert usage.returncode == 2, (target, usage.stderr)
        assert message in usage.stderr and "Traceback" not in usage.stderr
    group = model_of(
        [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=1)],
        [f32("x", [1, 2, 2]), f32("s", [1]), f32("b", [1])],
        [f32("y", [1, 2, 2])],
        18,
    )
    onnx.save(group, source)
    failed = run("convert", str(source), "--to", "ai.onnx=21", "--out", str(out))
    assert failed.returncode == 1 and "ai.onnx.GroupNormalization:21" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_targets_are_checked_against_the_registry(registry: Registry) -> None:
    from toolkit.model.diagnostics import UsageError
    from toolkit.onnx_bridge.convert import parse_targets

    assert parse_targets(["ai.onnx=13", f"{ACME}=2"], registry) == {"": 13, ACME: 2}
    with pytest.raises(UsageError, match=r"no specs for domain 'com\.unknown'"):
        parse_targets(["com.unknown=3"], registry)
    model = model_of([helper.make_node("Relu", ["x"], ["y"])], [f32("x", [2])], [f32("y", [2])], 14)
    with pytest.raises(UsageError, match=rf"{ACME} has no opset 99"):
        convert_model(model, registry, {ACME: 99})


def test_overlay_errors_are_located(tmp_path: Path) -> None:
    from toolkit.model.diagnostics import SpecError

    (tmp_path / "bad.yaml").write_text(
        'domain: ai.onnx\ngroups:\n  - versions: ["Squeeze"]\n    upgrade: [{kind: teleport}]\n'
        "    dowgrade: []\n"
    )
    with pytest.raises(SpecError) as info:
        load_overlay(tmp_path)
    found = [(d.rule, d.location.line, d.location.column) for d in info.value.diagnostics]
    assert found == [("SCHEMA-VALUE", 3, 16), ("SCHEMA-ENUM", 4, 22), ("SCHEMA-UNKNOWN-KEY", 5, 5)]
    messages = [d.format() for d in info.value.diagnostics]
    assert "'teleport' is not one of compatible, remove_attribute" in messages[1]
    assert "did you mean 'downgrade'?" in messages[2]
    (tmp_path / "bad.yaml").write_text("domain: ai.onnx\ngroups: [\n")
    with pytest.raises(SpecError) as info:
        load_overlay(tmp_path)
    assert [d.rule for d in info.value.diagnostics] == ["YAML-SYNTAX"]


def test_overlay_versions_are_checked(tmp_path: Path, onnx_registry: Registry) -> None:
    """ADAPTER-OVERLAY: an operator version listed twice, or one the catalog does not have."""
    from toolkit.model.diagnostics import SpecError

    (tmp_path / "ai.onnx.yaml").write_text(
        'domain: ai.onnx\ngroups:\n  - versions: ["Relu:13", "Relu:13"]\n    upgrade: [{kind: compatible}]\n'
    )
    with pytest.raises(SpecError) as info:
        load_overlay(tmp_path)
    (diag,) = info.value.diagnostics
    assert (diag.rule, diag.location.line) == ("ADAPTER-OVERLAY", 3)
    assert "ai.onnx.Relu:13 has two adapters" in diag.message
    (tmp_path / "ai.onnx.yaml").write_text(
        'domain: ai.onnx\ngroups:\n  - versions: ["Relu:15"]\n    upgrade: [{kind: compatible}]\n'
    )
    with pytest.raises(SpecError) as info:
        apply_overlay(onnx_registry, load_overlay(tmp_path))
    (diag,) = info.value.diagnostics
    assert (
        diag.rule == "ADAPTER-OVERLAY" and "ai.onnx.Relu:15 is not a version of the catalog" in diag.message
    )


def test_overlay_steps_get_the_spec_checks(tmp_path: Path, onnx_registry: Registry) -> None:
    from toolkit.model.diagnostics import SpecError

    (tmp_path / "ai.onnx.yaml").write_text(
        'domain: ai.onnx\ngroups:\n  - versions: ["Relu:6"]\n'
        "    upgrade: [{kind: remove_attribute, attribute: consumed_input}]\n"
    )
    with pytest.raises(SpecError) as info:
        apply_overlay(onnx_registry, load_overlay(tmp_path))
    (diag,) = info.value.diagnostics
    assert (diag.rule, diag.location.line) == ("ADAPTER-UNKNOWN-ATTRIBUTE", 4)
    assert "ai.onnx.Relu:1 has no attribute 'consumed_input'" in diag.message


def test_overlay_steps_are_the_loaders_steps(tmp_path: Path) -> None:
    """The same steps written in an operator file and in an overlay give equal AdapterSteps."""
    from toolkit import load_registry

    steps = (
        "      - {kind: attribute_to_input, attribute: axes, input: axes, doc: moved}\n"
        "      - {kind: type_restriction, param: T, types: [tensor(double), tensor(float16)]}\n"
        "      - {kind: set_attribute_if_absent, attribute: pads, value: [0, 0]}\n"
    )
    (tmp_path / "overlay").mkdir()
    (tmp_path / "overlay" / "x.yaml").write_text(
        'domain: com.example.same\ngroups:\n  - versions: ["Op:2"]\n    upgrade:\n' + steps
    )
    spec = tmp_path / "specs" / "com.example.same"
    spec.mkdir(parents=True)
    (spec / "domain.yaml").write_text(
        "domain: com.example.same\nopset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 9}]\n"
    )
    (spec / "Op.yaml").write_text(
        "operator: Op\ndomain: com.example.same\nversions:\n"
        "  - since_version: 1\n    inputs: [{name: X, type: T}]\n    outputs: [{name: Y, type: T}]\n"
        "    attributes: {axes: {type: ints, default: [0]}}\n"
        "    type_constraints: {T: {allowed: [tensor(float), tensor(double), tensor(float16)]}}\n"
        "  - since_version: 2\n    inputs: [{name: X, type: T}, {name: axes, type: tensor(int64), option: optional}]\n"
        "    outputs: [{name: Y, type: T}]\n"
        "    attributes: {pads: {type: ints, default: [0, 0]}}\n"
        "    type_constraints: {T: {allowed: [tensor(float)]}}\n"
        "    adapter:\n      upgrade:\n" + steps.replace("      - ", "        - ")
    )
    declared = (
        load_registry([tmp_path / "specs"], cache=False).get_schema("Op", 2, "com.example.same").adapter
    )
    overlaid = load_overlay(tmp_path / "overlay")["com.example.same", "Op", 2]
    assert declared is not None
    assert [(s.kind, s.args) for s in overlaid.upgrade] == [(s.kind, s.args) for s in declared.upgrade]
    assert ("types", ("tensor(double)", "tensor(float16)")) in overlaid.upgrade[1].args  # frozen lists
    assert overlaid.downgrade is None and overlaid.location.line == 3


def test_overlay_schema_shares_the_operator_step_definition() -> None:
    import json

    def load(name: str) -> Any:
        return json.loads((REPO / "schemas" / name).read_text(encoding="utf-8"))

    overlay, operator = load("adapter_overlay.schema.json"), load("operator.schema.json")
    assert overlay["$defs"]["adapter_step"] == operator["$defs"]["adapter_step"]
    group = overlay["$defs"]["group"]["properties"]
    assert group["upgrade"]["items"] == group["downgrade"]["items"] == {"$ref": "#/$defs/adapter_step"}
    assert operator["$defs"]["adapter"]["properties"]["upgrade"]["items"] == {"$ref": "#/$defs/adapter_step"}
