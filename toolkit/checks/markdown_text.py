"""Doc text as plain text: the normalizing every reading of a doc starts from, and where
Python-Markdown's attr_list extension finds an attribute list. Below the CommonMark analysis
(`toolkit.checks.markdown`) and its prefilter (`markdown_fast`), which both use them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# What Python-Markdown's attr_list extension reads as an attribute list (its `{...}` patterns),
# and the opening `_` of an emphasis (PM: not after a word character) that a `_{` may close.
# The body holds no `{`: a match then starts at the last `{` before its `}` (the one to escape
# when lists overlap) and no failed match scans past the next `{` (linear in the text).
ATTR_LIST = re.compile(r"\{:?[ ]*[^{}\n ][^{}\n]*\}")
_EMPHASIS_OPENER = re.compile(r"(?<!\w)_(?=\S)")
_BLANK_TO_LINE_END = re.compile(r"[^\S\n]*(?:\n|\Z)")  # matched in place: no copy of the rest


def attribute_lists(content: str) -> Iterator[int]:
    """Offsets of the `{` of each attribute list that attr_list would apply: one that ends its
    line (the last of a paragraph, heading or table cell) or follows the end of an inline
    element (code, emphasis, a link, an autolink). `a_{n-1}` (a subscript) is text to it."""
    emphasis = _EMPHASIS_OPENER.search(content)  # the first opener: one before `_{` is enough
    for match in ATTR_LIST.finditer(content):
        at = match.start()
        before = content[at - 1] if at else ""
        if (
            _BLANK_TO_LINE_END.match(content, match.end())
            or before in ("`", "*", ")", "]", ">")
            # an opener whose next character lies before the `_` (a search ending at the `_`)
            or (before == "_" and emphasis is not None and emphasis.start() + 2 < at)
        ):
            yield at


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
