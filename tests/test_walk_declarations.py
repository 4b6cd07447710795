"""The model walk's reading of a graph's declarations (#27: read list by list, each item once).

check-model's graph checks take the count of value_info entries with an empty name from what the
walk read (walk_checks), and a graph whose declarations repeat a name has its type and shape from
one entry (check.types.declarations): both against the separate passes (`fast=False`) and the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.cli import main  # noqa: E402
from toolkit.onnx_bridge.catalog import onnx_unchecked_attributes  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.shape_infer import infer_model_shapes  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F = TensorProto.FLOAT
EMPTY = "a value_info entry has an empty name"


def _vi(name: str, shape: list[Any]) -> Any:
    return helper.make_tensor_value_info(name, F, shape)


def _model() -> Any:
    """Two unnamed value_info entries in the main graph, one in an If branch."""
    branch = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"])], "then", [], [_vi("t", [2, 3])], value_info=[_vi("", [1])]
    )
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [_vi("e", [2, 3])])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=other),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [_vi("x", [2, 3]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [_vi("y", [2, 3])],
        value_info=[_vi("", [2]), _vi("r", [2, 3]), _vi("", [3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _findings(model: Any, registry: Registry, fast: bool) -> list[tuple[str, str, str]]:
    result = check_model(model, registry, unchecked_attributes=onnx_unchecked_attributes(), fast=fast)
    return [(f.rule, f.path, f.message) for f in result.findings]


def test_unnamed_value_info_entries_are_each_reported_as_the_separate_pass_does(
    onnx_registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _model()
    found = _findings(model, onnx_registry, fast=True)
    assert found == _findings(model, onnx_registry, fast=False)
    empty = [(path, message) for rule, path, message in found if rule == "MODEL-NAME-EMPTY"]
    assert [message for _, message in empty] == [EMPTY] * 3
    assert sum(path.endswith("then_branch") for path, _ in empty) == 1
    path = tmp_path / "unnamed.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 1
    assert capsys.readouterr().out.count(EMPTY) == 3


def test_a_name_declared_twice_takes_its_shape_from_the_entry_of_its_type(onnx_registry: Registry) -> None:
    """x is a graph input of shape [2, ?] and a value_info of shape [?, 3]: the input declares x,
    its type and its shape alike (as onnx's inference reads it), so the walk sees [2, ?], and so
    does the Relu reading it, as onnx infers."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [_vi("x", [2, None])],
        [helper.make_tensor_value_info("y", F, None)],
        value_info=[_vi("x", [None, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    shapes = infer_model_shapes(model, onnx_registry).shapes
    assert shapes["x"] == (2, None)
    assert shapes["y"] == (2, None)
    theirs = onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output[0]
    assert [d.dim_value or None for d in theirs.type.tensor_type.shape.dim] == [2, None]
