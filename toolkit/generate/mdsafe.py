"""Doc text is Markdown and goes into generated pages as Markdown, made safe on the way.

What `sanitize` guarantees for a doc string dropped into a generated page:

* raw HTML outside code is escaped (`<script>` becomes `&lt;script>`), so it shows as text and
  can neither inject markup nor swallow the rest of the page; autolinks (`<https://...>`) stay;
* an unclosed code fence is closed at the end of the text, so it cannot turn the rest of the
  page into code;
* headings are demoted below the level of the page section that holds the doc, so a doc cannot
  restructure the page's table of contents;
* common leading indentation is removed (ONNX docs are indented) and blank edges are trimmed.

Every change is reported as an `Issue` (rule id, line within the doc, message): the docs generator
prints a visible note next to the text, and `lint_registry` turns them into located Diagnostics.
Nothing is passed through silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.spec import NOWHERE, Location, OpSchema
from toolkit.registry.core import Registry

FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)(.*)$")
# `<` that starts an HTML tag, closing tag, comment, declaration or processing instruction.
HTML_START = re.compile(r"<(?=[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|!|\?)")
AUTOLINK = re.compile(r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>]+)>")
BACKTICKS = re.compile(r"`+")
LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:\s|$)")
BLOCK_START = re.compile(r"^ {0,3}(?:[-+*]\s|\d{1,9}[.)]\s|>|#|\||```|~~~)|^ {4}")


@dataclass(frozen=True)
class Issue:
    rule: str  # DOC-HTML, DOC-FENCE, DOC-HEADING
    line: int  # 1-based line in the (dedented) doc text
    message: str


@dataclass(frozen=True)
class SafeMarkdown:
    text: str
    issues: tuple[Issue, ...]

    @property
    def note(self) -> str:
        """A visible Markdown note about repairs that change how the text renders ('' if none)."""
        shown = [i for i in self.issues if i.rule in ("DOC-HTML", "DOC-FENCE")]
        if not shown:
            return ""
        items = "; ".join(f"line {i.line}: {i.message}" for i in shown)
        return f"> **Note (opset-toolkit):** this doc text was repaired for display: {items}."


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


@dataclass(frozen=True)
class _Scan:
    """The heading-level-independent part of `sanitize`: repaired lines (HTML escaped, fence
    closed, headings not yet demoted) and every repair in line order. Heading events are
    (line index, 1-based line number, indent width, number of #) and become DOC-HEADING issues
    only at the levels that demote them."""

    lines: tuple[str, ...]
    events: tuple[Issue | tuple[int, int, int, int], ...]
    min_hashes: int  # fewest # among the headings (7 when there are none)
    text: str  # the lines joined: the result at every level that demotes nothing
    issues: tuple[Issue, ...]  # the repairs other than demotions


@lru_cache(maxsize=16384)
def sanitize(text: str, min_heading: int = 5) -> SafeMarkdown:
    """Make `text` safe to embed under a section of heading level `min_heading - 1`.

    Cached: catalogs repeat the same doc across many operator versions (and the scan is shared by
    every heading level).
    """
    if not any(char in text for char in "<#`~"):
        return _plain(text)  # nothing that could need a repair
    scan = _scan(text)
    if scan.min_hashes >= min_heading:  # no heading to demote at this level
        return SafeMarkdown(scan.text, scan.issues)
    lines = list(scan.lines)
    issues: list[Issue] = []
    level = "#" * min_heading
    for event in scan.events:
        if isinstance(event, Issue):
            issues.append(event)
            continue
        index, number, indent, hashes = event
        if hashes < min_heading:
            issues.append(Issue("DOC-HEADING", number, f"heading demoted to level {min_heading}"))
            line = lines[index]
            lines[index] = line[:indent] + level + line[indent + hashes :]
    return SafeMarkdown("\n".join(lines), tuple(issues))


@lru_cache(maxsize=16384)
def _plain(text: str) -> SafeMarkdown:
    """Doc text without `<#`~`, the same at every heading level (shared by all levels' calls)."""
    return SafeMarkdown(normalize(text), ())


@lru_cache(maxsize=16384)
def _scan(text: str) -> _Scan:
    lines = normalize(text).split("\n") if text.strip() else []
    out: list[str] = []
    events: list[Issue | tuple[int, int, int, int]] = []
    min_hashes = 7
    fence: tuple[str, int, int] | None = None  # (char, length, opening line number)
    code_block = False  # inside an indented code block
    previous_blank = True
    in_list = False
    for number, line in enumerate(lines, start=1):
        if fence is not None:
            out.append(line)
            if _closes(line, fence):
                fence = None
            continue
        opening = FENCE_OPEN.match(line)
        if opening and not (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            fence = (opening.group(2)[0], len(opening.group(2)), number)
            out.append(line)
            previous_blank = False
            continue
        blank = not line.strip()
        indented = line.startswith("    ")
        code_block = indented and (code_block or (previous_blank and not in_list)) and not blank
        if code_block:
            out.append(line)
            previous_blank = False
            continue
        if not blank and not indented:
            in_list = bool(LIST_ITEM.match(line)) or (in_list and not previous_blank)
        heading = HEADING.match(line)
        if heading:
            # Demotion only rewrites the #s; indent and #s hold no `<` or backtick, so escaping
            # the line first gives the same text as escaping the demoted line.
            hashes = len(heading.group(2))
            events.append((len(out), number, len(heading.group(1)), hashes))
            min_hashes = min(min_hashes, hashes)
        escaped, count = _escape_html(line)
        if count:
            events.append(Issue("DOC-HTML", number, "raw HTML escaped"))
        out.append(escaped)
        previous_blank = blank
    if fence is not None:
        char, length, opened = fence
        out.append(char * length)
        events.append(
            Issue("DOC-FENCE", opened, "code fence opened here was never closed; closed at the end")
        )
    return _Scan(
        tuple(out),
        tuple(events),
        min_hashes,
        "\n".join(out),
        tuple(e for e in events if isinstance(e, Issue)),
    )


def _closes(line: str, fence: tuple[str, int, int]) -> bool:
    char, length, _ = fence
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) <= 3 and len(stripped) >= length and set(stripped) == {char}


def _escape_html(line: str) -> tuple[str, int]:
    """Escape tag-like `<` outside code spans and autolinks; returns (line, escapes made)."""
    if "<" not in line:
        return line, 0
    parts: list[str] = []
    count = 0
    for segment, is_code in _code_spans(line):
        if is_code or "<" not in segment:
            parts.append(segment)
            continue
        pieces = []
        last = 0
        for link in AUTOLINK.finditer(segment):
            text, n = HTML_START.subn("&lt;", segment[last : link.start()])
            pieces.append(text)
            pieces.append(link.group(0))
            count += n
            last = link.end()
        text, n = HTML_START.subn("&lt;", segment[last:])
        pieces.append(text)
        count += n
        parts.append("".join(pieces))
    return "".join(parts), count


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


@lru_cache(maxsize=16384)
def inline(text: str) -> str | None:
    """Doc text as one table cell, or None when it has block structure a cell cannot hold.

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
    return "<br><br>".join(escape_pipes(p) for p in paragraphs)


def escape_pipes(text: str) -> str:
    """Escape `|` outside code spans so a table cell keeps its columns (Python-Markdown keeps
    pipes inside code spans literal, so those stay as they are)."""
    if "|" not in text:
        return text
    return "".join(seg if code else seg.replace("|", "\\|") for seg, code in _code_spans(text))


def lint_schema(schema: OpSchema) -> list[Diagnostic]:
    """Diagnostics for every doc of one operator version that the docs generator had to repair."""
    docs: list[tuple[str, Location]] = [(schema.doc, schema.location)]
    docs += [(p.doc, p.location) for p in (*schema.inputs, *schema.outputs)]
    docs += [(a.doc, a.location) for a in schema.attributes]
    docs += [(c.doc, c.location) for c in schema.type_constraints]
    out = []
    for text, location in docs:
        where = location if location != NOWHERE else schema.location
        for issue in sanitize(text).issues:
            out.append(
                Diagnostic(
                    issue.rule,
                    f"{schema.id}: doc line {issue.line}: {issue.message}",
                    where,
                    _HINTS[issue.rule],
                    Severity.WARNING,
                )
            )
    return out


def lint_registry(registry: Registry) -> list[Diagnostic]:
    return [d for schema in registry.all_schemas() for d in lint_schema(schema)]


_HINTS = {
    "DOC-HTML": "IR.md allows Markdown only: use Markdown syntax or put the markup in `code`",
    "DOC-FENCE": "close the code fence (``` on a line of its own) before the end of the doc",
    "DOC-HEADING": "doc text is shown under the operator's own headings; use bold text or lists instead",
}
