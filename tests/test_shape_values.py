"""Value rules (#27): the contents of small integer tensors a graph computes from shapes (Shape ->
Gather -> Unsqueeze -> Concat -> Reshape, as PyTorch and tf2onnx write them) by each output's
`value:` rule, judged against onnx's own data propagation (`infer_shapes(data_prop=True)`) on
models built here; a vendor operator's own value rule through `opset infer-shapes`; a bad one
reported by `opset validate`; a changed one by the gate; and the bound on a value's length."""

from __future__ import annotations

import json
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
INT64 = TensorProto.INT64


def _ints(name: str, values: list[int], dims: list[int] | None = None) -> Any:
    return helper.make_tensor(name, INT64, [len(values)] if dims is None else dims, values)


def _model(
    nodes: list[Any], x: list[Any], inits: list[Any], opset: int = 18, outputs: tuple[str, ...] = ("Y",)
) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, x)],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _node(op: str, inputs: list[str], output: str, **attrs: Any) -> Any:
    return helper.make_node(op, inputs, [output], **attrs)


def _torch_view(batch: Any) -> tuple[list[Any], list[Any]]:
    """`x.view(x.size(0), -1)` as torch.onnx writes it: Shape, Gather, Unsqueeze, Concat, Reshape."""
    nodes = [
        _node("Shape", ["X"], "s"),
        _node("Gather", ["s", "zero"], "n", axis=0),
        _node("Unsqueeze", ["n", "axes"], "n1"),
        _node("Concat", ["n1", "minus1"], "target", axis=0),
        _node("Reshape", ["X", "target"], "Y"),
    ]
    return nodes, [_ints("zero", [0], []), _ints("axes", [0]), _ints("minus1", [-1])]


def _gathered(indices: tuple[int, ...]) -> tuple[list[Any], list[Any]]:
    """Each dimension picked by its own Gather (negative indices too), the last two multiplied, then
    concatenated from several pieces."""
    nodes = [_node("Shape", ["X"], "s")]
    inits = [_ints("axes", [0])]
    pieces = []
    for k, index in enumerate(indices):
        inits.append(_ints(f"i{k}", [index], []))
        nodes.append(_node("Gather", ["s", f"i{k}"], f"g{k}", axis=0))
    nodes.append(_node("Mul", [f"g{len(indices) - 2}", f"g{len(indices) - 1}"], "prod"))
    for k, name in enumerate([f"g{k}" for k in range(len(indices) - 2)] + ["prod"]):
        nodes.append(_node("Unsqueeze", [name, "axes"], f"u{k}"))
        pieces.append(f"u{k}")
    nodes += [_node("Concat", pieces, "target", axis=0), _node("Reshape", ["X", "target"], "Y")]
    return nodes, inits


def _zero_and_minus_one() -> tuple[list[Any], list[Any]]:
    """Reshape to `[N, 0, -1]`: 0 copies the input's size, -1 is what is left."""
    nodes, inits = _torch_view(None)
    nodes[3] = _node("Concat", ["n1", "zero_minus1"], "target", axis=0)
    return nodes, [*inits, _ints("zero_minus1", [0, -1])]


def _shape_start_end() -> tuple[list[Any], list[Any]]:
    """Shape-15's start and end (a negative end), a batch dimension in front, Cast to int32 and back."""
    nodes = [
        _node("Shape", ["X"], "s", start=0, end=1),
        _node("Shape", ["X"], "tail", start=1, end=-1),
        _node("Concat", ["s", "tail", "minus1"], "t64", axis=0),
        _node("Cast", ["t64"], "t32", to=TensorProto.INT32),
        _node("Cast", ["t32"], "target", to=TensorProto.INT64),
        _node("Reshape", ["X", "target"], "Y"),
    ]
    return nodes, [_ints("minus1", [-1])]


