"""Doc text as plain text: the normalizing every reading of a doc starts from, and where
Python-Markdown's attr_list extension finds an attribute list. Below the CommonMark analysis
(`toolkit.checks.markdown`) and its prefilter (`markdown_fast`), which both use them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# attr_list's pattern (its BASE_RE: `{`, an optional `:`, blanks, then a body without `}` or a
# line break up to a `}`) matches at a `{` exactly when the next `}` or line break after it is a
# `}` and something other than blanks comes before it; `_LIST_END` finds that `}` or break.
_LIST_END = re.compile(r"[}\n]")
_NOT_BLANK = re.compile(r"[^ ]")


def attribute_lists(content: str) -> Iterator[int]:
    """Offsets of every `{` at which attr_list's pattern matches, overlapping ones included
    (`{a{b}` holds two: its body may hold a `{`). Whether attr_list applies one depends on the
    element tree around it (a table cell, the end of a line, an inline element before or after
    it), so each is escaped wherever it stands: `\\{` renders `{` in both renderers. One pass:
    the `}` closing a run of `{`s is found once for the run."""
    at = content.find("{")
    end = -1  # the `}` or line break after the last `{` looked at (len(content): neither)
    while at >= 0:
        if end <= at:
            found = _LIST_END.search(content, at + 1)
            end = found.start() if found else len(content)
        if end < len(content) and content[end] == "}" and _NOT_BLANK.search(content, at + 1, end):
            yield at
        at = content.find("{", at + 1)


# --------------------------------------------------------------------------- normalizing


def normalize(text: str) -> str:
    """Dedent, drop trailing spaces, trim blank lines at both ends, unify newlines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    return "\n".join(_trim_blank_edges(_dedent_rstrip(text.split("\n"))))


def _dedent_rstrip(lines: list[str]) -> list[str]:
    """`textwrap.dedent` then `rstrip()` per line, without dedent's regex passes.

    Tabs are already expanded, so the margin is the shortest run of leading spaces among lines
    that are not spaces only (dedent ignores those lines and empties them)."""
    margin = -1
    for line in lines:
        content = line.lstrip(" ")
        if content:
            indent = len(line) - len(content)
            if margin < 0 or indent < margin:
                margin = indent
                if not margin:
                    break
    if margin <= 0:
        return [line.rstrip() for line in lines]
    return [line[margin:].rstrip() for line in lines]


def _trim_blank_edges(lines: list[str]) -> list[str]:
    first = 0
    while first < len(lines) and not lines[first]:
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1]:
        last -= 1
    return lines[first:last]
