"""Value checks the builder makes while a schema-valid document becomes model objects: the
numbers JSON Schema lets through and the model (and its protobuf form) cannot hold.

JSON Schema counts `3.0` as an integer, and both validators (`toolkit.load.schema`,
`toolkit.load.schema_fast`) follow it; the model's versions, IR versions and arities are int64
fields, so a float there is reported here, at the value, and replaced by its int so that building
can go on. Attribute defaults (`attribute_default`) are checked against their type and the range
of their protobuf field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from toolkit.load.yamlsrc import Source
from toolkit.model.attr_defaults import (
    DEFAULTABLE_ATTR_TYPES,
)
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import (
    AttrType,
    AttrValue,
    Location,
)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# Where each kind of document holds whole numbers; "*" is any list index or mapping key.
_WHOLE_NUMBERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "domain": (("opset_versions", "*", "version"), ("opset_versions", "*", "ir_version")),
    "operator": (
        ("removed_in",),
        ("versions", "*", "since_version"),
        ("versions", "*", "based_on"),
        ("versions", "*", "inputs", "*", "min_arity"),
        ("versions", "*", "outputs", "*", "min_arity"),
        ("versions", "*", "adapter", "upgrade", "*", "index"),
        ("versions", "*", "adapter", "downgrade", "*", "index"),
    ),
    "releases": (("releases", "*", "ir_version"), ("releases", "*", "opsets", "*")),
}


def whole_numbers(source: Source, kind: str) -> list[Diagnostic]:
    """SCHEMA-TYPE for each float where `kind` needs a whole number; each one found is replaced
    in `source.data` by an int (0 for inf/nan) so the builder sees the type it expects."""
    out = []
    for path, parent, step in _walk(source.data, _TRIES.get(kind, {}), ()):
        value = parent[step]
        if isinstance(value, float):
            out.append(
                Diagnostic(
                    "SCHEMA-TYPE",
                    f"`{_dotted(path)}` must be an integer, not a number ({value!r})",
                    source.loc(*path),
                    "write a whole number without a decimal point or exponent",
                )
            )
            parent[step] = int(value) if math.isfinite(value) else 0
    return out


Trie = dict[str, "Trie"]


def _trie(patterns: tuple[tuple[str, ...], ...]) -> Trie:
    """The patterns as nested steps, so that a document is walked once for all of them; a pattern's
    last step maps to {} (no pattern of `_WHOLE_NUMBERS` is the start of another)."""
    root: Trie = {}
    for pattern in patterns:
        node = root
        for head in pattern:
            node = node.setdefault(head, {})
    return root


_TRIES = {kind: _trie(patterns) for kind, patterns in _WHOLE_NUMBERS.items()}


def _walk(node: Any, trie: Trie, path: tuple[str | int, ...]) -> Iterator[tuple[Any, Any, Any]]:
    """(path, parent, step) of every value below `node` at the end of a pattern of `trie`."""
    for head, rest in trie.items():
        if isinstance(node, dict):
            steps: list[Any] = list(node) if head == "*" else [head] if head in node else []
        elif isinstance(node, list) and head == "*":
            steps = list(range(len(node)))
        else:
            continue
        for step in steps:
            if rest:
                yield from _walk(node[step], rest, (*path, step))
            else:
                yield (*path, step), node, step


def _dotted(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")


def attribute_default(
    attr_type: AttrType, value: Any, where: Location
) -> tuple[AttrValue | None, list[Diagnostic]]:
    """An attribute's `default` as a model value, or None and the ATTR-DEFAULT-* problems."""
    if attr_type not in DEFAULTABLE_ATTR_TYPES:
        return None, [
            Diagnostic(
                "ATTR-DEFAULT-UNSUPPORTED",
                f"attributes of type {attr_type.value} cannot have a default in the DSL",
                where,
                "describe the implied value in the doc instead",
            )
        ]
    if attr_type.is_list:
        if not isinstance(value, list):
            return None, [_bad_default(attr_type, value, where)]
        items = [_scalar_default(attr_type.element, v) for v in value]
        if any(v is None for v in items):
            return None, [_bad_default(attr_type, value, where)]
        if any(v is _OUT_OF_RANGE for v in items):
            return None, [_out_of_range(attr_type, where)]
        return tuple(items), []
    scalar = _scalar_default(attr_type, value)
    if scalar is None:
        return None, [_bad_default(attr_type, value, where)]
    if scalar is _OUT_OF_RANGE:
        return None, [_out_of_range(attr_type, where)]
    return scalar, []


def _bad_default(attr_type: AttrType, value: Any, where: Location) -> Diagnostic:
    element = attr_type.element.value
    if isinstance(value, str) and element in ("int", "float") and _reads_as_number(value):
        hint = "write the number without quotes"
    else:
        hint = {
            "int": "write a whole number",
            "float": "write a number such as 1.0",
            "string": "quote the value",
        }.get(element, "")
    return Diagnostic(
        "ATTR-DEFAULT-TYPE",
        f"default {_yaml_spelling(value)} is not a valid {attr_type.value} value",
        where,
        hint + (" (as a list: [a, b])" if attr_type.is_list else ""),
    )


def _yaml_spelling(value: Any) -> str:
    """The value as the spec file could spell it (`true`, `null`, `"1.0"`; JSON is YAML), cut short."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _reads_as_number(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def _out_of_range(attr_type: AttrType, where: Location) -> Diagnostic:
    int_like = attr_type.element is AttrType.INT
    return Diagnostic(
        "ATTR-DEFAULT-TYPE",
        f"default is out of range for {attr_type.value}: "
        + (
            "ints are stored in 64 bits (-2**63 .. 2**63-1)"
            if int_like
            else "the number is too large for a float"
        ),
        where,
        "use a smaller number",
    )


# What `_scalar_default` returns for a number of the right kind that the attribute's protobuf
# field cannot hold (an int beyond 64 bits, an int too large for a float).
_OUT_OF_RANGE: Any = object()


def _scalar_default(attr_type: AttrType, value: Any) -> Any:
    if isinstance(value, bool):
        return None
    if attr_type is AttrType.INT:
        if not isinstance(value, int):
            return None
        return value if INT64_MIN <= value <= INT64_MAX else _OUT_OF_RANGE
    if attr_type is AttrType.FLOAT:
        if not isinstance(value, (int, float)):
            return None
        try:
            return float(value)
        except OverflowError:  # an int too large for a float
            return _OUT_OF_RANGE
    if attr_type is AttrType.STRING:
        return value if isinstance(value, str) else None
    return None
