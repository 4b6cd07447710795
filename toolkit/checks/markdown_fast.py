"""Fast path beside `toolkit.checks.markdown`: skip the parser for doc text that cannot hold
anything the analysis reports.

Most docs are plain sentences, and most of the rest add only fenced code examples. The CommonMark
parse is only needed when the text holds a `<` that could start a tag (raw HTML, or a tag-like
`<` in literal text), a line of only `=` or `-` after another line (a setext underline), or a `#`
or fence run that is not simply part of top-level fenced blocks that all close. Anything else
that could open a container or a heading (list and quote markers, deep indentation, a `#` at the
start of a line, link reference definitions) also sends the text to the parser, and so does
anything that could hold a link target with a disallowed scheme (`markdown_links.
may_hold_unsafe_target`; an autolink starts with `<` and a letter), an attribute list or an
admonition (`!!!`). A fence passes only when written the one way Python-Markdown's superfences
reads as CommonMark does (`markdown_code.CodeBlock`): its closing run exactly its opening one at its
indentation, every line of it at least as indented, at most a language word after it.

`may_need_repair(text) is False` implies `analyse(text).clean` (tests/test_docs_fastpaths.py
checks it on random Markdown-like text with hypothesis). What it flags is analysed by the parser:
there is no second reading of CommonMark here.
"""

from __future__ import annotations

import re

from toolkit.checks.markdown_links import may_hold_unsafe_target
from toolkit.checks.markdown_text import TAG_LIKE, attribute_lists, normalize

# A fence's info string that Python-Markdown's superfences reads as CommonMark does: none, or a
# language word (any other info string, options or `{attributes}`, may make it refuse the fence).
FENCE_INFO = re.compile(r"[\w#.+-]*")
# A line of `=` or `-` (after blockquote markers and indentation) that follows another line.
_UNDERLINE = re.compile(r"\n[ \t>]*(?:=+|-+)[^\S\n]*(?=\n|\Z)")
# What may start a container, a heading or a link reference definition at the start of a line.
_BLOCK_MARKER = re.compile(r"[-+*>#\[]|\d{1,9}[.)]")


# The answers given, keyed by the text: the docs generator asks again about the docs the load's
# checks asked about (in the same process, or in the one that loaded them). At most MEMO_SIZE
# entries and MEMO_CHARS characters of text kept alive (a long-lived process such as the language
# server reads tree after tree): when full it starts over.
MEMO_SIZE = 16384
MEMO_CHARS = 32 * 1024 * 1024
_answers: dict[str, bool] = {}
_kept_chars = 0


def may_need_repair(text: str) -> bool:
    """False when the analysis of `text` is certainly clean (no HTML, fence left open, heading
    or `<` that looks like a tag)."""
    global _kept_chars
    answer = _answers.get(text)
    if answer is None:
        answer = _may_need_repair(text)
        if len(text) > MEMO_CHARS:
            return answer  # never kept: it alone would be over the bound
        if len(_answers) >= MEMO_SIZE or _kept_chars + len(text) > MEMO_CHARS:
            _answers.clear()  # one step (safe beside another thread), unlike evicting one by one
            _kept_chars = 0
        _answers[text] = answer
        _kept_chars += len(text)
    return answer


def _may_need_repair(text: str) -> bool:
    if "\r" in text:  # line breaks as the analysis reads them (`normalize`): a line ends before \r
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "<" in text and TAG_LIKE.search(text):
        return True
    if _link_or_attributes(text) or "!!!" in text:
        return True
    if ("=" in text or "-" in text) and _UNDERLINE.search(text):
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
    closes and that Python-Markdown reads alike: then neither a `#` nor a fence run can make a
    heading, leave a fence open or hide Markdown from one of the two renderers."""
    fence = ""  # the opening run of the fence we are in
    margin = ""  # its indentation, which each of its lines starts with
    for line in text.split("\n"):
        content = line.lstrip(" ")
        indent = len(line) - len(content)
        if fence:
            if indent <= 3 and content.startswith(fence) and not content.strip(fence[0]):
                if content != fence or indent != len(margin):  # CommonMark closes it, superfences may not
                    return False
                fence = ""
            elif content and not line.startswith(margin):
                return False
            continue
        if not content:
            continue
        if indent >= 4:
            return False
        if content.startswith(("```", "~~~")):
            run = len(content) - len(content.lstrip(content[0]))
            if not FENCE_INFO.fullmatch(content[run:].strip()):
                return False
            fence = content[:run]
            margin = line[:indent]
            continue
        if _BLOCK_MARKER.match(content):
            return False
    return not fence
