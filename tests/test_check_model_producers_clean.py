"""check-model on real producers' models (tests/producer_corpus.py): no false errors where
onnxruntime and onnx.checker both accept the model, and the model onnxruntime refuses for a
type conflict (a float16 conversion whose Cast still says float) is rejected."""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from test_check_model_producers import errors  # noqa: E402

from toolkit.onnx_bridge.catalog import onnx_registry  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.runtimes import runtime_catalog  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402


@pytest.fixture(scope="module")
def ort_registry() -> Registry:
    return runtime_catalog("onnxruntime").registry


@pytest.mark.report
def test_no_errors_where_onnxruntime_runs_and_onnx_checker_accepts(
    producer_corpus: list[Any], ort_registry: Registry
) -> None:
    standard = onnx_registry(adapters=False)
    clean: list[str] = []
    false_errors: list[str] = []
    nodes = 0
    for produced in producer_corpus:
        if not (produced.runs_in_ort and produced.checker_ok):
            continue
        model = onnx.load(str(produced.path))
        # vendor nodes are checked against onnxruntime's table (`--runtime onnxruntime`)
        registry = ort_registry if produced.vendor else standard
        result = check_model(model, registry, name=produced.name)
        nodes += result.nodes
        if result.errors:
            false_errors.append(f"{produced.name}: {[(f.rule, f.message) for f in result.errors][:3]}")
        else:
            clean.append(produced.name)
    print(f"{len(clean)} real producers' models clean ({nodes} nodes), {len(false_errors)} with errors")
    assert false_errors == [], "\n".join(false_errors)
    assert len(clean) >= 60
    # the classifiers with ZipMap (seq(map(K, float)) outputs) and the DictVectorizer models
    zipmap = [n for n in clean if n.endswith("_zipmap") or n.endswith("_binary") or n.endswith("_strlabels")]
    assert len(zipmap) >= 15 and {"skl_dictvec_logreg", "skl_dictvec_forest", "skl_dictvec"} <= set(clean)


def test_every_model_onnxruntime_runs_is_valid_for_onnxruntime(
    producer_corpus: list[Any], ort_registry: Registry
) -> None:
    bad = []
    for produced in producer_corpus:
        if produced.runs_in_ort:
            found = errors(onnx.load(str(produced.path)), ort_registry)
            if found:
                bad.append(f"{produced.name}: {found}")
    assert bad == []


def test_float16_cast_mismatch_is_rejected(producer_corpus: list[Any]) -> None:
    """onnxconverter-common turns the BERT layer's float tensors into float16 but leaves the mask's
    `Cast(to=FLOAT)`: its float output then meets float16 values in `Sub`, and onnxruntime
    refuses to load the model. check-model must reject it too."""
    standard = onnx_registry(adapters=False)
    for name in ("float16_bert_erf_keepio", "float16_bert_erf_allfp16"):
        produced = next(m for m in producer_corpus if m.name == name)
        assert not produced.runs_in_ort and "Type Error" in produced.note
        assert errors(onnx.load(str(produced.path)), standard), name
