"""Shape inference (#27), fourth step: the walk reuses a node's result for another node that
depends on the same things (and never one that minted a fresh symbol)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402


def _model(nodes: list[Any], inputs: list[Any], initializers: Sequence[Any] = ()) -> Any:
    outputs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes]
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _shapes(model: Any, registry: Any) -> dict[str, Any]:
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    return infer_model_shapes(model, registry).shapes


def test_memo_reuses_equal_nodes_and_keeps_apart_what_the_rules_read(
    onnx_registry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolkit.onnx_bridge.shape_infer as walk

    calls: list[str] = []
    real = walk.infer

    def counted(schema: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(schema.name)
        return real(schema, *args, **kwargs)

    monkeypatch.setattr(walk, "infer", counted)
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])
    shape_a = helper.make_tensor("sa", TensorProto.INT64, [2], [6, 4])
    shape_b = helper.make_tensor("sb", TensorProto.INT64, [2], [4, 6])
    nodes = [helper.make_node("Relu", ["X"], [f"r{i}"]) for i in range(50)]
    nodes += [
        helper.make_node("Transpose", ["X"], ["t1"], perm=[2, 1, 0]),
        helper.make_node("Transpose", ["X"], ["t2"], perm=[1, 0, 2]),  # same input, another perm
        helper.make_node("Transpose", ["X"], ["t3"], perm=[2, 1, 0], name="unread"),
        helper.make_node("Reshape", ["X", "sa"], ["s1"]),
        helper.make_node("Reshape", ["X", "sb"], ["s2"]),  # same input shape, another constant
        helper.make_node("NonZero", ["X"], ["n1"]),
        helper.make_node("NonZero", ["X"], ["n2"]),
    ]
    shapes = _shapes(_model(nodes, [x], [shape_a, shape_b]), onnx_registry)
    assert all(shapes[f"r{i}"] == (2, 3, 4) for i in range(50))
    assert shapes["t1"] == shapes["t3"] == (4, 3, 2) and shapes["t2"] == (3, 2, 4)
    assert shapes["s1"] == (6, 4) and shapes["s2"] == (4, 6)
    # a data-dependent size is a fresh symbol on each node, never one node's symbol reused
    assert shapes["n1"][0] == 3 and shapes["n2"][0] == 3 and shapes["n1"][1] != shapes["n2"][1]
    assert calls.count("Relu") == 1 and calls.count("Transpose") == 2 and calls.count("Reshape") == 2
    assert calls.count("NonZero") == 2
