"""Python source text: literals, docstrings and bracketed argument lists, laid out to a width.

Every piece of generated source that holds spec text goes through here, so escaping lives in one
place. Lists of arguments are kept as data (`Bracket`, a list of items) until they are laid out,
so a layout that does not fit one line is chosen from the items, never by re-parsing a string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from toolkit.generate.python.wrap import wrap_line
from toolkit.model.attr_defaults import (
    LiteralDefault,
    literal_text,
)
from toolkit.model.spec import (
    Attribute,
)

__all__ = [
    "LINE",
    "Arg",
    "Bracket",
    "PythonGenerationError",
    "SourceMemo",
    "call_lines",
    "doc_escape_line",
    "doc_lines",
    "docstring",
    "inline",
    "needs_math",
    "py_literal",
    "str_chunks",
    "str_literal",
    "summary",
]

LINE = 100  # stay under ruff's limit with any config (repo: 110)


class PythonGenerationError(ValueError):
    """The registry cannot be rendered as Python (e.g. two domains map to one package name)."""


# --------------------------------------------------------------------------------------------
# bracketed lists
# --------------------------------------------------------------------------------------------


class Bracket(NamedTuple):
    """A bracketed, comma-separated display: a tuple `(a, b)` / `(a,)` / `()` or a dict `{k: v}`.

    `items` are the source of each element (a dict's are `key: value`). A NamedTuple rather than a
    frozen dataclass: it is made for every builder and hashed in `SourceMemo` keys, both cheaper.
    """

    opener: str
    closer: str
    items: tuple[str, ...]

    @classmethod
    def tuple_of(cls, items: Sequence[str]) -> Bracket:
        return cls("(", ")", tuple(items))

    @classmethod
    def dict_of(cls, items: Sequence[str]) -> Bracket:
        return cls("{", "}", tuple(items))

    def inline(self) -> str:
        body = ", ".join(self.items)
        if self.opener == "(" and len(self.items) == 1:
            body += ","  # a one-element tuple
        return f"{self.opener}{body}{self.closer}"

    def exploded(self, indent: str) -> list[str]:
        """One item per line, as a trailing-comma argument at `indent`."""
        return [
            f"{indent}{self.opener}",
            *(f"{indent}    {item}," for item in self.items),
            f"{indent}{self.closer},",
        ]


# An argument: plain source text, or a bracketed list that may be spread over several lines.
Arg = str | Bracket


def inline(arg: Arg) -> str:
    return arg.inline() if isinstance(arg, Bracket) else arg


def call_lines(func: str, args: Sequence[Arg], doc: str, indent: int = 8) -> list[str]:
    """`func(arg, ..., doc=...)` as source lines (the first without indent), chunking the doc.

    On one line when it fits at `indent`; else one argument per line, and a `Bracket` argument
    that does not fit on its line gets one item per line.
    """
    chunks = str_chunks(doc) if doc else []
    texts = [inline(a) for a in args]
    one = f"{func}({', '.join(texts + ([f'doc={chunks[0]}'] if len(chunks) == 1 else []))})"
    if len(chunks) <= 1 and indent + len(one) + 1 <= LINE:
        return [one]
    lines = [f"{func}("]
    for arg, text in zip(args, texts):
        line = f"    {text},"
        if isinstance(arg, Bracket) and indent + len(line) > LINE:
            lines += arg.exploded("    ")
        else:
            lines.append(line)
    if len(chunks) == 1 and indent + len(chunks[0]) + 10 <= LINE:
        lines.append(f"    doc={chunks[0]},")
    elif chunks:
        lines += ["    doc=(", *[f"        {c}" for c in chunks], "    ),"]
    lines.append(")")
    return lines


class SourceMemo:
    """Source text that recurs across the versions of a domain's operators, made once.

    Later operator versions mostly repeat the inputs, attributes, type lists and docs of the
    earlier ones. Every entry memoizes a pure function of this module on its own arguments
    (strings, `Bracket`s and tuples of them, whose equality is exact), never on a key a caller
    lists: what goes into a piece of text is written once, in the function that makes it, so
    a model field that starts to show in the text cannot be missing from the key. One memo
    serves one domain's rendering and is dropped with it, which bounds it by that domain's size.
    """

    __slots__ = ("_calls", "_doc_lines", "_summaries", "_type_tuples")

    def __init__(self) -> None:
        self._calls: dict[tuple[str, tuple[Arg, ...], str], list[str]] = {}
        self._doc_lines: dict[tuple[str, int], list[str]] = {}
        self._summaries: dict[str, str] = {}
        self._type_tuples: dict[tuple[str, ...], Bracket] = {}

    def call_lines(self, func: str, args: Sequence[Arg], doc: str) -> list[str]:
        """`call_lines(func, args, doc)` (the caller must not change the list)."""
        key = (func, tuple(args), doc)
        found = self._calls.get(key)
        if found is None:
            found = self._calls[key] = call_lines(func, args, doc)
        return found

    def summary(self, text: str) -> str:
        """`summary(text)`."""
        found = self._summaries.get(text)
        if found is None:
            found = self._summaries[text] = summary(text)
        return found

    def doc_lines(self, line: str, width: int) -> list[str]:
        """`doc_lines(line, width)` (the caller must not change the list)."""
        key = (line, width)
        found = self._doc_lines.get(key)
        if found is None:
            found = self._doc_lines[key] = doc_lines(line, width)
        return found

    def type_tuple(self, types: tuple[str, ...]) -> Bracket:
        """The tuple display of string literals of `types`."""
        found = self._type_tuples.get(types)
        if found is None:
            found = self._type_tuples[types] = Bracket.tuple_of([str_literal(t) for t in types])
        return found


# --------------------------------------------------------------------------------------------
# literals
# --------------------------------------------------------------------------------------------


def py_literal(value: object) -> str:
    """Python source for an attribute default (str, int, float, bool, tuples of them)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        return repr(value)
    if isinstance(value, str):
        return str_literal(value)
    if isinstance(value, tuple):
        return Bracket.tuple_of([py_literal(v) for v in value]).inline()
    raise PythonGenerationError(f"cannot write {value!r} as a Python literal")


def spec_default_text(attr: Attribute) -> str:
    """An attribute's default as a docstring shows it: Python source for a scalar or list, the
    one-line text of a tensor, sparse-tensor or graph default (`model.attr_defaults`)."""
    value = attr.default
    if isinstance(value, LiteralDefault):
        return literal_text(value)
    return py_literal(value)


def needs_math(value: object) -> bool:
    """Whether `py_literal(value)` refers to the `math` module (NaN or an infinity)."""
    if isinstance(value, float):
        return math.isnan(value) or math.isinf(value)
    if isinstance(value, tuple):
        return any(needs_math(v) for v in value)
    return False


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _escape_unprintable(text: str) -> str:
    """`text` with every character `str.isprintable` refuses (controls, line and paragraph
    separators, NEL, unassigned code points) written as a `\\x`/`\\u`/`\\U` escape."""
    if text.isprintable():  # nearly every text: nothing to do
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


# str_literal's answers kept: texts up to this long (names, type strings, docstring chunks of
# at most a line), at most this many of them, so a hostile tree's long strings are never kept
# alive by a long-lived process.
LITERAL_MEMO_CHARS = 256
LITERAL_MEMO_SIZE = 16384


def str_literal(text: str) -> str:
    """A double-quoted literal of `text` (only printable characters left unescaped).

    Remembered for short texts: a domain's schema classes and builders quote the same names, type
    strings and doc pieces over and over (31,000 calls for 8,000 texts on the onnx catalog)."""
    if len(text) <= LITERAL_MEMO_CHARS:
        return _short_literal(text)
    return _literal(text)


def _literal(text: str) -> str:
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{_escape_unprintable(body)}"'


_short_literal = lru_cache(maxsize=LITERAL_MEMO_SIZE)(_literal)


def str_chunks(text: str, width: int = 72) -> list[str]:
    """`text` as adjacent string literals, each at most about `width` characters of source.

    Lines are kept whole when they fit; longer ones are cut after a space where possible.
    """
    if not text:
        return ['""']
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        pos = 0  # an index, not a slice of the rest per piece (which would copy it each time)
        while len(line) - pos > width:
            cut = line.rfind(" ", pos + width // 2, pos + width)
            cut = pos + width if cut < 0 else cut + 1
            pieces.append(line[pos:cut])
            pos = cut
        if pos < len(line):
            pieces.append(line[pos:])
    literals: list[str] = []
    for piece in pieces:
        _fit(piece, width + 24, literals)
    return literals


def _fit(piece: str, limit: int, literals: list[str]) -> None:
    """`piece` appended to `literals` as one literal, or, where its escapes blow it up past
    `limit`, as the literals of its halves (a piece is at most a line's width: a few levels deep)."""
    literal = str_literal(piece)
    if len(literal) <= limit or len(piece) <= 1:
        literals.append(literal)
        return
    half = len(piece) // 2
    _fit(piece[:half], limit, literals)
    _fit(piece[half:], limit, literals)


# --------------------------------------------------------------------------------------------
# docstrings
# --------------------------------------------------------------------------------------------


def doc_escape_line(line: str) -> str:
    """One line of docstring text, safe inside `\"\"\"...\"\"\"`."""
    return _escape_unprintable(line.replace("\\", "\\\\")).replace('"""', '\\"\\"\\"')


# One character of escaped docstring text, as `doc_escape_line` and `_escape` write it: a hard split
# may fall between two of them, never inside an escape.
_ESCAPE_UNIT = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|.)|[^\\]", re.DOTALL)


def _wrap(line: str, width: int) -> list[str]:
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip(" "))]
    if len(indent) > width // 2:
        indent = ""
    hanging = indent + "    " if indent else ""  # continuation of an indented item
    return wrap_line(line, width, hanging)


