"""The built-ins of value rules (an output's `value:`, docs/guide/shapes.md): the contents of small
integer tensors computed from shapes, as lists of dimensions. Listed in `builtins.py`'s table."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.shapes.values import LIMIT, MAX_LIST, Value, is_int

__all__ = ["flatten", "slice_indices", "slice_range"]

# A slice's bounds are clamped to the list, so any bound past this is the same as this one (and
# Python's slice arithmetic stays on small ints).
_CLAMP = LIMIT


def flatten(ctx: object, args: Sequence[Value]) -> Value:
    """The items of a list of lists, in order (Concat's value from its inputs' values); unknown
    when one of the lists is, or when they hold more than `MAX_LIST` items together."""
    lists = args[0]
    if not isinstance(lists, tuple) or not all(isinstance(item, tuple) for item in lists):
        return None
    if sum(len(item) for item in lists) > MAX_LIST:
        return None
    return tuple(dim for item in lists for dim in item)


def slice_range(n: Value, start: Value, end: Value, step: Value) -> range | None:
    """The indices `start:end:step` takes of `n` items (a range: its length costs nothing), bounds
    clamped as numpy and onnx's Slice clamp them (a negative bound counts from the end; a negative
    step walks backwards); None when one of them is not an int or the step is 0, and where onnx's
    spec and numpy disagree (a backward slice starting before the first item: the spec clamps the
    start to it, numpy, onnx's reference and Python take nothing). The one definition of Slice's
    arithmetic: `slice_indices` (values) and `slice_len` (shapes) both use it."""
    if not (is_int(n) and is_int(start) and is_int(end) and is_int(step)) or step == 0:
        return None
    assert isinstance(n, int) and isinstance(start, int) and isinstance(end, int) and isinstance(step, int)
    if step < 0 and start < -n:
        return None
    bounds = (max(-_CLAMP, min(_CLAMP, start)), max(-_CLAMP, min(_CLAMP, end)), step)
    return range(*slice(*bounds).indices(n))


def slice_indices(ctx: object, args: Sequence[Value]) -> Value:
    """The indices `start:end:step` takes of `n` items (`slice_range`), unknown where it is or
    where they are more than `MAX_LIST` (`n` may be a model's dimension: billions)."""
    taken = slice_range(args[0], args[1], args[2], args[3])
    return None if taken is None or len(taken) > MAX_LIST else tuple(taken)
