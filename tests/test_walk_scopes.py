"""The model walk keeps each graph's values apart (#27's review): sibling subgraphs (If's branches,
a Loop's body, a function's body) that reuse a value name each have their own inferred type and
declared outputs, and a name declared twice takes its type and its shape from one entry.

Each model is built here and judged by onnx in the same test (`onnx.checker.check_model(
full_check=True)`, `onnx.shape_inference.infer_shapes(strict_mode=True)`); check-model's findings
are the same whether the walk runs the checks (the model as is), the separate passes run them
(the model with one unrelated problem, a read of an undefined value, which sends check_model to
them) or every node is checked by the reporting checker (`fast=False`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.cli import main  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.shape_infer import infer_model_shapes, infer_types  # noqa: E402
from toolkit.onnx_bridge.shape_write import infer_shapes  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
Finding = tuple[str, str, str]  # (rule, path, message)


def _vi(name: str, elem: int = F32, shape: list[Any] | None = None) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(
    nodes: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    value_info: list[Any] = (),  # type: ignore[assignment]
    functions: list[Any] = (),  # type: ignore[assignment]
) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=list(value_info))
    imports = [helper.make_opsetid("", 18)] + ([helper.make_opsetid("local", 1)] if functions else [])
    return helper.make_model(graph, opset_imports=imports, functions=list(functions), ir_version=8)


def _onnx_accepts(model: Any) -> bool:
    """onnx's verdict: its full check (strict shape inference included) passes."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        return False
    return True


def _findings(model: Any, registry: Registry) -> list[Finding]:
    """check-model's findings, asserted the same on its three ways of checking (module doc)."""

    def of(checked: Any, fast: bool = True) -> list[Finding]:
        return [(f.rule, f.path, f.message) for f in check_model(checked, registry, fast=fast).findings]

    walked = of(model)
    assert of(model, fast=False) == walked
    broken = onnx.ModelProto()
    broken.CopyFrom(model)
    broken.graph.node.append(helper.make_node("Relu", ["nowhere"], ["unused"]))
    extra = f"g/Relu/{len(model.graph.node)}"
    separate = of(broken)
    assert ("MODEL-VALUE-UNDEFINED", extra) in {(rule, path) for rule, path, _ in separate}
    assert [f for f in separate if f[1] != extra] == walked
    return walked


def _written(graph: Any) -> dict[str, tuple[int, list[int | None]]]:
    """The value_info of a graph: name -> (element type, static dims)."""
    return {
        info.name: (
            info.type.tensor_type.elem_type,
            [d.dim_value if d.HasField("dim_value") else None for d in info.type.tensor_type.shape.dim],
        )
        for info in graph.value_info
    }


def _graphs(model: Any) -> dict[str, Any]:
    """Every subgraph of the main graph by its attribute path (node index / attribute name)."""
    return {
        f"{index}/{attr.name}": attr.g
        for index, node in enumerate(model.graph.node)
        for attr in node.attribute
        if attr.HasField("g")
    }


