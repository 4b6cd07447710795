"""Spec checks of inputs and outputs (PARAM-*; NAME-DUPLICATE for two parameters of one name).

NAME-DUPLICATE is registered with the loader's rules (`toolkit.load.rules`), which reports it
for operators and domains; the attribute checks (ATTR-*) run in the loader too, while it builds
defaults, and are registered there.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.base import each_version, located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, FormalParameter, SpecSet

PARAMS = "Parameters and attributes"


@rule(
    "PARAM-VARIADIC-NOT-LAST",
    "spec",
    "error",
    "A variadic input or output is not the last one.",
    category=PARAMS,
    hint="move the variadic parameter to the end or make it single/optional",
    doc="""\
**Why:** a variadic parameter takes every remaining argument of the node, so nothing can follow
it: ONNX allows only the last input or output to be variadic.

**Before:** `inputs: [{name: xs, type: T, option: variadic}, {name: axis, type: tensor(int64)}]`

**After:** `inputs: [{name: axis, type: tensor(int64)}, {name: xs, type: T, option: variadic}]`""",
)
def parameters(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """PARAM-* per input and output, NAME-DUPLICATE for two of one kind with the same name."""
    for schema in each_version(specs):
        for kind, params in (("input", schema.inputs), ("output", schema.outputs)):
            yield from _duplicates(kind, params)
            for index, param in enumerate(params):
                yield from _parameter(kind, index, param, len(params))


def _parameter(kind: str, index: int, param: FormalParameter, count: int) -> Iterator[Diagnostic]:
    if param.is_variadic and index != count - 1:
        yield located(
            "PARAM-VARIADIC-NOT-LAST",
            f"variadic {kind} '{param.name}' is not the last {kind}",
            param,
            f"move '{param.name}' to the end or make it single/optional",
        )
    if not param.is_variadic and param.min_arity != 1:
        yield located(
            "PARAM-MIN-ARITY",
            f"min_arity is set on {param.option.value} {kind} '{param.name}'",
            param,
            "min_arity applies to variadic parameters only; remove it",
        )
    if not param.is_variadic and not param.homogeneous:
        yield located(
            "PARAM-HOMOGENEOUS",
            f"homogeneous: false is set on {param.option.value} {kind} '{param.name}'",
            param,
            "homogeneity applies to variadic parameters only; remove it",
        )


def _duplicates(kind: str, params: tuple[FormalParameter, ...]) -> Iterator[Diagnostic]:
    seen: set[str] = set()
    for param in params:
        if param.name in seen:
            yield located(
                "NAME-DUPLICATE", f"duplicate {kind} name '{param.name}'", param, f"rename one of the {kind}s"
            )
        seen.add(param.name)


register(
    "PARAM-MIN-ARITY",
    "spec",
    "error",
    "`min_arity` is set on a parameter that is not variadic.",
    category=PARAMS,
    hint="min_arity applies to variadic parameters only; remove it",
    doc="""\
**Why:** `min_arity` is the least number of arguments a variadic parameter takes; a single or
optional parameter takes one (or zero), so the value would be ignored or contradict the option.

**Before:** `{name: X, type: T, min_arity: 2}`

**After:** `{name: X, type: T, option: variadic, min_arity: 2}`, or drop `min_arity`.""",
)

register(
    "PARAM-HOMOGENEOUS",
    "spec",
    "error",
    "`homogeneous: false` is set on a parameter that is not variadic.",
    category=PARAMS,
    hint="homogeneity applies to variadic parameters only; remove it",
    doc="""\
**Why:** homogeneity says whether all arguments of a variadic parameter share one type; a
parameter taking one argument has nothing to compare.

**Before:** `{name: X, type: T, option: optional, homogeneous: false}`

**After:** `{name: X, type: T, option: optional}`""",
)
