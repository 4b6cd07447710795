"""Spec checks of inputs and outputs (PARAM-*; NAME-DUPLICATE for two parameters of one name).

NAME-DUPLICATE is registered with the loader's rules (`toolkit.load.rules`), which reports it
for operators and domains; the attribute checks (ATTR-*) run in the loader too, while it builds
defaults, and are registered there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toolkit.checks.base import each_version, located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import register, rule
from toolkit.model.spec import Attribute, AttrType, DomainSpec, FormalParameter, SpecSet, TypeSource

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
    per_operator=True,
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


# Attribute types a `type_from` source without `type` reads a type from (int: a data type number).
_TYPE_READABLE = frozenset({AttrType.INT, AttrType.TENSOR, AttrType.SPARSE_TENSOR, AttrType.TYPE_PROTO})


@rule(
    "PARAM-TYPE-FROM",
    "spec",
    "error",
    "A `type_from` source names an attribute or input the version does not have, reads a type "
    "from an attribute that cannot hold one, mixes `attribute` and `input`, or sits on an input.",
    category=PARAMS,
    hint="name an attribute (int, tensor, sparse_tensor or type_proto) or an input of this version",
    doc="""\
**Why:** `type_from` tells tools (check-model's type inference) where an output's type comes from
when its type parameter is not bound by an input: an attribute's value (Cast's `to`), an input's
type (CastLike's `target_type`), or a fixed type. A reference to nothing, or to an attribute
whose value is not a type (a float), cannot give a type.

**Before:** `outputs: [{name: Y, type: T2, type_from: [{attribute: too}]}]` (the attribute is `to`)

**After:** `outputs: [{name: Y, type: T2, type_from: [{attribute: to}]}]`""",
    per_operator=True,
)
def type_from(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """PARAM-TYPE-FROM for every bad `type_from` source."""
    for schema in each_version(specs):
        for param in schema.inputs:
            for source in param.type_from:
                yield located(
                    "PARAM-TYPE-FROM",
                    f"input '{param.name}' has type_from (outputs only)",
                    source,
                    "remove type_from from the input",
                )
        inputs = {p.name for p in schema.inputs}
        attributes = schema.attribute_map
        for param in schema.outputs:
            for source in param.type_from:
                yield from _type_source(param, source, inputs, attributes)


def _type_source(
    param: FormalParameter, source: TypeSource, inputs: set[str], attributes: Mapping[str, Attribute]
) -> Iterator[Diagnostic]:
    where = f"type_from of output '{param.name}'"
    if source.attribute and source.input:
        yield located(
            "PARAM-TYPE-FROM",
            f"{where} names both attribute '{source.attribute}' and input '{source.input}'",
            source,
            "one source per entry: split it into two entries",
        )
    if source.input and source.input not in inputs:
        yield located(
            "PARAM-TYPE-FROM",
            f"{where} names input '{source.input}', which this version does not have",
            source,
            f"inputs: {', '.join(sorted(inputs)) or 'none'}",
        )
    if source.attribute:
        attr = attributes.get(source.attribute)
        if attr is None:
            yield located(
                "PARAM-TYPE-FROM",
                f"{where} names attribute '{source.attribute}', which this version does not have",
                source,
                f"attributes: {', '.join(sorted(attributes)) or 'none'}",
            )
        elif not source.type and attr.type not in _TYPE_READABLE:
            yield located(
                "PARAM-TYPE-FROM",
                f"{where} reads a type from attribute '{source.attribute}' of type {attr.type.value}",
                source,
                "give the type the attribute implies with `type:`, or name an int "
                "(data type), tensor, sparse_tensor or type_proto attribute",
            )
