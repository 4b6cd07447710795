"""Float constants and the value rules #27 still missed: Resize's and Upsample's `scales`, a float
Range, Constant's `value_float(s)`/`value_int(s)` (as onnxscript writes them in function bodies),
and the value rules of Equal, Where, Max/Min, Neg, Abs, Range, ConstantOfShape, Tile and the
reductions, judged against onnx's own inference with data propagation on models built here; the
rounding that would have to guess gives unknown; a float used as a size is SHAPE-TYPE at spec load."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402
from onnx_data_prop import complete, onnx_shapes  # noqa: E402
from onnx_data_prop import dims as shape_dims  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VISION = REPO / "opsets" / "com.acme.vision"
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def _ints(name: str, values: list[int], dims: list[int] | None = None) -> Any:
    return helper.make_tensor(name, INT64, [len(values)] if dims is None else dims, values)


def _floats(name: str, values: list[float], dims: list[int] | None = None) -> Any:
    return helper.make_tensor(name, FLOAT, [len(values)] if dims is None else dims, values)


def _node(op: str, inputs: list[str], output: str, **attrs: Any) -> Any:
    return helper.make_node(op, inputs, [output], **attrs)


def _model(nodes: list[Any], x: list[Any], inits: list[Any], opset: int, outputs: tuple[str, ...]) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", FLOAT, x)],
        [helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None) for name in outputs],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _reshape_to(pieces: list[str]) -> list[Any]:
    """Concat the 1-D pieces into a target and Reshape X to it (output Y)."""
    return [_node("Concat", pieces, "target", axis=0), _node("Reshape", ["X", "target"], "Y")]


# name: (nodes, initializers, X's shape, opset, {output: the shape ours must give})
CASES: dict[str, tuple[list[Any], list[Any], list[Any], int, dict[str, tuple[Any, ...]]]] = {
    "resize_scales": (
        [_node("Resize", ["X", "", "s"], "Y")],
        [_floats("s", [1, 1, 0.5, 1.3])],
        [1, 3, 5, 7],
        18,
        {"Y": (1, 3, 2, 9)},
    ),
    "resize_scales_axes_symbolic": (
        [_node("Resize", ["X", "", "s"], "Y", axes=[-2, 3])],
        [_floats("s", [0.6, 2.0])],
        ["N", 3, 5, 7],
        19,
        {"Y": ("N", 3, 3, 14)},
    ),
    "resize_11_scales": (
        [_node("Resize", ["X", "roi", "s"], "Y")],
        [_floats("roi", []), _floats("s", [1, 1, 2.5, 0.34])],
        [1, 3, 4, 9],
        11,
        {"Y": (1, 3, 10, 3)},
    ),
    "resize_10": (
        [_node("Resize", ["X", "s"], "Y")],
        [_floats("s", [1, 1, 2, 3])],
        [1, 1, 2, 2],
        10,
        {"Y": (1, 1, 4, 6)},
    ),
    "upsample_9_input": (
        [_node("Upsample", ["X", "s"], "Y")],
        [_floats("s", [1, 1, 1.5, 2])],
        ["N", 3, 5, 7],
        9,
        {"Y": ("N", 3, 7, 14)},
    ),
    "upsample_7_attribute": (
        [_node("Upsample", ["X"], "Y", scales=[1.0, 1.0, 1.5, 2.0])],
        [],
        [2, 3, 5, 7],
        7,
        {"Y": (2, 3, 7, 14)},
    ),
    "range_float": (
        [_node("Range", ["a", "b", "c"], "Y")],
        [_floats("a", [0.5], []), _floats("b", [4.0], []), _floats("c", [1.5], [])],
        [1],
        18,
        {"Y": (3,)},
    ),
    "constant_value_ints_and_int": (
        [
            helper.make_node("Constant", [], ["two"], value_ints=[2]),
            helper.make_node("Constant", [], ["n"], value_int=-1),
            _node("Unsqueeze", ["n", "axes"], "n1"),
            *_reshape_to(["two", "n1"]),
        ],
        [_ints("axes", [0])],
        [6, 4],
        18,
        {"two": (1,), "n": (), "Y": (2, 12)},
    ),
    "constant_value_floats_scales": (
        [
            helper.make_node("Constant", [], ["s"], value_floats=[1.0, 2.0]),
            helper.make_node("Constant", [], ["f"], value_float=0.5),
            _node("Resize", ["X", "", "s"], "Y"),
        ],
        [],
        [3, 4],
        18,
        {"s": (2,), "f": (), "Y": (3, 8)},
    ),
    # Shape -> Cast to int32 -> back to int64 (tf2onnx): the symbol survives
    "cast_int32_keeps_symbol": (
        [
            _node("Shape", ["X"], "s"),
            _node("Cast", ["s"], "s32", to=TensorProto.INT32),
            _node("Cast", ["s32"], "target", to=INT64),
            _node("Reshape", ["X", "target"], "Y"),
        ],
        [],
        ["N", 3, 4],
        18,
        {"Y": ("N", 3, 4)},
    ),
    # x.flatten(1): Shape -> Slice -> ReduceProd -> Concat with the batch -> Reshape
    "reduce_prod_of_a_shape": (
        [
            _node("Shape", ["X"], "s"),
            _node("Shape", ["X"], "batch", end=1),
            _node("Shape", ["X"], "tail", start=1),
            _node("ReduceProd", ["tail"], "rest", keepdims=1),
            *_reshape_to(["batch", "rest"]),
        ],
        [],
        ["N", 3, 4, 5],
        18,
        {"Y": ("N", 60)},
    ),
    "range_neg_abs_tile": (
        [
            _node("Range", ["r0", "r1", "r2"], "r"),  # [2]
            _node("Neg", ["m3"], "n3"),  # [3]
            _node("Abs", ["m1"], "a1"),  # [1]
            _node("Tile", ["a1", "two"], "ones"),  # [1, 1]
            *_reshape_to(["r", "n3", "ones"]),
        ],
        [
            _ints("r0", [2], []),
            _ints("r1", [4], []),
            _ints("r2", [2], []),
            _ints("m3", [-3]),
            _ints("m1", [-1]),
            _ints("two", [2]),
        ],
        [6],
        18,
        {"r": (1,), "Y": (2, 3, 1, 1)},
    ),
    # the broadcast of two shapes (Max), filled (ConstantOfShape with an int value) and expanded
    "max_min_constant_of_shape": (
        [
            _node("Shape", ["X"], "s"),
            _node("Max", ["s", "wide"], "big"),
            _node("Min", ["big", "cap"], "capped"),
            _node("ConstantOfShape", ["one"], "fill", value=helper.make_tensor("v", INT64, [1], [-1])),
            _node("ConstantOfShape", ["capped"], "Y"),
            _node("Reshape", ["Y", "fill"], "Z"),
        ],
        [_ints("wide", [1, 5]), _ints("cap", [4, 5]), _ints("one", [1])],
        [2, 1],
        18,
        {"Y": (2, 5), "Z": (10,)},
    ),
}


def _ours(model: Any, registry: Any) -> dict[str, Any]:
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    result = infer_model_shapes(model, registry)
    assert not result.findings, result.findings
    return {
        name: None if dims is None else tuple(d.name if hasattr(d, "name") else d for d in dims)
        for name, dims in result.shapes.items()
    }


@pytest.fixture(scope="module")
def registry() -> Any:
    from toolkit.onnx_bridge.catalog import onnx_registry

    return onnx_registry(adapters=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_float_constants_and_value_rules_agree_with_onnx(case: str, registry: Any) -> None:
    """Ours gives the expected shapes (unknown before floats were read and these value rules
    existed), and wherever onnx's inference gives a complete shape, ours is the same."""
    nodes, inits, x, opset, want = CASES[case]
    model = _model(nodes, x, inits, opset, tuple(want))
    ours = _ours(model, registry)
    for name, dims in want.items():
        assert ours.get(name) == dims, (name, ours.get(name))
    for name, dims in onnx_shapes(model).items():
        if complete(dims):
            assert ours.get(name) == dims, (name, dims, ours.get(name))


