"""The HTML of the operator reference pages, cleaned with an allowlist before mkdocs writes it.

Defence in depth behind `toolkit.generate.mdsafe`: the pages are rendered from docs that may
come from a stranger's pull request, and the Markdown layer reasons about CommonMark while mkdocs
renders with Python-Markdown and its extensions (attr_list, superfences...). Whatever that
renderer makes of a doc, the page HTML keeps only the elements and attributes below, and URLs
only of http, https and mailto or without a scheme (relative, `#fragment`). Everything that runs
script goes: `<script>`, `<iframe>`, `<object>`, `<embed>`, `<svg>`, `<form>`, `<base>`, `<meta>`,
`on*` handlers, `style`, `javascript:`/`vbscript:`/`data:` URLs. The sanitiser is nh3 (the Python
binding of the Rust crate ammonia, an HTML5 parser-based allowlist cleaner): a regex cannot
follow how a browser parses broken markup.

What the theme and our pages use stays: headings with ids, the toc permalinks, tables, code
blocks with their highlighting spans and classes, admonitions, lists, images with safe URLs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

URL_SCHEMES = frozenset({"http", "https", "mailto"})
_TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd", "del",
        "details", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5",
        "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
        "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
        "thead", "tr", "u", "ul", "var",
    }
)  # fmt: skip
_ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "dir"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "ol": {"start", "type"},
    "details": {"open"},
}


@lru_cache(maxsize=1)
def _cleaner() -> Any:
    import nh3

    return nh3.Cleaner(
        tags=set(_TAGS),
        attributes={tag: set(names) for tag, names in _ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=None,  # the pages' own links, as the theme writes them: no rel added
        strip_comments=True,
    )


def clean_html(html: str) -> str:
    """`html` with only the allowed elements, attributes and URLs (see the module doc)."""
    cleaned: str = _cleaner().clean(html)
    return cleaned
