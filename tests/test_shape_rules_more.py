"""Shape rules of the operators #27 left uncovered (Slice, Pad, TopK, Resize, Range, OneHot,
Compress, CenterCropPad, STFT, the windows, the ai.onnx.ml classifiers and regressors, the
versions before broadcasting, ...) and the built-ins they use (`slice_len`, `scatter`,
`unknown`, `given`).

Each case is worked out by hand from the operator's definition and run through the imported
onnx catalog (one-node models, constants as initializers); a constant that is not there gives a
partial shape (the rank, the sizes that do not depend on it), never a wrong one. A dimension
written `F` below must be a fresh symbol (a data-dependent size).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_shape_coverage import _infer, _single

from toolkit.cli import main
from toolkit.shapes.values import Sym

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402

BIG = 2**63 - 1  # exporters' "to the end" (INT64_MAX) and "from the end" (INT64_MIN)
F = "fresh"


def _model(
    op: str,
    inputs: Sequence[Any],
    attrs: dict[str, Any] | None = None,
    outputs: int = 1,
    opset: int = 19,
    domain: str = "",
) -> Any:
    """A one-node model: each input is a shape (a graph input; str dims are symbols), ("const",
    values) for an int64 initializer (a list: 1-D, an int: a scalar), or None (left out)."""
    names, infos, inits = [], [], []
    for at, spec in enumerate(inputs):
        name = f"i{at}"
        if spec is None:
            names.append("")
            continue
        names.append(name)
        if isinstance(spec, tuple) and spec and spec[0] == "const":
            values = spec[1]
            dims = [] if isinstance(values, int) else [len(values)]
            inits.append(
                helper.make_tensor(name, TensorProto.INT64, dims, [values] if dims == [] else values)
            )
        else:
            infos.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(spec)))
    outs = [f"o{k}" for k in range(outputs)]
    node = helper.make_node(op, names, outs, domain=domain, **(attrs or {}))
    graph = helper.make_graph(
        [node],
        "g",
        infos,
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outs],
        inits,
    )
    imports = [helper.make_opsetid("", opset if not domain else 19)]
    if domain:
        imports.append(helper.make_opsetid(domain, opset))
    return helper.make_model(graph, opset_imports=imports, ir_version=9)


def _shapes(registry: Any, model: Any, outputs: int = 1) -> tuple[list[Any], list[str]]:
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    result = infer_model_shapes(model, registry)
    return [result.shapes.get(f"o{k}") for k in range(outputs)], [m for _, m in result.findings]


def _check(got: Any, want: Any) -> None:
    """`want` with F where a fresh symbol must be, None where the size must stay unknown."""
    if want is None:
        assert got is None
        return
    assert got is not None and len(got) == len(want), (got, want)
    for dim, expected in zip(got, want):
        if expected == F:
            assert isinstance(dim, Sym), (got, want)
        elif isinstance(expected, str):
            assert dim == Sym(expected), (got, want)
        else:
            assert dim == expected, (got, want)


def c(values: Any) -> tuple[str, Any]:
    return ("const", values)


N = "N"  # a symbolic input size
CASES = [
    # -- Slice (10+: inputs data, starts, ends, axes, steps) --
    ("Slice", [(20, 10, 5), c([0, 0]), c([3, 10]), c([0, 1]), c([1, 1])], {}, 13, [(3, 10, 5)]),
    # negative steps: starts clamp to size - 1, ends to -1 (onnx's test_slice_neg_steps)
    (
        "Slice",
        [(20, 10, 5), c([20, 10, 4]), c([0, 0, 1]), c([0, 1, 2]), c([-1, -3, -2])],
        {},
        13,
        [(19, 3, 2)],
    ),
    ("Slice", [(20, 10, 5), c([-1]), c([BIG]), c([-1])], {}, 13, [(20, 10, 1)]),  # negative axis and start
    ("Slice", [(4, 5, 6), c([1, 1]), c([-1, -1])], {}, 13, [(2, 3, 6)]),  # axes default: the first two
    ("Slice", [(5,), c([10]), c([20])], {}, 13, [(0,)]),  # past the end: empty
    ("Slice", [(7, N), c([BIG, BIG]), c([-BIG - 1, -BIG - 1]), c([0, 1]), c([-1, -1])], {}, 13, [(7, N)]),
    ("Slice", [(N, 3), c([0]), c([BIG]), c([0])], {}, 13, [(N, 3)]),  # the whole of a symbolic axis
    ("Slice", [(N, 3), c([1]), c([BIG]), c([0])], {}, 13, [(None, 3)]),  # N - 1: not known
    ("Slice", [(20, 10, 5), (2,), (2,)], {}, 13, [(None, None, 5)]),  # starts not constant
    ("Slice", [(20, 10, 5), c([0]), c([1]), (1,)], {}, 13, [(None, None, None)]),  # axes not constant
    # a backward start before the axis: onnx's spec and onnxruntime take its first item, numpy and
    # onnx's reference none; so it is not known
    ("Slice", [(5,), c([-10]), c([-BIG - 1]), c([0]), c([-1])], {}, 13, [(None,)]),
    ("Slice", [(2, 5)], {"starts": [1], "ends": [1000], "axes": [-1]}, 1, [(2, 4)]),  # attributes
    # -- Pad: pads are [begins..., ends...]; negative pads crop --
    ("Pad", [(2, 3), c([1, 2, 3, 4])], {}, 13, [(6, 9)]),
    ("Pad", [(2, 3), c([0, -1, 0, -1]), None], {"mode": "edge"}, 19, [(2, 1)]),
    ("Pad", [(2, 3), c([1, 2]), None, c([-1])], {}, 19, [(2, 6)]),  # axes input (18+)
    ("Pad", [(2, 3), c([1, 2]), None, (1,)], {}, 19, [(None, None)]),  # axes not constant
    ("Pad", [(N, 3), (4,)], {}, 13, [(None, None)]),  # pads not constant: the rank
    ("Pad", [(N, 3)], {"pads": [0, 1, 0, 1]}, 2, [(N, 5)]),
    ("Pad", [(N, 3)], {"pads": [1, 1, 1, 1]}, 2, [(None, 5)]),  # N + 2: not known
    # -- TopK: k on the axis, both outputs --
    ("TopK", [(3, 4), c([2])], {}, 11, [(3, 2), (3, 2)]),
    ("TopK", [(3, 4), c([2])], {"axis": -2}, 11, [(2, 4), (2, 4)]),
    ("TopK", [(3, 4), (1,)], {}, 11, [(3, None), (3, None)]),  # K not constant
    ("TopK", [(3, 4)], {"k": 1, "axis": 0}, 1, [(1, 4), (1, 4)]),
    # -- Range: max(ceil((limit - start) / delta), 0) --
    ("Range", [c(1), c(10), c(3)], {}, 11, [(3,)]),
    ("Range", [c(10), c(4), c(-3)], {}, 11, [(2,)]),
    ("Range", [c(5), c(1), c(2)], {}, 11, [(0,)]),
    ("Range", [c(0), (), c(1)], {}, 11, [(None,)]),  # limit not constant: rank 1
    # -- OneHot: depth inserted at the axis of the output --
    ("OneHot", [(2, 3), c([10]), c([0, 1])], {}, 11, [(2, 3, 10)]),
    ("OneHot", [(2, 3), c(10), c([0, 1])], {"axis": 0}, 11, [(10, 2, 3)]),
    ("OneHot", [(2, 3), c([10]), c([0, 1])], {"axis": -2}, 11, [(2, 10, 3)]),
    ("OneHot", [(2, 3), (1,), c([0, 1])], {}, 11, [(2, 3, None)]),
    # -- Compress and Unique: data-dependent sizes are fresh symbols --
    ("Compress", [(3, 4), (4,)], {"axis": 1}, 11, [(3, F)]),
    ("Compress", [(3, 4), (3,)], {"axis": -2}, 11, [(F, 4)]),
    ("Compress", [(3, 4), (12,)], {}, 11, [(F,)]),  # flattened
    ("Unique", [(3, 4)], {}, 11, [(F,), (F,), (12,), (F,)]),
    ("Unique", [(3, 4)], {"axis": 0}, 11, [(F, 4), (F,), (3,), (F,)]),
    # -- CenterCropPad, Resize, Upsample --
    ("CenterCropPad", [(20, 10, 3), c([10, 8])], {"axes": [0, 1]}, 18, [(10, 8, 3)]),
    ("CenterCropPad", [(20, 10, 3), c([10, 8])], {"axes": [-3, -2]}, 18, [(10, 8, 3)]),
    ("CenterCropPad", [(20, 10, 3), (2,)], {"axes": [0, 1]}, 18, [(None, None, 3)]),
    ("Resize", [(1, 1, 4, 4), None, None, c([1, 1, 8, 8])], {}, 19, [(1, 1, 8, 8)]),
    ("Resize", [(1, 1, 4, 4), None, None, c([3, 5])], {"axes": [2, -1]}, 19, [(1, 1, 3, 5)]),
    (
        "Resize",
        [(1, 1, 4, 4), None, None, c([3, 5])],
        {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"},
        19,
        [(1, 1, None, None)],
    ),
    ("Resize", [(1, 1, 4, 4), None, (2,)], {"axes": [2, 3]}, 19, [(1, 1, None, None)]),  # scales (floats)
    ("Resize", [(1, 1, 4, 4), None, None, (4,)], {}, 13, [(None, None, None, None)]),  # sizes not constant
    ("Resize", [(1, 1, 4, 4), None, None, c([1, 2, 3, 4])], {}, 13, [(1, 2, 3, 4)]),
    ("Resize", [(1, 1, 4, 4), (4,)], {}, 10, [(None, None, None, None)]),
    ("Upsample", [(N, 3, 4, 4)], {"scales": [1.0, 1.0, 2.0, 2.0]}, 7, [(N, 3, 8, 8)]),  # floor(size * scale)
    # -- STFT, the windows, MelWeightMatrix --
    (
        "STFT",
        [(2, 64, 1), c(8), (16,)],
        {},
        17,
        [(2, 7, 9, 2)],
    ),  # (64 - 16) // 8 + 1 frames, 16 // 2 + 1 bins
    ("STFT", [(2, 64, 1), c(8), (16,)], {"onesided": 0}, 17, [(2, 7, 16, 2)]),
    ("STFT", [(2, 64, 1), c(8), None, c(32)], {}, 17, [(2, 5, 17, 2)]),
    ("STFT", [(2, 64, 1), (), (16,)], {}, 17, [(2, None, 9, 2)]),  # frame_step not constant
    ("HannWindow", [c(10)], {}, 17, [(10,)]),
    ("BlackmanWindow", [()], {}, 17, [(None,)]),
    ("MelWeightMatrix", [c(8), c(16), c(8000), (), ()], {}, 17, [(9, 8)]),
    # -- Col2Im, AffineGrid, MaxRoiPool, NonMaxSuppression, Multinomial, the random ops --
    ("Col2Im", [(1, 5, 5), c([5, 5]), c([1, 5])], {}, 18, [(1, 1, 5, 5)]),
    ("Col2Im", [(1, 5, 5), (2,), c([1, 5])], {}, 18, [(1, 1, None, None)]),
    ("AffineGrid", [(2, 2, 3), c([2, 3, 4, 5])], {}, 20, [(2, 4, 5, 2)]),
    ("AffineGrid", [(2, 3, 4), c([2, 3, 4, 5, 6])], {}, 20, [(2, 4, 5, 6, 3)]),
    ("MaxRoiPool", [(1, 3, 10, 10), (5, 5)], {"pooled_shape": [2, 2]}, 22, [(5, 3, 2, 2)]),
    ("NonMaxSuppression", [(1, 6, 4), (1, 1, 6)], {}, 11, [(F, 3)]),
    ("Multinomial", [(3, 10)], {"sample_size": 4}, 22, [(3, 4)]),
    ("RandomNormal", [], {"shape": [2, 3]}, 22, [(2, 3)]),
    ("RandomUniformLike", [(N, 4)], {}, 22, [(N, 4)]),
    # -- the versions before broadcasting, Concat-1's default axis, Reshape-1, Tile-1 --
    ("Add", [(2, 3), (3,)], {"broadcast": 1}, 6, [(2, 3)]),
    ("Max", [(2, N), (2, N)], {}, 6, [(2, N)]),
    ("Concat", [(2, 3), (2, 4)], {}, 1, [(2, 7)]),
    ("Gemm", [(4, 3), (5, 3), (5,)], {"transB": 1, "broadcast": 1}, 6, [(4, 5)]),
    ("Reshape", [(2, 3)], {"shape": [3, -1]}, 1, [(3, 2)]),
    ("Tile", [(2, 3), c(2), c(1)], {}, 1, [(2, 6)]),
    ("Tile", [(2, 3), c(2), (1,)], {}, 1, [(None, None)]),  # axis not constant
]


@pytest.mark.parametrize(("op", "inputs", "attrs", "opset", "want"), CASES, ids=lambda v: str(v)[:40])
def test_rule_gives_the_hand_computed_shape(
    onnx_registry: Any, op: str, inputs: list[Any], attrs: dict[str, Any], opset: int, want: list[Any]
) -> None:
    got, findings = _shapes(onnx_registry, _model(op, inputs, attrs, len(want), opset), len(want))
    assert findings == []
    for shape, expected in zip(got, want):
        _check(shape, expected)


ML = [
    # one label per row (a 1-D X is one row), a score column per class (two when binary)
    ("LinearClassifier", (4, 3), {"classlabels_ints": [0, 1, 2], "coefficients": [1.0] * 9}, [(4,), (4, 3)]),
    ("LinearClassifier", (3,), {"classlabels_ints": [0, 1, 2], "coefficients": [1.0] * 9}, [(1,), (1, 3)]),
    (
        "LinearClassifier",
        (4, 3),
        {"classlabels_strings": ["a", "b"], "coefficients": [1.0] * 3},
        [(4,), (4, 2)],
    ),
    ("TreeEnsembleClassifier", (4, 3), {"classlabels_int64s": [0, 1]}, [(4,), (4, 2)]),
    ("TreeEnsembleClassifier", (4, 3), {"classlabels_int64s": [7]}, [(4,), (4, None)]),  # one label
    ("SVMClassifier", (N, 3), {"classlabels_ints": [0, 1]}, [(N,), None]),
    ("LinearRegressor", (4, 3), {"coefficients": [1.0] * 3}, [(4, 1)]),
    ("LinearRegressor", (4, 3), {"coefficients": [1.0] * 6, "targets": 2}, [(4, 2)]),
    ("TreeEnsembleRegressor", (N, 3), {"n_targets": 2}, [(N, 2)]),
    ("OneHotEncoder", (4, 3), {"cats_int64s": [1, 2, 3, 4]}, [(4, 3, 4)]),
    ("CategoryMapper", (4, 3), {"cats_int64s": [1, 2], "cats_strings": ["a", "b"]}, [(4, 3)]),
]


@pytest.mark.parametrize(("op", "shape", "attrs", "want"), ML, ids=lambda v: str(v)[:30])
def test_ml_rules_give_what_onnx_and_onnxruntime_give(
    onnx_registry: Any, op: str, shape: Any, attrs: dict[str, Any], want: list[Any]
) -> None:
    model = _model(op, [shape], attrs, len(want), 3 if op.startswith("Tree") else 1, "ai.onnx.ml")
    got, findings = _shapes(onnx_registry, model, len(want))
    assert findings == []
    for dims, expected in zip(got, want):
        _check(dims, expected)


def test_feature_vectorizer_and_string_normalizer(onnx_registry: Any) -> None:
    model = _model("FeatureVectorizer", [(4, 3), (4, 2)], {"inputdimensions": [3, 2]}, 1, 1, "ai.onnx.ml")
    _check(_shapes(onnx_registry, model)[0][0], (4, 5))
    model = _model("FeatureVectorizer", [(3,)], {"inputdimensions": [3]}, 1, 1, "ai.onnx.ml")
    _check(_shapes(onnx_registry, model)[0][0], (None, 3))
    _check(_shapes(onnx_registry, _model("StringNormalizer", [(1, 6)], {}, 1, 10))[0][0], (1, 6))
    stop = _model("StringNormalizer", [(1, 6)], {"stopwords": ["a"]}, 1, 10)
    _check(_shapes(onnx_registry, stop)[0][0], (1, F))
    image = _model("ImageDecoder", [(100,)], {"pixel_format": "Grayscale"}, 1, 20)
    _check(_shapes(onnx_registry, image)[0][0], (F, F, 1))


@pytest.mark.parametrize(
    ("model", "finding", "want"),
    [
        # a broken constraint is a finding; the output keeps its rule's shape
        (_model("TopK", [(3, 4), c([5])], {}, 2, 11), "k is larger than the axis", (3, 5)),
        (
            _model("Slice", [(3, 4), c([0]), c([2]), c([1]), c([0])], {}, 1, 13),
            "a slice step is 0",
            (3, None),
        ),
        (
            _model("Slice", [(3, 4), c([0, 0]), c([2, 2]), c([1, -1])], {}, 1, 13),
            "positions repeat: [1, 1]",
            None,
        ),
        (
            _model("CenterCropPad", [(3, 4), c([2])], {"axes": [0, 1]}, 1, 18),
            "1 values for 2 positions",
            None,
        ),
    ],
)
def test_impossible_nodes_are_findings(onnx_registry: Any, model: Any, finding: str, want: Any) -> None:
    got, findings = _shapes(onnx_registry, model, len(model.graph.output))
    assert findings == [finding]
    _check(got[0], want)


@pytest.mark.parametrize(
    ("rule", "want"),
    [
        ("[slice_len(10, 2, 8, 3), slice_len(10, -3, 100, 1), slice_len(10, 100, -100, -4)]", (2, 3, 3)),
        ("[slice_len(10, 0, 0, 1), slice_len(0, 0, 5, 1), slice_len(X[0], 0, 5, 1)]", (0, 0, None)),
        (
            "[slice_len(X[0], 0, 4611686018427387904, 1), slice_len(X[0], 1, 4611686018427387904, 1)]",
            (Sym("N"), None),
        ),
        ("scatter([1, 2, 3], [2, 0], [7, 8])", (8, 2, 7)),
        ("scatter([1, 2, 3], value(X), [7])", (None, None, None)),  # positions not known: the length
        ("[unknown(), 3]", (None, 3)),
        ("if given(@missing) then [1] else [2]", (2,)),
    ],
)
def test_the_new_builtins(rule: str, want: Any) -> None:
    schema = _single(rule, ("X",))
    if "@missing" in rule:
        from dataclasses import replace

        from toolkit.model.spec import Attribute, AttrType

        schema = replace(schema, attributes=(Attribute("missing", AttrType.INT, required=False),))
    assert _infer(schema, [(Sym("N"),)], 1).outputs[0] == want


def test_infer_shapes_command_writes_the_new_shapes_and_reports_a_bad_topk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = helper.make_tensor_value_info
    ints = TensorProto.INT64
    nodes = [
        helper.make_node("Slice", ["X", "s", "e", "a", "st"], ["S"]),
        helper.make_node("Pad", ["S", "p"], ["P"]),
        helper.make_node("TopK", ["P", "k"], ["V", "I"], axis=1),
    ]
    inits = [
        helper.make_tensor("s", ints, [1], [-1]),
        helper.make_tensor("e", ints, [1], [-BIG - 1]),
        helper.make_tensor("a", ints, [1], [1]),
        helper.make_tensor("st", ints, [1], [-2]),
        helper.make_tensor("p", ints, [4], [0, 1, 0, 1]),
        helper.make_tensor("k", ints, [1], [2]),
    ]
    outs = [x(n, TensorProto.FLOAT, None) for n in ("V",)] + [x("I", TensorProto.INT64, None)]
    graph = helper.make_graph(nodes, "g", [x("X", TensorProto.FLOAT, ["N", 9])], outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
    (tmp_path / "m.onnx").write_bytes(model.SerializeToString())
    assert main(["infer-shapes", str(tmp_path / "m.onnx"), "-o", str(tmp_path / "out.onnx")]) == 0
    out = onnx.load(str(tmp_path / "out.onnx"))
    dims = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in (*out.graph.value_info, *out.graph.output)
    }
    # 9 taken backwards from the last by 2: 5 items; padded by one on each side: 7; the top 2
    assert dims["S"] == ["N", 5] and dims["P"] == ["N", 7] and dims["V"] == dims["I"] == ["N", 2]
    model.graph.initializer[-1].CopyFrom(helper.make_tensor("k", ints, [1], [8]))
    (tmp_path / "bad.onnx").write_bytes(model.SerializeToString())
    assert main(["infer-shapes", str(tmp_path / "bad.onnx"), "-o", str(tmp_path / "out2.onnx")]) == 1
    assert "k is larger than the axis" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.onnx", "m.onnx", "out.onnx", "out2.onnx"]