def test_the_torch_minus_one_pattern_through_where_and_equal(registry: Any) -> None:
    """`x.expand(-1, 4)` and `x.reshape(shape)` as PyTorch writes them: Where(Equal(target, -1),
    Shape(x), target) and Where(Equal(Shape(x), -1), ones, Shape(x)); a size (a symbol) is never
    -1. onnx's data propagation has no rule for Equal or Where (its Y is unknown)."""
    nodes = [
        _node("Shape", ["X"], "s"),
        _node("Equal", ["target", "minus1"], "eq"),
        _node("Where", ["eq", "s", "target"], "w"),
        _node("Expand", ["X", "w"], "Y"),
        _node("Equal", ["s", "minus1"], "eq2"),
        _node("Where", ["eq2", "ones", "s"], "w2"),
        _node("Reshape", ["X", "w2"], "Z"),
    ]
    inits = [_ints("target", [-1, 4]), _ints("minus1", [-1]), _ints("ones", [1, 1])]
    ours = _ours(_model(nodes, ["N", 1], inits, 18, ("Y", "Z")), registry)
    assert ours["Y"] == ("N", 4) and ours["Z"] == ("N", 1), ours
    assert onnx_shapes(_model(nodes, ["N", 1], inits, 18, ("Y", "Z")))["Y"] != ("N", 4)


