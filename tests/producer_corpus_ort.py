"""The onnxruntime / onnxconverter-common part of the producer corpus.

Small float models written with onnx.helper (an MLP, a CNN, a tiny BERT-like encoder layer, a
decomposed LayerNorm / RMSNorm block), then what the real tools make of them: onnxruntime's
quantizer (quantize_static QDQ and QOperator, quantize_dynamic), its transformers optimizer
(com.microsoft Attention, SkipLayerNormalization, BiasGelu, FastGelu, ...), its offline graph
optimizer (`SessionOptions.optimized_model_filepath`, extended and all levels: com.microsoft
fused ops, com.microsoft.nchwc layouts, onnxruntime's own LayerNormalization-1 in the default
domain) and onnxconverter-common's float16 converter.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from producer_corpus import Data, save

Produced = Iterator[tuple[str, str, dict[str, Any]]]
OPSET = 17


def _model(
    nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: dict[str, np.ndarray], opset: int = OPSET
) -> Any:
    from onnx import helper, numpy_helper

    graph = helper.make_graph(
        nodes, "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()]
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="opset-toolkit-tests"
    )
    model.ir_version = 8
    return model


def _tensor(name: str, shape: list[Any], elem: int | None = None) -> Any:
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info(name, TensorProto.FLOAT if elem is None else elem, shape)


def float_models() -> dict[str, tuple[Any, dict[str, np.ndarray]]]:
    """name -> (ModelProto, feeds) of the float models the ort tools start from."""
    from onnx import helper

    d = Data(5)
    mk = helper.make_node
    out: dict[str, tuple[Any, dict[str, np.ndarray]]] = {}

    mlp = _model(
        [
            mk("MatMul", ["X", "W1"], ["h1"]),
            mk("Add", ["h1", "B1"], ["h2"]),
            mk("Relu", ["h2"], ["h3"]),
            mk("MatMul", ["h3", "W2"], ["h4"]),
            mk("Add", ["h4", "B2"], ["h5"]),
            mk("Softmax", ["h5"], ["Y"], axis=-1),
        ],
        [_tensor("X", ["N", 16])],
        [_tensor("Y", ["N", 8])],
        {"W1": d.floats(16, 32), "B1": d.floats(1, 32)[0], "W2": d.floats(32, 8), "B2": d.floats(1, 8)[0]},
    )
    out["mlp"] = (mlp, {"X": d.floats(2, 16)})

    cnn = _model(
        [
            mk("Conv", ["X", "C1", "CB1"], ["c1"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
            mk("Relu", ["c1"], ["r1"]),
            mk("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
            mk("Conv", ["p1", "C2", "CB2"], ["c2"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
            mk("Relu", ["c2"], ["r2"]),
            mk("Add", ["r2", "p1"], ["s"]),
            mk("GlobalAveragePool", ["s"], ["g"]),
            mk("Flatten", ["g"], ["f"]),
            mk("Gemm", ["f", "G", "GB"], ["Y"], transB=1),
        ],
        [_tensor("X", [1, 3, 16, 16])],
        [_tensor("Y", [1, 4])],
        {
            "C1": d.floats(8 * 3 * 3, 3).reshape(8, 3, 3, 3),
            "CB1": d.floats(1, 8)[0],
            "C2": d.floats(8 * 8 * 3, 3).reshape(8, 8, 3, 3),
            "CB2": d.floats(1, 8)[0],
            "G": d.floats(4, 8),
            "GB": d.floats(1, 4)[0],
        },
    )
    out["cnn"] = (cnn, {"X": d.floats(3 * 16, 16).reshape(1, 3, 16, 16)})

    # LayerNorm and RMSNorm written out op by op, opset 13: onnxruntime's optimizer fuses them
    # into its own LayerNormalization-1 / SimplifiedLayerNormalization in the default domain.
    norms = _model(
        [
            mk("ReduceMean", ["X"], ["mu"], axes=[-1]),
            mk("Sub", ["X", "mu"], ["xc"]),
            mk("Pow", ["xc", "two"], ["sq"]),
            mk("ReduceMean", ["sq"], ["var"], axes=[-1]),
            mk("Add", ["var", "eps"], ["ve"]),
            mk("Sqrt", ["ve"], ["sd"]),
            mk("Div", ["xc", "sd"], ["nx"]),
            mk("Mul", ["nx", "gamma"], ["sx"]),
            mk("Add", ["sx", "beta"], ["ln"]),
            mk("Pow", ["ln", "two"], ["q"]),
            mk("ReduceMean", ["q"], ["ms"], axes=[-1]),
            mk("Add", ["ms", "eps"], ["mse"]),
            mk("Sqrt", ["mse"], ["rms"]),
            mk("Div", ["ln", "rms"], ["rn"]),
            mk("Mul", ["rn", "gamma"], ["Y"]),
        ],
        [_tensor("X", [2, 4, 16])],
        [_tensor("Y", [2, 4, 16])],
        {
            "two": np.array(2.0, np.float32),
            "eps": np.array(1e-5, np.float32),
            "gamma": d.floats(1, 16)[0],
            "beta": d.floats(1, 16)[0],
        },
        opset=13,
    )
    out["norms"] = (norms, {"X": d.floats(8, 16).reshape(2, 4, 16)})
    for gelu in ("erf", "tanh"):
        out[f"bert_{gelu}"] = bert_layer(d, gelu)
    return out


def bert_layer(d: Data, gelu: str, hidden: int = 16, heads: int = 2) -> tuple[Any, dict[str, np.ndarray]]:
    """One BERT encoder layer (embedding LayerNorm, self-attention with a mask, GELU feed
    forward), in the op pattern onnxruntime's transformers optimizer recognises."""
    from onnx import TensorProto, helper

    mk = helper.make_node
    head = hidden // heads
    nodes = [
        mk("Gather", ["word", "input_ids"], ["emb"]),
        mk("Add", ["emb", "pos"], ["emb_pos"]),
        mk("LayerNormalization", ["emb_pos", "ln0_g", "ln0_b"], ["x0"], axis=-1, epsilon=1e-12),
        # mask: (1 - mask) * -10000, broadcast over heads and query positions
        mk("Unsqueeze", ["attention_mask", "ax1"], ["m1"]),
        mk("Unsqueeze", ["m1", "ax2"], ["m2"]),
        mk("Cast", ["m2"], ["m3"], to=TensorProto.FLOAT),
        mk("Sub", ["one", "m3"], ["m4"]),
        mk("Mul", ["m4", "neg"], ["mask_add"]),
    ]
    for p, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [
            mk("MatMul", ["x0", f"{p}_w"], [f"{p}_mm"]),
            mk("Add", [f"{p}_mm", f"{p}_b"], [f"{p}_add"]),
            mk("Reshape", [f"{p}_add", "heads_shape"], [f"{p}_r"]),
            mk("Transpose", [f"{p}_r"], [f"{p}_t"], perm=perm),
        ]
    nodes += [
        mk("MatMul", ["q_t", "k_t"], ["qk"]),
        mk("Div", ["qk", "scale"], ["qk_s"]),
        mk("Add", ["qk_s", "mask_add"], ["qk_m"]),
        mk("Softmax", ["qk_m"], ["probs"], axis=3),
        mk("MatMul", ["probs", "v_t"], ["ctx"]),
        mk("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        mk("Reshape", ["ctx_t", "hidden_shape"], ["ctx_r"]),
        mk("MatMul", ["ctx_r", "o_w"], ["o_mm"]),
        mk("Add", ["o_mm", "o_b"], ["o_add"]),
        mk("Add", ["o_add", "x0"], ["res1"]),
        mk("LayerNormalization", ["res1", "ln1_g", "ln1_b"], ["x1"], axis=-1, epsilon=1e-12),
        mk("MatMul", ["x1", "f1_w"], ["f1_mm"]),
        mk("Add", ["f1_mm", "f1_b"], ["f1"]),
    ]
    if gelu == "erf":  # 0.5 * x * (1 + erf(x / sqrt(2)))
        nodes += [
            mk("Div", ["f1", "sqrt2"], ["g1"]),
            mk("Erf", ["g1"], ["g2"]),
            mk("Add", ["g2", "one"], ["g3"]),
            mk("Mul", ["f1", "g3"], ["g4"]),
            mk("Mul", ["g4", "half"], ["gelu"]),
        ]
    else:  # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
        nodes += [
            mk("Pow", ["f1", "three"], ["t1"]),
            mk("Mul", ["t1", "c044"], ["t2"]),
            mk("Add", ["f1", "t2"], ["t3"]),
            mk("Mul", ["t3", "sqrt2pi"], ["t4"]),
            mk("Tanh", ["t4"], ["t5"]),
            mk("Add", ["t5", "one"], ["t6"]),
            mk("Mul", ["f1", "half"], ["t7"]),
            mk("Mul", ["t7", "t6"], ["gelu"]),
        ]
    nodes += [
        mk("MatMul", ["gelu", "f2_w"], ["f2_mm"]),
        mk("Add", ["f2_mm", "f2_b"], ["f2"]),
        mk("Add", ["f2", "x1"], ["res2"]),
        mk("LayerNormalization", ["res2", "ln2_g", "ln2_b"], ["Y"], axis=-1, epsilon=1e-12),
    ]

    def vec(n: int) -> np.ndarray:
        return (0.1 * d.floats(1, n)[0]).astype(np.float32)

    def mat(a: int, b: int) -> np.ndarray:
        return (0.2 * d.floats(a, b)).astype(np.float32)

    f32 = np.float32
    inits = {
        "word": mat(30, hidden),
        "pos": mat(4, hidden),
        "ax1": np.array([1], np.int64),
        "ax2": np.array([2], np.int64),
        "one": np.array(1.0, f32),
        "neg": np.array(-10000.0, f32),
        "half": np.array(0.5, f32),
        "sqrt2": np.array(math.sqrt(2.0), f32),
        "three": np.array(3.0, f32),
        "c044": np.array(0.044715, f32),
        "sqrt2pi": np.array(math.sqrt(2.0 / math.pi), f32),
        "scale": np.array(math.sqrt(head), f32),
        "heads_shape": np.array([0, 0, heads, head], np.int64),
        "hidden_shape": np.array([0, 0, hidden], np.int64),
        "o_w": mat(hidden, hidden),
        "o_b": vec(hidden),
        "f1_w": mat(hidden, 4 * hidden),
        "f1_b": vec(4 * hidden),
        "f2_w": mat(4 * hidden, hidden),
        "f2_b": vec(hidden),
    }
    for p in "qkv":
        inits[f"{p}_w"], inits[f"{p}_b"] = mat(hidden, hidden), vec(hidden)
    for i in range(3):
        inits[f"ln{i}_g"], inits[f"ln{i}_b"] = (1 + vec(hidden)).astype(f32), vec(hidden)
    model = _model(
        nodes,
        [
            _tensor("input_ids", [1, 4], TensorProto.INT64),
            _tensor("attention_mask", [1, 4], TensorProto.INT64),
        ],
        [_tensor("Y", [1, 4, hidden])],
        inits,
    )
    feeds = {
        "input_ids": np.array([[3, 7, 11, 2]], np.int64),
        "attention_mask": np.array([[1, 1, 1, 0]], np.int64),
    }
    return model, feeds


def build_float(out: Path) -> Produced:
    for name, (model, feeds) in float_models().items():
        save(model, out, f"float_{name}")
        yield f"float_{name}", "onnx.helper", feeds


class _Reader:
    """onnxruntime's CalibrationDataReader protocol over a few random batches."""

    def __init__(self, feeds: dict[str, np.ndarray], count: int = 4) -> None:
        d = Data(6)
        self._batches = iter(
            [
                {k: (v + 0.1 * d.rng.standard_normal(v.shape)).astype(v.dtype) for k, v in feeds.items()}
                for _ in range(count)
            ]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._batches, None)

    def rewind(self) -> None:  # called by some onnxruntime versions; one pass is enough here
        pass


def build_quantized(out: Path) -> Produced:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    for name in ("mlp", "cnn"):
        model, feeds = float_models()[name]
        source = out / f"_q_src_{name}.onnx"
        prepped = out / f"_q_pre_{name}.onnx"
        save(model, out, source.stem)
        quant_pre_process(str(source), str(prepped), skip_symbolic_shape=True)
        for fmt, label in ((QuantFormat.QDQ, "qdq"), (QuantFormat.QOperator, "qop")):
            for per_channel in (False, True):
                stem = f"ort_quant_{name}_{label}{'_perchannel' if per_channel else ''}"
                quantize_static(
                    str(prepped),
                    str(out / f"{stem}.onnx"),
                    _Reader(feeds),
                    quant_format=fmt,
                    per_channel=per_channel,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8,
                )
                yield stem, f"ort.quantize_static.{label}", feeds
        stem = f"ort_quant_{name}_dynamic"
        quantize_dynamic(str(prepped), str(out / f"{stem}.onnx"), weight_type=QuantType.QInt8)
        yield stem, "ort.quantize_dynamic", feeds
        source.unlink()
        prepped.unlink()
