"""JSON-Schema validation of spec documents, with every error mapped to a located diagnostic.

`schema_diagnostics` first asks the compiled fast path (`toolkit.load.schema_fast`) whether the
document is valid; only an invalid document is explained, by jsonschema, error by error, each
mapped to a rule id (SCHEMA-*, NAME-NOT-IDENTIFIER) at the file:line:col of the offending value.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from toolkit.load import schema_fast
from toolkit.load.schema_fast import end_anchored
from toolkit.load.schema_files import SCHEMA_DIR, json_schema
from toolkit.load.yamlsrc import Source
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.suggest import QUOTED, close_names, did_you_mean

__all__ = [
    "SCHEMA_DIR",
    "article",
    "end_anchored",
    "explain",
    "json_schema",
    "schema_diagnostics",
    "validate_document",
]


@cache
def _validator(kind: str) -> Any:
    """The full jsonschema validator, imported lazily: it is only needed to explain errors."""
    import jsonschema

    schema = json_schema(kind)
    base = jsonschema.validators.validator_for(schema)

    def pattern(validator: Any, regex: str, instance: Any, _schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not end_anchored(regex).search(instance):
            yield jsonschema.ValidationError(f"{_abridged(repr(instance))} does not match {regex!r}")

    return jsonschema.validators.extend(base, {"pattern": pattern})(schema)  # type: ignore[no-untyped-call]


def schema_diagnostics(source: Source, kind: str) -> list[Diagnostic]:
    """Located diagnostics for `source` against `schemas/<kind>.schema.json` ([] when valid)."""
    if schema_fast.is_valid(kind, source.data):
        return []
    if kind == "operator" and schema_fast.only_silenced_names(source.data):
        return []
    return explain(source, kind)


def explain(source: Source, kind: str) -> list[Diagnostic]:
    """The plain path: every jsonschema error, mapped and located (less what versions suppress)."""
    out: list[Diagnostic] = []
    for error in _validator(kind).iter_errors(source.data):
        silenced = _suppressed_rules(source.data, tuple(error.absolute_path))
        out.extend(d for d in _map_schema_error(source, error) if d.rule not in silenced)
    return out


def validate_document(data: Any, kind: str, display: str) -> list[Diagnostic]:
    """Located schema diagnostics for a document read with `yamlsrc.read_yaml`, against
    `schemas/<kind>.schema.json` (for YAML inputs other than specs, e.g. runtime manifests)."""
    return schema_diagnostics(Source(Path(display), display, data), kind)


def _suppressed_rules(data: Any, path: tuple[Any, ...]) -> frozenset[str]:
    """Rules an operator version's `suppress:` list silences for errors inside that version."""
    if len(path) >= 2 and path[0] == "versions" and isinstance(data, dict):
        versions = data.get("versions")
        if isinstance(versions, list) and isinstance(path[1], int) and path[1] < len(versions):
            entry = versions[path[1]]
            if isinstance(entry, dict) and isinstance(entry.get("suppress"), list):
                return frozenset(str(r) for r in entry["suppress"])
    return frozenset()


def _emptied_block_hint(source: Source, path: tuple[Any, ...], mapping: dict[Any, Any], line: int) -> str:
    """An unknown key on the line after a key holding an empty string is, most often, the text of
    a `doc: |` block written no deeper than `doc:` (so the block ended empty and its first line
    became a key): say so instead of listing the allowed keys."""
    for other, value in mapping.items():
        if value == "" and isinstance(other, str) and source.loc(*path, other, key=True).line == line - 1:
            return f"the `{other}:` block on line {line - 1} is empty: indent its text more than `{other}:`"
    return ""


