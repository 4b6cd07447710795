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
  is text to CommonMark, a tag to Python-Markdown): the docs repair writes those as `&lt;` too;
* links, images, link reference definitions and autolinks whose target is not an allowed URL
  (`toolkit.checks.markdown_links`: http, https, mailto or none), as CommonMark reads them and as
  Python-Markdown's laxer syntax may read them (the parser here accepts every target, so that
  `[x](javascript:...)` is seen as the link it is to a renderer that does not refuse it);
* `{` in literal text that opens what Python-Markdown's attr_list extension (used by mkdocs sites)
  reads as attributes of an element (`{onclick=...}`), and a line that opens an admonition
  (`!!! note`, the admonition extension): escaped with a backslash (renders the same in both);
* a span in content Python-Markdown may group into blocks otherwise protects only what it
  protects in every grouping (`markdown_grouping`: `x `a` over `* `<b>``);
* a backslash escape of a character Python-Markdown does not escape (`ESCAPED_BY_BOTH`) protects
  nothing: to it `\\<img ...>` is a backslash and a tag, so that `<` is raw HTML here too;
* code that Python-Markdown may not read as code (`CodeBlock`): every indented code block whose
  text could hold markup (Python-Markdown's fixed four-space list indent and its admonitions read
  some of them as Markdown), and every fence not written the one way its superfences extension
  is sure to read as CommonMark does. The docs repair rewrites each as such a fence.

The checks (`toolkit.checks.docs`) turn the findings into DOC-* diagnostics and the docs generator
(`toolkit.generate.mdsafe`) repairs exactly what they describe.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from toolkit.checks.markdown_code import CodeBlock, code_block
from toolkit.checks.markdown_fast import may_need_repair
from toolkit.checks.markdown_grouping import CELL_BREAK, Runs
from toolkit.checks.markdown_links import (
    Spans,
    autolink_kept,
    lenient_links,
    unsafe_scheme,
    url_scheme,
)
from toolkit.checks.markdown_text import (
    ESCAPED_BY_BOTH,
    TAG_LIKE,
    attribute_lists,
    definition_literals,
    normalize,
)

if TYPE_CHECKING:  # the parser is imported on first use: most docs never need it
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

# The inline rules whose spans are recorded (`parser`): inside an escape, a code span, a link, an
# image, an autolink or an entity, `<` is never literal text; `html_inline` spans are raw HTML.
# What a lenient renderer may read as the start of a tag: a tag name ended by a space, `/`, `>`
# or the line end, a closing tag, a comment/declaration or a processing instruction.
# Inline content that may hold raw HTML, a tag-like `<`, a link target, an attribute list or an
# admonition's opening line.
_INLINE_RISK = re.compile(r"<[A-Za-z/!?]|\][(:]|\{|!!!")
# What Python-Markdown's admonition extension opens a block with, at the start of any line of a
# block (its RE: `!!!`, an optional space, a type word).
ADMONITION = re.compile(r"!!! ?[\w-]")
# A table's delimiter row: a line of `|`, `-`, `:` and blanks holding a `|` (after the prefix of
# its containers: quote markers, list markers, indentation). GitHub's tables need a `-` in it,
# Python-Markdown's (mkdocs.yml) do not (`:|:`). Where a doc holds one, a renderer may cut the
# rows around it into cells at every `|` not escaped before any inline span is read, code spans
# and links included; the row may stand in another block than the span (markdown-it reads
# `# x|y` over `--|--` as a table, not a heading), so it is looked for in the whole doc.
# Possessive quantifiers: one pass per line whatever it holds.
_DELIMITER_ROW = re.compile(r"^(?=[^\n]*\|)(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*+[ \t|:-]++$", re.M)


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
class UnsafeLink:
    """A link construct at `line`, `column` whose target has a disallowed `scheme`; the repair
    neutralizes it through the character at `fix` (line, column): an autolink's `<` is written
    `&lt;`, a link's `(` after its text and a definition's `[` are escaped with a backslash."""

    line: int
    column: int
    construct: str  # "link", "image", "autolink", "link reference definition"
    scheme: str
    fix: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Analysis:
    lines: tuple[str, ...]  # the normalized text, split
    html: tuple[RawHtml, ...]
    open_fences: tuple[OpenFence, ...]
    headings: tuple[Heading, ...]
    tag_like: tuple[tuple[int, int], ...]  # (line, column) of a `<` in literal text that looks like a tag
    unsafe_links: tuple[UnsafeLink, ...] = ()
    # (line, column) of a `{` opening an attribute list or the `!` opening an admonition
    extension_marks: tuple[tuple[int, int], ...] = ()
    code_blocks: tuple[CodeBlock, ...] = ()

    @property
    def clean(self) -> bool:
        return not (
            self.html
            or self.open_fences
            or self.headings
            or self.tag_like
            or self.unsafe_links
            or self.extension_marks
            or self.code_blocks
        )


# --------------------------------------------------------------------------- the parser


# A recorded span: (rule name, start, stop, the link target for links, images and autolinks,
# and for an inline link or image the offset of the `(` after its text, else -1).
Span = tuple[str, int, int, str, int]
_LINK_RULES = ("link", "image", "autolink")


def _recording(name: str, rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """Wrap an inline rule so that every span it consumes of the top-level text is recorded,
    with the target of a link, image or autolink (the first token the rule pushed)."""

    def recorded(state: StateInline, silent: bool) -> bool:
        start = state.pos
        pushed = len(state.tokens)
        if not rule(state, silent):
            return False
        env = state.env
        if not silent and state.src is env["src"]:
            target, opening = "", -1
            if name in _LINK_RULES:
                # the first token the rule pushed (pending text may be flushed before it)
                kind = "image" if name == "image" else "link_open"
                token = next(t for t in state.tokens[pushed:] if t.type == kind)
                target = str(token.attrGet("src" if name == "image" else "href") or "")
                if name != "autolink" and state.src[state.pos - 1] == ")":  # inline, not a reference
                    opening = _label_end(state, start, name) + 1
            env["spans"].append((name, start, state.pos, target, opening))
        return True

    return recorded


def _label_end(state: StateInline, start: int, name: str) -> int:
    """Where the text of the link or image at `start` ends, found as the rule found it."""
    from markdown_it.helpers import parseLinkLabel

    after = state.pos
    state.pos = start
    try:
        if name == "image":
            return parseLinkLabel(state, start + 1, False)
        return parseLinkLabel(state, start, True)
    finally:
        state.pos = after


class _AnyTarget:
    """Link targets as written (entities and escapes decoded) and never refused: markdown-it
    drops links to `javascript:` and the like, a renderer without that check does not, so the
    analysis sees every link and judges its target itself (`markdown_links`)."""

    @staticmethod
    def validateLink(url: str) -> bool:
        return True

    @staticmethod
    def normalizeLink(url: str) -> str:
        return url

    @staticmethod
    def normalizeLinkText(link: str) -> str:
        return link


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark, block level only: inline content is parsed on demand by `_inline_spans`.
    Link reference definitions are kept as `definition` tokens (with their target)."""
    from markdown_it import MarkdownIt, rules_inline

    class Parser(_AnyTarget, MarkdownIt):
        pass

    md = Parser("commonmark", {"inline_definitions": True})
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


def _inline_spans(content: str) -> list[Span]:
    md = parser()
    env: dict[str, Any] = {"src": content, "spans": []}
    md.inline.parse(content, md, env, [])
    spans: list[Span] = env["spans"]
    return spans


def _text_start(line: str, content_line: str) -> int:
    """Column of `line` where `content_line` (the parser's view of it, container prefix and
    indentation removed, a heading's closing #s dropped) starts. The parser reads NUL as U+FFFD
    (one character for one: the columns stay)."""
    if "\x00" in line:
        line = line.replace("\x00", "\ufffd")
    if line.endswith(content_line):
        return len(line) - len(content_line)
    found = line.find(content_line)
    return found if found >= 0 else len(line) - len(line.lstrip())


def _continuation(prefix: str) -> str:
    """The prefix that continues the containers of `prefix` on a new line (list markers become
    spaces, blockquote markers stay)."""
    return "".join(char if char in "> " else " " for char in prefix)


# --------------------------------------------------------------------------- analysis


def analyse(text: str) -> Analysis:
    """The structure of `normalize(text)` that matters to a page showing it (see the module doc)."""
    normalized = normalize(text)
    return analyse_lines(tuple(normalized.split("\n")) if normalized else ())


# The analyses made, keyed by what each one read (`Analysis.lines`): the checks and the docs
# generator read the same docs, and the loader's workers hand theirs back (`remember`) so that
# this process does not parse them again. At most MEMO_SIZE entries: when full it starts over.
MEMO_SIZE = 16384
_memo: dict[tuple[str, ...], Analysis] = {}


def analyse_lines(lines: tuple[str, ...]) -> Analysis:
    """`analyse` of text already normalized and split into lines."""
    found = _memo.get(lines)
    if found is None:
        found = _analysed(lines)
        remember((found,))
    return found


def remember(analyses: Iterable[Analysis]) -> None:
    """Keep `analyses`, made elsewhere (a loader worker), for `analyse_lines`: each under the
    lines it read, so an entry is the analysis of its key whoever made it."""
    for analysis in analyses:
        if len(_memo) >= MEMO_SIZE:
            _memo.clear()  # one step (safe beside another thread), unlike evicting one by one
        _memo[analysis.lines] = analysis


def _analysed(lines: tuple[str, ...]) -> Analysis:
    if not lines:
        return Analysis((), (), (), (), ())
    source = "\n".join(lines) + "\n"
    tokens = parser().parse(source)
    found = _Found(lines, tokens)
    cut = "|" in source and _DELIMITER_ROW.search(source) is not None  # tables may cut spans
    for index, token in enumerate(tokens):
        kind = token.type
        if token.map is None:
            continue
        first, end = token.map
        if kind == "fence" or kind == "code_block":
            closed = kind == "code_block" or end - first - 1 != token.content.count("\n")
            if not closed:  # no closing line in its range
                line = lines[first]
                column = line.index(token.markup[0])
                # closed behind the same prefix as it opened: superfences refuses a fence whose
                # lines are indented less than its opening line
                found.fences.append(OpenFence(first, column, token.markup, end, _continuation(line[:column])))
            block = code_block(token, lines, closed)
            if found.runs.unfenced(first) and (block is not None or may_need_repair(token.content)):
                # no fence written there is code to Python-Markdown: the doc is shown as code
                block = CodeBlock(first, end, None, (), "", True, closed)
            if block is not None:
                found.code.append(block)
        elif kind == "html_block":
            line = lines[first]
            found.html.append(RawHtml(first, line.index("<"), token.content.split("\n", 1)[0].strip(), True))
        elif kind == "heading_open":
            found.headings.append(_heading(token, tokens[index + 1], lines))
        elif kind == "definition":
            scheme = unsafe_scheme(str(token.meta["url"]))
            if scheme is not None:
                column = lines[first].index("[")
                found.links.append(
                    UnsafeLink(first, column, "link reference definition", scheme, (first, column))
                )
            _definition(lines, first, end, found)
        elif kind == "inline" and _INLINE_RISK.search(token.content):
            _inline(token, lines, found, cut)
    return Analysis(
        lines,
        tuple(found.html),
        tuple(found.fences),
        tuple(found.headings),
        tuple(sorted(found.tag_like)),
        tuple(sorted(found.links, key=lambda link: link.fix)),
        tuple(sorted(found.marks)),
        tuple(found.code),
    )


class _Found:
    """What `analyse_lines` collects."""

    def __init__(self, lines: tuple[str, ...], tokens: list[Token]) -> None:
        self.runs = Runs(lines, tokens, _inline_spans)  # read on first use: most docs never ask
        self.html: list[RawHtml] = []
        self.fences: list[OpenFence] = []
        self.headings: list[Heading] = []
        self.tag_like: list[tuple[int, int]] = []
        self.links: list[UnsafeLink] = []
        self.marks: list[tuple[int, int]] = []
        self.code: list[CodeBlock] = []


def _definition(lines: tuple[str, ...], first: int, end: int, found: _Found) -> None:
    tags, marks = definition_literals(lines, first, end)
    found.tag_like.extend(tags)
    found.marks.extend(marks)


def _heading(token: Token, inline: Token, lines: tuple[str, ...]) -> Heading:
    first, end = token.map or (0, 0)
    level = int(token.tag[1])
    if token.markup.startswith("#"):
        return Heading(first, end, level, False, lines[first].index("#"))
    parts = inline.content.split("\n")
    columns = tuple(_text_start(lines[first + i], part) for i, part in enumerate(parts))
    return Heading(first, end, level, True, columns[0], columns)


def _inline(token: Token, lines: tuple[str, ...], found: _Found, cut: bool) -> None:
    """Raw HTML, tag-like `<`, links with disallowed targets and attribute lists of one inline
    content (a paragraph's or a heading's); `cut`: the doc holds a table delimiter row."""
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

    # Spans whose `<` and `{` are not literal text: escapes, code, raw HTML, autolinks, images
    # (their text is an attribute) and the target part of inline links (their text is text).
    protected: list[tuple[int, int]] = []
    # Spans in which a `](` is not the start of a link target: all of the above but links.
    quoted: list[tuple[int, int]] = []
    # Code spans a table cuts (GFM), which Python-Markdown keeps whole: they protect a `{`.
    code_only: list[tuple[int, int]] = []
    fixes: set[int] = set()
    html_starts: set[int] = set()
    spans = _inline_spans(content)
    # A backtick run CommonMark finds no closer for is literal there; Python-Markdown then tries
    # the run's shorter prefixes as openers and may pair other backticks: a span holding a
    # backtick (a code span, a link with one in its text) may be cut by a code span there, so
    # none protects anything (a `<` in one is escaped, shown `&lt;` there).
    loose = any(
        name == "backticks" and not content[start:stop].strip("`") for name, start, stop, _, _ in spans
    )
    # Lines Python-Markdown may group otherwise (`markdown_grouping`): backticks another line leaves
    # open pair across the block boundary there (asked where a span with a backtick holds a `<`
    # or `{`: a span without one is whole inside or outside any code span Python-Markdown pairs).
    if not loose and any(_fragile(content, start, stop) for _, start, stop, _, _ in spans):
        loose = found.runs.pairs_otherwise(first, parts)
    crossing = False  # whether a span that protects holds a line break
    for name, start, stop, target, opening in spans:
        if name == "escape" and content[start + 1 : start + 2] not in ESCAPED_BY_BOTH:
            # Python-Markdown keeps the backslash and reads the character as it stands: a tag
            # after it is raw HTML there (the repair writes `\<` as `&lt;`, `<` in both)
            if TAG_LIKE.match(content, start + 1):
                line, column = position(start)
                found.html.append(RawHtml(line, column, content[start:].split("\n", 1)[0], False))
                fixes.add(start + 1)
            continue
        if name == "html_inline":
            html_starts.add(start)  # reported as raw HTML (escaped) whatever a row reads there
            line, column = position(start)
            found.html.append(RawHtml(line, column, content[start:stop], False))
        if name in _LINK_RULES:
            kept = autolink_kept(content[start + 1 : stop - 1]) if name == "autolink" else None
            scheme = url_scheme(target) or "" if kept is False else unsafe_scheme(target)
            if kept is False or (scheme is not None and opening >= 0):
                fix = start if name == "autolink" else opening
                fixes.add(fix)
                found.links.append(UnsafeLink(*position(start), name, scheme or "", position(fix)))
        if loose and content.find("`", start, stop) >= 0:
            continue  # backticks pair otherwise in Python-Markdown: a code span may cut it there
        if cut and content.find("\n", start, stop) >= 0:
            continue  # a table reads each row on its own: a span over two lines is text there
        if cut and CELL_BREAK.search(content, start, stop):
            # a table cell ends inside it (GFM cuts rows before reading spans): what it holds is
            # text to markdown-it. Python-Markdown, the one renderer with attribute lists, keeps
            # code spans whole: a `{` in one is code to it.
            if name == "backticks":
                code_only.append((start, stop))
            continue
        crossing = crossing or content.find("\n", start, stop) >= 0  # a link's text counts too
        if name == "link":
            protected.append((opening, stop) if opening >= 0 else (start, stop))
            continue
        protected.append((start, stop))
        quoted.append((start, stop))
    for at, construct, scheme in lenient_links(content, quoted):
        if at not in fixes:
            fixes.add(at)
            found.links.append(UnsafeLink(*position(at), construct, scheme, position(at)))
    tag_like = (match.start() for match in TAG_LIKE.finditer(content))
    # A table reads each row on its own, and Python-Markdown may cut content it groups otherwise
    # at any line: a span over a line break must protect in that reading too.
    rows = None
    if len(starts) > 1 and (cut or (crossing and found.runs.ambiguous(first, parts))):
        rows = found.runs.rows(content, starts, cut)
    for out, offsets, covered, row_covered in (
        (found.tag_like, tag_like, Spans(protected), rows and rows[0]),
        (found.marks, attribute_lists(content), Spans(protected + code_only), rows and rows[1]),
    ):
        for at in offsets:
            if at not in fixes and (
                at not in covered
                or (row_covered is not None and at not in row_covered and at not in html_starts)
            ):
                out.append(position(at))
    # An admonition opens at the start of any line of a block, whatever CommonMark reads there
    # (code spans included): escaped wherever a line's text starts with one.
    found.marks.extend(position(at) for at in starts if ADMONITION.match(content, at))
    found.marks.sort()


def _fragile(content: str, start: int, stop: int) -> bool:
    """Whether the span from `start` to `stop` holds a backtick and a `<` or `{`."""
    return content.find("`", start, stop) >= 0 and (
        content.find("<", start, stop) >= 0 or content.find("{", start, stop) >= 0
    )


def _row(starts: list[int], at: int) -> int:
    """The line of the offset `at`, `starts` being where each line starts (ascending)."""
    return bisect_right(starts, at) - 1
