"""Fast path beside `toolkit.checks.markdown`: skip the parser for doc text that cannot hold
anything the analysis reports.

Most docs are plain sentences, and most of the rest add only fenced code examples. The CommonMark
parse is only needed when the text holds a `<` that could start a tag (raw HTML, or a tag-like
`<` in literal text), a line of only `=` or `-` after another line (a setext underline), or a `#`
or fence run that is not simply part of top-level fenced blocks that all close. Anything else
that could open a container or a heading (list and quote markers, deep indentation, a `#` at the
start of a line, link reference definitions) also sends the text to the parser, and so does
anything that could hold a link target with a disallowed scheme (`markdown_links.
may_hold_unsafe_target`; an autolink starts with `<` and a letter) or an attribute list.

`may_need_repair(text) is False` implies `analyse(text).clean` (tests/test_docs_fastpaths.py
checks it on random Markdown-like text with hypothesis).

`simple_analysis(text)` is the second shortcut: for docs whose blocks are paragraphs, code,
lists, HTML blocks, thematic breaks and ATX headings (read by `toolkit.checks.markdown_blocks`),
it returns the analysis itself, equal to `analyse(text)`,
without the parser; None sends the text to the parser (tests/test_markdown_fast_html.py and
tests/test_markdown_blocks.py check the equality with hypothesis and on the onnx catalog).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from toolkit.checks.markdown import (
    TAG_LIKE,
    Analysis,
    Heading,
    OpenFence,
    RawHtml,
    attribute_lists,
    normalize,
)
from toolkit.checks.markdown_blocks import HTML_TAG, Paragraph, read_blocks
from toolkit.checks.markdown_links import may_hold_unsafe_target

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
    if _link_or_attributes(text):
        return True
    if "=" in text or "-" in text:
        lines = text.replace("\r", "\n") if "\r" in text else text
        if _UNDERLINE.search(lines):
            return True
    if "#" not in text and "```" not in text and "~~~" not in text:
        return False
    return not _closed_top_level_fences_only(normalize(text))


def _link_or_attributes(text: str) -> bool:
    """Whether `text` may hold a link target with a disallowed scheme or an attribute list
    (looked for in all of the text, code included: a superset of what the analysis finds)."""
    if "]" in text and may_hold_unsafe_target(text):
        return True
    return "{" in text and next(attribute_lists(text), None) is not None


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


# --------------------------------------------------------------------------- structured docs
#
# Once `read_blocks` has placed the paragraphs, what remains is their inline content, where the
# only findings are raw HTML and tag-like `<`. Inline markup is read left to right: code spans,
# raw HTML and escapes protect what they cover (code spans and raw HTML bind equally tightly, so
# the leftmost wins); entities and emphasis never hold a `<`. Links and autolinks would take more
# than this scan: a paragraph with a `<` after a `[` that a `](` follows, or with anything that
# could be an autolink (`<scheme:`, `@`), goes to the parser.

_RAW_HTML = re.compile(HTML_TAG)
# Text the parser would read differently: NUL (replaced by the parser) and whitespace other than
# space and newline (tabs are already expanded; the parser's and Python's ideas of whitespace differ).
_NOT_SIMPLE = re.compile(r"\x00|[^\S \n]")
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]*:|@")
# Where the inline scan stops: a backslash, a backtick run, a `<`, a `[`.
_INLINE_STOP = re.compile(r"\\|`+|<|\[")
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\n")


@lru_cache(maxsize=16384)
def simple_analysis(text: str) -> Analysis | None:
    """The analysis of `text` when its structure is one `read_blocks` reads (see above): equal
    to `analyse(text)`, computed without the parser. None for any other text."""
    normalized = normalize(text)
    if _NOT_SIMPLE.search(normalized) or ("]" in normalized and may_hold_unsafe_target(normalized)):
        return None
    lines = tuple(normalized.split("\n")) if normalized else ()
    blocks = read_blocks(lines)
    if blocks is None:
        return None
    html: list[RawHtml] = []
    fences: list[OpenFence] = []
    headings: list[Heading] = []
    tag_like: list[tuple[int, int]] = []
    attr_like: list[tuple[int, int]] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            if not _paragraph(lines, block, html, tag_like, attr_like):
                return None
        elif isinstance(block, RawHtml):
            html.append(block)
        elif isinstance(block, OpenFence):
            fences.append(block)
        elif "{" in lines[block.line] and next(attribute_lists(lines[block.line]), None) is not None:
            return None  # an ATX heading's inline content: left to the parser
        else:
            headings.append(block)
    return Analysis(lines, tuple(html), tuple(fences), tuple(headings), tuple(tag_like), (), tuple(attr_like))


def _paragraph(
    lines: tuple[str, ...],
    paragraph: Paragraph,
    html: list[RawHtml],
    tag_like: list[tuple[int, int]],
    attr_like: list[tuple[int, int]],
) -> bool:
    """Add the raw HTML, tag-like `<` and attribute lists of `paragraph`, as `analyse` reports
    them; False when its inline content needs the parser."""
    first, columns = paragraph.line, paragraph.columns
    parts = [lines[first + row][column:] for row, column in enumerate(columns)]
    content = "\n".join(parts)
    tags = "<" in content and _TAG_START.search(content) is not None
    attributes = list(attribute_lists(content)) if "{" in content else []
    if not tags and not attributes:
        return True  # the analysis reads no inline content without a possible tag or attributes
    if tags and _AUTOLINK.search(content):
        return False
    starts = [0]  # offset in `content` where each line starts
    for part in parts[:-1]:
        starts.append(starts[-1] + len(part) + 1)

    def position(at: int) -> tuple[int, int]:
        row = bisect_right(starts, at) - 1
        return first + row, columns[row] + at - starts[row]

    protected: list[tuple[int, int]] = []  # escapes, code spans, raw HTML
    pos = 0
    while (stop := _INLINE_STOP.search(content, pos)) is not None:
        at = stop.start()
        run = stop.group()
        if run == "\\":
            pos = at + 2 if content[at + 1 : at + 2] in _ESCAPABLE and at + 1 < len(content) else at + 1
            protected.append((at, pos))
        elif run == "[":
            # a link from here would protect what it spans, and may hold raw HTML of its own
            if tags and "](" in content[at:] and "<" in content[at:]:
                return False
            pos = at + 1
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
    attributes = [at for at in attributes if not any(start <= at < stop for start, stop in protected)]
    if attributes and "](" in content:
        return False  # a link's target would protect a `{` it holds
    attr_like += (position(at) for at in attributes)
    return True
