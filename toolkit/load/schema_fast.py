"""Fast path for JSON-Schema validation: answers "is this document valid?" quickly, beside the
plain, explaining validator in `toolkit.load.schema`.

Nearly every spec file is valid, and a validator compiled by fastjsonschema answers that far
faster than jsonschema (and without importing it); jsonschema then explains the rare invalid file
in full. The packaged JSON Schemas (`toolkit/schemas/*.schema.json`) stay the one definition: each
validator is compiled from its schema in memory (rewritten with the same meaning into the form
whose generated code runs fastest, `_fast_form`), on first use in a process, and nothing compiled
is written anywhere or read back. `tests/test_schema_fast.py` checks both paths give the same
diagnostics.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from toolkit.load.schema_files import json_schema

# An unescaped `$` in a schema pattern. JSON Schema patterns are ECMA-262 regexes, where `$`
# (without the m flag) matches only at the very end; Python's `$` also matches before a final
# line break, so `^[A-Za-z_][A-Za-z0-9_]*$` would pass "name\n". Both validators read `$` as
# `\Z` (fastjsonschema rewrites patterns the same way).
_DOLLAR = re.compile(r"(?<!\\)\$")


@cache
def end_anchored(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled with ECMA-262 end-of-string semantics for `$`."""
    return re.compile(_DOLLAR.sub(r"\\Z", pattern))


# The C-identifier pattern of `$defs/identifier` is compiled as a format of this name, whose
# check is given per call: one validator per schema then serves both readings, names checked
# (the check is the schema's own pattern) or not (see `only_silenced_names`).
IDENTIFIER_FORMAT = "identifier"
_NAMES_UNCHECKED: dict[str, Callable[[str], bool]] = {IDENTIFIER_FORMAT: lambda _name: True}


@cache
def _compiled(kind: str) -> Callable[..., Any]:
    """The fastjsonschema validator of `schemas/<kind>.schema.json`, compiled in this process on
    first use (before a fork when the loader asks, see `prepare`); it is called with the
    identifier check as `custom_formats`."""
    import fastjsonschema

    schema = _schema(kind)
    try:
        # Only valid/invalid is asked for (jsonschema explains), so the exceptions need no detail;
        # without it the generated code is a fraction of the size and compiles that much faster.
        validate: Callable[..., Any] = fastjsonschema.compile(
            schema, formats=_names_checked(kind), use_default=False, detailed_exceptions=False
        )
    except TypeError:  # a fastjsonschema without the option
        validate = fastjsonschema.compile(schema, formats=_names_checked(kind), use_default=False)
    return validate


def _schema(kind: str) -> dict[str, Any]:
    """The schema as fastjsonschema compiles it: draft-07, the identifier pattern as a format, and
    written out for speed with the same meaning (`_fast_form`)."""
    schema: dict[str, Any] = copy.deepcopy(json_schema(kind))
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"  # same keywords, a draft it compiles
    identifier = schema.get("$defs", {}).get("identifier", {})
    if "pattern" in identifier:
        identifier["format"] = IDENTIFIER_FORMAT
        del identifier["pattern"]
    return _fast_form(schema)


