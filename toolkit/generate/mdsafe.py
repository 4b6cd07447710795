"""Doc text is Markdown and goes into generated pages as Markdown, made safe on the way.

What `sanitize` guarantees for a doc string dropped into a generated page:

* raw HTML outside code is escaped (`<script>` becomes `&lt;script>`), so it shows as text and
  can neither inject markup nor swallow the rest of the page; autolinks (`<https://...>`) stay;
* a link, image, link reference definition or autolink whose target is not an http, https,
  mailto or scheme-less URL (`javascript:`, `vbscript:`, `data:`...) is shown as text: the `(`
  after a link's text or the `[` of a definition is escaped, an autolink's `<` written `&lt;`;
* an unclosed code fence is closed where its container ends (the end of the text, or of the list
  item or quote holding it), so it cannot turn the rest of the page into code;
* headings, ATX and setext, are demoted below the level of the page section that holds the doc,
  so a doc cannot restructure the page's table of contents;
* common leading indentation is removed (ONNX docs are indented) and blank edges are trimmed;
* control and bidi characters (`UNPRINTABLE_IN_TEXT`: all of `diagnostics.UNPRINTABLE` but the
  line feed and the tab) are written visibly as `\\uXXXX` (DOC-CONTROL-CHAR), so a page never
  holds an escape sequence, a NUL or a right-to-left override that disguises what it shows (a
  generated page writes any other the same way: `generate.docs.markdown.page_bytes`).

What needs repairing comes from the CommonMark analysis of `toolkit.checks.markdown` (the same
one `opset validate` reports as DOC-HTML, DOC-FENCE and DOC-HEADING). Every change is reported as
an `Issue` (rule id, line within the doc, message) and the docs generator prints a visible note
next to the text: nothing is passed through silently. The one change without a note: a `<` that
CommonMark already shows as text but a lenient renderer (Python-Markdown, used by mkdocs) could
take for a tag is written `&lt;`, and a `{` that Python-Markdown's attr_list would read as the
attributes of an element is written with a backslash before it: both render the same in CommonMark.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import NamedTuple

from toolkit.checks.markdown import Analysis, Heading, analyse, analyse_lines
from toolkit.checks.markdown_code import CodeBlock
from toolkit.checks.markdown_fast import may_need_repair
from toolkit.checks.markdown_text import control_chars, normalize
from toolkit.model.diagnostics import UNPRINTABLE_IN_TEXT, unicode_escaped

__all__ = [
    "Issue",
    "SafeMarkdown",
    "code",
    "escape_pipes",
    "inline",
    "normalize",
    "prose",
    "sanitize",
    "table_row",
]

BACKTICKS = re.compile(r"`+")
BLOCK_START = re.compile(r"^ {0,3}(?:[-+*]\s|\d{1,9}[.)]\s|>|#|\||```|~~~)|^ {4}")


# Issue, SafeMarkdown and Repair are NamedTuples rather than frozen dataclasses: a docs run makes
# thousands, and a NamedTuple is cheaper to define (at import) and to make.
class Issue(NamedTuple):
    rule: str  # DOC-HTML, DOC-UNSAFE-LINK, DOC-FENCE, DOC-HEADING, DOC-CONTROL-CHAR
    line: int  # 1-based line in the (dedented) doc text
    message: str


class SafeMarkdown(NamedTuple):
    text: str
    issues: tuple[Issue, ...]

    @property
    def note(self) -> str:
        """A visible Markdown note about repairs that change how the text renders ('' if none)."""
        shown = [i for i in self.issues if i.rule in _NOTED]
        if not shown:
            return ""
        items = "; ".join(f"line {i.line}: {i.message}" for i in shown)
        return f"> **Note (opset-toolkit):** this doc text was repaired for display: {items}."


FENCE_MESSAGE = "code fence opened here was never closed; closed at the end"
_ORDER = {"DOC-CONTROL-CHAR": 0, "DOC-HEADING": 1, "DOC-HTML": 2, "DOC-UNSAFE-LINK": 3, "DOC-FENCE": 4}
# the repairs that change how the text renders (issues on one line in `_ORDER`)
_NOTED = ("DOC-CONTROL-CHAR", "DOC-HTML", "DOC-UNSAFE-LINK", "DOC-FENCE")


class Repair(NamedTuple):
    """The heading-level-independent part of `sanitize`: the lines with HTML escaped, the fences
    to close, the headings (demoted per level by `demote`) and the repairs other than demotions."""

    lines: tuple[str, ...]
    closings: tuple[tuple[int, str], ...]  # (line after which to insert, closing fence line)
    headings: tuple[Heading, ...]
    issues: tuple[Issue, ...]
    min_level: int  # lowest heading level (7 when there are none)
    text: str  # the result at every level that demotes nothing


@lru_cache(maxsize=16384)
def sanitize(text: str, min_heading: int = 5) -> SafeMarkdown:
    """Make `text` safe to embed under a section of heading level `min_heading - 1`.

    Cached: catalogs repeat the same doc across many operator versions, and the pages ask for it
    at several levels (what does not depend on the level is done once per text: `_prepared`).
    """
    controls = control_chars(text)
    if controls is not None:  # made visible first: the analysis reads what the page will hold
        safe = sanitize(unicode_escaped(text, UNPRINTABLE_IN_TEXT), min_heading)
        issue = Issue("DOC-CONTROL-CHAR", controls.line + 1, controls.message)
        return SafeMarkdown(safe.text, tuple(sorted((issue, *safe.issues), key=_issue_order)))
    prepared = _prepared(text)
    if isinstance(prepared, SafeMarkdown):
        return prepared
    if prepared.min_level >= min_heading:  # no heading to demote at this level
        return SafeMarkdown(prepared.text, prepared.issues)
    return demote(prepared, min_heading)


def _issue_order(issue: Issue) -> tuple[int, int]:
    return issue.line, _ORDER[issue.rule]


@lru_cache(maxsize=16384)
def _prepared(text: str) -> SafeMarkdown | Repair:
    """Doc text without anything to repair as it is at every heading level, else its repair."""
    if not may_need_repair(text):
        return SafeMarkdown(normalized(text), ())
    return repaired(text)


def normalized(text: str) -> str:
    """`normalize(text)`. Most docs are one line (an input's, an attribute's): without a line
    break or a tab, normalizing only trims the line (spaces before it, whitespace after it)."""
    if "\n" in text or "\r" in text or "\t" in text:
        return normalize(text)
    return text.lstrip(" ").rstrip()


@lru_cache(maxsize=16384)
def repaired(text: str) -> Repair:
    """Escape raw HTML until the parser finds none, then note the fences to close."""
    current: Analysis = analyse(text)
    lines = list(current.lines)
    html_lines: set[int] = set()
    link_issues: dict[tuple[int, str], None] = {}  # (line, message), in order
    original = current.lines
    rounds = MAX_ROUNDS
    while current.html or current.tag_like or current.unsafe_links or current.extension_marks:
        html_lines.update(h.line for h in current.html)
        # an escaped `<` that is a tag to Python-Markdown: the backslash and the `<` as `&lt;`
        edits = {(h.line, h.column): ("&lt;", 2 if h.text[:1] == "\\" else 1) for h in current.html}
        edits.update((at, ("&lt;", 1)) for at in current.tag_like)
        edits.update((at, ("\\" + lines[at[0]][at[1]], 1)) for at in current.extension_marks)
        for link in current.unsafe_links:
            link_issues[link.line, link_message(link.construct, link.scheme)] = None
            line, column = link.fix
            edits[link.fix] = ("&lt;" if link.construct == "autolink" else "\\" + lines[line][column], 1)
        rounds -= 1
        if rounds < 0 or any(
            lines[line][column + width - 1 : column + width] not in _ESCAPED
            for (line, column), (_, width) in edits.items()
        ):
            return as_code(original)
        _apply(lines, edits)
        # An escaped construct may uncover more markup (a link's target becoming text): analysed
        # again until nothing is left. Every `<` that could start a tag in literal text is escaped
        # in one round, so real docs need one or two; an analysis that names any other character
        # than those an edit escapes, or more than MAX_ROUNDS rounds, is one this repair does not
        # understand, and the doc is shown as code instead (the repair costs at most MAX_ROUNDS
        # analyses, each near linear in the text, whatever the text).
        current = analyse_lines(tuple(lines))
    if any(block.prefix is None for block in current.code_blocks):
        return as_code(original)
    issues = [Issue("DOC-HTML", line + 1, "raw HTML escaped") for line in sorted(html_lines)]
    issues += [Issue("DOC-UNSAFE-LINK", line + 1, message) for line, message in link_issues]
    issues += [Issue("DOC-FENCE", fence.line + 1, FENCE_MESSAGE) for fence in current.open_fences]
    rewritten = {block.line for block in current.code_blocks if block.fenced}
    closings = tuple(
        (fence.end - 1, fence.prefix + fence.marker)
        for fence in current.open_fences
        if fence.line not in rewritten
    )
    for block in current.code_blocks:
        as_fence(lines, block)
    issues.sort(key=_issue_order)
    min_level = min((h.level for h in current.headings), default=7)
    return Repair(
        tuple(lines), closings, current.headings, tuple(issues), min_level, _assemble(lines, closings)
    )


def _apply(lines: list[str], edits: dict[tuple[int, int], tuple[str, int]]) -> None:
    """Replace `width` characters at each (line, column) of `edits`, every line rebuilt once
    (one edit at a time would copy a long line once per edit)."""
    by_line: dict[int, list[tuple[int, str, int]]] = {}
    for (line, column), (replacement, width) in sorted(edits.items()):
        by_line.setdefault(line, []).append((column, replacement, width))
    for line, changes in by_line.items():
        text = lines[line]
        pieces: list[str] = []
        done = 0
        for column, replacement, width in changes:
            pieces += (text[done:column], replacement)
            done = column + width
        pieces.append(text[done:])
        lines[line] = "".join(pieces)


_ESCAPED = "<{([!"  # the characters a repair edit escapes
MAX_ROUNDS = 4  # repair rounds before a doc is shown as code
AS_CODE_MESSAGE = "doc text shown as code: its markup could not be repaired"


def code_fence(lines: Iterable[str]) -> str:
    """A backtick fence that no line of `lines` can close: longer than every backtick run in it."""
    return "`" * max(3, 1 + max((len(run) for line in lines for run in BACKTICKS.findall(line)), default=0))


def as_code(lines: tuple[str, ...]) -> Repair:
    """The doc as one fenced code block, which no line of it can close: the fallback of a repair
    that does not converge."""
    fence = code_fence(lines)
    block = [fence, *lines, fence]
    return Repair(tuple(block), (), (), (Issue("DOC-HTML", 1, AS_CODE_MESSAGE),), 7, _assemble(block, ()))


def as_fence(lines: list[str], block: CodeBlock) -> None:
    """Rewrite `block` (code Python-Markdown may read as Markdown) in `lines` as the fence both
    renderers read as the same code: on lines of its own behind its containers' prefix, every
    line of it behind that prefix, closed by its opening run (CommonMark renders it as before).
    The line count stays: an indented block's fence lines share its first and last entries
    (joined by a line break), so the headings' and fences' line numbers still hold."""
    prefix = block.prefix or ""
    fence = prefix + code_fence(block.code)
    body = [prefix + code if code else prefix.rstrip() for code in block.code]
    if block.fenced:  # its opening line, then its lines, then its closing line (if it had one)
        body = [fence + block.info, *body, fence] if block.closed else [fence + block.info, *body]
        if not block.closed:
            body[-1] += "\n" + fence
    else:
        body[0] = fence + "\n" + body[0]
        body[-1] += "\n" + fence
    lines[block.line : block.end] = body


def link_message(construct: str, scheme: str) -> str:
    """The repair note of a link with a disallowed target (`scheme` is letters, digits, `+.-`)."""
    if construct == "autolink":
        return "autolink shown as text (only http, https and mailto links are kept)"
    return f"{construct} to a {scheme}: URL shown as text (only http, https and mailto links are kept)"


def demote(repair: Repair, level: int) -> SafeMarkdown:
    """The repair with every heading above `level` demoted to it (setext headings become ATX)."""
    lines = list(repair.lines)
    dropped: set[int] = set()
    issues = list(repair.issues)
    marks = "#" * level
    for heading in repair.headings:
        if heading.level >= level:
            continue
        issues.append(Issue("DOC-HEADING", heading.line + 1, f"heading demoted to level {level}"))
        first = lines[heading.line]
        if not heading.setext:
            column = heading.column
            lines[heading.line] = first[:column] + marks + first[column + heading.level :]
            continue
        parts = [lines[heading.line + i][column:] for i, column in enumerate(heading.text_columns)]
        # A form feed or vertical tab indents a paragraph line but not an ATX heading: as a space.
        prefix = first[: heading.column].replace("\f", " ").replace("\v", " ")
        lines[heading.line] = prefix + marks + " " + " ".join(parts)
        dropped.update(range(heading.line + 1, heading.end))
    issues.sort(key=_issue_order)
    kept = [line if index not in dropped else None for index, line in enumerate(lines)]
    return SafeMarkdown(_assemble(kept, repair.closings), tuple(issues))


def _assemble(lines: list[str] | list[str | None], closings: tuple[tuple[int, str], ...]) -> str:
    """The lines (None: dropped) with each closing fence inserted after its line."""
    if not closings:
        return "\n".join(line for line in lines if line is not None)
    after: dict[int, list[str]] = {}
    for index, closing in closings:
        after.setdefault(index, []).append(closing)
    out: list[str] = []
    for index, line in enumerate(lines):
        if line is not None:
            out.append(line)
        out.extend(after.get(index, ()))
    return "\n".join(out)


@lru_cache(maxsize=16384)
def inline(text: str) -> str | None:
    """Doc text as one table cell, or None when it has block structure a cell cannot hold, or
    when the cell, read as what it is (one line of a table row), holds markup after all.

    Lines of a paragraph are joined with spaces, paragraphs with `<br><br>` (our own markup,
    the one HTML element a cell needs), and `|` is escaped.
    """
    safe = sanitize(text)
    if safe.issues and any(i.rule == "DOC-FENCE" for i in safe.issues):
        return None
    paragraphs: list[str] = []
    current: list[str] = []
    for line in safe.text.split("\n") if safe.text else []:
        if not line.strip():
            if current:
                paragraphs.append(" ".join(current))
                current = []
            continue
        if BLOCK_START.match(line):
            return None
        current.append(line.strip())
    if current:
        paragraphs.append(" ".join(current))
    cell = PARAGRAPH_BREAK.join(escape_pipes(p) for p in paragraphs)
    # One paragraph reads as it did in `sanitize` (its lines joined by spaces: no span starts or
    # ends otherwise) unless the table reads it otherwise: a `|` (cut) or a `]:` (a definition
    # is inline text in a row). Anything else is analysed again as the row it is.
    if len(paragraphs) == 1 and "|" not in cell and "]:" not in cell:
        return cell
    return cell if _clean_as_cell(cell) else None


PARAGRAPH_BREAK = "<br><br>"
# The cell as a table row over a delimiter row: the analysis then reads it as a renderer reads
# a row (inline text, never a link reference definition; cut at every unescaped `|`).
_ROW = "| {} |"
_DELIMITER = "|-|"


def _clean_as_cell(cell: str) -> bool:
    """Whether `cell` holds nothing to repair once its paragraphs are one line: joining them may
    pair backticks across the break, a table reads a link reference definition as inline text and
    cuts code spans at a `|`. Our paragraph breaks are the one raw HTML allowed."""
    if not may_need_repair(cell):
        return True
    found = analyse_lines((_ROW.format(cell), _DELIMITER))
    breaks: set[int] = set()  # the columns of our `<br>`s in the row
    at = cell.find(PARAGRAPH_BREAK)
    while at >= 0:
        breaks.update((at + 2, at + 6))
        at = cell.find(PARAGRAPH_BREAK, at + len(PARAGRAPH_BREAK))
    return (
        all(html.line == 0 and html.column in breaks and html.text == "<br>" for html in found.html)
        and not found.open_fences
        and not found.headings
        and not found.tag_like
        and not found.unsafe_links
        and not found.extension_marks
        and not found.code_blocks
    )


def escape_pipes(text: str) -> str:
    """Escape `|` outside code spans so a table cell keeps its columns (Python-Markdown keeps
    pipes inside code spans literal, so those stay as they are)."""
    if "|" not in text:
        return text
    return "".join(seg if code else seg.replace("|", "\\|") for seg, code in _code_spans(text))


def _code_spans(line: str) -> Iterator[tuple[str, bool]]:
    """Split a line into (text, is_code) runs; a backtick run opens a span closed by an equal run."""
    if "`" not in line:
        yield line, False
        return
    position = 0
    while position < len(line):
        opening = BACKTICKS.search(line, position)
        if opening is None:
            break
        closing = re.compile(rf"(?<!`){re.escape(opening.group(0))}(?!`)").search(line, opening.end())
        if closing is None:
            break
        yield line[position : opening.start()], False
        yield line[opening.start() : closing.end()], True
        position = closing.end()
    yield line[position:], False


# code()'s answers kept for texts up to this long (names, type strings, change kinds: a docs run
# asks 14,600 times for 970 texts on the onnx catalog), at most this many, so that a hostile tree's
# long values are never kept alive by a long-lived process.
CODE_MEMO_CHARS = 256
CODE_MEMO_SIZE = 8192


def code(text: object) -> str:
    """`text` as a Markdown code span, whatever backticks it contains. A line break would end
    a table row in the middle of the span (and leave the rest outside code), so it is written
    as the space that CommonMark makes of it anyway."""
    value = str(text)
    if len(value) <= CODE_MEMO_CHARS:
        return _short_code(value)
    return _code(value)


def _code(value: str) -> str:
    if "\n" in value or "\r" in value:
        value = value.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    if "`" not in value and value.strip() == value and value:
        return f"`{value}`"
    run = 0
    longest = 0
    for char in value:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return f"{fence}{pad}{value}{pad}{fence}"


_short_code = lru_cache(maxsize=CODE_MEMO_SIZE)(_code)


def prose(text: str) -> str:
    """Spec text, or generated text that quotes spec values (a change message quotes a default
    value, say), as one line of a page, in a table cell or not: made safe as a doc is, else
    (block structure no line can hold) shown whole as a code span."""
    return inline(text) or code(text)


# A `|` with no backslash before it: GFM and markdown-it end a table cell there, inside a code
# span too (Python-Markdown keeps a code span's `|` literal, so `escape_pipes` leaves them).
_BARE_PIPE = re.compile(r"(?<!\\)\|")


def table_row(cells: Iterable[str]) -> str:
    """One row of a Markdown table of `cells` (each Markdown for one line: `prose`, `code`, ...),
    with every `|` in a cell escaped, so no renderer cuts a cell, a code span in it included,
    and reads the rest as markup outside it (a cut code span's `<img ...>` is live HTML).
    Python-Markdown shows the backslash of a `\\|` inside a code span: a price of a `|` in one."""
    return "| " + " | ".join(_BARE_PIPE.sub(r"\\|", cell) if "|" in cell else cell for cell in cells) + " |"
