"""The shape engine (#27) and `toolkit.infer_shapes` / `opset infer-shapes`, judged by the real
thing: onnx's own backend node test cases (built in-process) give the true output shapes; onnx's
C++ inference and ours run on the same stripped models in this run. Ours is never wrong, and on
the operators of the first landing it is right wherever onnx is. The built-ins are checked
against sizes worked out by hand, including what they must leave unknown."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.model.spec import Attribute, AttrType, FormalParameter, OpSchema, ParamOption, ShapeText
from toolkit.shapes.engine import bind_inputs, infer
from toolkit.shapes.values import ABSENT, Sym, Value

onnx = pytest.importorskip("onnx")

# The operators of the first landing (tests/test_shape_infer.py holds ours to onnx on them).
FIRST = {
    "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less", "And", "Or", "Xor", "Where", "Max",
    "Min", "Sum", "Mean", "Relu", "Abs", "Neg", "Sqrt", "Exp", "Log", "Sigmoid", "Tanh", "Identity",
    "Cast", "MatMul", "Gemm", "Reshape", "Transpose", "Concat", "Squeeze", "Unsqueeze", "Flatten",
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "Gather", "Conv", "MaxPool", "AveragePool",
    "Shape", "Size", "NonZero",
}  # fmt: skip


def _schema(
    inputs: Sequence[str], shape: str, attributes: Sequence[Attribute] = (), requires: Sequence[str] = ()
) -> OpSchema:
    return OpSchema(
        "com.test",
        "Op",
        1,
        inputs=tuple(
            FormalParameter(
                n.rstrip("*"), "T", option=ParamOption.VARIADIC if n.endswith("*") else ParamOption.SINGLE
            )
            for n in inputs
        ),
        outputs=(FormalParameter("Y", "T", shape=ShapeText(shape)),),
        attributes=tuple(attributes),
        shape_requires=tuple(ShapeText(r, "broken") for r in requires),
    )


def _run(
    schema: OpSchema,
    shapes: Sequence[Value],
    attrs: dict[str, Value] | None = None,
    values: dict[str, tuple[int, ...]] | None = None,
) -> tuple[Any, tuple[str, ...]]:
    counter = itertools.count()
    result = infer(
        schema, bind_inputs(schema, shapes), attrs or {}, values or {}, lambda: Sym(f"f{next(counter)}")
    )
    return result.outputs[0], result.findings


N = Sym("N")


@pytest.mark.parametrize(
    ("inputs", "rule", "shapes", "want"),
    [
        (["A", "B"], "broadcast(A, B)", [(N, 1, 3), (4, 1)], (N, 4, 3)),
        (["A", "B"], "broadcast(A, B)", [(N, 3), (Sym("M"), 3)], (None, 3)),  # N vs M: not known
        (["A", "B"], "broadcast(A, B)", [(N, 3), (N, 3)], (N, 3)),
        (["X*"], "broadcast(X)", [(2, 1), (1, 5), (5,)], (2, 5)),
        (["A", "B"], "matmul(A, B)", [(7, 2, 3), (3, 5)], (7, 2, 5)),
        (["A", "B"], "matmul(A, B)", [(3,), (3, 5)], (5,)),
        (["A", "B"], "matmul(A, B)", [(2, 3), (3,)], (2,)),
        (["A", "B"], "matmul(A, B)", [None, (3, 5)], None),
        (["X"], "[X[0] * 2, X[1] + 0, X[1] * 1]", [(N, N)], (None, N, N)),  # a symbol times 2 is unknown
        (["X"], "X[1:] ++ [X.rank]", [(2, 3, 4)], (3, 4, 3)),
        (["X"], "[X[i] for i in 0..X.rank if X[i] != 1]", [(2, 1, N)], None),  # is N 1? not known
        (["X"], "[X[i] for i in 0..X.rank if X[i] != 1]", [(2, 1, 4)], (2, 4)),
        (["X"], "if X.rank == 2 then X else [0]", [None], None),
        (["X"], "[X[5]]", [(1, 2)], None),  # past the rank: unknown, not an error
    ],
)
def test_engine(inputs: list[str], rule: str, shapes: list[Value], want: Any) -> None:
    got, findings = _run(_schema(inputs, rule), shapes)
    assert got == want and findings == ()


def _window(spatial: Value, attrs: dict[str, Value]) -> Any:
    schema = _schema(
        ["X"],
        "pool_out(X, @k, @pads ?? [], @strides ?? [], @dilations ?? [], @auto_pad, @ceil_mode)",
        [
            Attribute("k", AttrType.INTS),
            Attribute("pads", AttrType.INTS),
            Attribute("strides", AttrType.INTS),
            Attribute("dilations", AttrType.INTS),
            Attribute("auto_pad", AttrType.STRING, default="NOTSET"),
            Attribute("ceil_mode", AttrType.INT, default=0),
        ],
    )
    return _run(schema, [spatial], attrs)[0]


def test_windows() -> None:
    assert _window((32, 32), {"k": (3, 3), "pads": (1, 1, 1, 1), "strides": (2, 2)}) == (16, 16)
    assert _window((5,), {"k": (2,), "strides": (2,)}) == (2,)
    assert _window((5,), {"k": (2,), "strides": (2,), "ceil_mode": 1}) == (3,)
    assert _window((5,), {"k": (3,), "strides": (2,), "auto_pad": "SAME_UPPER"}) == (3,)
    assert _window((5,), {"k": (3,), "strides": (2,), "auto_pad": "VALID"}) == (2,)
    assert _window((7,), {"k": (3,), "dilations": (2,)}) == (3,)
    assert _window((N,), {"k": (3,)}) == (None,)


def test_reshape_and_reduce() -> None:
    reshape = _schema(
        ["X", "S"], "reshape(X, value(S), @allowzero)", [Attribute("allowzero", AttrType.INT, default=0)]
    )
    assert _run(reshape, [(2, 3, 4), (3,)], values={"S": (0, -1, 2)})[0] == (2, 6, 2)
    assert _run(reshape, [(2, 3, 4), (3,)], {"allowzero": 1}, {"S": (0, 4, 6)})[0] == (0, 4, 6)
    assert _run(reshape, [(2, 3, 4), (2,)])[0] is None  # the shape input is not constant
    assert _run(reshape, [(2, 3, 4), (2,)], values={"S": (5, -1)})[1]  # 24 elements into 5 x -1
    reduce = _schema(
        ["X", "axes"],
        "reduce(X, value(axes) ?? [], @keepdims, @noop)",
        [Attribute("keepdims", AttrType.INT, default=1), Attribute("noop", AttrType.INT, default=0)],
    )
    assert _run(reduce, [(2, 3, 4), (1,)], values={"axes": (-1,)})[0] == (2, 3, 1)
    assert _run(reduce, [(2, 3, 4), (1,)], {"keepdims": 0}, {"axes": (-1,)})[0] == (2, 3)
    assert _run(reduce, [(2, 3, 4), ABSENT], {"keepdims": 0})[0] == ()
    assert _run(reduce, [(2, 3, 4), ABSENT], {"noop": 1})[0] == (2, 3, 4)
    assert _run(reduce, [(2, 3, 4), (1,)])[0] == (None, None, None)  # axes not constant, keepdims
    assert _run(reduce, [(2, 3, 4), (1,)], values={"axes": (3,)})[1]  # axis out of range: a finding


def test_constraints_are_findings_never_exceptions() -> None:
    schema = _schema(["A", "B"], "matmul(A, B)", requires=["A[-1] == B[-2]"])
    shape, findings = _run(schema, [(2, 3), (4, 5)])
    assert shape is None and "broken" in findings and any("inner dimensions differ" in f for f in findings)
    assert _run(schema, [(2, N), (4, 5)]) == ((2, 5), ())  # N may be 4: no finding, no guess
    assert _run(schema, [(2,), ()])[0] is None  # a rank-0 input: unknown, no exception
    bounded = _schema(["X"], "[len([i for i in 0..100000 for j in 0..1])]")
    assert _run(bounded, [(1,)])[0] is None


@pytest.fixture(scope="module")
def judged(onnx_registry: Any, onnx_node_cases: list[Any]) -> tuple[Any, Any, dict[str, str]]:
    from toolkit.onnx_bridge.shape_compare import judge
    from toolkit.onnx_bridge.shape_write import infer_shapes

    cases = [
        c for c in onnx_node_cases if len(c.model.graph.node) == 1 and c.model.graph.node[0].op_type in FIRST
    ]
    ops = {c.name: c.model.graph.node[0].op_type for c in cases}
    theirs = judge(cases, onnx.shape_inference.infer_shapes)
    ours = judge(cases, lambda model: infer_shapes(model, onnx_registry))
    return theirs, ours, ops


def test_never_wrong_and_as_right_as_onnx_on_the_first_landing(
    judged: tuple[Any, Any, dict[str, str]],
) -> None:
    theirs, ours, ops = judged
    assert ours.wrong == 0, ours.wrong_cases
    assert theirs.right > 200  # the subset is real
    missed = sorted(
        f"{ops[c.split(':')[0]]}: {c}" for c in set(ours.unknown_cases) - set(theirs.unknown_cases)
    )
    assert ours.right >= theirs.right, missed


def _model(nodes: list[Any], inputs: list[Any], outputs: list[str], imports: dict[str, int]) -> Any:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports.items()])


def test_cli_writes_value_info_and_reports_constraints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info
    good = _model(
        [helper.make_node("MatMul", ["A", "B"], ["C"]), helper.make_node("Relu", ["C"], ["D"])],
        [x("A", TensorProto.FLOAT, ["N", 3]), x("B", TensorProto.FLOAT, [3, 5])],
        ["D"],
        {"": 18},
    )
    bad = _model(
        [helper.make_node("MatMul", ["A", "B"], ["C"])],
        [x("A", TensorProto.FLOAT, [2, 3]), x("B", TensorProto.FLOAT, [4, 5])],
        ["C"],
        {"": 18},
    )
    (tmp_path / "good.onnx").write_bytes(good.SerializeToString())
    (tmp_path / "bad.onnx").write_bytes(bad.SerializeToString())
    assert main(["infer-shapes", str(tmp_path / "good.onnx"), "-o", str(tmp_path / "out.onnx")]) == 0
    out = onnx.load(str(tmp_path / "out.onnx"))
    shapes = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in (*out.graph.value_info, *out.graph.output)
    }
    assert shapes["C"] == ["N", 5] and shapes["D"] == ["N", 5]
    assert main(["infer-shapes", str(tmp_path / "bad.onnx"), "-o", str(tmp_path / "out2.onnx")]) == 1
    assert "inner dimensions differ: 3 and 4" in capsys.readouterr().out
    assert main(["infer-shapes", str(tmp_path / "missing.onnx"), "-o", str(tmp_path / "o.onnx")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.onnx", "good.onnx", "out.onnx", "out2.onnx"]


VENDOR = """\
operator: Pairs
domain: com.test.shapes
versions:
  - since_version: 1
    doc: Pairs up the last axis.
    inputs: [{name: X, type: tensor(float)}]
    outputs:
      - {name: Y, type: tensor(float), shape: 'X[0:X.rank - 1] ++ [X[-1] // 2, 2]'}
    shape_requires:
      - {require: 'X[-1] % 2 == 0', message: the last axis must have an even size}
