"""How a long docstring line is wrapped: the one definition (generated docstrings only).

A line is words separated by runs of spaces (only the space separates: every other character,
other whitespace included, is part of a word and is escaped later if it needs to be). Lines are
filled greedily: a word goes on the current line, after the spaces that preceded it in the text,
when it fits the width; otherwise the line ends there (the spaces at the break are dropped) and
the word starts the next line, which begins with `subsequent_indent`. The first line keeps the
text's leading spaces (an indented item) when its first word fits after them. A word longer than
a whole line is cut into pieces that fill lines, so no line is longer than the width; every
other word stays whole.

This replaced `textwrap.wrap` plus a fast path beside it (#24: one definition). It is what
`textwrap.wrap` gave for nearly every catalog line (the lines differ only in a run of spaces kept
at a break or a long word's cut); what textwrap would cost is measured in docs/architecture.md,
"Fast paths". tests/test_wrap.py judges the result by its properties, not against textwrap.
"""

from __future__ import annotations

import re

__all__ = ["wrap_line"]

_SPACES = re.compile(" *")


def wrap_line(text: str, width: int, subsequent_indent: str = "") -> list[str]:
    """`text` (one line, no newline; trailing spaces dropped) wrapped to `width` columns as the
    module docstring says; `[""]` for a line of spaces."""
    width = max(width, 1)
    text = text.rstrip(" ")
    if len(text) <= width:
        return [text]
    indent = subsequent_indent if len(subsequent_indent) < width else ""
    lead = len(text) - len(text.lstrip(" "))  # kept on the first line while its first word fits
    lines: list[str] = []
    prefix = ""
    pos = 0  # where the rest of the text starts (an index: slicing the rest off would copy it per line)
    while True:
        limit = width - len(prefix)
        if len(text) - pos <= limit:
            lines.append(prefix + text[pos:])
            return lines
        # Greedy filling is "cut at the last space that fits": the words before it fit, with the
        # spaces between them as they were; a run of spaces at the cut is dropped.
        cut = text.rfind(" ", pos + lead, pos + limit + 1)
        if cut < 0 and lead:  # the lead leaves no room for the first word: drop it
            pos, lead = pos + lead, 0
            continue
        if cut < 0:  # a word longer than the line: cut it
            cut = pos + limit
        lines.append(prefix + text[pos:cut].rstrip(" "))
        pos = _SPACES.match(text, cut).end()  # type: ignore[union-attr]
        prefix, lead = indent, 0
