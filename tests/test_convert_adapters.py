"""The ai.onnx overlay's adapters one by one: each model is converted up or down with
`opset convert`, run with onnxruntime and compared with the original's outputs; and the nodes
whose meaning would change are refused with the reason (never converted into something else)."""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
pytest.importorskip("onnxruntime")
from convert_harness import run  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from toolkit.onnx_bridge.catalog import model_registry, onnx_unchecked_attributes  # noqa: E402
from toolkit.onnx_bridge.convert import ConversionError, convert_model  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

RNG = np.random.default_rng(13)
X = RNG.random((2, 3, 4), dtype=np.float32)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return model_registry([], adapters=True)


def info(name: str, elem: int = TensorProto.FLOAT, shape: list[int] | None = None) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes: list[Any], inputs: list[Any], outputs: list[Any], opset: int, inits: list[Any] = ()) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def convert(registry: Registry, source: Any, target: int) -> Any:
    return convert_model(
        source, registry, {"": target}, unchecked_attributes=onnx_unchecked_attributes()
    ).model


def same_outputs(registry: Registry, source: Any, target: int, feeds: dict[str, Any]) -> Any:
    converted = convert(registry, source, target)
    for want, got in zip(run(source, feeds), run(converted, feeds), strict=True):
        assert want.shape == got.shape and np.allclose(want, got, rtol=1e-5, atol=1e-6), (want, got)
    return converted


def ops(converted: Any) -> list[str]:
    return [n.op_type for n in converted.graph.node]


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_softmax_family_upgrade_keeps_the_flattened_meaning(registry: Registry, op: str, axis: int) -> None:
    source = model(
        [helper.make_node(op, ["x"], ["y"], axis=axis)], [info("x", shape=[2, 3, 4])], [info("y")], 11
    )
    converted = same_outputs(registry, source, 13, {"x": X})
    assert ops(converted) == ([op] if axis == -1 else ["Shape", "Flatten", op, "Reshape"])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_softmax_downgrade_computes_along_the_one_axis(registry: Registry, op: str, axis: int) -> None:
    source = model(
        [helper.make_node(op, ["x"], ["y"], axis=axis)], [info("x", shape=[2, 3, 4])], [info("y")], 13
    )
    converted = same_outputs(registry, source, 11, {"x": X})
    assert (ops(converted) == [op]) == (axis == -1)


def test_hardmax_downgrade_on_another_axis_is_refused(registry: Registry) -> None:
    source = model(
        [helper.make_node("Hardmax", ["x"], ["y"], axis=1)], [info("x", shape=[2, 3, 4])], [info("y")], 13
    )
    with pytest.raises(ConversionError, match=r"axis 1 means one axis in ai\.onnx\.Hardmax:13"):
        convert(registry, source, 11)
    same_outputs(
        registry,
        model([helper.make_node("Hardmax", ["x"], ["y"])], [info("x", shape=[2, 3, 4])], [info("y")], 13),
        11,
        {"x": X},
    )


def test_type_only_and_attribute_added_steps_both_ways(registry: Registry) -> None:
    shape = numpy_helper.from_array(np.array([6, 4], "int64"), "s")
    cases = [
        (
            [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.DOUBLE)],
            [info("y", TensorProto.DOUBLE)],
            [],
        ),
        ([helper.make_node("Identity", ["x"], ["y"])], [info("y")], []),
        ([helper.make_node("Reshape", ["x", "s"], ["y"])], [info("y")], [shape]),
        ([helper.make_node("Shape", ["x"], ["y"])], [info("y", TensorProto.INT64)], []),
        ([helper.make_node("CastLike", ["x", "x"], ["y"])], [info("y")], []),
    ]
    for nodes, outputs, inits in cases:
        first = 15 if nodes[0].op_type == "CastLike" else 9
        up = same_outputs(
            registry, model(nodes, [info("x", shape=[2, 3, 4])], outputs, first, inits), 25, {"x": X}
        )
        same_outputs(registry, up, first, {"x": X})


@pytest.mark.parametrize(
    ("node", "outputs", "opset", "target", "why"),
    [
        (
            helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=1),
            ["y"],
            14,
            13,
            "attribute 'allowzero' is 1",
        ),
        (
            helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E4M3FN),
            ["y"],
            19,
            13,
            r"has type tensor\(float8e4m3fn\)",
        ),
        (helper.make_node("Shape", ["x"], ["y"], start=1), ["y"], 15, 13, "attribute 'start' is 1"),
        (
            helper.make_node("Split", ["x"], ["a", "b"], axis=1, num_outputs=2),
            ["a", "b"],
            18,
            13,
            "num_outputs 2 splits a dimension of 3 unevenly",
        ),
        (helper.make_node("Concat", ["x", "x"], ["y"], axis=-1), ["y"], 11, 10, "accepts only values >= 0"),
        (helper.make_node("Pad", ["x", "p", "", "ax"], ["y"]), ["y"], 18, 13, r"input 3 \('ax'\) is given"),
    ],
)
def test_meaning_changes_are_refused(
    registry: Registry, node: Any, outputs: list[str], opset: int, target: int, why: str
) -> None:
    inits = [
        numpy_helper.from_array(np.array([6, 4], "int64"), "s"),
        numpy_helper.from_array(np.array([1, 1], "int64"), "p"),
        numpy_helper.from_array(np.array([2], "int64"), "ax"),
    ]
    elem = {"Shape": TensorProto.INT64, "Cast": TensorProto.FLOAT8E4M3FN}.get(node.op_type, TensorProto.FLOAT)
    outs = [info(o, elem) for o in outputs]
    source = model([node], [info("x", shape=[2, 3, 4])], outs, opset, inits)
    with pytest.raises(ConversionError, match=why) as raised:
        convert(registry, source, target)
    assert all(b.finding.rule == "CONVERT-REFUSED" for b in raised.value.blockers)