def _size_and_div() -> tuple[list[Any], list[Any]]:
    """Size, Div and Sub: `[size // 2 - 0, 2]`."""
    nodes = [
        _node("Size", ["X"], "size"),
        _node("Div", ["size", "two"], "half"),
        _node("Sub", ["half", "zero"], "same"),
        _node("Unsqueeze", ["same", "axes"], "h1"),
        _node("Add", ["two1", "zero"], "two2"),
        _node("Concat", ["h1", "two2"], "target", axis=0),
        _node("Reshape", ["X", "target"], "Y"),
    ]
    return nodes, [_ints("two", [2], []), _ints("zero", [0], []), _ints("axes", [0]), _ints("two1", [2])]


def _expand_and_constant_of_shape() -> tuple[list[Any], list[Any]]:
    """A shape computed from X's feeding Expand and ConstantOfShape."""
    nodes = [
        _node("Shape", ["X"], "s"),
        _node("Expand", ["one", "s"], "Y"),
        _node("ConstantOfShape", ["s"], "Z"),
    ]
    return nodes, [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])]


def _sliced(steps: int) -> tuple[list[Any], list[Any]]:
    """Shape -> Slice (with a step) -> Concat -> Reshape."""
    nodes = [
        _node("Shape", ["X"], "s"),
        helper.make_node("Slice", ["s", "starts", "ends", "axes", "steps"], ["part"]),
        _node("Concat", ["part", "minus1"], "target", axis=0),
        _node("Reshape", ["X", "target"], "Y"),
    ]
    start, end = (0, 2) if steps > 0 else (-1, -4)
    inits = [_ints("starts", [start]), _ints("ends", [end]), _ints("axes", [0]), _ints("steps", [steps])]
    return nodes, [*inits, _ints("minus1", [-1])]


CASES: dict[str, tuple[Any, list[Any], tuple[str, ...]]] = {
    # name: (builder, X's shape, outputs checked); a symbol is onnx's dim_param
    "torch_view_symbolic": (lambda: _torch_view("N"), ["N", 3, 4, 5], ("Y",)),
    "torch_view_static": (lambda: _torch_view(2), [2, 3, 4, 5], ("Y",)),
    "gather_negative_static": (lambda: _gathered((0, -3, -2, -1)), [2, 3, 4, 5], ("Y",)),
    "gather_negative_symbolic": (lambda: _gathered((0, 1, -2, -1)), ["B", "T", 4, 5], ("Y",)),
    "reshape_zero_minus_one": (_zero_and_minus_one, ["N", 6, 4], ("Y",)),
    "reshape_zero_minus_one_static": (_zero_and_minus_one, [3, 6, 4], ("Y",)),
    "shape_start_end_cast": (_shape_start_end, [2, 3, 4, 5], ("Y",)),
    "size_div_sub_add": (_size_and_div, [3, 4], ("Y",)),
    "expand_constant_of_shape": (_expand_and_constant_of_shape, ["N", 3, 4], ("Y", "Z")),
    "slice_forward": (lambda: _sliced(1), ["N", 3, 4, 5], ("Y",)),
    "slice_backward_step": (lambda: _sliced(-2), [2, 3, 4, 5], ("Y",)),
}


def _ours(dims: Any) -> tuple[Any, ...] | None:
    if dims is None:
        return None
    return tuple(d.name if hasattr(d, "name") else d for d in dims)


