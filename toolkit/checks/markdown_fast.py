"""Fast path beside `toolkit.checks.markdown`: skip the parser for doc text that cannot hold
anything the analysis reports.

Most docs are plain sentences, and most of the rest add only fenced code examples. The CommonMark
parse is only needed when the text holds a `<` that could start a tag (raw HTML, or a tag-like
`<` in literal text), a line of only `=` or `-` after another line (a setext underline), or a `#`
or fence run that is not simply part of top-level fenced blocks that all close. Anything else
that could open a container or a heading (list and quote markers, deep indentation, a `#` at the
start of a line, link reference definitions) also sends the text to the parser.

`may_need_repair(text) is False` implies `analyse(text).clean` (tests/test_docs_fastpaths.py
checks it on random Markdown-like text with hypothesis).

`simple_analysis(text)` is the second shortcut: for docs that are plain paragraphs whose only
findings can be inline raw HTML (`Tensor<T>`, `<br>`), it returns the analysis itself, equal to
`analyse(text)`, without the parser; None sends the text to the parser
(tests/test_markdown_fast_html.py checks the equality with hypothesis and on the onnx catalog).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from toolkit.checks.markdown import TAG_LIKE, Analysis, RawHtml, normalize

_TAG_START = re.compile(r"<[A-Za-z/!?]")
# A line of `=` or `-` (after blockquote markers and indentation) that follows another line.
_UNDERLINE = re.compile(r"\n[ \t>]*(?:=+|-+)[^\S\n]*(?=\n|\Z)")
# What may start a container, a heading or a link reference definition at the start of a line.
_BLOCK_MARKER = re.compile(r"[-+*>#\[]|\d{1,9}[.)]")


def may_need_repair(text: str) -> bool:
    """False when the analysis of `text` is certainly clean (no HTML, fence left open, heading
    or `<` that looks like a tag)."""
    if "<" in text and _TAG_START.search(text):
        return True
    if "=" in text or "-" in text:
        lines = text.replace("\r", "\n") if "\r" in text else text
        if _UNDERLINE.search(lines):
            return True
    if "#" not in text and "```" not in text and "~~~" not in text:
        return False
    return not _closed_top_level_fences_only(normalize(text))


def _closed_top_level_fences_only(text: str) -> bool:
    """True when every line is plain paragraph text or part of a top-level fenced block that
    closes: then neither a `#` nor a fence run can make a heading or leave a fence open."""
    fence = ""  # the opening run of the fence we are in
    for line in text.split("\n"):
        content = line.lstrip(" ")
        indent = len(line) - len(content)
        if fence:
            if indent <= 3 and content.startswith(fence) and not content.strip(fence[0]):
                fence = ""
            continue
        if not content:
            continue
        if indent >= 4:
            return False
        if content.startswith(("```", "~~~")):
            run = len(content) - len(content.lstrip(content[0]))
            if content[0] == "`" and "`" in content[run:]:
                return False
            fence = content[:run]
            continue
        if _BLOCK_MARKER.match(content):
            return False
    return not fence


# --------------------------------------------------------------------------- simple docs
#
# A "simple" doc is paragraphs of plain text whose inline markup is at most raw HTML (`<T>`,
# `<br>`), code spans, backslash escapes, entities and emphasis. CommonMark then fixes its
# structure without a parser: no line can open a block other than a paragraph or interrupt one,
# there are no links (no `](`, and no line starts a link reference definition), no autolinks, and
# a `<` is raw HTML, protected (inside a code span, escaped) or literal text. Code spans and raw
# HTML bind equally tightly, so the leftmost wins; entities and emphasis never hold a `<`. So the
# analysis is one left-to-right scan per paragraph.

# Inline raw HTML, CommonMark spec section 6.6. Whitespace inside a tag may hold a line ending;
# a paragraph never holds a blank line, so "up to one line ending" needs no extra care.
_WS = r"[ \t\n]"
_ATTRIBUTE = (
    rf"{_WS}+[A-Za-z_:][A-Za-z0-9_.:-]*"
    rf"(?:{_WS}*={_WS}*(?:[^ \t\n\"'=<>`]+|'[^']*'|\"[^\"]*\"))?"
)
_OPEN_TAG = rf"<[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE})*{_WS}*/?>"
_CLOSING_TAG = rf"</[A-Za-z][A-Za-z0-9-]*{_WS}*>"
_COMMENT = r"<!-->|<!--->|<!--[\s\S]*?-->"
_PROCESSING = r"<\?[\s\S]*?\?>"
_DECLARATION = r"<![A-Za-z][^>]*>"
_CDATA = r"<!\[CDATA\[[\s\S]*?\]\]>"
_RAW_HTML = re.compile("|".join((_OPEN_TAG, _CLOSING_TAG, _COMMENT, _PROCESSING, _DECLARATION, _CDATA)))

# Text the parser would read differently: a link (`](`), NUL (replaced by the parser), an
# autolink (`<scheme:...>`, `<user@host>`, read before raw HTML), and whitespace other than space
# and newline (tabs are already expanded; the parser's and Python's ideas of whitespace differ).
_NOT_SIMPLE = re.compile(r"\]\(|\x00|<[A-Za-z][A-Za-z0-9+.-]*:|@|[^\S \n]")
# A line that may open or interrupt a block other than a paragraph continuation: indented 4+,
# a heading, a fence, an HTML block, a quote, a list item, a thematic break, a setext underline
# or a link reference definition.
_BLOCK_START = re.compile(r"(?: {4}| {0,3}(?:[<#>*+=_~\[-]|```|\d{1,9}[.)]))")
# Where the inline scan stops: a backslash, a backtick run, a `<`.
_INLINE_STOP = re.compile(r"\\|`+|<")
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\n")


@lru_cache(maxsize=16384)
def simple_analysis(text: str) -> Analysis | None:
    """The analysis of `text` when it is simple (see above): equal to `analyse(text)`, computed
    without the parser. None for any other text."""
    normalized = normalize(text)
    if _NOT_SIMPLE.search(normalized):
        return None
    lines = tuple(normalized.split("\n")) if normalized else ()
    html: list[RawHtml] = []
    tag_like: list[tuple[int, int]] = []
    first = 0
    for index, line in enumerate((*lines, "")):
        if line:
            if _BLOCK_START.match(line):
                return None
            continue
        if first < index:
            _paragraph(lines, first, index, html, tag_like)
        first = index + 1
    return Analysis(lines, tuple(html), (), (), tuple(tag_like))


def _paragraph(
    lines: tuple[str, ...], first: int, end: int, html: list[RawHtml], tag_like: list[tuple[int, int]]
) -> None:
    """Raw HTML and tag-like `<` of the paragraph `lines[first:end]`, as `analyse` reports them."""
    head = lines[first]
    indent = len(head) - len(head.lstrip(" "))  # the parser's content drops it from the first line
    content = "\n".join(lines[first:end])[indent:]
    if "<" not in content:
        return
    starts = [0]  # offset in `content` where each line starts
    for part in content.split("\n")[:-1]:
        starts.append(starts[-1] + len(part) + 1)

    def position(at: int) -> tuple[int, int]:
        row = bisect_right(starts, at) - 1
        return first + row, at - starts[row] + (indent if row == 0 else 0)

    protected: list[tuple[int, int]] = []  # escapes, code spans, raw HTML
    pos = 0
    while (stop := _INLINE_STOP.search(content, pos)) is not None:
        at = stop.start()
        run = stop.group()
        if run == "\\":
            pos = at + 2 if content[at + 1 : at + 2] in _ESCAPABLE and at + 1 < len(content) else at + 1
            protected.append((at, pos))
        elif run == "<":
            match = _RAW_HTML.match(content, at)
            if match is None:
                pos = at + 1
                continue
            line, column = position(at)
            html.append(RawHtml(line, column, match.group(), False))
            pos = match.end()
            protected.append((at, pos))
        else:
            closing = re.compile(rf"(?<!`){run}(?!`)").search(content, stop.end())
            pos = closing.end() if closing else stop.end()
            protected.append((at, pos))
    for match in TAG_LIKE.finditer(content):
        at = match.start()
        if not any(start <= at < stop for start, stop in protected):
            tag_like.append(position(at))