def test_attribute_input_moves_and_subgraph_free_rewrites(registry: Registry) -> None:
    x = [info("x", shape=[2, 3, 4])]
    for nodes, outputs, first in [
        ([helper.make_node("Split", ["x"], ["a", "b"], axis=2, split=[1, 3])], ["a", "b"], 11),
        ([helper.make_node("Split", ["x"], ["a", "b"], axis=2)], ["a", "b"], 11),
        ([helper.make_node("Clip", ["x"], ["y"], min=0.2, max=0.5)], ["y"], 9),
        ([helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 0, 1, 0], value=2.0)], ["y"], 9),
        ([helper.make_node("Dropout", ["x"], ["y"], ratio=0.3)], ["y"], 9),
    ]:
        up = same_outputs(registry, model(nodes, x, [info(o) for o in outputs], first), 21, {"x": X})
        same_outputs(registry, up, first, {"x": X})
    stats = {n: np.full(3, v, "float32") for n, v in (("s", 1.5), ("b", 0.1), ("m", 0.2), ("v", 2.0))}
    bn = model(
        [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
        x + [info(n, shape=[3]) for n in "sbmv"],
        [info("y")],
        9,
    )
    up = same_outputs(registry, bn, 21, {"x": X, **stats})
    same_outputs(registry, up, 9, {"x": X, **stats})
    gemm = model(
        [helper.make_node("Gemm", ["a", "b"], ["y"])],
        [info("a", shape=[2, 3]), info("b", shape=[3, 4])],
        [info("y")],
        13,
    )
    ab = {"a": X[0, :, :3].T.copy()[:2], "b": X[0, :, :4]}
    down = same_outputs(registry, gemm, 9, ab)
    assert len(down.graph.node[-1].input) == 3, "Gemm 9 needs C: a scalar 0 of the input's type"


def test_quantization_steps(registry: Registry) -> None:
    scale = numpy_helper.from_array(np.array(0.05, "float32"), "scale")
    zero = numpy_helper.from_array(np.array(3, "uint8"), "zero")
    q = model(
        [
            helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
            helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"]),
        ],
        [info("x", shape=[2, 3, 4])],
        [info("y")],
        10,
        [scale, zero],
    )
    up = same_outputs(registry, q, 25, {"x": X})
    same_outputs(registry, up, 10, {"x": X})
    per_axis = numpy_helper.from_array(np.array([0.05, 0.1, 0.2], "float32"), "scale")
    zeros = numpy_helper.from_array(np.array([3, 3, 3], "uint8"), "zero")
    axis = model(
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], axis=1)],
        [info("x", shape=[2, 3, 4])],
        [info("y", TensorProto.UINT8)],
        13,
        [per_axis, zeros],
    )
    with pytest.raises(ConversionError, match="has 3 values \\(per-axis\\)"):
        convert(registry, axis, 10)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("scales", [[1, 1, 2, 2], [1, 1, 1.5, 2.5]])
def test_upsample_and_resize_10_keep_their_coordinate_mapping(
    registry: Registry, mode: str, scales: list[float]
) -> None:
    x = RNG.random((1, 1, 3, 4), dtype=np.float32)
    feeds = {"x": x, "s": np.array(scales, "float32")}
    for op, first in (("Upsample", 9), ("Resize", 10)):
        source = model(
            [helper.make_node(op, ["x", "s"], ["y"], mode=mode)],
            [info("x", shape=[1, 1, 3, 4]), info("s", shape=[4])],
            [info("y")],
            first,
        )
        up = same_outputs(registry, source, 13, feeds)
        assert ops(up) == ["Constant", "Resize"]
        if op == "Resize":
            assert ops(same_outputs(registry, up, 10, feeds)) == ["Resize"]
    half = model(
        [helper.make_node("Resize", ["x", "", "s"], ["y"], mode=mode)],
        [info("x", shape=[1, 1, 3, 4]), info("s", shape=[4])],
        [info("y")],
        13,
    )
    with pytest.raises(ConversionError, match="attribute 'coordinate_transformation_mode' is 'half_pixel'"):
        convert(registry, half, 10)


def test_a_type_parameter_that_binds_fewer_values_is_still_checked(registry: Registry) -> None:
    """Pow 12 gave the exponent its own type parameter and accepts integers: T binds X and Z
    there, X, Y and Z in Pow 7. Going back, integer bases are refused; float ones move."""
    ints = [info("x", TensorProto.INT64, [3]), info("e", TensorProto.INT64, [3])]
    source = model(
        [helper.make_node("Pow", ["x", "e"], ["y"])], ints, [info("y", TensorProto.INT64, [3])], 12
    )
    with pytest.raises(
        ConversionError, match=r"has type tensor\(int64\), which ai\.onnx\.Pow:7 does not accept"
    ):
        convert(registry, source, 11)
    floats = model(
        [helper.make_node("Pow", ["x", "e"], ["y"])],
        [info("x", shape=[3]), info("e", shape=[3])],
        [info("y", shape=[3])],
        12,
    )
    feeds = {"x": np.array([1.5, 2.0, 3.0], np.float32), "e": np.array([2.0, 0.5, 1.0], np.float32)}
    same_outputs(registry, floats, 9, feeds)
