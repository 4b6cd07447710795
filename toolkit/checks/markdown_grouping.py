"""Where the two renderers may group a doc's lines into inline content differently.

The analysis (`toolkit.checks.markdown`) reads a doc's blocks as CommonMark does; Python-Markdown
(mkdocs) cuts a doc into blocks at blank lines first and reads the lines between them otherwise:
a list item, a `1)` item or a widely spaced thematic break does not interrupt its paragraph (the
lines join it, lazily), and a `#` line without a space, a `>` line behind a four-space list
indent or a setext underline cuts one that CommonMark keeps whole. A code span or link that
CommonMark reads in one block then pairs with backticks or brackets of a neighbouring line in
the other reading (`x `a` over `* `<img ...>``: the tag is code in one, live in the other).

So an inline content whose lines are not exactly a run of non-blank lines, or that holds a line
Python-Markdown may cut at, is *ambiguous*: what protects a `<` or `{` in it must protect in every
grouping of the run's lines. Two facts make that checkable without a second parser: backtick
pairing is greedy, so when every line of the run pairs all its backtick runs on its own, any
grouping of consecutive lines pairs them the same way (else code spans protect nothing there);
and reading each line on its own (the analysis's row reading) is the grouping that cuts most.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkit.checks.markdown_links import Spans
from toolkit.checks.markdown_text import ESCAPED_BY_BOTH

if TYPE_CHECKING:
    from markdown_it.token import Token

# What a line of a paragraph may start with (after blanks) where Python-Markdown may cut it:
# an ATX heading (no space needed), a blockquote, a setext underline or a thematic break, a list
# marker or an admonition. A superset: cutting more often only protects less.
_CUT_STARTS = frozenset("#>=-*_+!|0123456789")
# A `|` that ends a table cell (not escaped): a table cuts its rows there before reading spans.
CELL_BREAK = re.compile(r"(?<!\\)\|")
# A line Python-Markdown reads as indented code when it opens a block (behind blockquote markers;
# a list item's content takes four spaces more, so this is a superset there).
_INDENTED = re.compile(r"(?:[ ]{0,3}>[ ]?)*[ ]{4}")


class Runs:
    """The runs of non-blank lines of one doc (`lines`, read as `tokens`), computed once; whether
    each run's backtick runs outside code all pair within their own lines; and the reading of a
    content line by line (`rows`). `spans_of` reads one line's inline spans (the analysis's)."""

    def __init__(
        self, lines: tuple[str, ...], tokens: list[Token], spans_of: Callable[[str], list[Any]]
    ) -> None:
        self._lines = lines
        self._tokens = tokens
        self._spans_of = spans_of
        self._bounds: list[tuple[int, int]] | None = None
        self._balanced: dict[int, bool] = {}
        self._code: set[int] | None = None
        self._quoted_starts: list[int] | None = None

    def _run(self, line: int) -> tuple[int, int]:
        if self._bounds is None:  # one pass for the doc: a long run is not walked per block
            bounds: list[tuple[int, int]] = []
            start = 0
            for index, text in enumerate(self._lines):
                if not text.strip():
                    bounds.extend((start, index) for _ in range(start, index + 1))
                    start = index + 1
            bounds.extend((start, len(self._lines)) for _ in range(start, len(self._lines)))
            self._bounds = bounds
        return self._bounds[line]

    def ambiguous(self, first: int, parts: list[str]) -> bool:
        """Whether the inline content on lines `first` on (`parts`: each line as CommonMark reads
        it) may be grouped otherwise by Python-Markdown."""
        if self._run(first) != (first, first + len(parts)):
            return True
        return any(part.lstrip()[:1] in _CUT_STARTS for part in parts[1:])

    def unfenced(self, line: int) -> bool:
        """Whether a fence or code block at `line` is in a block that opens, before it, with a
        line Python-Markdown reads as indented code: superfences then gives every fence of the
        block back as text (its "greedy fences" revert), so none there is code to it. The block
        is a run, or inside a blockquote the lines after its last line of only `>`s."""
        if not line or not self._lines[line - 1].strip():
            return False  # a block's first line: not after one
        if self._quoted_starts is None:  # one pass for the doc
            starts: list[int] = []
            start = 0
            for index, text in enumerate(self._lines):
                if not text.strip(" >"):
                    start = index + 1
                starts.append(start)
            self._quoted_starts = starts
        return any(
            start < line and _INDENTED.match(self._lines[start]) is not None
            for start in (self._run(line)[0], self._quoted_starts[line])
        )

    def pairs_otherwise(self, first: int, parts: list[str]) -> bool:
        """Whether Python-Markdown may pair the backticks of the inline content on lines `first`
        on (`parts`) otherwise than CommonMark: it may group it with other lines, and a line of
        its run leaves a backtick run open."""
        return self.ambiguous(first, parts) and not self.balanced(first)

    def balanced(self, line: int) -> bool:
        """Whether every line of the run holding `line` pairs all its backtick runs on its own."""
        start, end = self._run(line)
        found = self._balanced.get(start)
        if found is None:
            # Code is taken out before paragraphs are read (superfences stashes its fences): the
            # lines around it still join, but its own backticks pair nothing.
            code = self._code_lines()
            found = all(
                self._line_balanced(self._lines[index]) for index in range(start, end) if index not in code
            )
            self._balanced[start] = found
        return found

    def rows(self, content: str, starts: list[int], cut: bool) -> tuple[Spans, Spans]:
        """The spans that protect a `<`, and those that protect a `{`, when each line of `content`
        is read on its own; as a table row (`cut`) also cut at its unescaped `|`s, but for a `{` a
        code span is kept whole (Python-Markdown). Raw HTML protects nothing: it is looked for."""
        tags: list[tuple[int, int]] = []
        code: list[tuple[int, int]] = []
        for row, start in enumerate(starts):
            line = content[start : starts[row + 1] - 1 if row + 1 < len(starts) else len(content)]
            for name, first, stop, _, opening in self._spans_of(line):
                if name == "html_inline":
                    continue
                if name == "escape" and line[first + 1 : first + 2] not in ESCAPED_BY_BOTH:
                    continue
                if cut and CELL_BREAK.search(line, first, stop):
                    if name == "backticks":
                        code.append((start + first, start + stop))
                    continue
                tags.append((start + (opening if name == "link" and opening >= 0 else first), start + stop))
        return Spans(tags), Spans(tags + code)

    def _code_lines(self) -> set[int]:
        if self._code is None:  # once for the doc
            self._code = set()
            for token in self._tokens:
                if token.map is not None and token.type in ("fence", "code_block"):
                    self._code.update(range(*token.map))
        return self._code

    def _line_balanced(self, text: str) -> bool:
        # a backtick run CommonMark finds no closer for is recorded as a span of backticks only
        return "`" not in text or not any(
            name == "backticks" and not text[start:stop].strip("`")
            for name, start, stop, _, _ in self._spans_of(text)
        )
