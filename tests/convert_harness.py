"""The numeric-equivalence harness of `opset convert`: convert a model with expected outputs to
another opset with our converter or with `onnx.version_converter`, run the result with
onnxruntime and compare with the expected outputs (`np.allclose` at the case's tolerance).

Used by tests/test_convert_numeric.py (a deterministic sample) and benchmarks/bench_convert.py
(every pair). Only originals that onnxruntime runs and that match their expected outputs count:
anything else says something about onnxruntime, not about a converter.

Outcomes of one (case, target, tool): `ok` (same outputs), `refused` (the converter said no),
`wrong` (runs, different outputs), `invalid` (onnxruntime cannot load or run the converted
model), `crash` (the converter failed in an unplanned way: for us anything but ConversionError).
"""

from __future__ import annotations

import hashlib
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ORT_MAX_OPSET = 26  # onnxruntime 1.31 loads ai.onnx up to opset 26
MIN_OPSET = 7
OUTCOMES = ("ok", "refused", "wrong", "invalid", "crash")


@dataclass
class Case:
    name: str
    model: Any
    inputs: dict[str, Any]
    outputs: list[Any]
    rtol: float = 1e-3
    atol: float = 1e-7

    @property
    def opset(self) -> int:
        return default_opset(self.model)


def default_opset(model: Any) -> int:
    return next((int(o.version) for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)


def node_cases(test_cases: Iterable[Any]) -> Iterator[Case]:
    """onnx's node test cases (onnx.backend.test.case.node) with tensor inputs and outputs,
    first data set, importing ai.onnx between MIN_OPSET and ORT_MAX_OPSET."""
    for case in test_cases:
        if not case.data_sets:
            continue
        inputs, outputs = case.data_sets[0]
        if not all(isinstance(v, np.ndarray) for v in (*inputs, *outputs)):
            continue
        model = case.model
        if not MIN_OPSET <= default_opset(model) <= ORT_MAX_OPSET:
            continue
        names = [i.name for i in model.graph.input]
        if len(names) != len(inputs):
            continue
        yield Case(
            case.name, model, dict(zip(names, inputs, strict=True)), list(outputs), case.rtol, case.atol
        )


def producer_cases(corpus: Iterable[Any]) -> Iterator[Case]:
    """The models of tests/producer_corpus.py that onnxruntime runs, with its outputs on their
    feeds as the expected ones (the producers write no expected outputs)."""
    import onnx

    for produced in corpus:
        if not produced.runs_in_ort:
            continue
        model = onnx.load(str(produced.path))
        if not MIN_OPSET <= default_opset(model) <= ORT_MAX_OPSET:
            continue
        try:
            expected = run(model, produced.feeds)
        except Exception:
            continue
        yield Case(f"producer/{produced.name}", model, dict(produced.feeds), expected, rtol=1e-4, atol=1e-5)


def run(model: Any, inputs: dict[str, Any]) -> list[Any]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return list(session.run(None, inputs))


def same(got: list[Any], expected: list[Any], rtol: float, atol: float) -> bool:
    if len(got) != len(expected):
        return False
    for a, b in zip(got, expected, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            if not np.allclose(
                a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
            ):
                return False
        elif not np.array_equal(a, b):
            return False
    return True


def runnable(case: Case) -> bool:
    """onnxruntime runs the original and matches its expected outputs."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return same(run(case.model, case.inputs), case.outputs, case.rtol, case.atol)
    except Exception:  # onnxruntime lacks a kernel, a type, ...: not a conversion question
        return False


@dataclass
class Tool:
    """One converter: `ours` (toolkit.onnx_bridge.convert) or `onnx` (onnx.version_converter)."""

    name: str
    registry: Any = None
    unchecked: Any = frozenset()
    seconds: float = 0.0

    def convert(self, model: Any, target: int) -> tuple[str, Any]:
        """(outcome so far, converted model or None): `refused`, `crash` or `converted`."""
        started = time.perf_counter()
        try:
            if self.name == "ours":
                from toolkit.onnx_bridge.convert import ConversionError, convert_model

                try:
                    return "converted", convert_model(
                        model, self.registry, {"": target}, unchecked_attributes=self.unchecked
                    ).model
                except ConversionError:
                    return "refused", None
                except Exception as exc:
                    return "crash", exc
            try:
                from onnx import version_converter

                return "converted", version_converter.convert_version(model, target)
            except Exception:  # onnx says "no adapter" (or fails) with an exception
                return "refused", None
        finally:
            self.seconds += time.perf_counter() - started


def evaluate(case: Case, target: int, tool: Tool) -> tuple[str, str]:
    """(outcome, detail) of converting `case` to opset `target` with `tool`."""
    state, converted = tool.convert(case.model, target)
    if state != "converted":
        return state, repr(converted) if state == "crash" else ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = run(converted, case.inputs)
    except Exception as exc:
        return "invalid", str(exc).splitlines()[0][:200]
    if same(got, case.outputs, case.rtol, case.atol):
        return "ok", ""
    return "wrong", ""


def targets(opset: int, far: bool) -> list[int]:
    """Target opsets for a model at `opset`: the neighbours, and with `far` the ends too."""
    out = {opset - 1, opset + 1}
    if far:
        out |= {MIN_OPSET, max(MIN_OPSET, opset - 6), min(ORT_MAX_OPSET, opset + 6), ORT_MAX_OPSET}
    return sorted(t for t in out if MIN_OPSET <= t <= ORT_MAX_OPSET and t != opset)


def sampled(name: str, one_in: int) -> bool:
    """Deterministic sample: keep about one name in `one_in`."""
    return one_in <= 1 or int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % one_in == 0


@dataclass
class Tally:
    """Counts per (tool, direction, outcome) and the failures with their details."""

    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    failures: list[tuple[str, str, int, str, str, str]] = field(default_factory=list)
    outcomes: dict[tuple[str, int, str], str] = field(default_factory=dict)  # (case, target, tool)

    def add(self, tool: str, case: Case, target: int, outcome: str, detail: str) -> None:
        direction = "upgrade" if target > case.opset else "downgrade"
        self.counts[(tool, direction, outcome)] += 1
        self.outcomes[(case.name, target, tool)] = outcome
        if outcome in ("wrong", "invalid", "crash"):
            self.failures.append((tool, case.name, target, direction, outcome, detail))

    def count(self, tool: str, direction: str, outcome: str) -> int:
        return self.counts[(tool, direction, outcome)]

    def pairs(self, tool: str, direction: str) -> int:
        return sum(self.counts[(tool, direction, o)] for o in OUTCOMES)

    def table(self) -> str:
        lines = [
            "| direction | tool | pairs | ok | refused | wrong | invalid | crash |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for direction in ("upgrade", "downgrade"):
            for tool in ("ours", "onnx"):
                pairs = self.pairs(tool, direction)
                if not pairs:
                    continue
                ok = self.count(tool, direction, "ok")
                label = "opset convert" if tool == "ours" else "onnx.version_converter"
                lines.append(
                    f"| {direction} | {label} | {pairs} | {ok} ({100 * ok / pairs:.1f}%) | "
                    + " | ".join(str(self.count(tool, direction, o)) for o in OUTCOMES[1:])
                    + " |"
                )
        return "\n".join(lines)


def sweep(cases: Iterable[Case], tools: list[Tool], *, one_in: int = 1, far: bool = False) -> Tally:
    tally = Tally()
    for case in cases:
        if not sampled(case.name, one_in) or not runnable(case):
            continue
        for target in targets(case.opset, far):
            for tool in tools:
                tally.add(tool.name, case, target, *evaluate(case, target, tool))
    return tally
