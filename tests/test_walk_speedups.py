"""The model walk's second speed round (#27): each declared TypeProto is read once for both its
type and its shape, per distinct type; the findings stay those of the separate passes where the
walk's shortcuts (outputs typed in one step, the fast path reusing the walk's input types) apply
and where they must not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge import shape_infer  # noqa: E402
from toolkit.onnx_bridge.check import check_model, declared_types  # noqa: E402
from toolkit.onnx_bridge.check import types as check_types  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], value_info: list[Any]) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=value_info)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _declared_chain(count: int) -> Any:
    """Relu after Relu, every value declared float [4, 8], and an If whose branches declare theirs."""
    f32 = TensorProto.FLOAT
    nodes = [helper.make_node("Relu", ["x" if i == 0 else f"v{i - 1}"], [f"v{i}"]) for i in range(count)]
    branch = helper.make_graph(
        [helper.make_node("Identity", [f"v{count - 1}"], ["b"])],
        "branch",
        [],
        [helper.make_tensor_value_info("b", f32, [4, 8])],
    )
    nodes.append(helper.make_node("If", ["cond"], ["out"], then_branch=branch, else_branch=branch))
    infos = [helper.make_tensor_value_info(f"v{i}", f32, [4, 8]) for i in range(count)]
    return _model(
        nodes,
        [
            helper.make_tensor_value_info("x", f32, [4, 8]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("out", f32, [4, 8])],
        infos,
    )


def test_each_declared_type_is_read_once_for_type_and_shape(
    onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check-model on 300 values declared alike: their type is parsed for its type string and its
    shape once each (the walk read every value_info twice, and the type string of each anew)."""
    calls = {"type_string": 0, "shape_of": 0}
    type_string, shape_of = check_types.type_string, check_types.shape_of

    def counted_type(proto: Any) -> Any:
        calls["type_string"] += 1
        return type_string(proto)

    def counted_shape(proto: Any) -> Any:
        calls["shape_of"] += 1
        return shape_of(proto)

    monkeypatch.setattr(check_types, "type_string", counted_type)
    monkeypatch.setattr(check_types, "shape_of", counted_shape)
    result = check_model(_declared_chain(300), onnx_registry)
    assert not result.findings
    # three distinct declared types: float [4, 8], bool [], and none at all (the If branches'
    # Identity output "b" is declared float [4, 8] too)
    assert calls["type_string"] <= 3 and calls["shape_of"] <= 3, calls


def test_subgraph_outputs_take_their_declared_shapes_from_the_one_read(
    onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If's output shape comes from its branches' declared outputs, read with the branch's other
    declarations (not parsed again after the branch is walked)."""
    parsed: list[Any] = []
    shape_of = check_types.shape_of

    def counted(proto: Any) -> Any:
        parsed.append(proto.SerializeToString())
        return shape_of(proto)

    monkeypatch.setattr(check_types, "shape_of", counted)
    result = shape_infer.infer_model_shapes(_declared_chain(4), onnx_registry)
    assert result.shapes["out"] == (4, 8)
    assert len(parsed) == len(set(parsed)), "a declared type was parsed twice"


def test_a_declared_empty_type_is_told_from_no_type() -> None:
    """A declaration whose TypeProto is set but empty has the bytes of no type at all: it still
    declares its value (type unknown), and one without a type declares nothing (the reader keys
    types by their bytes)."""
    empty = onnx.ValueInfoProto(name="w")
    empty.type.SetInParent()
    for info, expected in ((empty, {"w": None}), (onnx.ValueInfoProto(name="w"), {})):
        graph = helper.make_graph([], "g", [], [], value_info=[info])
        assert declared_types(graph) == expected


@pytest.mark.parametrize("fast", [True, False])
def test_typed_in_one_step_or_not_the_findings_are_the_same(onnx_registry: Registry, fast: bool) -> None:
    """Outputs declared as inferred, not declared, partly declared (TopK's indices only) and declared
    wrong (Cast to int64 declared float): the mismatch is reported once, every output is typed."""
    f32 = TensorProto.FLOAT
    model = _model(
        [
            helper.make_node("Relu", ["x"], ["r"], name="relu"),
            helper.make_node("Relu", ["r"], ["u"], name="undeclared"),
            helper.make_node("TopK", ["x", "k"], ["vals", "idx"], name="topk"),
            helper.make_node("Cast", ["x"], ["c"], to=TensorProto.INT64, name="cast"),
        ],
        [
            helper.make_tensor_value_info("x", f32, [4, 8]),
            helper.make_tensor_value_info("k", TensorProto.INT64, [1]),
        ],
        [helper.make_tensor_value_info("u", f32, [4, 8]), helper.make_tensor_value_info("c", f32, [4, 8])],
        [
            helper.make_tensor_value_info("r", f32, None),
            helper.make_tensor_value_info("idx", TensorProto.INT64, None),
        ],
    )
    result = check_model(model, onnx_registry, fast=fast)
    assert [(f.rule, "'c'" in f.message) for f in result.findings] == [("MODEL-TYPE-INFERRED-MISMATCH", True)]
    types = shape_infer.infer_types(model, onnx_registry)
    assert {name: types[name] for name in ("r", "u", "vals", "idx", "c")} == {
        "r": "tensor(float)",
        "u": "tensor(float)",
        "vals": "tensor(float)",
        "idx": "tensor(int64)",
        "c": "tensor(int64)",
    }


def test_a_node_reading_its_own_output_is_checked_as_by_the_separate_passes(
    onnx_registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A node whose output is one of its inputs (the walk's input types are then not the ones the
    node checks would see after it): the findings are the separate passes' (fast=False), and the
    CLI reports them."""
    model = _model(
        [helper.make_node("Add", ["x", "y"], ["y"], name="self_loop")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [2])],
        [],
    )

    def found(fast: bool) -> list[tuple[str, str, str]]:
        return [(f.rule, f.path, f.message) for f in check_model(model, onnx_registry, fast=fast).findings]

    assert found(True) == found(False)
    assert "MODEL-NODE-ORDER" in {rule for rule, _, _ in found(True)}
    path = tmp_path / "loop.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 1
    out = capsys.readouterr().out
    assert "error[MODEL-NODE-ORDER]" in out and "self_loop" in out
