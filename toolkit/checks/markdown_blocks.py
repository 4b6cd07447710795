"""Fast path beside `toolkit.checks.markdown`: the block structure of doc text without the parser.

The analysis (`analyse`) reads docs with markdown-it-py's CommonMark block rules. Most docs that
are more than plain paragraphs use few of them: paragraphs, fenced and indented code, bullet and
ordered lists (nested, with lazy continuation lines), HTML blocks (`<br>` or `<div>` on a line of
its own), thematic breaks and ATX headings. `read_blocks` follows those rules as markdown-it
applies them (the same order of rules, the same line state: the indentation of each line and the
content indent of the list item being read), and returns what the analysis reports of the
blocks (HTML blocks, fences left open, headings) and where the paragraphs are, whose inline
content the caller reads. Code needs no more: nothing in it is reported.

Anything else a line could start ends the shortcut (None, and the text goes to the parser): a
block quote, a setext heading, a link reference definition, an empty list item, an ATX heading
holding a `<`, deep nesting. Deciding those exactly would take much more of the parser (block
quotes change every line's indentation, setext headings and definitions need the lines that
follow), and docs rarely hold them.

`toolkit.checks.markdown_fast.simple_analysis` reads the inline content of the paragraphs;
tests/test_markdown_blocks.py checks the result against `analyse` with hypothesis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.checks.markdown import Heading, OpenFence, RawHtml

# markdown-it-py's HTML block starts (rules_block/html_block.py HTML_SEQUENCES, kinds 1 to 7) and
# block tag names (common/html_blocks.py); the tests check these copies against the parser's.
HTML_BLOCK_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|"
    "head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|"
    "p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
# Raw HTML, from markdown-it-py's common/html_re.py (also checked by the tests): what its inline
# rule reads as HTML is the definition here, down to its comment syntax.
_ATTRIBUTE = r"""(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*"))?)"""
_OPEN_TAG = rf"<[A-Za-z][A-Za-z0-9\-]*{_ATTRIBUTE}*\s*\/?>"
_CLOSE_TAG = r"<\/[A-Za-z][A-Za-z0-9\-]*\s*>"
OPEN_CLOSE_TAG = rf"^(?:{_OPEN_TAG}|{_CLOSE_TAG})"
HTML_TAG = (
    rf"(?:{_OPEN_TAG}|{_CLOSE_TAG}|<!---?>|<!--(?:[^-]|-[^-]|--[^>])*-->|<[?][\s\S]*?[?]>"
    r"|<![A-Za-z][^>]*>|<!\[CDATA\[[\s\S]*?\]\]>)"
)
HTML_BLOCK_STARTS = (
    re.compile(r"^<(?a:(script|pre|style|textarea))(?=(\s|>|$))", re.IGNORECASE),
    re.compile(r"^<!--"),
    re.compile(r"^<\?"),
    re.compile(r"^<![A-Za-z]"),
    re.compile(r"^<!\[CDATA\["),
    re.compile("^</?(?a:(" + HTML_BLOCK_NAMES + "))(?=(\\s|/?>|$))", re.IGNORECASE),
    re.compile(OPEN_CLOSE_TAG + "\\s*$"),
)
HTML_BLOCK_ENDS = (
    re.compile(r"<\/(?a:(script|pre|style|textarea))>", re.IGNORECASE),
    re.compile(r"-->"),
    re.compile(r"\?>"),
    re.compile(r">"),
    re.compile(r"\]\]>"),
)
_ORDERED = re.compile(r"(\d{1,9})([.)])(?= |$)")
_ATX = re.compile(r"#{1,6}(?= |$)")
_UNDERLINE = re.compile(r" *(?:=+|-+) *$")
_MAX_LISTS = 8  # markdown-it stops nesting at 20 tokens deep; a list level is two


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A paragraph from `line`; `columns[i]` is where markdown-it's content of its line
    `line + i` starts (the paragraph's inline content is those line ends, joined)."""

    line: int
    columns: tuple[int, ...]


class _Decline(Exception):
    """The text holds a construct this reader leaves to the parser."""


Block = Paragraph | RawHtml | OpenFence | Heading


def read_blocks(lines: tuple[str, ...]) -> tuple[Block, ...] | None:
    """The paragraphs, HTML blocks, fences left open and headings of normalized `lines` (spaces
    only, no tabs, no NUL), in order, as markdown-it reads them; None when the text holds a
    block this reader leaves to the parser."""
    reader = _Reader(lines)
    try:
        reader.tokenize(0, len(lines))
    except _Decline:
        return None
    return tuple(reader.blocks)


class _Reader:
    """markdown-it's `StateBlock`, reduced: `shift[i]` stands for both `tShift` and `sCount`
    (without tabs and block quotes they are the same column), `blk` for `blkIndent`."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        self.lines = lines
        self.shift = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.blk = 0
        self.list_indent = -1
        self.depth = 0
        self.blocks: list[Block] = []

    def empty(self, line: int) -> bool:
        return self.shift[line] >= len(self.lines[line])

    def rest(self, line: int) -> str:
        return self.lines[line][self.shift[line] :]

    def tokenize(self, line: int, end: int) -> int:
        """`ParserBlock.tokenize`: read blocks from `line` until `end` or a line indented less
        than the container's content; returns the line it stopped at (`state.line`)."""
        count = len(self.lines)
        while line < end:
            while line < count and self.empty(line):
                line += 1
            if line >= end or self.shift[line] < self.blk:
                break
            line = self.block(line, end)
        return line

    def block(self, line: int, end: int) -> int:
        """The block rules in markdown-it's order; returns the line after the block."""
        if self.shift[line] - self.blk >= 4:
            return self.code(line, end)
        rest = self.rest(line)
        fence = _fence_start(rest)
        if fence:
            return self.fence(line, end, fence)
        if rest[0] == ">":
            raise _Decline
        if _thematic_break(rest):
            return line + 1
        if _list_marker(rest) is not None:
            return self.list(line, end)
        if rest[0] == "[" and any("]:" in text for text in self.lines[line:]):
            raise _Decline  # possibly a link reference definition
        if rest[0] == "<":
            kind = _html_kind(rest)
            if kind is not None:
                return self.html(line, end, kind)
        heading = _ATX.match(rest)
        if heading:
            if "<" in rest:
                raise _Decline  # its inline content would need the heading's own columns
            text = self.lines[line]
            self.blocks.append(Heading(line, line + 1, len(heading.group()), False, text.index("#")))
            return line + 1
        return self.paragraph(line)

    def code(self, line: int, end: int) -> int:
        last = following = line + 1
        while following < end:
            if self.empty(following):
                following += 1
            elif self.shift[following] - self.blk >= 4:
                following += 1
                last = following
            else:
                break
        return last

    def fence(self, line: int, end: int, run: str) -> int:
        """A fenced block; one left open (by the end of the text or of its container) is
        reported as the analysis does: where it opens, with the prefix that continues its
        container (list items only here: spaces)."""
        following = line + 1
        while following < end:
            text = self.lines[following]
            at = self.shift[following]
            if at < len(text):
                if at < self.blk:
                    break
                if text[at] == run[0] and at - self.blk < 4:
                    close = text[at:].lstrip(run[0])
                    if len(text) - at - len(close) >= len(run) and not close.strip(" "):
                        return following + 1
            following += 1
        text = self.lines[line]
        column = text.index(run[0])
        prefix = " " * column if self.depth else ""
        self.blocks.append(OpenFence(line, column, run, following, prefix))
        return following

    def html(self, line: int, end: int, kind: int) -> int:
        """An HTML block: kinds 6 and 7 run until a blank line or the container's end, kinds 1
        to 5 until a line holding their end marker (or the container's end)."""
        rest = self.rest(line)
        self.blocks.append(RawHtml(line, self.shift[line], rest.strip(), True))
        following = line + 1
        if kind >= 6:
            while following < end and not self.empty(following) and self.shift[following] >= self.blk:
                following += 1
            return following
        close = HTML_BLOCK_ENDS[kind - 1]
        if close.search(rest):
            return following
        while following < end:
            if self.shift[following] < self.blk and not self.empty(following):
                break
            if close.search(self.rest(following)):
                return following + (not self.empty(following))
            following += 1
        return following

    def list(self, line: int, end: int) -> int:
        """`list_block`: the items of one list, each read by `tokenize` with its content indent."""
        self.depth += 1
        if self.depth > _MAX_LISTS:
            raise _Decline
        first = self.rest(line)
        marker = _list_marker(first)
        assert marker is not None
        kind = marker[-1]  # the bullet, or the delimiter of an ordered marker
        while True:
            text = self.lines[line]
            after = self.shift[line] + len(marker)
            content = len(text) - len(text[after:].lstrip(" "))
            if content >= len(text):
                raise _Decline  # an empty item (markdown-it has special cases for those)
            spaces = content - after
            indent = after + (spaces if spaces <= 4 else 1)
            saved, outer = self.shift[line], self.list_indent
            self.list_indent, self.blk = self.blk, indent
            self.shift[line] = content
            following = self.tokenize(line, end)
            self.blk, self.list_indent = self.list_indent, outer
            self.shift[line] = saved
            if following >= end or self.shift[following] < self.blk or self.shift[following] - self.blk >= 4:
                break
            rest = self.rest(following)  # markdown-it's list terminators (a fence is no marker)
            if rest[0] == ">":
                raise _Decline
            if _thematic_break(rest):
                break
            next_marker = _list_marker(rest)
            if next_marker is None or next_marker[-1] != kind or (len(next_marker) > 1) != (len(marker) > 1):
                break
            line, marker = following, next_marker
        self.depth -= 1
        return following

    def paragraph(self, line: int) -> int:
        """A paragraph to the first blank line or line that interrupts it (in any container: a
        paragraph reads on to the end of the text, lazy continuation lines included)."""
        count = len(self.lines)
        following = line + 1
        while following < count and not self.empty(following):
            if self.shift[following] - self.blk <= 3 and self.interrupts(following):
                break
            following += 1
        for below in range(line + 1, min(following + 1, count)):
            if _UNDERLINE.match(self.lines[below]) and not self.empty(below):
                raise _Decline  # a setext heading (markdown-it's lheading rule comes first)
        columns = [self.shift[line]]
        columns += (min(self.blk, self.shift[i]) for i in range(line + 1, following))
        self.blocks.append(Paragraph(line, tuple(columns)))
        return following

    def interrupts(self, line: int) -> bool:
        """The paragraph terminators (fence, block quote, thematic break, list, HTML block,
        heading) for `line`, indented at most 3 past the container's content."""
        rest = self.rest(line)
        if _fence_start(rest):
            return True
        if rest[0] == ">":
            raise _Decline
        if _thematic_break(rest):
            return True
        marker = _list_marker(rest)
        if marker is not None:
            at = self.shift[line]
            nested_too_deep = self.list_indent >= 0 and at - self.list_indent >= 4 and at < self.blk
            if not nested_too_deep:
                if at < self.blk:
                    return True  # a lazy line: any list item ends the paragraph
                if rest[len(marker) :].strip(" ") and (len(marker) == 1 or int(marker[:-1]) == 1):
                    return True
        if rest[0] == "<" and _html_kind(rest) in (1, 2, 3, 4, 5, 6):
            return True  # kind 7 cannot interrupt a paragraph
        return _ATX.match(rest) is not None


def _fence_start(rest: str) -> str:
    """The opening run of a code fence starting `rest`, else ''."""
    if not rest.startswith(("```", "~~~")):
        return ""
    char = rest[0]
    info = rest.lstrip(char)
    if char == "`" and "`" in info:
        return ""
    return rest[: len(rest) - len(info)]


def _thematic_break(rest: str) -> bool:
    char = rest[0]
    return char in "*-_" and rest.count(char) >= 3 and not rest.replace(char, "").strip(" ")


def _list_marker(rest: str) -> str | None:
    """The list marker starting `rest` (`-`, `*`, `+`, or digits and `.` or `)`), else None."""
    if rest[0] in "*+-":
        return rest[0] if len(rest) == 1 or rest[1] == " " else None
    match = _ORDERED.match(rest)
    return match.group() if match else None


def _html_kind(rest: str) -> int | None:
    """The kind (1 to 7) of the HTML block `rest` starts, None for none."""
    for kind, start in enumerate(HTML_BLOCK_STARTS, 1):
        if start.search(rest):
            return kind
    return None
