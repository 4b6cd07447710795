"""The Markdown structure of doc text, read with a CommonMark parser (markdown-it-py).

Docs are Markdown (IR.md). What a doc can do to the page it is shown on depends on how a
CommonMark parser reads it, so the structure comes from one: the block tokens (with their line
ranges, `token.map`) and, for paragraphs and headings that hold a `<`, the inline tokens, whose
source offsets are recorded while they are parsed. Nothing here guesses structure from regexes.

`analyse(text)` reports, for the text as `normalize` leaves it:

* raw HTML outside code: inline HTML (`<b>`, `</i>`, `<!-- -->`) and HTML blocks, with line and
  column (autolinks such as `<https://onnx.ai>` and anything inside code are not HTML);
* code fences that are never closed (the fence then runs to the end of its container);
* headings, ATX (`## Title`) and setext (`Title` over `=====` or `-----`), with their lines;
* `<` in literal text that a lenient renderer could still take for a tag (`<Scalar Tensor [3]>`
  is text to CommonMark, a tag to Python-Markdown): the docs repair writes those as `&lt;` too.

The checks (`toolkit.checks.docs`) turn the findings into DOC-* diagnostics and the docs generator
(`toolkit.generate.mdsafe`) repairs exactly what they describe.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parser is imported on first use: most docs never need it
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

# The inline rules whose spans are recorded (`parser`): inside an escape, a code span, a link, an
# image, an autolink or an entity, `<` is never literal text; `html_inline` spans are raw HTML.
# What a lenient renderer may read as the start of a tag: a tag name ended by a space, `/`, `>`
# or the line end, a closing tag, a comment/declaration or a processing instruction.
_TAG_START = re.compile(r"<[A-Za-z/!?]")  # what raw HTML and tag-like text both start with
TAG_LIKE = re.compile(r"<(?=[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|!|\?)", re.M)


@dataclass(frozen=True, slots=True)
class RawHtml:
    """Raw HTML at `line` (0-based, in the normalized text), its `<` at `column`."""

    line: int
    column: int
    text: str  # the construct (an HTML block: its first line)
    block: bool


@dataclass(frozen=True, slots=True)
class OpenFence:
    """A code fence opened at `line` and never closed: it runs to the end of its container
    (`end`, the line after its last one). `prefix` continues the container on a new line."""

    line: int
    column: int
    marker: str  # the opening run, e.g. "```"
    end: int
    prefix: str


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading: ATX on one line, setext on its text lines plus the underline (`line` to `end`).

    `column` is where the `#` run starts (ATX) or where the text starts on the first line
    (setext); `text_columns` gives, per text line of a setext heading, where its text starts."""

    line: int
    end: int
    level: int
    setext: bool
    column: int
    text_columns: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Analysis:
    lines: tuple[str, ...]  # the normalized text, split
    html: tuple[RawHtml, ...]
    open_fences: tuple[OpenFence, ...]
    headings: tuple[Heading, ...]
    tag_like: tuple[tuple[int, int], ...]  # (line, column) of a `<` in literal text that looks like a tag

    @property
    def clean(self) -> bool:
        return not (self.html or self.open_fences or self.headings or self.tag_like)


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


# --------------------------------------------------------------------------- the parser


