"""Markdown building blocks of the docs pages: code spans, value spellings, tables, doc text
made safe (`toolkit.generate.mdsafe`), and the final tidy-up of a page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple, overload

from toolkit.generate.mdsafe import inline, sanitize
from toolkit.model.spec import (
    MAX_ARITY,
    Attribute,
    AttrType,
    AttrValue,
    Differentiability,
    FormalParameter,
    ParamOption,
)

BLANK_RUNS = re.compile("\n\n\n+")  # a literal prefix: much faster to scan than \n{3,}
FENCED_BLOCK = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)
# Where FENCED_BLOCK can start: a line that begins with a fence run (a leading newline is a
# literal prefix the regex engine scans for quickly)
FENCE_LINE = re.compile(r"\n {0,3}(?:```|~~~)")
FENCE_AT_START = re.compile(r" {0,3}(?:```|~~~)")


def tidy(text: str) -> str:
    """At most one blank line in a row outside code fences; exactly one newline at the end.

    mdsafe closes every fence in doc text, so fenced blocks pair up here.
    """
    return one_final_newline(collapse_blank_runs(text) if "\n\n\n" in text else text)


def collapse_blank_runs(text: str) -> str:
    """Runs of blank lines outside the fenced blocks of `text` collapsed to one. A fenced block
    starts and ends with a character other than a newline, so a run is wholly inside a block or
    wholly outside every block: one pass over the text collapses the runs, keeping those of the
    blocks that hold any (pages are megabytes, and each pass copies one)."""
    keep = [block.span() for block in fenced_blocks(text) if text.find("\n\n\n", *block.span()) >= 0]
    if not keep:
        return BLANK_RUNS.sub("\n\n", text)
    index = 0

    def collapse(run: re.Match[str]) -> str:
        nonlocal index
        start = run.start()
        while index < len(keep) and keep[index][1] <= start:
            index += 1
        return run.group(0) if index < len(keep) and keep[index][0] <= start else "\n\n"

    return BLANK_RUNS.sub(collapse, text)


def one_final_newline(text: str) -> str:
    """`text.strip("\n") + "\n"` in one copy at most (none when it already is): a page can be
    megabytes, and it ends with a few newlines."""
    start = 0
    while text.startswith("\n", start):
        start += 1
    end = len(text)
    while end > start and text[end - 1] == "\n":
        end -= 1
    if end == start:
        return "\n"
    if end < len(text):
        return text[start : end + 1]  # keeps the first of the final newlines
    return text[start:] + "\n"


def fenced_blocks(text: str) -> Iterator[re.Match[str]]:
    """`FENCED_BLOCK.finditer(text)`, but the regex is only tried at the start of lines that
    begin as a fence does (found by one scan for a newline and what may follow it) instead of
    at every line of the page: only there can it match."""
    return scan_fences(text, FENCE_AT_START, FENCE_LINE, FENCED_BLOCK)


@overload
def scan_fences(
    text: str, at_start: re.Pattern[str], line_start: re.Pattern[str], block_pattern: re.Pattern[str]
) -> Iterator[re.Match[str]]: ...
@overload
def scan_fences(
    text: bytes, at_start: re.Pattern[bytes], line_start: re.Pattern[bytes], block_pattern: re.Pattern[bytes]
) -> Iterator[re.Match[bytes]]: ...
def scan_fences(
    text: Any, at_start: re.Pattern[Any], line_start: re.Pattern[Any], block_pattern: re.Pattern[Any]
) -> Iterator[re.Match[Any]]:
    """`fenced_blocks` with the patterns given: the same scan over text or its UTF-8 bytes."""
    position = 0
    if at_start.match(text):
        block = block_pattern.match(text)
        if block is not None:
            yield block
            position = block.end()
    for line in line_start.finditer(text, position):
        start = line.start() + 1
        if start < position:
            continue  # inside the last block
        block = block_pattern.match(text, start)
        if block is not None:
            yield block
            position = block.end()


# --------------------------------------------------------------------------- small formatters


def code(text: object) -> str:
    """`text` as a Markdown code span, whatever backticks it contains. A line break would end
    a table row in the middle of the span (and leave the rest outside code), so it is written
    as the space that CommonMark makes of it anyway."""
    value = str(text)
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


def attr_type_text(kind: AttrType) -> str:
    """ONNX's spelling: `int`, `list of ints`."""
    return f"list of {kind.value}" if kind.is_list else kind.value


def value_text(value: AttrValue) -> str:
    """A default value: strings JSON-quoted, floats in their shortest round-trip form."""
    if isinstance(value, tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return str(int(value))
    return repr(value)


def attr_option_text(attr: Attribute) -> str:
    if attr.required:
        return "required"
    if attr.default is not None:
        return "default is " + code(value_text(attr.default))
    return "optional"


def param_tags(param: FormalParameter) -> list[str]:
    """The tags of gen_doc: optional / variadic[, heterogeneous], then differentiability."""
    tags: list[str] = []
    if param.option is ParamOption.OPTIONAL:
        tags.append("optional")
    elif param.option is ParamOption.VARIADIC:
        tags.append("variadic")
        if not param.homogeneous:
            tags.append("heterogeneous")
        if param.min_arity != 1:
            tags.append(f"at least {param.min_arity}")
    if param.differentiability is Differentiability.DIFFERENTIABLE:
        tags.append("differentiable")
    elif param.differentiability is Differentiability.NON_DIFFERENTIABLE:
        tags.append("non-differentiable")
    return tags


def arity_text(low: int, high: int) -> str:
    if low == high:
        return ""
    return f" ({low} - {'∞' if high >= MAX_ARITY else high})"


def anchor(op: str, since: int) -> str:
    return f"{op}-{since}"


# --------------------------------------------------------------------------- tables and doc text


# A NamedTuple rather than a frozen dataclass: a docs run makes thousands of rows, and a
# NamedTuple is cheaper to define (at import) and to make.
class Row(NamedTuple):
    """One table row: cells are Markdown; `block` holds a doc too rich for a cell."""

    cells: tuple[str, ...]
    block: str = ""
    block_title: str = ""


def table(header: list[str], rows: list[Row]) -> str:
    """A Markdown table; docs too rich for a cell follow it as titled blocks."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells) + " |" for row in rows]
    for row in rows:
        if row.block:
            lines += ["", f"**{code(row.block_title)}**", "", row.block]
    return "\n".join(lines)


def doc_cell(doc: str, title: str) -> tuple[str, str]:
    """(cell, block): the doc inline when it fits in a cell, otherwise a pointer plus a block."""
    cell = inline(doc)
    if cell is not None:
        return cell, ""
    safe = sanitize(doc, min_heading=6)
    block = safe.text + ("\n\n" + safe.note if safe.note else "")
    return f"see *{title}* below", block


def doc_markdown(text: str, level: int) -> str:
    """Doc text made safe to sit under a heading of `level`, with a note about repairs."""
    safe = sanitize(text, min_heading=level + 1)
    return safe.text + ("\n\n" + safe.note if safe.note else "")


def first_sentence(text: str) -> str:
    first = inline(text.split("\n\n", 1)[0]) or ""
    if len(first) <= 300:
        return first
    # Cut at a space, which may be inside a code span: what the span held (`<b onclick=...>`)
    # would be markup once its closing backticks are cut off, so the cut text is repaired again.
    return sanitize(first[:297].rsplit(" ", 1)[0] + " ...").text


def prose(text: str) -> str:
    """Generated text that quotes spec values in Markdown (a change message quotes a default
    value, say) as one line of a page: made safe as a doc is."""
    return inline(text) or code(text)
