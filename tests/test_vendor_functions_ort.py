"""The shipped vendor domain runs on onnxruntime through its function bodies, with no vendor
kernel: a model using the vendor operator, with the body attached as a model-local FunctionProto
(`attach_functions`, encoded by our codec from the spec's text), runs in onnxruntime and matches
a numpy reference."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import onnx.helper as oh  # noqa: E402

from toolkit.model.codec_functions import encode_function  # noqa: E402
from toolkit.onnx_bridge.local_functions import attach_functions  # noqa: E402

VISION = "com.acme.vision"
RNG = np.random.default_rng(16)


def _conv(x: Any, w: Any, b: Any, pads: list[int], strides: list[int], group: int) -> Any:
    """Plain NCHW 2-D cross-correlation, the reference for FusedConv."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, _, h, wd = x.shape
    m, cg, kh, kw = w.shape
    oh_, ow = (h - kh) // strides[0] + 1, (wd - kw) // strides[1] + 1
    y = np.zeros((n, m, oh_, ow), dtype=np.float64)
    per_group = m // group
    for f in range(m):
        g = f // per_group
        for i in range(oh_):
            for j in range(ow):
                patch = x[
                    :,
                    g * cg : (g + 1) * cg,
                    i * strides[0] : i * strides[0] + kh,
                    j * strides[1] : j * strides[1] + kw,
                ]
                y[:, f, i, j] = (patch * w[f]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


ACTIVATIONS = {
    "none": lambda y: y,
    "relu": lambda y: np.maximum(y, 0),
    "sigmoid": lambda y: 1 / (1 + np.exp(-y)),
    "tanh": np.tanh,
}


def _run(
    registry: Any, schema: Any, inputs: dict[str, Any], attributes: dict[str, Any], domain_version: int
) -> Any:
    names = [p.name for p in schema.inputs if p.name in inputs]
    node = oh.make_node(schema.name, names, ["Y"], domain=VISION, **attributes)
    graph = oh.make_graph(
        [node],
        "vendor_function",
        [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, list(inputs[n].shape)) for n in names],
        [oh.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, ["n", "c", "h", "w"])],
    )
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid(VISION, domain_version)], ir_version=10)
    assert attach_functions(model, registry) == [schema.id]  # the body, as a model-local function
    (function,) = model.functions
    assert function.SerializeToString() == encode_function(schema).SerializeToString()
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {n: inputs[n] for n in names})[0]


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
@pytest.mark.parametrize("with_bias", [True, False])
def test_fused_conv_2_runs_through_its_body(shipped_registry: Any, activation: str, with_bias: bool) -> None:
    schema = shipped_registry.get_schema("FusedConv", 2, VISION)
    x = RNG.standard_normal((1, 4, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(6).astype(np.float32)
    inputs = {"X": x, "W": w, **({"B": b} if with_bias else {})}
    attrs = {"activation": activation, "pads": [1, 0, 1, 2], "strides": [1, 2], "group": 2}
    got = _run(shipped_registry, schema, inputs, attrs, 2)
    want = ACTIVATIONS[activation](_conv(x, w, b if with_bias else None, [1, 0, 1, 2], [1, 2], 2))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_fused_conv_1_uses_its_defaults(shipped_registry: Any) -> None:
    schema = shipped_registry.get_schema("FusedConv", 1, VISION)
    x = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    w = RNG.standard_normal((5, 3, 2, 2)).astype(np.float32)
    b = RNG.standard_normal(5).astype(np.float32)
    got = _run(shipped_registry, schema, {"X": x, "W": w, "B": b}, {}, 1)
    np.testing.assert_allclose(got, _conv(x, w, b, [0, 0, 0, 0], [1, 1], 1), rtol=1e-4, atol=1e-5)


def test_normalize_1_and_3_run_through_their_bodies(shipped_registry: Any) -> None:
    x = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    mean = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    std = np.array([2.0, 0.5, 4.0], dtype=np.float32)
    want = (x - mean.reshape(1, 3, 1, 1)) / std.reshape(1, 3, 1, 1)
    old = _run(
        shipped_registry,
        shipped_registry.get_schema("Normalize", 1, VISION),
        {"X": x},
        {"mean": mean.tolist(), "std": std.tolist()},
        1,
    )
    np.testing.assert_allclose(old, want, rtol=1e-5)
    new = _run(
        shipped_registry,
        shipped_registry.get_schema("Normalize", 3, VISION),
        {"X": x, "mean": mean, "std": std},
        {},
        3,
    )
    np.testing.assert_allclose(new, want, rtol=1e-5)