def _recording(name: str, rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """Wrap an inline rule so that every span it consumes of the top-level text is recorded."""

    def recorded(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if not rule(state, silent):
            return False
        env = state.env
        if not silent and state.src is env["src"]:
            env["spans"].append((name, start, state.pos))
        return True

    return recorded


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark, block level only: inline content is parsed on demand by `_inline_spans`."""
    from markdown_it import MarkdownIt, rules_inline

    md = MarkdownIt("commonmark")
    md.disable(["inline", "text_join"])
    rules: dict[str, Callable[[StateInline, bool], bool]] = {
        "escape": rules_inline.escape,
        "backticks": rules_inline.backtick,
        "link": rules_inline.link,
        "image": rules_inline.image,
        "autolink": rules_inline.autolink,
        "entity": rules_inline.entity,
        "html_inline": rules_inline.html_inline,
    }
    for name, rule in rules.items():
        md.inline.ruler.at(name, _recording(name, rule))
    return md


def _inline_spans(content: str) -> list[tuple[str, int, int]]:
    md = parser()
    env: dict[str, Any] = {"src": content, "spans": []}
    md.inline.parse(content, md, env, [])
    spans: list[tuple[str, int, int]] = env["spans"]
    return spans


def _text_start(line: str, content_line: str) -> int:
    """Column of `line` where `content_line` (the parser's view of it, container prefix and
    indentation removed, a heading's closing #s dropped) starts."""
    if line.endswith(content_line):
        return len(line) - len(content_line)
    found = line.find(content_line)
    return found if found >= 0 else len(line) - len(line.lstrip())


def _continuation(prefix: str) -> str:
    """The prefix that continues the containers of `prefix` on a new line (list markers become
    spaces, blockquote markers stay)."""
    return "".join(char if char in "> " else " " for char in prefix)


# --------------------------------------------------------------------------- analysis


@lru_cache(maxsize=16384)
def analyse(text: str) -> Analysis:
    """The structure of `normalize(text)` that matters to a page showing it (see the module doc)."""
    normalized = normalize(text)
    lines = tuple(normalized.split("\n")) if normalized else ()
    return analyse_lines(lines)


def analyse_lines(lines: tuple[str, ...]) -> Analysis:
    """`analyse` of text already normalized and split into lines."""
    if not lines:
        return Analysis((), (), (), (), ())
    tokens = parser().parse("\n".join(lines) + "\n")
    html: list[RawHtml] = []
    fences: list[OpenFence] = []
    headings: list[Heading] = []
    tag_like: list[tuple[int, int]] = []
    for index, token in enumerate(tokens):
        kind = token.type
        if token.map is None:
            continue
        first, end = token.map
        if kind == "fence":
            if end - first - 1 == token.content.count("\n"):  # no closing line in its range
                line = lines[first]
                column = line.index(token.markup[0])
                prefix = _continuation(line[:column]) if token.level else ""
                fences.append(OpenFence(first, column, token.markup, end, prefix))
        elif kind == "html_block":
            line = lines[first]
            html.append(RawHtml(first, line.index("<"), token.content.split("\n", 1)[0].strip(), True))
        elif kind == "heading_open":
            headings.append(_heading(token, tokens[index + 1], lines))
        elif kind == "inline" and "<" in token.content and _TAG_START.search(token.content):
            _inline_html(token, lines, html, tag_like)
    return Analysis(lines, tuple(html), tuple(fences), tuple(headings), tuple(tag_like))


def _heading(token: Token, inline: Token, lines: tuple[str, ...]) -> Heading:
    first, end = token.map or (0, 0)
    level = int(token.tag[1])
    if token.markup.startswith("#"):
        return Heading(first, end, level, False, lines[first].index("#"))
    parts = inline.content.split("\n")
    columns = tuple(_text_start(lines[first + i], part) for i, part in enumerate(parts))
    return Heading(first, end, level, True, columns[0], columns)


def _inline_html(
    token: Token, lines: tuple[str, ...], html: list[RawHtml], tag_like: list[tuple[int, int]]
) -> None:
    content = token.content
    first = token.map[0] if token.map else 0
    parts = content.split("\n")
    starts = []  # offset in `content` where each of its lines starts
    offset = 0
    for part in parts:
        starts.append(offset)
        offset += len(part) + 1
    columns = [_text_start(lines[first + i], part) for i, part in enumerate(parts)]

    def position(at: int) -> tuple[int, int]:
        row = _row(starts, at)
        return first + row, columns[row] + at - starts[row]

    protected: list[tuple[int, int]] = []
    for name, start, stop in _inline_spans(content):
        if name == "html_inline":
            line, column = position(start)
            html.append(RawHtml(line, column, content[start:stop], False))
        protected.append((start, stop))
    for match in TAG_LIKE.finditer(content):
        at = match.start()
        if not any(start <= at < stop for start, stop in protected):
            tag_like.append(position(at))


def _row(starts: list[int], at: int) -> int:
    row = 0
    while row + 1 < len(starts) and starts[row + 1] <= at:
        row += 1
    return row