"""


def test_vendor_operator_gets_a_shape_onnx_cannot_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from onnx import TensorProto, helper

    specs = tmp_path / "specs" / "com.test.shapes"
    specs.mkdir(parents=True)
    (specs / "domain.yaml").write_text(
        "domain: com.test.shapes\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
    )
    (specs / "Pairs.yaml").write_text(VENDOR)
    for size, code in ((6, 0), (5, 1)):
        model = _model(
            [helper.make_node("Pairs", ["X"], ["Y"], domain="com.test.shapes")],
            [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, size])],
            ["Y"],
            {"": 18, "com.test.shapes": 1},
        )
        path = tmp_path / f"m{size}.onnx"
        path.write_bytes(model.SerializeToString())
        onnx_out = onnx.shape_inference.infer_shapes(model)
        assert not onnx_out.graph.output[0].type.tensor_type.HasField("shape")  # onnx cannot say
        argv = [
            "infer-shapes",
            str(path),
            "-o",
            str(tmp_path / f"o{size}.onnx"),
            "--specs",
            str(tmp_path / "specs"),
        ]
        assert main(argv) == code
        out = onnx.load(str(tmp_path / f"o{size}.onnx"))
        dims = [d.dim_value for d in out.graph.output[0].type.tensor_type.shape.dim]
        assert dims == ([4, 3, 2] if size == 6 else [4, 2, 2])
    assert "the last axis must have an even size" in capsys.readouterr().out
