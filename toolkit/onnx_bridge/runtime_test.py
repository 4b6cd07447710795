"""`opset test-runtime`: run every example of the specs on a runtime and compare the outputs.

Each example becomes the one-node model of its backend test case (`toolkit.model.example_model`)
and runs through the runtime's Python API: onnxruntime's InferenceSession, with vendor kernels
from `--custom-op-library` shared libraries. An example whose operator version the runtime can run
neither itself nor through its function body (`compat_model.node_support`, the answer `opset
compat` gives) is SKIP, not an error: nothing is wrong with the example, the runtime lacks the
operator. With `--custom-op-library` a library may supply the kernel, so such an example is run,
and SKIP when the runtime then refuses the model (no kernel came with the libraries). Outputs are compared the way onnx's backend test
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

from toolkit.model.diagnostics import UsageError, escape_fields
from toolkit.model.examples import Example, ExampleTensor
from toolkit.model.rules import register
from toolkit.model.spec import Location, OpSchema, display_domain
from toolkit.onnx_bridge.missing import not_installed
from toolkit.registry.core import Registry
from toolkit.registry.test_cases import all_cases, example_model, model_frame

RUNTIMES = ("onnxruntime",)
PASS, FAIL, ERROR, SKIP = "pass", "fail", "error", "skip"
STATUSES = (PASS, FAIL, ERROR, SKIP)
RULE_OF = {FAIL: "RUNTIME-EXAMPLE-FAIL", ERROR: "RUNTIME-EXAMPLE-ERROR", SKIP: "RUNTIME-EXAMPLE-SKIP"}
# The two ways to run an operator version the runtime has no kernel for (message and rule hint).
WAYS_OUT = (
    "give the version a `function:` body of operators the runtime has, "
    "or load a kernel library with --custom-op-library PATH"
)
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
    """The outcome of one example: pass, fail (wrong outputs), error (the runtime refused or
    failed) or skip (the runtime has no kernel for the operator version and cannot run its body)."""

    domain: str
    op: str
    since_version: int
    example: str
    status: str
    message: str = ""
    location: Location | None = None

    def __post_init__(self) -> None:
        # The example's name and the runtime's message are printed: held escaped (a Diagnostic's way).
        escape_fields(self, ("domain", "op", "example", "message"))

    @property
    def id(self) -> str:
        return f"{display_domain(self.domain)}.{self.op}:{self.since_version}/{self.example}"

    @property
    def rule(self) -> str:
        """The rule of a failing, erroring or skipped example; "" for a pass."""
        return RULE_OF.get(self.status, "")

    @property
    def subject(self) -> str:
        """`domain.Op:since`, the JUnit class of the example's case."""
        return f"{display_domain(self.domain)}.{self.op}:{self.since_version}"


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
    use_cache: bool = True,
) -> list[ExampleResult]:
    if runtime not in RUNTIMES:
        raise UsageError(f"unknown runtime '{runtime}' (one of: {', '.join(RUNTIMES)})")
    session_for = _onnxruntime_sessions(custom_op_libraries)
    cases = list(cases)
    lacks = _lacking(registry, runtime, cases, use_cache=use_cache)
    results = []
    for schema, example in cases:
        missing = lacks(schema)
        if missing and not custom_op_libraries:
            results.append(_result(schema, example, SKIP, missing))
        else:
            results.append(run_one(registry, schema, example, session_for, missing))
    return results


def _lacking(
    registry: Registry, runtime: str, cases: Sequence[tuple[OpSchema, Example]], *, use_cache: bool
) -> Callable[[OpSchema], str]:
    """For a version: why the runtime cannot run it ("" when it can), per `node_support`."""
    from toolkit.onnx_bridge.catalog import merge_registries
    from toolkit.onnx_bridge.compat_model import load_runtime, node_support

    if not cases:
        return lambda schema: ""
    table = load_runtime(runtime, registry, use_cache=use_cache)
    assert table.registry is not None  # a runtime catalog
    # The specs over the runtime's own catalog: vendor versions resolve in the specs, the
    # operators of their bodies in the runtime's domains, as check-model --runtime resolves them.
    known = merge_registries(table.registry, registry)
    memo: dict[str, str] = {}

    def lacks(schema: OpSchema) -> str:
        if schema.id not in memo:
            imports = dict(model_frame(registry, schema).opset_imports)
            support = node_support(known, table, schema.domain, schema.name, imports)
            memo[schema.id] = ""
            if support.schema is not None and not support.runnable:
                body = (
                    f"its function body cannot run there: {support.reason}"
                    if support.reason
                    else "it has no function body"
                )
                memo[schema.id] = (
                    f"{table.name} has no kernel for {schema.id} and {body}; to run it, {WAYS_OUT}"
                )
        return memo[schema.id]

    return lacks


def _result(schema: OpSchema, example: Example, status: str, message: str = "") -> ExampleResult:
    return ExampleResult(
        schema.domain, schema.name, schema.since_version, example.name, status, message, example.location
    )


def run_one(
    registry: Registry,
    schema: OpSchema,
    example: Example,
    session_for: Callable[[bytes], Any],
    missing: str = "",
) -> ExampleResult:
    """Run one example; `missing`: why the runtime has no kernel of its own for the version (the
    libraries of --custom-op-library may bring one: the example is SKIP when the model is refused)."""

    def result(status: str, message: str = "") -> ExampleResult:
        return _result(schema, example, status, message)

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
    except Exception as exc:
        if missing:
            return result(SKIP, f"{missing} (the custom-op libraries bring none: {_first_line(exc)})")
        return result(ERROR, _first_line(exc))
    try:
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
        raise not_installed("onnxruntime", "running the examples on onnxruntime") from exc
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
    "The runtime could not run an example: it rejected the model or failed while running.",
    anchor="test-runtime",
    hint="fix the example (types, shapes, attributes), or the runtime's kernel",
    doc="""\
**Why:** a runtime that cannot load or run the example's one-node model cannot run any model
using the operator version this way.

An operator version the runtime has no kernel for (and cannot run through a body) is not an
error but RUNTIME-EXAMPLE-SKIP.

**Before:** an example feeds `int32` data to an operator version whose kernel takes `float`
only; the runtime refuses the model.

**After:** the example uses a type the kernel takes, or the kernel is fixed.""",
)
register(
    "RUNTIME-EXAMPLE-SKIP",
    "runtime",
    "info",
    "An example was not run: the runtime has no kernel for the operator version and cannot run "
    "it through a function body.",
    anchor="test-runtime",
    hint=WAYS_OUT,
    doc="""\
**Why:** a runtime runs an operator version with a kernel of its own, or, for a vendor operator,
through the version's function body (the example's model carries it as a model-local function).
With neither, nothing about the example can be learnt from the runtime: it is skipped (exit 0
when nothing failed), with the reason, rather than reported as an error of the spec. This is the
answer `opset compat --runtime onnxruntime` gives for a model using the operator version.

**Before:** `com.acme.vision.Blur:1` has no body; `opset test-runtime` says
`SKIP com.acme.vision.Blur:1/box3`.

**After:** a body of operators the runtime has (`function:`, see FusedConv), or
`opset test-runtime --custom-op-library libacme_ops.so` with a kernel for it.""",
)
