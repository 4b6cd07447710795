"""Hints for the YAML mistakes people make most, read from the text around a syntax error's mark:
an unquoted `@type_set`, a tab used for indentation, the text of a `doc: |` block written no
deeper than its key. Anything else gets the general hint."""

from __future__ import annotations

import re

GENERAL = "check indentation, quoting and `key: value` pairs around this position"
# `key: |` or `key: >-` (a block scalar header), optionally with a comment.
_BLOCK_HEADER = re.compile(r"^( *)[^\s#][^#]*:\s+[|>][-+1-9]*\s*(#.*)?$")


def syntax_hint(rows: list[str], line: int, column: int) -> str:
    """The hint for a syntax error at 1-based `line`:`column` of a text split into `rows`."""
    row = rows[line - 1] if 0 < line <= len(rows) else ""
    char = row[column - 1 : column]
    if char == "\t" and not row[: column - 1].strip(" "):
        return "YAML does not allow tabs for indentation; use spaces"
    if char in ("@", "`"):  # reserved indicators: no plain value starts with them
        token = re.split(r"[\s,\]}]", row[column - 1 :], maxsplit=1)[0]
        return f'a value cannot start with `{char}` unquoted: quote it, "{token}"'
    for above in (line - 2, line - 3):  # the error is on the dedented text, or on the line after it
        header = _BLOCK_HEADER.match(rows[above - 1]) if 0 < above < line else None
        if header is not None and _indent(rows[above]) <= len(header.group(1)):
            key = rows[above - 1].split(":", 1)[0].strip()
            return f"the `{key}:` block on line {above} is empty: indent its text more than `{key}:`"
    return GENERAL


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))