def _map_schema_error(source: Source, error: Any) -> list[Diagnostic]:
    path = tuple(error.absolute_path)
    where = source.loc(*path)
    keyword = error.validator
    if keyword in ("oneOf", "anyOf") and error.context:
        return _map_alternatives(source, error)
    if keyword == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        out = []
        for key in sorted(set(error.instance) - set(allowed)):
            hint = did_you_mean(close_names(key, allowed, 1), QUOTED) or f"allowed keys: {', '.join(allowed)}"
            where = source.loc(*path, key, key=True)
            hint = _emptied_block_hint(source, path, error.instance, where.line) or hint
            out.append(Diagnostic("SCHEMA-UNKNOWN-KEY", f"unknown key '{key}'", where, hint))
        return out
    if keyword == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        known = sorted(error.schema.get("properties", {}))
        strays = [k for k in error.instance if k not in known] if isinstance(error.instance, dict) else []
        if any(close_names(stray, known, 1) == [missing] for stray in strays):
            return []  # the misspelt key is reported as SCHEMA-UNKNOWN-KEY, its hint naming this one
        return [
            Diagnostic("SCHEMA-REQUIRED", f"missing required key '{missing}'", where, f"add `{missing}:`")
        ]
    if keyword == "type":
        expected = error.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        got = _json_type_name(error.instance)
        return [
            Diagnostic(
                "SCHEMA-TYPE",
                f"{_describe(path)} must be {article(expected_text)}, not {got}",
                where,
                _type_hint(expected_text),
            )
        ]
    if keyword == "enum":
        options = [str(v) for v in error.validator_value]
        close = close_names(str(error.instance), options, 1)
        hint = did_you_mean(close, QUOTED) or f"use one of: {', '.join(options)}"
        return [
            Diagnostic(
                "SCHEMA-ENUM",
                f"{_describe(path)}: '{_abridged(str(error.instance))}' is not one of {', '.join(options)}",
                where,
                hint,
            )
        ]
    if keyword in ("pattern",) and error.schema.get("x-rule") == "NAME-NOT-IDENTIFIER":
        name_loc = where
        if _is_key(source, path, error):
            name_loc = source.loc(*path, str(error.instance), key=True)
        return [
            Diagnostic(
                "NAME-NOT-IDENTIFIER",
                f"'{_abridged(str(error.instance))}' is not a valid name (C identifier)",
                name_loc,
                "use letters, digits and '_' only, not starting with a digit",
            )
        ]
    if keyword == "propertyNames" and error.context:
        return [d for sub in error.context for d in _map_schema_error(source, sub)]
    if keyword == "maximum":
        return [
            Diagnostic(
                "SCHEMA-VALUE",
                f"{_describe(path)}: {error.instance} is too large (at most {error.validator_value})",
                where,
                "versions and other whole numbers are stored as 64-bit integers; use a smaller number",
            )
        ]
    hint = _value_hint(keyword)
    if keyword == "pattern" and isinstance(error.schema.get("description"), str):
        hint = f"{hint}: {error.schema['description']}"  # what the spelling is, in words
    return [Diagnostic("SCHEMA-VALUE", f"{_describe(path)}: {_abridged(error.message, 240)}", where, hint)]


def _abridged(text: str, limit: int = 80) -> str:
    """Text of the tree's (a value, or a validator's message quoting one) as a message shows it:
    its first `limit` characters and how long it is, so that a value of a megabyte does not become
    a diagnostic of a megabyte."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def _is_key(source: Source, path: tuple[Any, ...], error: Any) -> bool:
    """True when `error` is about a mapping key (a `propertyNames` check, reached directly or
    through a `$ref`): jsonschema then reports the mapping's path, not the key's."""
    if "propertyNames" not in error.absolute_schema_path:
        return False
    node: Any = source.data
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(node, dict) and isinstance(error.instance, str) and error.instance in node


def _map_alternatives(source: Source, error: Any) -> list[Diagnostic]:
    branches: dict[int, list[Any]] = {}
    for sub in error.context or ():
        index = sub.relative_schema_path[0] if sub.relative_schema_path else 0
        branches.setdefault(int(index), []).append(sub)
    viable = [
        errors
        for _, errors in sorted(branches.items())
        if not any(e.validator == "type" and not e.relative_path for e in errors)
    ]
    if viable:
        chosen = min(viable, key=len)
        return [d for sub in chosen for d in _map_schema_error(source, sub)]
    kinds = sorted(
        {str(e.validator_value) for errors in branches.values() for e in errors if e.validator == "type"}
    )
    path = tuple(error.absolute_path)
    return [
        Diagnostic(
            "SCHEMA-TYPE",
            f"{_describe(path)} must be one of: {', '.join(kinds)}; got {_json_type_name(error.instance)}",
            source.loc(*path),
            "see the schema in schemas/ for the expected shape",
        )
    ]


def _describe(path: tuple[Any, ...]) -> str:
    if not path:
        return "the document"
    parts = []
    for step in path:
        parts.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    return "`" + "".join(parts).lstrip(".") + "`"


def article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return f"a string ('{value}')" if len(value) < 40 else "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _type_hint(expected: str) -> str:
    return {
        "object": "write a mapping of `key: value` lines",
        "array": "write a list (`- item` lines or `[a, b]`)",
        "string": "quote the value",
        "integer": "write a whole number without quotes",
        "boolean": "write true or false",
    }.get(expected, "see the schema in schemas/")


def _value_hint(keyword: str) -> str:
    return {
        "minimum": "use a larger number",
        "minItems": "give at least one entry",
        "pattern": "see the schema in schemas/ for the allowed spelling",
    }.get(keyword, "see the schema in schemas/")
