"""`opset test-runtime`: run every example of the specs on a runtime and compare the outputs.

Each example becomes the one-node model of its backend test case (`toolkit.model.example_model`)
and runs through the runtime's Python API: onnxruntime's InferenceSession, with vendor kernels
from `--custom-op-library` shared libraries. Outputs are compared the way onnx's backend test
runner compares them: same element type and shape, then `|actual - expected| <= atol + rtol *
|expected|` for floating types (NaN equals NaN) and equality for the rest.
onnxruntime (and numpy, which it requires) are imported lazily: neither is a core dependency.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.model.diagnostics import UsageError
from toolkit.model.examples import Example, ExampleTensor
from toolkit.model.rules import register
from toolkit.model.spec import Location, OpSchema, display_domain
from toolkit.registry.core import Registry
from toolkit.registry.test_cases import all_cases, example_model

RUNTIMES = ("onnxruntime",)
PASS, FAIL, ERROR = "pass", "fail", "error"
RULE_OF = {FAIL: "RUNTIME-EXAMPLE-FAIL", ERROR: "RUNTIME-EXAMPLE-ERROR"}
_NUMPY_TYPES = {
    "float": "float32",
    "double": "float64",
    "float16": "float16",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "bool": "bool",
    "string": "object",
}


@dataclass(frozen=True)
class ExampleResult:
    """The outcome of one example: pass, fail (wrong outputs) or error (the runtime refused)."""

    domain: str
    op: str
    since_version: int
    example: str
    status: str
    message: str = ""
    location: Location | None = None

    @property
    def id(self) -> str:
        return f"{display_domain(self.domain)}.{self.op}:{self.since_version}/{self.example}"

    @property
    def rule(self) -> str:
        """The rule of a failing or erroring example; "" for a pass."""
        return RULE_OF.get(self.status, "")


def selected(
    registry: Registry, domains: Sequence[str] = (), ops: Sequence[str] = ()
) -> list[tuple[OpSchema, Example]]:
    """Every (version, example) of the registry, optionally only of some domains and operators,
    in domain, operator, version, example order."""
    wanted = {"" if d == "ai.onnx" else d for d in domains}
    return [
        (schema, example)
        for schema, example in all_cases(registry)
        if (not wanted or schema.domain in wanted) and (not ops or schema.name in ops)
    ]


def run_examples(
    registry: Registry,
    cases: Iterable[tuple[OpSchema, Example]],
    *,
    runtime: str = "onnxruntime",
    custom_op_libraries: Sequence[str] = (),
) -> list[ExampleResult]:
    if runtime not in RUNTIMES:
        raise UsageError(f"unknown runtime '{runtime}' (one of: {', '.join(RUNTIMES)})")
    session_for = _onnxruntime_sessions(custom_op_libraries)
    results = []
    for schema, example in cases:
        results.append(run_one(registry, schema, example, session_for))
    return results


def run_one(
    registry: Registry,
    schema: OpSchema,
    example: Example,
    session_for: Callable[[bytes], Any],
) -> ExampleResult:
    def result(status: str, message: str = "") -> ExampleResult:
        return ExampleResult(
            schema.domain, schema.name, schema.since_version, example.name, status, message, example.location
        )

    import numpy as np

    model, in_names, out_names = example_model(registry, schema, example)
    unsupported = [
        t.dtype for t in (*example.outputs, *[t for t in example.inputs if t]) if t.dtype not in _NUMPY_TYPES
    ]
    if unsupported:
        return result(ERROR, f"element type {unsupported[0]} has no numpy type to run it with")
    feeds = {
        name: _array(np, tensor)
        for name, tensor in zip(in_names, [t for t in example.inputs if t], strict=True)
    }
    try:
        session = session_for(model)
        actual = session.run(out_names, feeds)
    except Exception as exc:
        return result(ERROR, _first_line(exc))
    for index, (expected, got) in enumerate(zip(example.outputs, actual, strict=True)):
        problem = compare(np, expected, got, example.rtol, example.atol)
        if problem:
            return result(FAIL, f"output {index} ({out_names[index]}): {problem}")
    return result(PASS)


def compare(np: Any, expected: ExampleTensor, got: Any, rtol: float, atol: float) -> str:
    """Why `got` (a numpy array) is not `expected` ("" when it is)."""
    want = _array(np, expected)
    if not isinstance(got, np.ndarray):
        return f"the runtime returned a {type(got).__name__}, not a tensor"
    if got.dtype != want.dtype:
        return f"element type {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, expected {list(want.shape)}"
    if want.dtype.kind == "f":
        close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = got == want
    if bool(np.all(close)):
        return ""
    bad = int(np.argmin(np.reshape(close, -1)))
    return (
        f"{int(np.size(close) - np.count_nonzero(close))} of {want.size} elements differ; "
        f"first at flat index {bad}: {np.reshape(got, -1)[bad].item()!r}, expected {np.reshape(want, -1)[bad].item()!r}"
    )


def _array(np: Any, tensor: ExampleTensor) -> Any:
    return np.array(tensor.data, dtype=_NUMPY_TYPES[tensor.dtype]).reshape(tensor.shape)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:400]


def _onnxruntime_sessions(libraries: Sequence[str]) -> Callable[[bytes], Any]:
    try:
        import onnxruntime as ort  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:
        raise UsageError(
            "onnxruntime is not installed; install it (pip install onnxruntime) to run examples on it"
        ) from exc
    for library in libraries:
        if not Path(library).is_file():
            raise UsageError(f"--custom-op-library {library}: no such file")

    def session_for(model: bytes) -> Any:
        options = ort.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initialisers etc. are not results
        for library in libraries:
            options.register_custom_ops_library(os.fspath(library))
        return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    # A library that does not load is a usage problem, not a failure of every example.
    if libraries:
        try:
            probe = ort.SessionOptions()
            for library in libraries:
                probe.register_custom_ops_library(os.fspath(library))
        except Exception as exc:
            raise UsageError(f"--custom-op-library: onnxruntime cannot load it: {_first_line(exc)}") from exc
    return session_for


register(
    "RUNTIME-EXAMPLE-FAIL",
    "runtime",
    "error",
    "An example ran on the runtime but an output differs from the expected value.",
    anchor="test-runtime",
    hint="fix the runtime's kernel, or the example's expected output or tolerance",
    doc="""\
**Why:** the example is what the spec says the operator computes; a runtime whose result
differs (beyond the example's `tolerance`) implements another operator.

**Before:** `outputs: [{dtype: float, data: [2.0]}]` while the kernel returns `[2.5]`.

**After:** the kernel returns `[2.0]`, or the example states what the operator really computes.""",
)
register(
    "RUNTIME-EXAMPLE-ERROR",
    "runtime",
    "error",
    "The runtime could not run an example: it rejected the model, has no kernel for the operator, or failed while running.",
    anchor="test-runtime",
    hint="give the runtime a kernel (--custom-op-library) or a function body, or fix the example",
    doc="""\
**Why:** a runtime that cannot load or run the example's one-node model cannot run any model
using the operator version this way.

**Before:** `opset test-runtime` on a vendor domain whose operators have no kernel in the runtime.

**After:** `opset test-runtime --custom-op-library libacme_ops.so`, or function bodies the runtime
can inline.""",
)
