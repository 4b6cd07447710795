"""The fast path of docstring wrapping: text that is words separated by single spaces.

`source._wrap` hands each long docstring line to `textwrap.wrap` (break_on_hyphens=False,
drop_whitespace=True, replace_whitespace=False); for the common line, plain words and single
spaces with no word longer than a line (after an indentation of spaces), its greedy result is each line cut at the last space that
fits, which `str.rfind` finds without textwrap's chunk-by-chunk loop. `wrap_simple` returns None
for anything else (other whitespace, runs of spaces, a word longer than a line, a word that is
only Unicode whitespace, which textwrap drops as whitespace) and the caller uses textwrap.
tests/test_wrap_fast.py checks the two agree (hypothesis).
"""

from __future__ import annotations

__all__ = ["wrap_simple"]

# Whitespace that textwrap splits on besides the space (it knows ASCII whitespace only).
_OTHER_WHITESPACE = ("\t", "\n", "\x0b", "\x0c", "\r")


def wrap_simple(text: str, width: int, subsequent_indent: str = "") -> list[str] | None:
    """`textwrap.wrap(text, width, subsequent_indent=...)` with the options above, or None when
    `text` is not simple enough for the fast path. Leading spaces (an indented item) are kept on
    the first line, as textwrap keeps them."""
    room = min(width, width - len(subsequent_indent))
    body = text.lstrip(" ")
    lead = len(text) - len(body)
    if room < 1 or not body or any(c in text for c in _OTHER_WHITESPACE):
        return None
    words = body.split(" ")
    if "" in words or (not text.isascii() and any(not w.strip() for w in words)):
        return None
    if len(text) <= width:
        return [text]
    if max(map(len, words)) > room:
        return None
    lines: list[str] = []
    rest = text
    indent = ""
    while True:
        limit = width - len(indent)
        if len(rest) <= limit:
            lines.append(indent + rest)
            return lines
        cut = rest.rfind(" ", lead, limit + 1)
        if cut <= lead:
            # the lead leaves no room for a word on the first line: textwrap's own business
            return None
        lines.append(indent + rest[:cut])
        rest = rest[cut + 1 :]
        indent = subsequent_indent
        lead = 0