# Where a JSON Schema keyword holds subschemas: one, a list of them, or a map of names to them.
# Every other keyword's value is data (enum, const, default...) and is copied as it is.
_ONE_SCHEMA = frozenset(
    (
        "items",
        "additionalItems",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
    )
)
_SCHEMA_LIST = frozenset(("allOf", "anyOf", "oneOf", "prefixItems"))
_SCHEMA_MAP = frozenset(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"))
_DEF = "#/$defs/"


def _fast_form(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with the same meaning, in the form fastjsonschema's generated code runs fastest.

    That code builds the name of a value for every call of a `$ref`'s function in a list or map
    (`str.format(**locals())`, whether the value is valid or not), and the message of every
    alternative of a `oneOf` that fails (all but one, on valid data) the same way, reading every
    local of the function it is in. So: a `$defs` entry is written out where it is used, unless it
    holds a choice itself (its alternatives then fail in a small function of their own) or refers
    back to itself; and a `oneOf` whose alternatives take values of distinct JSON types (at most
    one can match) is the equivalent `anyOf`, which stops at the first match."""
    defs: dict[str, Any] = schema.get("$defs", {})
    kept = {name for name, body in defs.items() if _holds_choice(body)}
    # the root's own `$ref`, if any, stays: the `$defs` beside it are where references point
    return _choice_as_any(
        schema, {key: _rewrite(key, value, defs, kept, frozenset()) for key, value in schema.items()}, defs
    )


def _rewrite(keyword: str, value: Any, defs: dict[str, Any], kept: set[str], inside: frozenset[str]) -> Any:
    if keyword in _ONE_SCHEMA:
        return _subschema(value, defs, kept, inside)
    if keyword in _SCHEMA_LIST and isinstance(value, list):
        return [_subschema(item, defs, kept, inside) for item in value]
    if keyword in _SCHEMA_MAP and isinstance(value, dict):
        return {name: _subschema(item, defs, kept, inside) for name, item in value.items()}
    return value


def _subschema(node: Any, defs: dict[str, Any], kept: set[str], inside: frozenset[str]) -> Any:
    if not isinstance(node, dict):
        return node  # a boolean schema
    ref = node.get("$ref")
    name = ref[len(_DEF) :] if isinstance(ref, str) and ref.startswith(_DEF) else None
    if name in defs and name not in kept and name not in inside:
        body = _subschema(defs[name], defs, kept, inside | {name})
        rest = {key: value for key, value in node.items() if key != "$ref"}
        # beside `$ref`, other keywords apply too (as jsonschema reads the 2020-12 schema)
        return {"allOf": [_subschema(rest, defs, kept, inside), body]} if rest else body
    return _choice_as_any(
        node, {key: _rewrite(key, value, defs, kept, inside) for key, value in node.items()}, defs
    )


def _choice_as_any(node: dict[str, Any], out: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """`out` (`node` rewritten) with its `oneOf` as `anyOf` when no two alternatives share a type."""
    alternatives = node.get("oneOf")
    if "anyOf" not in out and isinstance(alternatives, list) and _distinct_types(alternatives, defs):
        out["anyOf"] = out.pop("oneOf")
    return out


def _holds_choice(node: Any) -> bool:
    """Whether a `oneOf`/`anyOf` is in `node` itself (not behind a `$ref`)."""
    if not isinstance(node, dict):
        return False
    if "oneOf" in node or "anyOf" in node:
        return True
    return any(
        _holds_choice(value)
        if key in _ONE_SCHEMA
        else any(_holds_choice(item) for item in value)
        if key in _SCHEMA_LIST and isinstance(value, list)
        else any(_holds_choice(item) for item in value.values())
        if key in _SCHEMA_MAP and isinstance(value, dict)
        else False
        for key, value in node.items()
    )


def _distinct_types(alternatives: list[Any], defs: dict[str, Any]) -> bool:
    """Whether no two of `alternatives` take values of the same JSON type (by their `type`, or
    that of the `$defs` entry they refer to); an integer is a number too."""
    seen: set[str] = set()
    for alternative in alternatives:
        types = _types(alternative, defs)
        if types is None or types & seen:
            return False
        seen |= types
    return True


def _types(node: Any, defs: dict[str, Any]) -> set[str] | None:
    for _ in range(len(defs) + 1):  # a chain of `$ref`s, never round a cycle forever
        if not isinstance(node, dict):
            return None
        kind = node.get("type")
        if kind is not None:
            types = {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else None
            if types is None or not all(isinstance(t, str) for t in types):
                return None
            return types | {"integer"} if "number" in types else types
        ref = node.get("$ref")
        if not (isinstance(ref, str) and ref.startswith(_DEF) and ref[len(_DEF) :] in defs):
            return None
        node = defs[ref[len(_DEF) :]]
    return None


@cache
def _names_checked(kind: str) -> dict[str, Callable[[str], bool]]:
    """The identifier format's check for `kind`: its schema's pattern, read as jsonschema reads it."""
    pattern = json_schema(kind).get("$defs", {}).get("identifier", {}).get("pattern")
    if pattern is None:
        return {}
    search = end_anchored(pattern).search
    return {IDENTIFIER_FORMAT: lambda name: search(name) is not None}


def prepare(kind: str) -> None:
    """Make the validator of `kind` now (before forking, so workers inherit it)."""
    _compiled(kind)


def is_valid(kind: str, data: Any, *, lenient_names: bool = False) -> bool:
    """Whether `data` is valid against `kind`'s schema; with `lenient_names`, C-identifier names
    (`$defs/identifier`) pass whatever their spelling."""
    import fastjsonschema

    formats = _NAMES_UNCHECKED if lenient_names else _names_checked(kind)
    try:
        _compiled(kind)(data, custom_formats=formats)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def is_identifier(name: str) -> bool:
    """True when `name` passes the operator schema's C-identifier pattern."""
    return _names_checked("operator")[IDENTIFIER_FORMAT](name)


def only_silenced_names(data: Any) -> bool:
    """True when an operator file's only schema problem is non-identifier names inside versions
    that `suppress: [NAME-NOT-IDENTIFIER]` (historical ONNX schemas such as Split-1's
    `outputs...`), so the full validator need not run just to produce findings that are
    dropped anyway."""
    if not is_valid("operator", data, lenient_names=True):
        return False
    # Valid but for names: what the strict validator still finds is a non-identifier name. Outside
    # the versions the only name is the operator's; inside, every name of a version (parameters,
    # attributes, constraints, type_from references, examples) is silenced by its `suppress`. So
    # the versions that do not silence it, with the rest of the file, must be valid as they are.
    unsilenced = [v for v in data["versions"] if "NAME-NOT-IDENTIFIER" not in v.get("suppress", ())]
    if not unsilenced:
        return is_identifier(data["operator"])
    return is_valid("operator", {**data, "versions": unsilenced})
