"""Doc text as plain text: the normalizing every reading of a doc starts from, where a tag may
start and Python-Markdown's attr_list extension finds an attribute list, and the lines of a link
reference definition read as literal text. Below the CommonMark analysis
(`toolkit.checks.markdown`) and its prefilter (`markdown_fast`), which both use them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from toolkit.model.diagnostics import UNPRINTABLE_IN_TEXT, find_unprintable

# What a lenient renderer may read as the start of a tag, in literal text: `<` and a letter, `/`,
# `!` or `?`. Python-Markdown reads tags in the text left after its autolinks and code spans are
# replaced (`<t<https://a>>` is an element to it) and every `<` escaped may uncover another
# (`<b<b<b>`): so each one is escaped, all in one repair round (the doc renders the same).
TAG_LIKE = re.compile(r"<[A-Za-z/!?]")

# The characters a backslash escapes in both renderers: CommonMark escapes every ASCII
# punctuation character, Python-Markdown only these (`markdown.Markdown.ESCAPED_CHARS`, plus the
# `|` of its tables extension, which mkdocs.yml enables). Before any other character it keeps the
# backslash and reads the character as if unescaped, so only these escapes protect anything
# (tests/test_docs_two_renderers.py compares this with the installed Python-Markdown).
ESCAPED_BY_BOTH = frozenset("\\`*_{}[]()>#+-.!|")

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


# A one-line definition both renderers read as one, its target in angle brackets (`[r]: <url>`):
# a plain label, a target without blanks (Python-Markdown's `\S+`, U+2028 included), a one-line
# title. Its `<` opens the target, not a tag: kept (`&lt;` would break the link).
_POINTY_DEFINITION = re.compile(
    r"\[[^\[\]\\]*\]:[ ]*(<)[^\s<>\\]*>(?:[ ]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ ]*"
)


def definition_literals(
    lines: tuple[str, ...], first: int, end: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """A link reference definition's lines (`first` to `end`) as literal text: Python-Markdown's
    definition pattern is narrower than CommonMark's (no space in a `<...>` target, no escaped `]`
    in the label, a one-line title; its `\\s` takes U+2028 for a space), and a table cell reads
    no definition at all, so where it reads a paragraph a tag or attribute list there is live.
    Returns the (line, column) of each tag-like `<` and of each attribute list's `{` there."""
    tags: list[tuple[int, int]] = []
    marks: list[tuple[int, int]] = []
    kept = -1  # the column of a `<` opening a target both read as one
    if end - first == 1:
        line = lines[first]
        pointy = _POINTY_DEFINITION.fullmatch(line, line.index("["))
        kept = pointy.start(1) if pointy else -1
    for row in range(first, end):
        line = lines[row]
        if "<" in line:
            tags.extend((row, match.start()) for match in TAG_LIKE.finditer(line) if match.start() != kept)
        if "{" in line:
            marks.extend((row, at) for at in attribute_lists(line) if not _escaped(line, at))
    return tags, marks


def _escaped(line: str, at: int) -> bool:
    """Whether the character at `at` follows an odd run of backslashes (escaped in both
    renderers, for the characters both escape)."""
    start = at
    while start and line[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1


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


class ControlChars(NamedTuple):
    """The control and bidi characters of a doc (`UNPRINTABLE_IN_TEXT`): where the first is, as
    the analysis numbers lines (0-based, after the blank lines `normalize` trims at the start),
    which it is, and how many there are. What DOC-CONTROL-CHAR reports and the docs repair notes."""

    line: int
    code: int
    total: int

    @property
    def message(self) -> str:
        more = f" (and {self.total - 1} more)" if self.total > 1 else ""
        return f"control character U+{self.code:04X} shown as \\u{self.code:04x}{more}"


def control_chars(text: str) -> ControlChars | None:
    """The control characters of `text`, None when it has none (one search in C: the common case)."""
    first = find_unprintable(text, UNPRINTABLE_IN_TEXT)
    if first is None:
        return None
    found = UNPRINTABLE_IN_TEXT.findall(text)
    visible = text.translate({ord(char): "x" for char in found})  # the lines as a page shows them
    lead = visible[: len(visible) - len(visible.lstrip())].count("\n")
    return ControlChars(text.count("\n", 0, first.start()) - lead, ord(first.group(0)), len(found))
