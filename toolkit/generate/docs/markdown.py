"""Markdown building blocks of the docs pages: code spans, value spellings, tables, doc text
made safe (`toolkit.generate.mdsafe`), and the final tidy-up of a page (`page_bytes`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from toolkit.generate.mdsafe import code, inline, sanitize, table_row
from toolkit.model.attr_defaults import (
    LiteralDefault,
    literal_text,
)
from toolkit.model.diagnostics import UNPRINTABLE_IN_TEXT, unicode_escaped, unprintable_in_utf8
from toolkit.model.spec import (
    MAX_ARITY,
    AttrDefault,
    Attribute,
    AttrType,
    Differentiability,
    FormalParameter,
    ParamOption,
)

# The tidy-up reads a page's UTF-8 bytes: a page is megabytes, and one wide character (`∞`) makes
# the joined text two or four bytes per character where its UTF-8 is mostly one. The patterns are
# ASCII, and UTF-8 writes every other character with bytes above 0x7f, so each matches the encoded
# text where it would match the text (a newline is the byte 0x0a and nothing else is).
BLANK_RUNS = re.compile(b"\n\n\n+")  # a literal prefix: much faster to scan than \n{3,}
# (as CommonMark reads a fence: a backtick fence's info string holds no backtick, so a line such as
# ```a`b opens no block; the closing fence is the opening run's character, at least as long)
FENCED_BLOCK = re.compile(
    rb"^ {0,3}(?:(`{3,})[^`\n]*|(~{3,})[^\n]*)\n.*?^ {0,3}(?:\1`*|\2~*)[ \t]*$", re.M | re.S
)
# Where FENCED_BLOCK can start: a line that begins with a fence run (a leading newline is a
# literal prefix the regex engine scans for quickly)
FENCE_LINE = re.compile(rb"\n {0,3}(?:```|~~~)")
FENCE_AT_START = re.compile(rb" {0,3}(?:```|~~~)")


def page_bytes(parts: Iterable[str]) -> bytes:
    """The page written as `parts`, joined, in UTF-8 and tidied: at most one blank line in a row
    outside code fences, no blank line at the start, exactly one newline at the end.

    mdsafe closes every fence in doc text, so fenced blocks pair up here. Control and bidi
    characters are written visibly (`\\uXXXX`) wherever on the page they came from (a doc's are
    already, with a note: `mdsafe.sanitize`; a name in a heading, a value in a code span or an
    example's block are not docs): its UTF-8 bytes tested in C (`unprintable_in_utf8`).
    """
    data = b"".join([part.encode("utf-8") for part in parts])
    if unprintable_in_utf8(data):  # rare: the page made again from its text
        data = unicode_escaped(data.decode("utf-8"), UNPRINTABLE_IN_TEXT).encode("utf-8")
    if b"\n\n\n" in data:
        data = collapse_blank_runs(data)
    return data.strip(b"\n") + b"\n"


def collapse_blank_runs(data: bytes) -> bytes:
    """Runs of blank lines outside the fenced blocks of `data` collapsed to one. A fenced block
    starts and ends with a character other than a newline, so a run is wholly inside a block or
    wholly outside every block: one pass over the page collapses the runs, keeping those of the
    blocks that hold any (each pass copies the page)."""
    keep = [block.span() for block in fenced_blocks(data) if data.find(b"\n\n\n", *block.span()) >= 0]
    if not keep:
        return BLANK_RUNS.sub(b"\n\n", data)
    index = 0

    def collapse(run: re.Match[bytes]) -> bytes:
        nonlocal index
        start = run.start()
        while index < len(keep) and keep[index][1] <= start:
            index += 1
        return run.group(0) if index < len(keep) and keep[index][0] <= start else b"\n\n"

    return BLANK_RUNS.sub(collapse, data)


def fenced_blocks(data: bytes) -> Iterator[re.Match[bytes]]:
    """`FENCED_BLOCK.finditer(data)`, but the regex is only tried at the start of lines that
    begin as a fence does (found by one scan for a newline and what may follow it) instead of
    at every line of the page: only there can it match."""
    position = 0
    if FENCE_AT_START.match(data):
        block = FENCED_BLOCK.match(data)
        if block is not None:
            yield block
            position = block.end()
    for line in FENCE_LINE.finditer(data, position):
        start = line.start() + 1
        if start < position:
            continue  # inside the last block
        block = FENCED_BLOCK.match(data, start)
        if block is not None:
            yield block
            position = block.end()


# --------------------------------------------------------------------------- small formatters


def attr_type_text(kind: AttrType) -> str:
    """ONNX's spelling: `int`, `list of ints`."""
    return f"list of {kind.value}" if kind.is_list else kind.value


def value_text(value: AttrDefault) -> str:
    """A default value: strings JSON-quoted, floats in their shortest round-trip form; a tensor,
    sparse tensor or graph on one line (`model.attr_defaults.literal_text`)."""
    if isinstance(value, LiteralDefault):
        return literal_text(value)
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
    lines += [table_row(row.cells) for row in rows]
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