def test_a_constant_in_a_function_body_takes_the_calls_attribute(registry: Any) -> None:
    """onnxscript's `Constant <value_ints = @shape>` and `<value_float = @alpha>` in a local
    function: the call's attributes give the body's constants, so the Reshape they feed is known."""
    body = [
        helper.make_node("Constant", [], ["target"], value_ints=[0]),
        helper.make_node("Constant", [], ["alpha"], value_float=0.0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
        helper.make_node("Mul", ["y", "alpha"], ["out"]),
    ]
    body[0].attribute[0].ref_attr_name = "shape"
    body[1].attribute[0].ref_attr_name = "alpha"
    function = helper.make_function(
        "local", "View", ["x"], ["out"], body, [helper.make_opsetid("", 18)], attributes=["shape", "alpha"]
    )
    call = helper.make_node("View", ["X"], ["Y"], domain="local", shape=[2, -1], alpha=0.5)
    graph = helper.make_graph(
        [call],
        "g",
        [helper.make_tensor_value_info("X", FLOAT, [6, 4])],
        [helper.make_tensor_value_info("Y", FLOAT, None)],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
        functions=[function],
    )
    assert _ours(model, registry)["Y"] == (2, 12)


def test_rounding_that_depends_on_float_precision_is_unknown(registry: Any) -> None:
    """3 x 1.6666666 is 4.99999988 in double and 5.0 in float32 (floor 4 or 5); (0.3 - 0) / 0.1 is
    3.0000000447 in double (onnx says 4 items) and 3.0 in float32 (ceil 4 or 3): a runtime
    computing in either gives a different size, so ours gives none there, never one of the two.
    Just above an integer floor is safe (5 x 0.6 is 3.0000001: 3 in both)."""
    nodes = [
        _node("Resize", ["X", "", "s"], "Y"),
        _node("Range", ["a", "b", "c"], "R"),
    ]
    inits = [
        _floats("s", [1.6666666269302368, 0.6, 1]),
        _floats("a", [0.0], []),
        _floats("b", [0.3], []),
        _floats("c", [0.1], []),
    ]
    model = _model(nodes, [3, 5, 2], inits, 18, ("Y", "R"))
    ours = _ours(model, registry)
    assert ours["Y"] == (None, 3, 2) and ours["R"] == (None,), ours
    assert onnx_shapes(model)["R"] == (4,)  # onnx's own choice: double


def test_a_nan_scale_gives_no_size(registry: Any) -> None:
    nodes, inits = [_node("Resize", ["X", "", "s"], "Y")], [_floats("s", [1, float("nan")])]
    model = _model(nodes, [2, 3], inits, 18, ("Y",))
    assert _ours(model, registry)["Y"] == (None, None)


# -- the language: floats are typed, floor() and ceil() make them sizes -----------------------------

SCALED = """\
# yaml-language-server: $schema=../../schemas/operator.schema.json
operator: Scaled
domain: com.acme.vision
versions:
  - since_version: 1
    doc: Resamples the last axis of `X` by `factor`.
    inputs:
      - {name: X, type: T, doc: The tensor.}
    attributes:
      factor: {type: float, default: 2.0, doc: The factor.}
    outputs:
      - name: Y
        type: T
        doc: X resampled.
        shape: 'RULE'
    type_constraints:
      T: {allowed: "@float_types"}
"""


def _vendor_tree(tmp_path: Path, rule: str) -> Path:
    root = tmp_path / "specs"
    shutil.copytree(VISION, root / "com.acme.vision")
    (root / "com.acme.vision" / "Scaled.yaml").write_text(SCALED.replace("RULE", rule), encoding="utf-8")
    return root


def test_a_float_used_as_a_size_is_a_type_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`X[0] * @factor` may not be whole: as a dimension it is SHAPE-TYPE at its file, line and
    column, with a hint to round it; so is `//` of a float."""
    line = 1 + SCALED.splitlines().index("        shape: 'RULE'")
    for rule, column in (("X[0:-1] ++ [X[-1] * @factor]", 28), ("[X[0] // @factor]", 17)):
        root = _vendor_tree(tmp_path / str(column), rule)
        assert main(["validate", "--specs", str(root), "--no-cache"]) == 1
        err = capsys.readouterr().err
        assert f"Scaled.yaml:{line}:{column}: error[SHAPE-TYPE]:" in err, err
        assert "floor(x) or ceil(x)" in err, err


def test_floor_and_ceil_of_a_float_attribute_give_sizes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rounded rule validates, and `opset infer-shapes` gives the vendor node its sizes."""
    root = _vendor_tree(tmp_path, "X[0:-2] ++ [floor(X[-2] * @factor), ceil(X[-1] / 2)]")
    assert main(["validate", "--specs", str(root), "--no-cache"]) == 0, capsys.readouterr().err
    graph = helper.make_graph(
        [helper.make_node("Scaled", ["X"], ["Y"], domain="com.acme.vision", factor=1.5)],
        "g",
        [helper.make_tensor_value_info("X", FLOAT, ["N", 5, 7])],
        [helper.make_tensor_value_info("Y", FLOAT, None)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.acme.vision", 4)]
    )
    source, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(model, str(source))
    assert main(["infer-shapes", str(source), "-o", str(out), "--specs", str(root), "--no-cache"]) == 0
    written = onnx.load(str(out))
    assert shape_dims(written.graph.output[0].type.tensor_type.shape) == ("N", 7, 4)
