"""Code that Python-Markdown may not read as code, found in CommonMark's reading of a doc.

CommonMark (`toolkit.checks.markdown`) reads a fence or an indented block as code; the pages
are also rendered by Python-Markdown with the site's extensions, which reads some of them as
Markdown: an indented block in a list item (its lists take a fixed four-space indent, not the
item's content column) or after an admonition, a fence its superfences extension refuses (a line
indented less than the opening one, a closing run not exactly the opening one, an info string
with options or attributes, a fence on a list item's marker line). What such code holds would
reach the page as markup, so the docs repair (`toolkit.generate.mdsafe.as_fence`) writes it as
the one form both read as the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.checks.markdown_fast import FENCE_INFO, may_need_repair

if TYPE_CHECKING:
    from markdown_it.token import Token


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """Code (an indented block or a fence, lines `line` to `end`) that Python-Markdown may read
    as Markdown. The repair writes it as a backtick fence on lines of its own, every line behind
    `prefix` (its containers' continuation: spaces and `>`s), holding `code` (its lines as
    CommonMark shows them) with the language word `info`. `prefix` is None where the block starts
    on a list item's marker line (`- ```), where no fence of its own can open."""

    line: int
    end: int
    prefix: str | None
    code: tuple[str, ...]
    info: str
    fenced: bool  # a fence (its first and, when closed, last line are its fence lines)
    closed: bool


def code_block(token: Token, lines: tuple[str, ...], closed: bool) -> CodeBlock | None:
    """`token` (a fence or an indented code block) as a `CodeBlock` to rewrite, or None when
    Python-Markdown reads it as code too.

    A fence is read alike when it is written the one way superfences is sure to take: on lines
    of its own behind its containers' prefix (spaces and `>`s only), every line of it behind that
    same prefix, closed by exactly its opening run, with at most a language word. An indented
    code block is never sure to be (Python-Markdown's lists take four-space indents, CommonMark's
    their content column): it is rewritten when its text, read as Markdown, could hold anything
    the analysis reports (the prefilter's test), else it is harmless either way."""
    first, end = token.map or (0, 0)
    code = tuple(token.content.split("\n")[:-1])
    if token.type == "code_block":
        if not may_need_repair(token.content):
            return None
        head = lines[first]
        prefix = head[: len(head) - len(code[0]) - 4]  # the containers' prefix, before 4 spaces
        return CodeBlock(first, first + len(code), _fence_prefix(prefix), code, "", False, True)
    head = lines[first]
    column = head.index(token.markup[0])
    prefix = head[:column]
    info = token.info.split(maxsplit=1)[0] if token.info.strip() else ""
    if (
        _fence_prefix(prefix) == prefix
        and FENCE_INFO.fullmatch(token.info)
        and closed
        and lines[end - 1] == prefix + token.markup
        and all(line.startswith(prefix) or prefix.startswith(line) for line in lines[first + 1 : end - 1])
    ):
        return None
    return CodeBlock(
        first, end, _fence_prefix(prefix), code, info if FENCE_INFO.fullmatch(info) else "", True, closed
    )


def _fence_prefix(prefix: str) -> str | None:
    """The prefix a fence line of the container ending in `prefix` takes (spaces and `>`s), or
    None when `prefix` holds a list item's marker (a fence opened after it shares its line)."""
    return prefix if not prefix.strip(" >") else None