def _siblings() -> Any:
    """Three graphs define 't' with different types, each consistently: If's then_branch (int64),
    its else_branch (float), a Loop's body (int64); a local function's body defines 'y0', a value
    of the main graph too, as int64. onnx accepts it."""
    then_branch = helper.make_graph(
        [
            helper.make_node("Cast", ["x"], ["t"], to=I64),
            helper.make_node("Add", ["t", "ci"], ["u"]),
            helper.make_node("Cast", ["u"], ["o0"], to=F32),
        ],
        "then",
        [],
        [_vi("o0", F32, [2])],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["t"]), helper.make_node("Add", ["t", "x"], ["o1"])],
        "else",
        [],
        [_vi("o1", F32, [2])],
    )
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c"], ["c_out"]),
            helper.make_node("Cast", ["s"], ["t"], to=I64),
            helper.make_node("Add", ["t", "ci"], ["v"]),
            helper.make_node("Cast", ["v"], ["s_out"], to=F32),
        ],
        "body",
        [_vi("i", I64, []), _vi("c", BOOL, []), _vi("s", F32, [2])],
        [_vi("c_out", BOOL, []), _vi("s_out", F32, [2])],
    )
    function = helper.make_function(
        "local",
        "F",
        ["a"],
        ["r"],
        [helper.make_node("Cast", ["a"], ["y0"], to=I64), helper.make_node("Cast", ["y0"], ["r"], to=F32)],
        opset_imports=[helper.make_opsetid("", 18)],
    )
    nodes = [
        helper.make_node("If", ["b"], ["y0"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Loop", ["n", "", "x"], ["y1"], body=body),
        helper.make_node("F", ["y0"], ["y2"], domain="local"),
        helper.make_node("Add", ["y1", "y2"], ["y"]),
    ]
    inputs = [_vi("b", BOOL, []), _vi("n", I64, []), _vi("x", F32, [2]), _vi("ci", I64, [2])]
    return _model(nodes, inputs, [_vi("y", F32, [2])], functions=[function])


def test_sibling_graphs_reusing_a_name_keep_their_own_types(
    onnx_registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The separate passes read each graph's own inferred types: no TYPE-INCONSISTENT invented at
    the else_branch's Add from the Loop body's int64 't'; infer_shapes writes each graph's 't'
    with its own type, as onnx does."""
    model = _siblings()
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []
    path = tmp_path / "siblings.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 0
    assert "error[" not in capsys.readouterr().out

    ours, theirs = (
        infer_shapes(model, onnx_registry),
        onnx.shape_inference.infer_shapes(model, strict_mode=True),
    )
    mine, onnx_graphs = _graphs(ours), _graphs(theirs)
    assert {at: _written(g)["t"][0] for at, g in mine.items()} == {
        "0/then_branch": I64,
        "0/else_branch": F32,
        "1/body": I64,
    }
    for at, graph in mine.items():
        expected = _written(onnx_graphs[at])
        assert {name: expected[name] for name in _written(graph)} == _written(graph), at

    result = infer_model_shapes(model, onnx_registry)
    assert "t" not in result.types  # the main graph's own: none of its nodes defines 't'
    assert {sub.graph.name: sub.types["t"] for sub in result.subgraphs} == {
        "then": "tensor(int64)",
        "else": "tensor(float)",
        "body": "tensor(int64)",
    }
    assert result.types["y0"] == "tensor(float)"  # not the function body's int64 'y0'
    # the one-map view keeps the first walked graph's type of a name (the main graph first)
    flat = infer_types(model, onnx_registry)
    assert flat["t"] == result.subgraphs[0].types["t"] and flat["y0"] == "tensor(float)"


def test_a_finding_in_one_sibling_is_found_on_every_path(onnx_registry: Registry) -> None:
    """then_branch's 't' is float, else_branch's int64, and else_branch adds it to a float: onnx
    rejects the else_branch's Add, and so does check-model, on the walk and on the separate
    passes alike (they read the then_branch's float 't' there before)."""

    def branch(name: str, to: int) -> Any:
        nodes = [helper.make_node("Cast", ["x"], ["t"], to=to), helper.make_node("Add", ["t", "c"], ["o"])]
        return helper.make_graph(nodes, name, [], [_vi("o", F32, [2])])

    node = helper.make_node(
        "If", ["b"], ["y"], then_branch=branch("then", F32), else_branch=branch("else", I64)
    )
    model = _model([node], [_vi("b", BOOL, []), _vi("x", F32, [2]), _vi("c", F32, [2])], [_vi("y", F32, [2])])
    assert not _onnx_accepts(model)
    with pytest.raises(onnx.shape_inference.InferenceError, match="Add"):
        onnx.shape_inference.infer_shapes(model, strict_mode=True)
    found = _findings(model, onnx_registry)
    assert {(rule, path) for rule, path, _ in found} == {
        ("MODEL-TYPE-INFERRED-MISMATCH", "g/If/0/else_branch/Add/1"),
        ("MODEL-TYPE-INCONSISTENT", "g/If/0/else_branch/Add/1"),
    }


def test_a_graph_s_declared_outputs_are_its_own(onnx_registry: Registry, tmp_path: Path) -> None:
    """If/0's then_branch declares an output 'o' of shape [5]; If/1's then_branch defines its own
    'o' (a Relu of x: [2]) and declares only 'p'. onnx accepts it: no MODEL-SHAPE-MISMATCH at
    If/1's Relu, and 'o', 'p' get their shapes, written as onnx writes them."""

    def branch(name: str, nodes: list[Any], output: Any) -> Any:
        return helper.make_graph(nodes, name, [], [output])

    if0 = helper.make_node(
        "If",
        ["b"],
        ["y0"],
        then_branch=branch("t0", [helper.make_node("Identity", ["big"], ["o"])], _vi("o", F32, [5])),
        else_branch=branch("e0", [helper.make_node("Identity", ["big"], ["o2"])], _vi("o2", F32, [5])),
    )
    relu_then_copy = [helper.make_node("Relu", ["x"], ["o"]), helper.make_node("Identity", ["o"], ["p"])]
    if1 = helper.make_node(
        "If",
        ["b"],
        ["y1"],
        then_branch=branch("t1", relu_then_copy, _vi("p", F32, [2])),
        else_branch=branch("e1", [helper.make_node("Identity", ["x"], ["q"])], _vi("q", F32, [2])),
    )
    inputs = [_vi("b", BOOL, []), _vi("x", F32, [2]), _vi("big", F32, [5])]
    model = _model([if0, if1], inputs, [_vi("y0", F32, [5]), _vi("y1", F32, [2])])
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []
    result = infer_model_shapes(model, onnx_registry)
    assert result.conflicts == []
    t1 = next(sub for sub in result.subgraphs if sub.graph.name == "t1")
    assert t1.shapes == {"o": (2,), "p": (2,)}
    ours = _written(_graphs(infer_shapes(model, onnx_registry))["1/then_branch"])
    theirs = _written(_graphs(onnx.shape_inference.infer_shapes(model, strict_mode=True))["1/then_branch"])
    assert ours == {"o": (F32, [2])} == {name: theirs[name] for name in ours}
    path = tmp_path / "outputs.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 0


def _untyped(name: str) -> Any:
    """A value_info entry with a type field of unknown element type and no shape."""
    entry = onnx.ValueInfoProto(name=name)
    entry.type.tensor_type.elem_type = TensorProto.UNDEFINED
    return entry


# two value_info entries for 'y' (Relu(x: float[2, 3]) -> y -> Relu -> z: float[2, 3]); onnx reads
# the last entry with a type field as the declaration, type and shape alike
DUPLICATES: dict[str, tuple[list[Any], set[tuple[str, str]]]] = {
    "identical": ([_vi("y", F32, [2, 3]), _vi("y", F32, [2, 3])], set()),
    "last one right (type)": ([_vi("y", I64, [2, 3]), _vi("y", F32, [2, 3])], set()),
    "last one right (shape)": ([_vi("y", F32, [4, 5]), _vi("y", F32, [2, 3])], set()),
    "last one of unknown type": ([_vi("y", I64, [2, 3]), _untyped("y")], set()),
    "last one wrong (type)": (
        [_vi("y", F32, [2, 3]), _vi("y", I64, [2, 3])],
        {
            ("MODEL-TYPE-INFERRED-MISMATCH", "g/Relu/0"),
            ("MODEL-TYPE-INCONSISTENT", "g/Relu/0"),
            ("MODEL-TYPE-INFERRED-MISMATCH", "g/Relu/1"),
            ("MODEL-TYPE-INCONSISTENT", "g/Relu/1"),
        },
    ),
    "last one wrong (shape)": (
        [_vi("y", F32, [2, 3]), _vi("y", F32, [4, 5])],
        {("MODEL-SHAPE-MISMATCH", "g/Relu/0"), ("MODEL-SHAPE-MISMATCH", "g/Relu/1")},
    ),
}


def test_a_name_declared_twice_is_declared_by_one_entry(onnx_registry: Registry) -> None:
    """Duplicate value_info entries: identical ones (as real producers write them) and ones that
    contradict. A finding exactly where onnx's full check fails, of the existing rules (onnx
    reports no duplicate as such: the last entry is the declaration), and the walk's type and
    shape of 'y' both from the last typed entry."""
    nodes = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])]
    for case, (entries, expected) in DUPLICATES.items():
        model = _model(nodes, [_vi("x", F32, [2, 3])], [_vi("z", F32, [2, 3])], value_info=entries)
        found = {(rule, path) for rule, path, _ in _findings(model, onnx_registry)}
        assert found == expected, case
        assert _onnx_accepts(model) == (not expected), case
        result = infer_model_shapes(model, onnx_registry)
        last = entries[-1].type.tensor_type
        assert result.shapes["y"] == (
            tuple(d.dim_value for d in last.shape.dim) if last.shape.dim else (2, 3)
        ), case


def test_a_value_info_entry_and_a_graph_output_of_one_name(onnx_registry: Registry) -> None:
    """'y' is declared by a value_info entry and by a graph output: the output is the declaration
    (its type is read from it, and so is its shape), as onnx reads it."""
    nodes = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])]
    for value_info, output, rejected in (([4, 5], [2, 3], False), ([2, 3], [4, 5], True)):
        outputs = [_vi("z", F32, [2, 3]), _vi("y", F32, output)]
        model = _model(nodes, [_vi("x", F32, [2, 3])], outputs, value_info=[_vi("y", F32, value_info)])
        assert _onnx_accepts(model) == (not rejected)
        found = {(rule, path) for rule, path, _ in _findings(model, onnx_registry)}
        # (onnx fails both Relus: y's declared [4, 5] is what the second reads)
        assert found == (
            {("MODEL-SHAPE-MISMATCH", "g/Relu/0"), ("MODEL-SHAPE-MISMATCH", "g/Relu/1")}
            if rejected
            else set()
        )
