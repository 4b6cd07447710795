"""A call of a model-local function may name fewer outputs than the function has (trailing ones
left out): each named output takes the type of the function output at its position, never the
type of a later one (an earlier untyped output stays untyped)."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.check.checker import check_model  # noqa: E402
from toolkit.onnx_bridge.shape_infer import infer_types, registry_for  # noqa: E402


def _model() -> object:
    """F(x1, x2) -> (a, b) with a = x1 and b = x2; called as y = F(p, q) with p untyped and q
    float, then z = Add(y, r) with r and z int64: y is F's first output, whose type is unknown."""
    body = [helper.make_node("Identity", ["x1"], ["a"]), helper.make_node("Identity", ["x2"], ["b"])]
    function = helper.make_function(
        "local", "F", ["x1", "x2"], ["a", "b"], body, [helper.make_opsetid("", 18)]
    )
    untyped = onnx.ValueInfoProto()
    untyped.name = "p"
    inputs = [
        untyped,
        helper.make_tensor_value_info("q", TensorProto.FLOAT, [2]),
        helper.make_tensor_value_info("r", TensorProto.INT64, [2]),
    ]
    nodes = [
        helper.make_node("F", ["p", "q"], ["y"], domain="local"),
        helper.make_node("Add", ["y", "r"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("z", TensorProto.INT64, [2])]
    )
    imports = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]
    return helper.make_model(graph, opset_imports=imports, functions=[function])


def test_a_call_naming_fewer_outputs_types_them_by_position() -> None:
    types = infer_types(_model(), registry_for(None))
    assert "y" not in types  # F's first output is untyped (its second, float, is not y's)


def test_no_finding_from_a_later_output_s_type() -> None:
    rules = [finding.rule for finding in check_model(_model(), registry_for(None)).findings]
    assert rules == ["MODEL-IO-TYPE-INCOMPLETE"]  # graph input 'p' has no type; nothing about Add
