"""check-model in one traversal (#27, #24): the graph checks and the node checks run beside the
model walk (toolkit/onnx_bridge/check/walk_checks.py) on the fields it read of each node, and
find what the separate passes (`check_model(..., fast=False)`) find, in the same order.

Corpus-wide agreement (onnx's node test models, random mutants) is `assert_fast_path_agrees` in
tests/test_check_fastpath.py and tests/test_check_model.py, which compares exactly these two runs.
"""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.check import check_model, checker, fastpath, graph_checks, walk_checks  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F32, I32 = TensorProto.FLOAT, TensorProto.INT32


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], value_info: Any = ()) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def _branches(first: str = "then_branch") -> Any:
    """An If whose branches each hold a node with an attribute Relu does not have (a node finding
    inside each subgraph), and which itself has one too; `first`: the branch attribute set first."""
    then = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"], bogus=1)],
        "then",
        [],
        [helper.make_tensor_value_info("t", F32, [2])],
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"], bogus=2)],
        "else",
        [],
        [helper.make_tensor_value_info("e", F32, [2])],
    )
    node = helper.make_node("If", ["c"], ["y"], bogus=3)
    ordered = [("then_branch", then), ("else_branch", other)]
    if first != "then_branch":
        ordered.reverse()
    node.attribute.extend(helper.make_attribute(name, g) for name, g in ordered)
    return _model(
        [node],
        [
            helper.make_tensor_value_info("x", F32, [2]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", F32, [2])],
    )


def _same(model: Any, registry: Registry) -> list[tuple[str, str, str]]:
    folded = check_model(model, registry)
    separate = check_model(model, registry, fast=False)
    assert folded.findings == separate.findings
    assert folded.nodes == separate.nodes
    return [(f.rule, f.path, f.message) for f in folded.findings]


def test_a_clean_model_is_traversed_once(onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """No separate graph-check or node-check pass: each node (subgraphs' included) is handed to the
    checks once, by the walk, with the lists the walk read."""

    def separate_pass(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a separate pass over the graph ran")

    seen: list[str] = []
    after = walk_checks.GraphCheck.after

    def counted(self: walk_checks.GraphCheck, mark: int, node: Any, index: int, *rest: Any) -> None:
        seen.append(f"{self.path}/{index}")
        after(self, mark, node, index, *rest)

    monkeypatch.setattr(graph_checks, "check_graph", separate_pass)
    monkeypatch.setattr(checker._Walk, "graph", separate_pass)
    monkeypatch.setattr(fastpath, "clean", separate_pass)
    monkeypatch.setattr(walk_checks.GraphCheck, "after", counted)
    f32 = [helper.make_tensor_value_info(n, F32, [2]) for n in ("x", "t", "e")]
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [], [f32[1]])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [f32[2]])
    model = _model(
        [
            helper.make_node("Abs", ["x"], ["a"]),
            helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
        ],
        [f32[0], helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", F32, [2])],
    )
    result = check_model(model, onnx_registry)
    assert result.findings == () and result.nodes == 4
    assert sorted(seen) == sorted(["g/0", "g/1", "g/If/1/then_branch/0", "g/If/1/else_branch/0"])


def test_a_node_s_findings_come_before_its_subgraphs(onnx_registry: Registry) -> None:
    """The If's own finding is only known once its branches are walked (its output types come from
    them), yet it is reported before theirs, as the node pass orders them."""
    found = _same(_branches(), onnx_registry)
    assert [(rule, path) for rule, path, _ in found] == [
        ("MODEL-ATTR-UNKNOWN", "g/If/0"),
        ("MODEL-ATTR-UNKNOWN", "g/If/0/then_branch/Relu/0"),
        ("MODEL-ATTR-UNKNOWN", "g/If/0/else_branch/Neg/0"),
    ]


def test_subgraphs_out_of_attribute_order_give_the_separate_passes_findings(onnx_registry: Registry) -> None:
    """The walk visits then_branch first; set after else_branch, the checks' order is the
    attributes': check_model runs the separate passes (`exact` is False)."""
    found = _same(_branches(first="else_branch"), onnx_registry)
    assert [path for _, path, _ in found] == [
        "g/If/0",
        "g/If/0/else_branch/Neg/0",
        "g/If/0/then_branch/Relu/0",
    ]


def test_a_value_read_before_it_is_defined_is_type_checked_as_the_separate_pass_does(
    onnx_registry: Registry,
) -> None:
    """Sigmoid reads `y` before the Cast that makes it int32: when the walk reaches Sigmoid, `y`
    has no type yet, but the node pass (after the walk) sees int32 and reports it. The findings
    are that pass's: the order finding makes the walk's view inexact."""
    model = _model(
        [helper.make_node("Sigmoid", ["y"], ["z"]), helper.make_node("Cast", ["x"], ["y"], to=I32)],
        [helper.make_tensor_value_info("x", F32, [2])],
        [helper.make_tensor_value_info("z", F32, [2])],
    )
    rules = [rule for rule, _, _ in _same(model, onnx_registry)]
    assert "MODEL-NODE-ORDER" in rules and "MODEL-TYPE-NOT-ALLOWED" in rules


def test_a_declared_unknown_type_hides_the_inferred_one_from_the_node_checks(onnx_registry: Registry) -> None:
    """A value_info with a type but no element type: the walk infers int32 for `y`, the node
    checks read the declaration (unknown: nothing to check), as the node pass does."""
    unknown = helper.make_value_info("y", onnx.TypeProto(tensor_type=onnx.TypeProto.Tensor()))
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=I32), helper.make_node("Sigmoid", ["y"], ["z"])],
        [helper.make_tensor_value_info("x", F32, [2])],
        [helper.make_tensor_value_info("z", F32, [2])],
        value_info=[unknown],
    )
    assert [rule for rule, _, _ in _same(model, onnx_registry)] == []
