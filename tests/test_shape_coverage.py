"""Shape coverage (#27, second step): the ai.onnx (and ai.onnx.ml, preview, training) shape rules
judged on every one-node case of onnx's own backend node tests, against onnx's C++ inference in
the same run: never a wrong shape, and at least as many right as onnx. Plus the engine's
variadic outputs, the built-ins this step added, and the constant folding of shape values.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.model.spec import FormalParameter, OpSchema, ParamOption, ShapeText
from toolkit.shapes.engine import bind_inputs, infer
from toolkit.shapes.values import Sym, Value

onnx = pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def judged(onnx_registry: Any, onnx_node_cases: list[Any]) -> tuple[Any, Any, dict[str, str]]:
    from toolkit.onnx_bridge.shape_compare import judge
    from toolkit.onnx_bridge.shape_write import infer_shapes

    cases = [c for c in onnx_node_cases if len(c.model.graph.node) == 1]
    ops = {c.name: c.model.graph.node[0].op_type for c in cases}
    theirs = judge(cases, onnx.shape_inference.infer_shapes)
    ours = judge(cases, lambda model: infer_shapes(model, onnx_registry))
    return theirs, ours, ops


def test_never_a_wrong_shape_on_every_onnx_node_case(judged: tuple[Any, Any, dict[str, str]]) -> None:
    theirs, ours, _ = judged
    assert theirs.right + theirs.wrong + theirs.unknown > 1400  # the whole set, not a subset
    assert ours.wrong == 0, ours.wrong_cases


def test_as_many_right_as_onnx_on_every_onnx_node_case(judged: tuple[Any, Any, dict[str, str]]) -> None:
    theirs, ours, ops = judged
    missed = sorted(
        f"{ops[c.split(':')[0]]}: {c}" for c in set(ours.unknown_cases) - set(theirs.unknown_cases)
    )
    assert ours.right >= theirs.right, missed


def _variadic(rule: str, inputs: tuple[str, ...] = ("X",)) -> OpSchema:
    """An operator with one single output and a variadic one, each with a rule."""
    return OpSchema(
        "com.test",
        "Op",
        1,
        inputs=tuple(FormalParameter(n, "T") for n in inputs),
        outputs=(
            FormalParameter("first", "T", shape=ShapeText("X")),
            FormalParameter("rest", "T", option=ParamOption.VARIADIC, shape=ShapeText(rule)),
        ),
    )


def _infer(schema: OpSchema, shapes: list[Value], outputs: int | None, **attrs: Value) -> Any:
    counter = itertools.count()
    return infer(schema, bind_inputs(schema, shapes), attrs, {}, lambda: Sym(f"s{next(counter)}"), outputs)


def test_a_variadic_output_gets_one_shape_per_value_the_node_gives() -> None:
    schema = _variadic("[X[0:1] ++ [k] for k in 1..output_count()]")
    result = _infer(schema, [(5, 2)], 4)  # the node gives `first` and three values of `rest`
    assert result.outputs == ((5, 2), (5, 1), (5, 2), (5, 3)) and result.has_rule == (True,) * 4
    # a rule whose list is not as long as the node's outputs gives unknown shapes, not a guess
    assert _infer(_variadic("[X, X]"), [(5, 2)], 4).outputs == ((5, 2), None, None, None)
    # without the node's output count (the public API as before) the variadic output is unknown
    assert _infer(schema, [(5, 2)], None).outputs == ((5, 2), None)


@pytest.mark.parametrize(
    ("rule", "shapes", "outputs", "want", "finding"),
    [
        ("split(X, 1, [2, 3], output_count() - 1)", [(4, 5)], 3, ((4, 2), (4, 3)), None),
        ("split(X, -1, [], output_count() - 1)", [(4, 6)], 4, ((4, 2), (4, 2), (4, 2)), None),
        ("split(X, 0, [], output_count() - 1)", [(7, 1)], 4, ((3, 1), (3, 1), (1, 1)), None),  # last smaller
        ("split(X, 0, [], output_count() - 1)", [(Sym("N"), 1)], 3, ((None, 1), (None, 1)), None),
        ("split(X, 1, [2, 2], output_count() - 1)", [(4, 5)], 3, (None, None), "add up to 4, the axis has 5"),
        ("split(X, 1, [5], output_count() - 1)", [(4, 5)], 3, (None, None), "1 split sizes for 2 outputs"),
        ("split(X, 2, [], output_count() - 1)", [(4, 5)], 2, (None,), "axis 2 is out of range"),
    ],
)
def test_split_builtin(
    rule: str, shapes: list[Value], outputs: int, want: tuple[Any, ...], finding: str | None
) -> None:
    result = _infer(_variadic(rule), shapes, outputs)
    assert result.outputs[1:] == want
    assert any(finding in f for f in result.findings) if finding else not result.findings


def _single(rule: str, inputs: tuple[str, ...], variadic: bool = False) -> OpSchema:
    option = ParamOption.VARIADIC if variadic else ParamOption.SINGLE
    return OpSchema(
        "com.test",
        "Op",
        1,
        inputs=tuple(FormalParameter(n, "T", option=option) for n in inputs),
        outputs=(FormalParameter("Y", "T", shape=ShapeText(rule)),),
    )


@pytest.mark.parametrize(
    ("equation", "shapes", "want", "finding"),
    [
        ("bij, bjk -> bik", [(5, 2, 3), (5, 3, 4)], (5, 2, 4), None),
        ("ij->ji", [(3, 4)], (4, 3), None),
        ("...ii ->...i", [(3, 5, 5)], (3, 5), None),
        ("i,i", [(5,), (5,)], (), None),
        ("ij,jk", [(2, 3), (3, 4)], (2, 4), None),  # implicit: labels used once, sorted
        ("...j,...j", [(2, 1, 3), (4, 3)], (2, 4), None),  # the ellipsis broadcasts
        ("ij,jk->ik", [(2, 3), (1, 4)], (2, 4), None),  # a size 1 against 3: j is not in the output
        ("ij,jk->ij", [(2, 3), (1, 4)], (2, None), None),  # ... and unknown where it is
        ("ij,jk->ik", [(2, 3), (5, 4)], None, "the label 'j' has sizes 3 and 5"),
        ("ij->k", [(2, 3)], None, "the output label 'k' is in no input"),
        ("ijk->i", [(2, 3)], None, "does not fit an input of rank 2"),
        ("i$j->i", [(2, 3)], None, None),  # not an equation: unknown, no finding
    ],
)
def test_einsum_builtin(equation: str, shapes: list[Value], want: Any, finding: str | None) -> None:
    result = _infer(_single("einsum(X, @equation)", ("X",), variadic=True), shapes, 1, equation=equation)
    assert result.outputs[0] == want
    assert any(finding in f for f in result.findings) if finding else not result.findings


@pytest.mark.parametrize(
    ("rule", "want"),
    [
        # onnx's ConvTranspose cases worked by hand: stride * (in - 1) + output_padding + kernel - pads
        ("conv_transpose_out([3, 3], [3, 3], [], [3, 2], [], [1, 1], [], 'NOTSET')", (10, 8)),
        ("conv_transpose_out([3, 3], [3, 3], [1, 2, 1, 2], [3, 2], [], [], [], 'NOTSET')", (7, 3)),
        ("conv_transpose_out([3, 3], [2, 2], [], [], [2, 2], [], [], 'NOTSET')", (5, 5)),
        ("conv_transpose_out([3, 3], [3, 3], [], [2, 2], [], [], [], 'SAME_UPPER')", (6, 6)),
        ("conv_transpose_out([3, 3], [3, 3], [], [3, 2], [], [], [10, 8], 'NOTSET')", (10, 8)),
        ("conv_transpose_out([3, X[0]], [3, 3], [], [], [], [], [], 'NOTSET')", (5, None)),
        ("[max(X), min(X), max(2, 9, 4)]", (7, 1, 9)),
    ],
)
def test_conv_transpose_out_and_max_of_a_list(rule: str, want: Any) -> None:
    shapes: list[Value] = [(1, 7, 3)] if "max(X)" in rule else [(Sym("N"),)]
    assert _infer(_single(rule, ("X",)), shapes, 1).outputs[0] == want


def test_a_variadic_outputs_rule_must_give_a_list_of_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "com.test.shapes"
    folder.mkdir()
    (folder / "domain.yaml").write_text(
        "domain: com.test.shapes\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
    )
    spec = folder / "Cut.yaml"
    spec.write_text(
        "operator: Cut\ndomain: com.test.shapes\nversions:\n  - since_version: 1\n    doc: Cuts.\n"
        "    inputs:\n      - {name: X, type: tensor(float)}\n"
        "    outputs:\n      - {name: Y, type: tensor(float), option: variadic, shape: 'X[1:]'}\n"
    )
    assert main(["validate", str(tmp_path), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["rule"], d["line"]) for d in found] == [("SHAPE-TYPE", 9)]
    assert "a list of shapes, one per value of the variadic output" in found[0]["message"]
    spec.write_text(spec.read_text().replace("'X[1:]'", "'[X[1:] for k in 0..output_count()]'"))
    assert main(["validate", str(tmp_path)]) == 0


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], opset: int = 21) -> Any:
    from onnx import helper

    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _dims(info: Any) -> list[Any]:
    return [
        d.dim_param or (d.dim_value if d.HasField("dim_value") else "?")
        for d in info.type.tensor_type.shape.dim
    ]


def test_subgraphs_if_scan_and_loop(tmp_path: Path, onnx_registry: Any) -> None:
    from onnx import TensorProto, helper

    from toolkit.onnx_bridge.shape_write import infer_shapes

    v = helper.make_tensor_value_info
    outer = v("X", TensorProto.FLOAT, ["N", 3])
    # If: the branches read X from the outer graph; they agree on [N, 3] and differ on the axis
    # they concatenate, which is unknown, never one of the branches' sizes
    then = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["t"]), helper.make_node("Concat", ["X", "X"], ["t2"], axis=1)],
        "then", [], [v("t", TensorProto.FLOAT, None), v("t2", TensorProto.FLOAT, None)],
    )  # fmt: skip
    other = helper.make_graph(
        [helper.make_node("Neg", ["X"], ["e"]), helper.make_node("Identity", ["X"], ["e2"])],
        "else", [], [v("e", TensorProto.FLOAT, None), v("e2", TensorProto.FLOAT, None)],
    )  # fmt: skip
    body = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node("Add", ["s", "r"], ["s2"]),
            helper.make_node("Unsqueeze", ["s2", "ax"], ["y"]),
        ],
        "body",
        [v("s", TensorProto.FLOAT, None), v("x", TensorProto.FLOAT, None)],
        [v("s2", TensorProto.FLOAT, None), v("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("ax", TensorProto.INT64, [1], [0])],
    )
    model = _model(
        [
            helper.make_node("If", ["c"], ["A", "B"], then_branch=then, else_branch=other),
            helper.make_node(
                "Scan", ["S", "X"], ["F", "Z"], body=body, num_scan_inputs=1, scan_output_axes=[1]
            ),
        ],
        [v("c", TensorProto.BOOL, []), outer, v("S", TensorProto.FLOAT, [3])],
        [v(n, TensorProto.FLOAT, None) for n in "ABFZ"],
    )
    out = infer_shapes(model, onnx_registry)
    got = {o.name: _dims(o) for o in out.graph.output}
    assert got == {"A": ["N", 3], "B": ["N", "?"], "F": [3], "Z": [1, "N", 3]}
    # the bodies' own values get value_info inside the subgraph, as onnx writes them
    inner = {i.name: _dims(i) for i in out.graph.node[1].attribute[0].g.value_info}
    assert inner == {"r": [3]}
    assert {o.name: _dims(o) for o in out.graph.node[1].attribute[0].g.output}["y"] == [1, 3]


def test_an_optional_value_gets_no_tensor_type(onnx_registry: Any) -> None:
    from onnx import TensorProto, helper

    from toolkit.onnx_bridge.shape_write import infer_shapes

    optional = helper.make_value_info(
        "O", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2, 3]))
    )
    model = _model(
        [helper.make_node("Identity", ["O"], ["P"]), helper.make_node("OptionalGetElement", ["P"], ["T"])],
        [optional],
        [helper.make_tensor_value_info("T", TensorProto.FLOAT, None)],
    )
    out = infer_shapes(model, onnx_registry)
    assert _dims(out.graph.output[0]) == [2, 3]
    assert all(not i.type.HasField("tensor_type") for i in out.graph.value_info if i.name == "P")


def test_every_overlay_entry_gives_its_rules_to_every_version_it_names() -> None:
    """The overlays pick, per onnx version, the first alternative whose rules check in that
    version's scope; an entry none of whose alternatives checks would be dropped without a word
    (a rule with a type error, or an entry whose `from`/`until` names versions it does not fit)."""
    from toolkit.onnx_bridge.shape_overlay import entry_fits, load_shape_overlay, load_value_overlay

    schemas = onnx.defs.get_all_schemas_with_history()
    unfit = [
        f"{'value' if value else 'shape'} rules of {schema.domain or 'ai.onnx'} {schema.name}-{schema.since_version}"
        for overlay, value in ((load_shape_overlay(), False), (load_value_overlay(), True))
        for domain, entries in overlay.items()
        for entry in entries
        for schema in schemas
        if schema.domain == domain
        and schema.name in entry.ops
        and entry.low <= schema.since_version <= entry.high
        and not entry_fits(entry, schema, value)
    ]
    assert unfit == []
