"""Link targets in doc text: which URLs a generated page may carry, and the link syntax that
Python-Markdown (what mkdocs renders with) reads where CommonMark reads text.

A doc is untrusted: a link whose target runs script when followed (`javascript:`, `vbscript:`,
`data:text/html`...) must not reach a page as a live link. Only http, https and mailto URLs and
scheme-less ones (relative paths, `#fragments`, `//host/...`) are allowed (`unsafe_scheme`).
The scheme is read as a browser reads an `href`: entities and backslash escapes decoded (the
caller passes the destination as CommonMark decoded it), leading and trailing C0 controls and
spaces dropped, tabs and line breaks removed anywhere (`java&#x09;script:` is `javascript:`).

An autolink (`<scheme:...>`) is kept only when Python-Markdown, too, renders it as a link with
that target (`autolink_kept`): it links `<http(s)://...>` and `<...@...>` only, and takes any
other `<letter...>` for an HTML tag, so `<xx:y/onfocus=alert(1)/autofocus>`, an autolink to
CommonMark, is an element with an event handler to Python-Markdown.

Python-Markdown is also laxer than CommonMark about links: an inline link's destination may hold
spaces and line breaks, and a link reference definition may stand on any line of a paragraph.
`lenient_links` finds those in a paragraph's inline content, so that their targets are judged too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")
# Python-Markdown's own autolink patterns (markdown.inlinepatterns AUTOLINK_RE, AUTOMAIL_RE)
_PM_AUTOLINK = re.compile(r"(?:[Ff]|[Hh][Tt])[Tt][Pp][Ss]?://[^<>]*")
_PM_AUTOMAIL = re.compile(r"[^<> !]+@[^@<> ]+")
# A link reference definition as Python-Markdown finds it: on any line of a block.
_LENIENT_DEFINITION = re.compile(r"^[ \t]*(\[)[^\[\]]*\]:[ \t]*\n?[ \t]*(\S+)", re.M)
_DESTINATION_END = re.compile(r"[)>\"']")
# Where a link target may start: after `](` (up to the next `)`, line breaks included) or after
# the `]:` of a definition (its first run of non-space characters, on that line or the next).
_TARGETS = re.compile(r"\]\([ \t\n<]*([^)]*)|\]:[ \t]*\n?[ \t]*<?(\S*)")
_PLAINLY_SAFE = re.compile(r"(?:[Hh][Tt][Tt][Pp][Ss]?|[Mm][Aa][Ii][Ll][Tt][Oo]):|[^:&\\]*\Z")


def url_scheme(url: str) -> str | None:
    """The scheme of `url` (lower case) as a browser reads it, None for a scheme-less URL."""
    cleaned = url.strip(_C0_AND_SPACE).translate(_TAB_OR_NEWLINE)
    match = _SCHEME.match(cleaned)
    return match.group(1).lower() if match else None


def unsafe_scheme(url: str) -> str | None:
    """The scheme of a decoded link target when it is not allowed on a page, else None."""
    scheme = url_scheme(url)
    return scheme if scheme is not None and scheme not in SAFE_SCHEMES else None


def autolink_kept(content: str) -> bool:
    """Whether the autolink `<content>` links to an allowed URL in CommonMark and in
    Python-Markdown alike (else it is shown as text)."""
    scheme = url_scheme(content)
    if scheme is None:
        return ":" not in content and "@" in content  # an email autolink
    if scheme in ("http", "https"):
        return _PM_AUTOLINK.fullmatch(content) is not None
    if scheme == "mailto":
        return _PM_AUTOMAIL.fullmatch(content) is not None
    return False


def may_hold_unsafe_target(text: str) -> bool:
    """False when no link target in `text` can have a disallowed scheme, whatever reads it as a
    link: every target starts with http:, https: or mailto:, or has no `:` (a scheme needs one)
    and no `&` or `\\` (an entity or an escape could make one). Cheap: for the prefilters."""
    if "](" not in text and "]:" not in text:
        return False
    return any(
        not _PLAINLY_SAFE.match(match.group(1) if match.group(1) is not None else match.group(2))
        for match in _TARGETS.finditer(text)
    )


class Spans:
    """Half-open spans of offsets (`start <= at < stop`), merged and sorted once so that a lookup
    costs a bisection: a doc may hold as many spans as it holds offsets to look up."""

    __slots__ = ("_starts", "_stops")

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        starts: list[int] = []
        stops: list[int] = []
        for start, stop in sorted(spans):
            if start >= stop:
                continue
            if stops and start <= stops[-1]:
                stops[-1] = max(stops[-1], stop)
            else:
                starts.append(start)
                stops.append(stop)
        self._starts = starts
        self._stops = stops

    def __contains__(self, at: int) -> bool:
        index = bisect_right(self._starts, at) - 1
        return index >= 0 and at < self._stops[index]


def _decoded(text: str) -> str:
    from markdown_it.common.utils import unescapeAll

    return unescapeAll(text)


def lenient_links(content: str, protected: list[tuple[int, int]]) -> Iterator[tuple[int, str, str]]:
    """(offset of the character to escape, construct, scheme) of each link in `content` (a
    paragraph's inline content) that Python-Markdown may render with a disallowed target:
    inline links and images (`](` then the target: the `(` is escaped) and reference
    definitions (the `[` is escaped). Offsets inside `protected` spans are skipped."""

    covered = Spans(protected)

    def free(at: int) -> bool:
        return at not in covered

    at = content.find("](")
    while at >= 0:
        opening = at + 1
        if free(at) and free(opening):
            target = content[opening + 1 : opening + 513].lstrip(" \n").removeprefix("<")
            end = _DESTINATION_END.search(target)
            scheme = unsafe_scheme(_decoded(target[: end.start()] if end else target))
            if scheme is not None:
                yield opening, "link", scheme
        at = content.find("](", at + 1)
    if "]:" in content:
        for match in _LENIENT_DEFINITION.finditer(content):
            bracket = match.start(1)
            scheme = unsafe_scheme(_decoded(match.group(2)))
            if scheme is not None and free(bracket):
                yield bracket, "link reference definition", scheme