@pytest.fixture(scope="module")
def registry() -> Any:
    from toolkit.onnx_bridge.catalog import onnx_registry

    return onnx_registry(adapters=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_computed_from_shapes_agree_with_onnx_data_propagation(case: str, registry: Any) -> None:
    """Wherever onnx's data propagation gives a complete shape, ours is the same; where it gives
    part of one, ours never contradicts a size it knows; and the outputs fed by the computed
    shape are complete in ours (without value rules they are unknown)."""
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    build, x, checked = CASES[case]
    if case.startswith("slice") and registry.find_schema("Slice", 18, "").outputs[0].shape is None:
        pytest.skip("Slice has no shape rule in this catalog yet: its output's value has no shape to fit")
    nodes, inits = build()
    model = _model(nodes, x, inits, outputs=checked)
    theirs = onnx_shapes(model)
    ours = {name: _ours(shape) for name, shape in infer_model_shapes(model, registry).shapes.items()}
    for name, dims in theirs.items():
        mine = ours.get(name)
        if complete(dims):
            assert mine == dims, (name, dims, mine)
        elif mine is not None:
            assert len(mine) == len(dims), (name, dims, mine)
            for a, b in zip(dims, mine):
                assert not (isinstance(a, int) and isinstance(b, int) and a != b), (name, dims, mine)
                assert not (isinstance(a, str) and not a.startswith("unk__") and b != a), (name, dims, mine)
    for name in checked:
        assert ours.get(name) is not None and all(d is not None for d in ours[name]), (name, ours.get(name))


def test_a_symbol_cancels_in_minus_one(registry: Any) -> None:
    """`[N, 3, 4, 5]` viewed as `[N, -1]` is `[N, 60]` (onnx leaves the -1 unknown); a symbol only
    on one side leaves it unknown, never guessed."""
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    nodes, inits = _torch_view("N")
    shapes = infer_model_shapes(_model(nodes, ["N", 3, 4, 5], inits), registry).shapes
    assert _ours(shapes["Y"]) == ("N", 60)
    assert onnx_shapes(_model(nodes, ["N", 3, 4, 5], inits))["Y"][1].startswith("unk__")
    nodes[1] = _node("Gather", ["s", "one"], "n", axis=0)  # [M, -1] of [N, M, 4]: -1 is N * 4 / 1
    shapes = infer_model_shapes(
        _model(nodes, ["N", "M", 4], [*inits, _ints("one", [1], [])]), registry
    ).shapes
    assert _ours(shapes["Y"]) == ("M", None)


def test_cast_to_a_float_type_or_past_int32_gives_no_value(registry: Any) -> None:
    """A value rule is kept to what the element type can hold: through a float Cast the Reshape's
    sizes are unknown, through int32 the size past its range is, never the uncast numbers."""
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    for to, big, expect in (
        (TensorProto.FLOAT, 6, (None, None)),
        (TensorProto.INT32, 2**40, (4, None)),
        (TensorProto.INT32, 6, (4, 6)),
    ):
        nodes = [
            _node("Cast", ["t"], "c", to=to),
            _node("Cast", ["c"], "target", to=INT64),
            _node("Reshape", ["X", "target"], "Y"),
        ]
        shapes = infer_model_shapes(_model(nodes, [24], [_ints("t", [4, big])]), registry).shapes
        assert shapes["Y"] == expect, (to, big)


def test_a_value_past_the_list_bound_is_unknown(registry: Any) -> None:
    """Three 2,000-item constants concatenated make 6,000 items, past the 4,096 a value may hold:
    no value (so the Reshape fed by it is unknown), no error, the shape of the list still known."""
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    nodes = [
        _node("Concat", ["a", "b", "c"], "target", axis=0),
        _node("Reshape", ["X", "target"], "Y"),
    ]
    inits = [_ints(name, [1] * 2000) for name in "abc"]
    result = infer_model_shapes(_model(nodes, [1], inits), registry)
    assert result.shapes["target"] == (6000,) and result.shapes.get("Y") is None and not result.findings


def test_slice_indices_of_a_model_sized_axis_are_unknown_not_built() -> None:
    """`slice_indices(n, ...)` may get a model's dimension (billions): past the list bound the
    indices are unknown, never a tuple of that length (the range's length costs nothing)."""
    from toolkit.shapes.builtins_values import slice_indices
    from toolkit.shapes.values import MAX_LIST

    assert slice_indices(None, (3, 0, 3, 1)) == (0, 1, 2)
    assert slice_indices(None, (MAX_LIST, 0, MAX_LIST, 1)) == tuple(range(MAX_LIST))
    assert slice_indices(None, (3_000_000_000, 0, 3_000_000_000, 1)) is None
    assert slice_indices(None, (MAX_LIST + 1, 0, MAX_LIST + 1, 1)) is None


# -- a vendor operator's own value rule ------------------------------------------------------------

SPATIAL = """\
# yaml-language-server: $schema=../../schemas/operator.schema.json
operator: SpatialShape
domain: com.acme.vision
versions:
  - since_version: 1
    doc: The spatial sizes of an `(N, C, ...)` tensor, as a 1-D int64 tensor.
    inputs:
      - {name: X, type: T, doc: The tensor.}
    outputs:
      - name: sizes
        type: tensor(int64)
        doc: Its sizes after the first two.
        shape: '[X.rank - 2]'
        value: 'RULE'
    type_constraints:
      T: {allowed: "@float_types"}
"""


def _vendor_tree(tmp_path: Path, rule: str) -> Path:
    root = tmp_path / "specs"
    shutil.copytree(VISION, root / "com.acme.vision")
    (root / "com.acme.vision" / "SpatialShape.yaml").write_text(
        SPATIAL.replace("RULE", rule), encoding="utf-8"
    )
    return root


def test_a_vendor_operator_with_a_value_rule_feeds_reshape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`opset infer-shapes --specs` with a vendor operator whose value rule gives its output's
    contents: the Reshape it feeds gets a shape (onnx cannot infer the vendor node at all). Run
    twice, so the second run reads the rule back from the registry cache (the codec carries it)."""
    root = _vendor_tree(tmp_path, "X[2:]")
    graph = helper.make_graph(
        [
            helper.make_node("SpatialShape", ["X"], ["sizes"], domain="com.acme.vision"),
            helper.make_node("Reshape", ["flat", "sizes"], ["Y"]),
        ],
        "g",
        [
            helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 4, 5]),
            helper.make_tensor_value_info("flat", TensorProto.FLOAT, [20]),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.acme.vision", 4)]
    )
    source = tmp_path / "m.onnx"
    onnx.save(model, str(source))
    for run in range(2):
        out = tmp_path / f"out{run}.onnx"
        assert main(["infer-shapes", str(source), "-o", str(out), "--specs", str(root)]) == 0, (
            capsys.readouterr()
        )
        written = onnx.load(str(out))
        shapes = {
            v.name: shape_dims(v.type.tensor_type.shape)
            for v in (*written.graph.value_info, *written.graph.output)
        }
        assert shapes["sizes"] == (2,) and shapes["Y"] == (4, 5), shapes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "out0.onnx", "out1.onnx", "specs"]


def test_a_bad_value_rule_is_located_by_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A value rule naming an input the version does not have, and one that does not parse: exit 1,
    each at its file, line and column, with the rule id and a hint."""
    root = _vendor_tree(tmp_path, "Z[2:]")
    assert main(["validate", "--specs", str(root), "--no-cache"]) == 1
    out = capsys.readouterr().err
    line = 1 + SPATIAL.splitlines().index("        value: 'RULE'")
    assert f"SpatialShape.yaml:{line}:17: error[SHAPE-UNKNOWN-NAME]:" in out, out
    assert "output 'sizes' value" in out and "hint:" in out
    (root / "com.acme.vision" / "SpatialShape.yaml").write_text(
        SPATIAL.replace("RULE", "X[2:"), encoding="utf-8"
    )
    assert main(["validate", "--specs", str(root), "--no-cache"]) == 1
    assert (
        f"SpatialShape.yaml:{line}:" in (out := capsys.readouterr().err) and "error[SHAPE-SYNTAX]" in out
    ), out


def test_changing_a_released_value_rule_is_breaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate compares value rules as it compares shape rules: changed is SHAPE-RULE-CHANGED."""
    roots = []
    for name, rule in (("old", "X[2:]"), ("new", "X[1:]")):
        root = _vendor_tree(tmp_path / name, rule)
        shutil.copy(REPO / "opsets" / "releases.yaml", root / "releases.yaml")
        roots.append(root)
    code = main(
        ["diff", "--specs", str(roots[1]), "--against", str(roots[0]), "--no-cache", "--format", "json"]
    )
    findings = [
        f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"].startswith("SHAPE-RULE")
    ]
    assert code == 1 and [f["rule"] for f in findings] == ["SHAPE-RULE-CHANGED"], findings
    assert "value rule of output 'sizes'" in findings[0]["message"]
