"""The values a shape rule computes with, and dimension arithmetic that never guesses.

- a dimension (`Dim`) is an int >= 0, a `Sym` (a symbolic size, onnx's `dim_param`, so never
  negative) or `None` (unknown);
- a number (`Num`) is a dimension or a float: a float constant's item (Resize's scales, a float
  Range's bounds), a float attribute, or a quotient `a / b`; `floor()`/`ceil()` make it a dimension;
- a shape or an int list is a tuple of dimensions, or `None` when even its length is unknown;
- a variadic input is a tuple of shapes; a bool is `True`, `False` or `None` (unknown);
- `ABSENT` is an optional input the node does not give, or an attribute it does not set and the
  schema gives no default for (`??` replaces it).

Arithmetic on unknowns gives unknown, and a symbol combined with an int gives unknown unless the
operation is an identity (`N + 0`, `N * 1`, `N // 1`): a wrong dimension is worse than none.
Integers are bounded by `LIMIT`; a result past it is unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "ABSENT",
    "LIMIT",
    "MAX_LIST",
    "Absent",
    "Dim",
    "Num",
    "Shape",
    "Sym",
    "Value",
    "arith",
    "axis_in",
    "dims_equal",
    "is_int",
    "num_arith",
    "order",
    "round_to_int",
    "same_dim",
]

LIMIT = 2**62
MAX_LIST = 4096  # items of a list a rule builds (past that, the result is unknown)


@dataclass(frozen=True, slots=True)
class Sym:
    """A symbolic dimension: equal only to itself."""

    name: str

    def __str__(self) -> str:
        return self.name


class Absent:
    """The one absent value (an optional input not given, an attribute not set without default)."""

    _instance: Absent | None = None

    def __new__(cls) -> Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = Absent()

Dim = int | Sym | None
Num = int | float | Sym | None
Shape = tuple[Dim, ...] | None
Value = object  # Num | Shape | tuple[Shape, ...] | bool | str | Absent


def is_int(value: Value) -> bool:
    """An int that is a number, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def axis_in(axis: Value, rank: Value) -> int | None:
    """`axis` counted from the front (a negative one from the end), or None when it is not an int
    or not in [-rank, rank)."""
    if not is_int(axis) or not is_int(rank):
        return None
    assert isinstance(axis, int) and isinstance(rank, int)
    if not -rank <= axis < rank:
        return None
    return axis + rank if axis < 0 else axis


def bounded(value: int) -> int | None:
    return value if -LIMIT <= value <= LIMIT else None


def arith(op: str, left: Dim, right: Dim) -> Dim:
    """`left op right` for + - * // %, unknown where it cannot be known."""
    if isinstance(left, int) and isinstance(right, int):
        if op == "+":
            return bounded(left + right)
        if op == "-":
            return bounded(left - right)
        if op == "*":
            return bounded(left * right)
        if right == 0:
            return None
        return bounded(left // right) if op == "//" else bounded(left % right)
    # identities keep a symbol; anything else with a symbol or an unknown is unknown
    if (isinstance(left, Sym) and isinstance(right, int)) and (
        (op in ("+", "-") and right == 0) or (op in ("*", "//") and right == 1)
    ):
        return left
    if (isinstance(right, Sym) and isinstance(left, int)) and (
        (op == "+" and left == 0) or (op == "*" and left == 1)
    ):
        return right
    if op == "*" and (left == 0 or right == 0):
        return 0  # zero times anything, even an unknown size
    return None


def num_arith(op: str, left: Num, right: Num) -> Num:
    """`left op right` for + - * / // % on numbers: `arith` for dimensions; with a float, + - * /
    in floating point (`//` and `%` of a float are unknown: no rule needs them, and their rounding
    is the runtime's). `/` of ints is exact when it divides, else the nearest float."""
    if not (isinstance(left, float) or isinstance(right, float) or op == "/"):
        return arith(op, left, right)  # no float: both are dimensions
    if op == "/" and isinstance(left, Sym) and right == 1:
        return left
    if op in ("+", "-", "*") and (isinstance(left, Sym) or isinstance(right, Sym)):
        # a symbol with a whole float: the identities of `arith` (`N * 1.0` is N)
        whole = [int(v) if isinstance(v, float) and v.is_integer() else v for v in (left, right)]
        if not any(isinstance(v, float) for v in whole):
            return arith(op, whole[0], whole[1])  # type: ignore[arg-type]
    if not isinstance(left, (int, float)) or not isinstance(right, (int, float)):
        return 0 if op == "*" and (left == 0 or right == 0) else None  # zero times anything
    if op in ("//", "%") or (op == "/" and right == 0):
        return None
    if op == "/" and isinstance(left, int) and isinstance(right, int) and left % right == 0:
        return bounded(left // right)
    operate = {"+": float.__add__, "-": float.__sub__, "*": float.__mul__, "/": float.__truediv__}[op]
    result = operate(float(left), float(right))
    return float(result) if math.isfinite(result) and abs(result) <= LIMIT else None


# A float's rounding: a runtime may compute in float32 or double, and a result this close to an
# integer (relative) can round onto it in one and not in the other: just below an integer, floor
# would differ, just above it ceil. There they are unknown rather than a guess (onnx's inference
# computes in double, onnxruntime in float32); past 2^24 a float32 no longer holds every integer.
_NEAR = 2.0**-20
_FLOAT32_INTS = 2**24


def round_to_int(value: Num, up: bool) -> Dim:
    """floor (or ceil, `up`) of a number: an int or a symbol is itself; a float is rounded unless
    the rounding could differ between float32 and double (above), which gives unknown."""
    if not isinstance(value, float):
        return value if value is None or isinstance(value, Sym) or is_int(value) else None
    if not math.isfinite(value) or abs(value) >= _FLOAT32_INTS:
        return None
    nearest = round(value)
    if abs(value - nearest) <= _NEAR * max(abs(value), 1.0) and (value > nearest if up else value < nearest):
        return None
    return math.ceil(value) if up else math.floor(value)


def order(op: str, left: Num, right: Num) -> bool | None:
    """`left op right` for < <= > >=: numbers compare; a symbol is a size, so it is >= any int <= 0
    and > any negative one; anything else is unknown."""
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    if isinstance(left, Sym) and isinstance(right, (int, float)):
        if right < 0 or (right == 0 and op in (">=", "<")):
            return op in (">", ">=")
        return None
    if isinstance(right, Sym) and isinstance(left, (int, float)):
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        return order(flipped, right, left)
    return None


def same_dim(left: Dim, right: Dim) -> bool | None:
    """Whether two dimensions are equal: unknown unless both are ints or the same symbol (or a
    symbol and a negative int: a size is never negative)."""
    if isinstance(left, int) and isinstance(right, int):
        return left == right
    if isinstance(left, Sym) and left == right:
        return True
    if (isinstance(left, Sym) and isinstance(right, int) and right < 0) or (
        isinstance(right, Sym) and isinstance(left, int) and left < 0
    ):
        return False
    return None


def dims_equal(left: Shape, right: Shape) -> bool | None:
    if left is None or right is None:
        return None
    if len(left) != len(right):
        return False
    answer: bool | None = True
    for a, b in zip(left, right):
        same = same_dim(a, b)
        if same is False:
            return False
        if same is None:
            answer = None
    return answer