def doc_lines(line: str, width: int) -> list[str]:
    """One line of docstring text (tabs expanded, no line break) as the escaped lines it becomes
    inside a docstring whose lines hold `width` characters: trailing whitespace dropped, wrapped
    when long (escaping never splits across lines)."""
    line = line.rstrip()
    lines: list[str] = []
    for piece in [line] if len(line) <= width - 4 else _wrap(line, width - 4):
        escaped = doc_escape_line(piece.rstrip())
        while len(escaped) > width:  # only reachable with many escapes: hard split
            cut = 0
            for unit in _ESCAPE_UNIT.finditer(escaped):
                if unit.end() > width:
                    break
                cut = unit.end()
            lines.append(escaped[:cut])
            escaped = escaped[cut:]
        lines.append(escaped)
    return lines


def docstring(text: str, indent: int, memo: SourceMemo | None = None) -> str:
    """A safe triple-quoted docstring of `text`, wrapped for `indent` spaces, closed on its own line.

    Backslashes, triple quotes and unprintable characters are escaped; tabs expanded; trailing
    whitespace dropped; long lines wrapped (`doc_lines`). `memo` keeps each line's result for the
    next docstring that has the line (the versions of an operator repeat most of theirs).
    """
    width = LINE - indent
    raw = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    if "\t" in raw:  # expandtabs copies the text character by character even when it has no tab
        raw = raw.expandtabs(4)
    made = (memo or SourceMemo()).doc_lines
    lines: list[str] = []
    for source_line in raw.split("\n"):
        lines += made(source_line, width)
    return _closed(lines, " " * indent)


def _closed(lines: list[str], pad: str) -> str:
    """The docstring of the escaped, wrapped `lines`: leading blank lines dropped, the first
    line after the opening quotes, the closing quotes on their own line."""
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        lines = ["(no documentation)"]
    first, rest = lines[0].strip(), lines[1:]
    backslashes = len(first[:-1]) - len(first[:-1].rstrip("\\"))
    if first.endswith('"') and backslashes % 2 == 0:  # an escaped quote (odd count) is already safe
        first = first[:-1] + '\\"'
    if first.endswith("\\") and not first.endswith("\\\\"):
        first += " "
    out = [f'"""{first}', *[pad + line if line else "" for line in rest], f'{pad}"""']
    return "\n".join(out)


def summary(text: str) -> str:
    """The first paragraph of a doc, on one line."""
    paragraph: list[str] = []
    for line in text.strip().splitlines():
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(paragraph)
