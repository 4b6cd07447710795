"""Numeric equivalence of `opset convert` against onnx.version_converter, with onnxruntime as
the judge: onnx's node test cases (a deterministic sample, see SAMPLE) and the real producers'
models of tests/producer_corpus.py converted to neighbouring opsets by both converters, run, and
compared with the expected outputs (the node cases' own, at their tolerances; onnxruntime's on
the original producer models) (tests/convert_harness.py). Refusals are fine; a wrong output or a crash is not.
`python benchmarks/bench_convert.py` runs every pair and more targets."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from convert_harness import Tool, node_cases, producer_cases, sweep

# One case in SAMPLE (by a hash of its name), converted to the opsets just below and above its
# own: keeps this test near a minute on the 2-core CI machine (the benchmark runs them all).
SAMPLE = 3


def tools() -> list[Tool]:
    from toolkit.onnx_bridge.catalog import model_registry, onnx_unchecked_attributes

    return [Tool("ours", model_registry([], adapters=True), onnx_unchecked_attributes()), Tool("onnx")]


@pytest.fixture(scope="module")
def tally(onnx_node_cases: list[Any]) -> Any:
    return sweep(node_cases(onnx_node_cases), tools(), one_in=SAMPLE)


@pytest.fixture(scope="module")
def producer_tally(producer_corpus: list[Any]) -> Any:
    """Every producer model of the real-model corpus (skl2onnx, onnxruntime's quantizer and
    optimizers, float16 conversion), converted to the neighbouring opsets."""
    return sweep(producer_cases(producer_corpus), tools())


@pytest.fixture(params=["node tests", "producers"])
def any_tally(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue("tally" if request.param == "node tests" else "producer_tally")


def test_never_wrong_and_never_crashes(any_tally: Any) -> None:
    tally = any_tally
    print("\n" + tally.table())
    ours = [f for f in tally.failures if f[0] == "ours"]
    assert not [f for f in ours if f[4] in ("wrong", "crash")], ours
    # A converted model onnxruntime cannot run counts against us unless onnx's converter's
    # result for the same pair fails the same way (an onnxruntime limit, e.g. a function op
    # it expands only at its own opset).
    for _tool, case, target, _direction, _outcome, detail in ours:
        assert tally.outcomes.get((case, target, "onnx")) == "invalid", (case, target, detail)


@pytest.mark.parametrize("direction", ["upgrade", "downgrade"])
def test_at_least_as_many_successes_as_onnx(any_tally: Any, direction: str) -> None:
    tally = any_tally
    assert tally.pairs("ours", direction) > 20
    assert tally.count("ours", direction, "ok") >= tally.count("onnx", direction, "ok"), tally.table()
