"""The values a shape rule computes with, and dimension arithmetic that never guesses.

- a dimension (`Dim`) is an int >= 0, a `Sym` (a symbolic size, onnx's `dim_param`) or `None`
  (unknown);
- a shape or an int list is a tuple of dimensions, or `None` when even its length is unknown;
- a variadic input is a tuple of shapes; a bool is `True`, `False` or `None` (unknown);
- `ABSENT` is an optional input the node does not give, or an attribute it does not set and the
  schema gives no default for (`??` replaces it).

Arithmetic on unknowns gives unknown, and a symbol combined with an int gives unknown unless the
operation is an identity (`N + 0`, `N * 1`, `N // 1`): a wrong dimension is worse than none.
Integers are bounded by `LIMIT`; a result past it is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ABSENT",
    "LIMIT",
    "MAX_LIST",
    "Absent",
    "Dim",
    "Shape",
    "Sym",
    "Value",
    "arith",
    "axis_in",
    "dims_equal",
    "is_int",
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
Shape = tuple[Dim, ...] | None
Value = object  # Dim | Shape | tuple[Shape, ...] | bool | str | float | Absent


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


def same_dim(left: Dim, right: Dim) -> bool | None:
    """Whether two dimensions are equal: unknown unless both are ints or the same symbol."""
    if isinstance(left, int) and isinstance(right, int):
        return left == right
    if isinstance(left, Sym) and left == right:
        return True
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
