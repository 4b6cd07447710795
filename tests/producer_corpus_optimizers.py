"""Producer corpus: models rewritten by optimizers and converters (see producer_corpus_ort.py
for the float models they start from).

- onnxruntime.transformers.optimizer on the tiny BERT layers: the fusions it is known for
  (Attention, SkipLayerNormalization, EmbedLayerNormalization, BiasGelu, FastGelu, ...) are
  checked to have happened, so a silent change in the optimizer cannot empty the corpus;
- onnxruntime's offline optimizer (`SessionOptions.optimized_model_filepath`) at the basic,
  extended and all levels;
- onnxconverter-common's float16 converter, with and without keeping float32 I/O.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from producer_corpus import save
from producer_corpus_ort import float_models

Produced = Iterator[tuple[str, str, dict[str, Any]]]

# The fused com.microsoft op types each transformers-optimized model must contain.
EXPECTED_FUSIONS = {
    "bert_erf": {"Attention", "SkipLayerNormalization", "BiasGelu"},
    "bert_tanh": {"Attention", "SkipLayerNormalization", "FastGelu"},
}


def op_types(model: Any, domain: str | None = None) -> set[str]:
    return {n.op_type for n in model.graph.node if domain is None or n.domain == domain}


def build_transformers(out: Path) -> Produced:
    import logging

    from onnxruntime.transformers.optimizer import optimize_model

    # The optimizer warns that our producer_name is not "pytorch"; the fusions do not depend on it.
    logging.getLogger("onnxruntime.transformers").setLevel(logging.ERROR)
    models = float_models()
    for name, expected in EXPECTED_FUSIONS.items():
        model, feeds = models[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optimized = optimize_model(model, model_type="bert", num_heads=2, hidden_size=16, opt_level=0)
        fused = optimized.model
        missing = expected - op_types(fused, "com.microsoft")
        assert not missing, f"onnxruntime's transformers optimizer did not fuse {sorted(missing)} in {name}"
        # save_model_to_file is what users call: it adds the com.microsoft opset import.
        optimized.save_model_to_file(str(out / f"ort_transformers_{name}.onnx"))
        yield f"ort_transformers_{name}", "ort.transformers", feeds


def build_offline(out: Path) -> Produced:
    import onnxruntime as ort

    levels = {
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }
    plan = {
        "mlp": ("extended",),
        "cnn": ("extended", "all"),
        "norms": ("basic", "extended"),
        "bert_erf": ("extended", "all"),
    }
    models = float_models()
    for name, wanted in plan.items():
        model, feeds = models[name]
        for level in wanted:
            stem = f"ort_offline_{name}_{level}"
            options = ort.SessionOptions()
            options.graph_optimization_level = levels[level]
            options.optimized_model_filepath = str(out / f"{stem}.onnx")
            options.log_severity_level = 3
            ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
            yield stem, f"ort.offline.{level}", feeds


def build_float16(out: Path) -> Produced:
    import numpy as np
    from onnxconverter_common import float16

    models = float_models()
    for name in ("mlp", "cnn", "bert_erf"):
        model, feeds = models[name]
        for keep_io in (True, False):
            stem = f"float16_{name}_{'keepio' if keep_io else 'allfp16'}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                converted = float16.convert_float_to_float16(model, keep_io_types=keep_io)
            save(converted, out, stem)
            run_feeds = (
                feeds
                if keep_io
                else {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in feeds.items()}
            )
            yield stem, "onnxconverter-common.float16", run_feeds
