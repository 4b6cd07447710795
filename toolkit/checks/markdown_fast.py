"""Fast path beside `toolkit.checks.markdown`: skip the parser for doc text that cannot hold
anything the analysis reports.

Most docs are plain sentences. The CommonMark parse is only needed when the text holds a `<`
that could start a tag (raw HTML, or a tag-like `<` in literal text), a `#` (ATX heading), a run
of three backticks or tildes (a fence), or a line of only `=` or `-` after another line (a setext
underline). `may_need_repair(text) is False` implies `analyse(text).clean`
(tests/test_docs_fastpaths.py checks it on random Markdown-like text with hypothesis).
"""

from __future__ import annotations

import re

_TAG_START = re.compile(r"<[A-Za-z/!?]")
# A line of `=` or `-` (after blockquote markers and indentation) that follows another line.
_UNDERLINE = re.compile(r"\n[ \t>]*(?:=+|-+)[^\S\n]*(?=\n|\Z)")


def may_need_repair(text: str) -> bool:
    """False when the analysis of `text` is certainly clean (no HTML, fence, heading or `<`
    that looks like a tag)."""
    if "#" in text or "```" in text or "~~~" in text:
        return True
    if "<" in text and _TAG_START.search(text):
        return True
    if "=" not in text and "-" not in text:
        return False
    if "\r" in text:
        text = text.replace("\r", "\n")
    return _UNDERLINE.search(text) is not None
