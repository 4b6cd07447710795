"""Integers read from untrusted text, and sizes multiplied out from untrusted shapes, bounded.

Python converts a decimal literal of more than 4300 digits with a ValueError (and a hex one of
any length without complaint, which then fails when printed in decimal): a spec, a function
body or a project file would crash the command unlocated. Every reader of an integer literal
of the tree (YAML, ONNX's text syntax of function bodies, opset.toml) reads it here, and gets
IntegerOutOfRange, which it reports at the literal, for anything a 64-bit field cannot hold (a
YAML number, which may stand for a double: anything no double holds). Such a literal is refused
from its length alone, before it is converted.
"""

from __future__ import annotations

INT64_MIN = -(2**63)
UINT64_MAX = 2**64 - 1
MAX_DIMENSION = 2**63 - 1  # a TensorProto's dims are int64
# A YAML integer may stand for a double (`default: 100` of a float attribute): what no double
# can hold, from 2**1024 on, is refused by the reader; a 64-bit field's own check says the rest
# in its terms (ATTR-DEFAULT-TYPE, EXAMPLE-TENSOR, ...).
DOUBLE_LIMIT = 2**1024
RANGE = "-2**63 to 2**64-1"  # what a message says the 64-bit range is
_RANGES = {
    False: (INT64_MIN, UINT64_MAX, f"is outside the 64-bit range ({RANGE})"),
    True: (
        -DOUBLE_LIMIT,
        DOUBLE_LIMIT,
        "is larger than any number a field holds (a double stays below 2**1024)",
    ),
}
# Digits (after the leading zeros) of the longest literal in range, per base: whatever is longer
# is refused before it is converted.
_MAX_DIGITS = {
    (wide, base): len(f"{high:{spec}}")
    for wide, (_, high, _) in _RANGES.items()
    for base, spec in ((2, "b"), (8, "o"), (10, "d"), (16, "x"))
}


class IntegerOutOfRange(ValueError):
    """An integer literal outside INT64_MIN..UINT64_MAX (no 64-bit integer field holds it), or
    for a `wide` reading, outside what a double holds."""


def read_int(text: str, base: int = 10, *, wide: bool = False) -> int:
    """The integer `text` spells in `base` (2, 8, 10 or 16; digits with an optional sign, no
    prefix; `_` separators as int() takes them), refused with IntegerOutOfRange when it lies
    outside INT64_MIN..UINT64_MAX (`wide`: outside what a double holds), and never converted
    when it is longer than such a number."""
    sign = "-" if text[:1] == "-" else ""
    digits = text.lstrip("+-").lstrip("0_") or "0"
    if len(digits) - digits.count("_") > _MAX_DIGITS[wide, base]:
        raise _out_of_range(text, wide)
    return check_range(int(sign + digits, base), text, wide=wide)


def check_range(value: int, spelled: str = "", *, wide: bool = False) -> int:
    """`value`, or IntegerOutOfRange when it lies outside `read_int`'s range (for a reader that
    converted it itself, such as tomllib); `spelled`: how the input wrote it."""
    low, high, _ = _RANGES[wide]
    if not low <= value <= high:
        raise _out_of_range(spelled or str(value), wide)
    return value


def _out_of_range(spelled: str, wide: bool) -> IntegerOutOfRange:
    return IntegerOutOfRange(f"the integer {shorten(spelled)} {_RANGES[wide][2]}")


def shorten(text: str, limit: int = 40) -> str:
    """A literal as a message shows it: cut in the middle past `limit` characters, with its length."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-limit // 4 :]} ({len(text)} characters)"


def is_size(dim: object) -> bool:
    """Whether `dim` is a dimension a TensorProto can hold (a bool is not one)."""
    return isinstance(dim, int) and not isinstance(dim, bool) and 0 <= dim <= MAX_DIMENSION


def bounded_size(shape: tuple[int, ...], limit: int) -> int | None:
    """prod(shape), or None once it is past `limit` (a shape such as [2**62, 2**62, ...] is not
    multiplied out: its product grows with every dimension and only its excess matters)."""
    if 0 in shape:
        return 0
    size = 1
    for dim in shape:
        size *= dim
        if size > limit:
            return None
    return size
