"""The producer corpus itself (tests/producer_corpus.py): what it covers, and its reuse."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.report


def test_corpus_covers_the_producers(producer_corpus: list[Any]) -> None:
    onnx = pytest.importorskip("onnx")
    assert len(producer_corpus) >= 60
    producers = Counter(m.producer for m in producer_corpus)
    print(f"{len(producer_corpus)} models: " + ", ".join(f"{k} {v}" for k, v in sorted(producers.items())))
    ops: set[tuple[str, str]] = set()
    for m in producer_corpus:
        model = onnx.load(str(m.path))
        ops |= {(n.domain, n.op_type) for n in model.graph.node}
    for wanted in [
        ("ai.onnx.ml", "ZipMap"),
        ("ai.onnx.ml", "DictVectorizer"),
        ("ai.onnx.ml", "TreeEnsembleClassifier"),
        ("ai.onnx.ml", "TreeEnsembleRegressor"),
        ("ai.onnx.ml", "OneHotEncoder"),
        ("ai.onnx.ml", "SVMClassifier"),
        ("", "QuantizeLinear"),
        ("", "QLinearConv"),
        ("com.microsoft", "QGemm"),
        ("", "MatMulInteger"),
        ("com.microsoft", "Attention"),
        ("com.microsoft", "SkipLayerNormalization"),
        ("com.microsoft", "FastGelu"),
        ("com.microsoft", "BiasGelu"),
        ("com.microsoft", "Tokenizer"),
        ("com.microsoft", "QLinearAdd"),
        ("com.microsoft", "FusedGemm"),
        ("com.microsoft.nchwc", "Conv"),
        ("", "SimplifiedLayerNormalization"),  # onnxruntime's own addition to the default domain
    ]:
        assert wanted in ops, wanted
    runs = [m for m in producer_corpus if m.runs_in_ort]
    both = [m for m in runs if m.checker_ok]
    vendor = [m for m in producer_corpus if m.vendor]
    print(
        f"run in onnxruntime: {len(runs)}; also accepted by onnx.checker: {len(both)}; vendor domains: {len(vendor)}"
    )
    assert len(both) >= 60
    # A model that does not run carries the reason, so a test can say why it is excluded.
    assert all(m.note for m in producer_corpus if not (m.runs_in_ort and m.checker_ok))
    # The float16 conversion of a model with a Cast to float: onnxruntime refuses it.
    assert not next(m for m in producer_corpus if m.name == "float16_bert_erf_keepio").runs_in_ort


def test_corpus_is_deterministic_and_reused_while_producer_versions_match(tmp_path: Path) -> None:
    pytest.importorskip("skl2onnx")
    from producer_corpus import MANIFEST, build_corpus

    groups = ("sklearn_regressors", "sklearn_dict_text")  # KNN's counter-numbered names, vocabularies
    first = build_corpus(tmp_path / "a", groups=groups)
    other = build_corpus(tmp_path / "b", groups=groups)
    assert [m.name for m in first] == [m.name for m in other]
    for a, b in zip(first, other, strict=True):
        assert a.path.read_bytes() == b.path.read_bytes(), a.name
    assert (tmp_path / "a" / MANIFEST).read_bytes() == (tmp_path / "b" / MANIFEST).read_bytes()

    stamp = {m.name: m.path.stat().st_mtime_ns for m in first}
    again = build_corpus(tmp_path / "a", groups=groups)
    assert [(m.name, m.runs_in_ort, m.checker_ok) for m in again] == [
        (m.name, m.runs_in_ort, m.checker_ok) for m in first
    ]
    assert {m.name: m.path.stat().st_mtime_ns for m in again} == stamp
    regressors = [m for m in first if m.name.startswith("skl_reg_")]
    assert all((a.feeds["X"] == b.feeds["X"]).all() for a, b in zip(regressors, again, strict=False))
    manifest = tmp_path / "a" / MANIFEST
    manifest.write_text(manifest.read_text("utf-8").replace('"onnxruntime": "', '"onnxruntime": "0'), "utf-8")
    rebuilt = build_corpus(tmp_path / "a", groups=groups)
    assert [m.name for m in rebuilt] == [m.name for m in first]
    assert {m.name: m.path.stat().st_mtime_ns for m in rebuilt} != stamp  # built again
