"""The leaves of the spec model: where a value was written (`Location`) and the DSL's enums.

Below `toolkit.model.spec` and `toolkit.model.examples`, which both build on them;
`toolkit.model.spec` re-exports every name, so code imports them from there.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from toolkit.model.record import Record
from toolkit.model.types import ATTRIBUTE_TYPE_NUMBERS

__all__ = [
    "NOWHERE",
    "UNPRINTABLE",
    "UNPRINTABLE_IN_TEXT",
    "AttrType",
    "AttrValue",
    "Differentiability",
    "Location",
    "ParamOption",
    "Status",
    "escape",
    "find_unprintable",
    "unicode_escaped",
    "unprintable_in_utf8",
]

# Characters output never shows raw: C0/C1 controls (line breaks, escape sequences), DEL, the
# Unicode line and paragraph separators and the bidirectional controls (Trojan Source). Text from
# a tree or a model (names, values, paths) printed raw could forge a second output line (a GitHub
# workflow command, `::error ...`, at the start of a CI log line), and terminal escapes or bidi
# controls could disguise what is printed. The one set: a plain path may hold none of them either
# (`load.files.path_problem`); multi-line text (a doc on a page) keeps its line breaks (LF, and
# CR, which every Markdown reader takes for one) and tabs (`UNPRINTABLE_IN_TEXT`: the same set
# but those three). Here, below `Location`, because a location's text is escaped too;
# `toolkit.model.diagnostics` re-exports these names.
_IN_TEXT = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
UNPRINTABLE = re.compile(rf"[\t\n\r{_IN_TEXT}]")
UNPRINTABLE_IN_TEXT = re.compile(rf"[{_IN_TEXT}]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What GitHub's runner reads as a workflow command in a line of a CI log besides a line break:
# `::name ...::` at the start of a line after any white space (it trims it first), and the older
# `##[name ...]` anywhere in a line. `escape` writes the `:` and the `[` of those as escapes too.
# (A runner that reads them: actions/runner, ActionCommand.TryParseV2 and TryParse.)
_ESCAPED = re.compile(rf"{UNPRINTABLE.pattern}|(?<=##)\[|\A\s*:(?=:)")


def _escape_match(match: re.Match[str]) -> str:
    found = match.group(0)
    if len(found) > 1:  # a line's leading white space and the first `:` of its `::`
        return UNPRINTABLE.sub(_escape_match, found[:-1]) + "\\x3a"
    if found in _SHORT:
        return _SHORT[found]
    code = ord(found)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _printable_ascii(pattern: re.Pattern[str]) -> bytes:
    return bytes(code for code in range(128) if not pattern.match(chr(code)))


# The ASCII characters each set leaves alone, derived from it (not a second list).
_PRINTABLE_ASCII = _printable_ascii(UNPRINTABLE)
_PRINTABLE_ASCII_IN_TEXT = _printable_ascii(UNPRINTABLE_IN_TEXT)


def _printable_ascii_of(pattern: re.Pattern[str]) -> bytes | None:
    # By identity: a compiled pattern's hash is computed over its code on every call.
    return (
        _PRINTABLE_ASCII_IN_TEXT
        if pattern is UNPRINTABLE_IN_TEXT
        else _PRINTABLE_ASCII
        if pattern is UNPRINTABLE
        else None
    )


def unprintable_in_utf8(data: bytes, pattern: re.Pattern[str] = UNPRINTABLE_IN_TEXT) -> bool:
    """Whether the UTF-8 text `data` holds a character of `pattern` (one of the two sets): its
    bytes stripped of the ASCII characters the set leaves alone (`bytes.translate`, in C), and
    only what is left, the few non-ASCII characters of a page and any control character,
    searched. About four times as fast as the regular expression's test of each character
    against its class, which the docs generator would otherwise pay on every doc and page."""
    keep = _printable_ascii_of(pattern)
    if keep is None:
        raise ValueError("unprintable_in_utf8 knows UNPRINTABLE and UNPRINTABLE_IN_TEXT only")
    rest = data.translate(None, keep)
    return bool(rest) and pattern.search(rest.decode("utf-8", "surrogatepass")) is not None


def find_unprintable(text: str, pattern: re.Pattern[str] = UNPRINTABLE) -> re.Match[str] | None:
    """`pattern.search(text)`, answered None by `unprintable_in_utf8` for the two sets (the
    common case: nothing to escape)."""
    if _printable_ascii_of(pattern) is not None and not unprintable_in_utf8(
        text.encode("utf-8", "surrogatepass"), pattern
    ):
        return None
    return pattern.search(text)


def escape(text: str) -> str:
    """`text` as one line that shows what it holds and commands nothing: every control character,
    line break and bidi override written as a Python-style escape (`\\n`, `\\x1b`, `\\u2028`),
    and the `:` or `[` that would make a CI runner read a workflow command (`_ESCAPED`) as `\\x3a`
    or `\\x5b`; other text unchanged. Escaped text holds none of them: escaping twice changes
    nothing. The common case, nothing to escape, is three scans in C (no Python loop)."""
    if find_unprintable(text) is None and "##[" not in text and not text.lstrip().startswith("::"):
        return text
    return _ESCAPED.sub(_escape_match, text)


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def unicode_escaped(text: str, pattern: re.Pattern[str] = UNPRINTABLE) -> str:
    """`text` with every character `pattern` matches written visibly as `\\uXXXX` (a refused
    path, a doc's control characters on a page, what XML cannot carry): one search in C when
    there is none (`find_unprintable`)."""
    return pattern.sub(_unicode_escape, text) if find_unprintable(text, pattern) else text


@dataclass(frozen=True, slots=True, order=True)
class Location(Record):
    """1-based position in a source file."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        """`file:line:col` (or the file alone), always one line of printable text: the file name
        may come from the tree (a `spec_root` setting, a folder name) and is escaped here, so
        every writer that prints a location prints it safely."""
        file = escape(self.file)
        if self.line <= 0:
            return file
        return f"{file}:{self.line}:{self.column}"


NOWHERE = Location("<unknown>")


class Status(str, enum.Enum):
    STABLE = "stable"
    EXPERIMENTAL = "experimental"


class ParamOption(str, enum.Enum):
    SINGLE = "single"
    OPTIONAL = "optional"
    VARIADIC = "variadic"


class Differentiability(str, enum.Enum):
    UNKNOWN = "unknown"
    DIFFERENTIABLE = "differentiable"
    NON_DIFFERENTIABLE = "non_differentiable"


class AttrType(str, enum.Enum):
    """ONNX attribute types, spelled as in the DSL (lower-case AttributeProto names)."""

    FLOAT = "float"
    INT = "int"
    STRING = "string"
    TENSOR = "tensor"
    GRAPH = "graph"
    SPARSE_TENSOR = "sparse_tensor"
    TYPE_PROTO = "type_proto"
    FLOATS = "floats"
    INTS = "ints"
    STRINGS = "strings"
    TENSORS = "tensors"
    GRAPHS = "graphs"
    SPARSE_TENSORS = "sparse_tensors"
    TYPE_PROTOS = "type_protos"

    @property
    def is_list(self) -> bool:
        return self.value.endswith("s") and self is not AttrType.STRING

    @property
    def element(self) -> AttrType:
        """The scalar type of a list type (`ints` -> `int`); itself for scalars."""
        return AttrType(self.value[:-1]) if self.is_list else self

    @property
    def proto_number(self) -> int:
        """AttributeProto.AttributeType enum value (onnx.proto facts)."""
        return ATTRIBUTE_TYPE_NUMBERS[self.value]


AttrValue = float | int | str | tuple[float, ...] | tuple[int, ...] | tuple[str, ...]
