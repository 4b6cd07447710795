"""The builder groups of the producer corpus (tests/producer_corpus.py), in build order."""

from __future__ import annotations

from producer_corpus import Builder
from producer_corpus_optimizers import build_float16, build_offline, build_transformers
from producer_corpus_ort import build_float, build_quantized
from producer_corpus_sklearn import build_classifiers, build_dict_and_text, build_pipelines, build_regressors

BUILDERS: dict[str, Builder] = {
    "sklearn_classifiers": build_classifiers,
    "sklearn_regressors": build_regressors,
    "sklearn_pipelines": build_pipelines,
    "sklearn_dict_text": build_dict_and_text,
    "float": build_float,
    "quantized": build_quantized,
    "transformers": build_transformers,
    "offline": build_offline,
    "float16": build_float16,
}
