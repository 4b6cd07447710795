"""The shape language's built-in functions: one table of signatures (the SHAPE-ARITY and SHAPE-TYPE
checks read it) and one small function each (the engine calls it).

A built-in never raises on a node's shapes: what it cannot know is unknown (`None`), and what
cannot be right (dimensions that do not broadcast, a MatMul's inner sizes) is a finding it
reports through `Context.report`, with an unknown result. docs/guide/shapes.md shows each one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from toolkit.shapes.builtins_ops import broadcast_dims, conv_transpose_out, einsum, scatter, slice_len, split
from toolkit.shapes.builtins_values import flatten, slice_indices
from toolkit.shapes.values import (
    ABSENT,
    Dim,
    Shape,
    Sym,
    Value,
    arith,
    axis_in,
    bounded,
    is_int,
    num_arith,
    round_to_int,
    same_dim,
)

__all__ = ["BUILTINS", "Builtin", "Context", "broadcast_dims"]


class Context(Protocol):
    """What a built-in may ask of the evaluation."""

    def report(self, message: str) -> None: ...
    def fresh(self) -> Sym: ...
    def value(self, name: str) -> Value: ...
    def present(self, name: str) -> bool: ...
    def output_count(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class Builtin:
    """`params`: the type of each argument ("num", "list", "bool", "str", "shapes", "input": the
    name of an input, "many": lists or shapes, "real": a number or a float); a trailing `*`
    repeats the last one."""

    name: str
    params: tuple[str, ...]
    result: str
    run: Callable[[Context, Sequence[Value]], Value]
    optional: int = 0  # how many trailing params may be left out
    summary: str = ""

    @property
    def variadic(self) -> bool:
        return bool(self.params) and self.params[-1].endswith("*")

    def arity(self) -> str:
        least = len(self.params) - self.optional - (1 if self.variadic else 0)
        if self.variadic:
            return f"at least {max(least, 1)}"
        return str(len(self.params)) if not self.optional else f"{least} to {len(self.params)}"

    def accepts(self, count: int) -> bool:
        if self.variadic:
            return count >= max(len(self.params) - 1, 1)
        return len(self.params) - self.optional <= count <= len(self.params)

    def param(self, index: int) -> str:
        return self.params[min(index, len(self.params) - 1)].rstrip("*")


def _broadcast(ctx: Context, args: Sequence[Value]) -> Value:
    shapes: list[Shape] = []
    for arg in args:
        if arg is ABSENT:
            continue
        if isinstance(arg, tuple) and arg and all(isinstance(a, tuple) or a is None for a in arg):
            shapes.extend(arg)  # a variadic input's shapes
        else:
            shapes.append(arg)  # type: ignore[arg-type]  # a shape, or unknown
    return broadcast_dims(ctx, shapes)


def _unidirectional(ctx: Context, args: Sequence[Value]) -> Value:
    target, other = args[0], args[1]
    if target is None or other is None or not isinstance(target, tuple) or not isinstance(other, tuple):
        return target if isinstance(target, tuple) else None
    if len(other) > len(target):
        ctx.report(f"a shape of rank {len(other)} does not broadcast to rank {len(target)}")
        return None
    for axis in range(1, len(other) + 1):
        a, b = target[-axis], other[-axis]
        if isinstance(a, int) and isinstance(b, int) and b not in (1, a):
            ctx.report(f"dimension {b} does not broadcast to {a} (axis {-axis})")
            return None
    return target


def _matmul(ctx: Context, args: Sequence[Value]) -> Value:
    left, right = args[0], args[1]
    if not isinstance(left, tuple) or not isinstance(right, tuple):
        return None
    if not left or not right:
        ctx.report("matmul needs inputs of rank 1 or more")
        return None
    a = (1, *left) if len(left) == 1 else left
    b = (*right, 1) if len(right) == 1 else right
    if same_dim(a[-1], b[-2]) is False:
        ctx.report(f"inner dimensions differ: {a[-1]} and {b[-2]}")
        return None
    batch = broadcast_dims(ctx, [a[:-2], b[:-2]])
    if batch is None:
        return None
    rows = () if len(left) == 1 else (a[-2],)
    cols = () if len(right) == 1 else (b[-1],)
    return (*batch, *rows, *cols)


def _window(ctx: Context, args: Sequence[Value], ceil_mode: Value) -> Value:
    """Spatial output sizes of a convolution or pooling window (onnx's conv/pool arithmetic)."""
    spatial, kernel, pads, strides, dilations, auto_pad = args[:6]
    if not isinstance(spatial, tuple) or not isinstance(kernel, tuple):
        return None
    n = len(spatial)
    if len(kernel) != n:
        ctx.report(f"the kernel has {len(kernel)} spatial dimensions, the input {n}")
        return None
    pads = pads if isinstance(pads, tuple) and pads else (0,) * (2 * n)
    strides = strides if isinstance(strides, tuple) and strides else (1,) * n
    dilations = dilations if isinstance(dilations, tuple) and dilations else (1,) * n
    if len(pads) != 2 * n or len(strides) != n or len(dilations) != n:
        ctx.report(f"pads, strides and dilations do not match the {n} spatial dimensions")
        return None
    out: list[Dim] = []
    for i in range(n):
        size, k, s, d = spatial[i], kernel[i], strides[i], dilations[i]
        if not (is_int(size) and is_int(k) and is_int(s) and is_int(d)) or s <= 0 or d <= 0:
            out.append(None)
            continue
        assert isinstance(size, int) and isinstance(k, int) and isinstance(s, int) and isinstance(d, int)
        reach = (k - 1) * d + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(-(-size // s))
            continue
        if auto_pad == "VALID":
            begin = end = 0
        else:
            begin, end = pads[i], pads[i + n]
            if not (is_int(begin) and is_int(end)):
                out.append(None)
                continue
        assert isinstance(begin, int) and isinstance(end, int)
        span = size + begin + end - reach
        if span < 0:
            ctx.report(f"the window ({reach}) is larger than the padded input ({size + begin + end})")
            out.append(None)
            continue
        count = -(-span // s) + 1 if ceil_mode == 1 else span // s + 1
        if ceil_mode == 1 and (count - 1) * s >= size + begin:
            count -= 1  # the last window would start in the end padding
        out.append(bounded(count))
    return tuple(out)


def _reshape(ctx: Context, args: Sequence[Value]) -> Value:
    data, target, allowzero = args[0], args[1], args[2] if len(args) > 2 else 0
    if not isinstance(target, tuple):
        return None
    if sum(1 for t in target if t == -1) > 1:
        ctx.report("the new shape has more than one -1")
        return None
    out: list[Dim] = []
    for i, t in enumerate(target):
        if t == 0 and allowzero != 1:
            out.append(data[i] if isinstance(data, tuple) and i < len(data) else None)
        elif is_int(t) and (t == -1 or t >= 0):
            out.append(t)
        elif is_int(t):
            ctx.report(f"the new shape has a negative size {t}")
            return None
        else:
            out.append(t if isinstance(t, Sym) else None)  # a size computed from a shape (Shape -> ...)
    if -1 not in out:
        return tuple(out)
    total, rest = _cancel(data, tuple(d for d in out if d != -1))
    if not isinstance(total, int) or not isinstance(rest, int) or rest == 0:
        return tuple(None if d == -1 else d for d in out)
    if total % rest:
        ctx.report(f"{total} elements cannot take a shape of {rest} x -1 elements")
        return None
    return tuple(total // rest if d == -1 else d for d in out)


def _cancel(data: Value, kept: tuple[Dim, ...]) -> tuple[Dim, Dim]:
    """The products of the input's sizes and of the kept target sizes, a symbol on both sides
    cancelled (`[N, 3, 4]` to `[N, -1]`: 12 elements per N): -1 is the quotient."""
    if not isinstance(data, tuple):
        return None, _product(kept)
    left = list(data)
    right: list[Dim] = []
    for dim in kept:
        if isinstance(dim, Sym) and dim in left:
            left.remove(dim)
        else:
            right.append(dim)
    return _product(tuple(left)), _product(tuple(right))


def _product(dims: Shape) -> Dim:
    if dims is None:
        return None
    result: Dim = 1
    for d in dims:
        result = arith("*", result, d)
    return result


def _normalize_axis(ctx: Context, axis: Value, rank: Value) -> Dim:
    at = axis_in(axis, rank)
    if at is None and is_int(axis) and is_int(rank):
        ctx.report(f"axis {axis} is out of range for rank {rank}")
    return at


def _normalize_axes(ctx: Context, args: Sequence[Value]) -> Value:
    axes, rank = args[0], args[1]
    if not isinstance(axes, tuple):
        return None
    out = tuple(_normalize_axis(ctx, a, rank) for a in axes)
    return None if None in out else out


def _concat(ctx: Context, args: Sequence[Value]) -> Value:
    shapes, axis = args[0], args[1]
    if not isinstance(shapes, tuple) or not shapes or any(not isinstance(s, tuple) for s in shapes):
        return None
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        ctx.report(f"the inputs' ranks differ: {sorted({len(s) for s in shapes})}")
        return None
    at = _normalize_axis(ctx, axis, rank)
    if at is None:
        return None
    out: list[Dim] = []
    for i in range(rank):
        dims = [s[i] for s in shapes]
        if i == at:
            total: Dim = 0
            for d in dims:
                total = arith("+", total, d)
            out.append(total)
            continue
        ints = {d for d in dims if isinstance(d, int)}
        if len(ints) > 1:
            ctx.report(f"the inputs differ on axis {i}: {sorted(ints)}")
            return None
        out.append(ints.pop() if ints else (dims[0] if all(d == dims[0] for d in dims) else None))
    return tuple(out)


def _reduce(ctx: Context, args: Sequence[Value]) -> Value:
    data, axes, keepdims, noop = args[0], args[1], args[2], args[3] if len(args) > 3 else 0
    if not isinstance(data, tuple):
        return None
    rank = len(data)
    if axes is ABSENT or axes == ():
        if noop == 1:
            return data
        axes = tuple(range(rank))
    if not isinstance(axes, tuple):
        return (None,) * rank if keepdims == 1 else None
    picked = _normalize_axes(ctx, (axes, rank))
    if not isinstance(picked, tuple):
        return None
    if keepdims == 1:
        return tuple(1 if i in picked else d for i, d in enumerate(data))
    return tuple(d for i, d in enumerate(data) if i not in picked)


def _unsqueeze(ctx: Context, args: Sequence[Value]) -> Value:
    data, axes = args[0], args[1]
    if not isinstance(data, tuple) or not isinstance(axes, tuple):
        return None
    rank = len(data) + len(axes)
    picked = _normalize_axes(ctx, (axes, rank))
    if not isinstance(picked, tuple):
        return None
    if len(set(picked)) != len(picked):
        ctx.report(f"axes repeat: {list(axes)}")
        return None
    rest = iter(data)
    return tuple(1 if i in picked else next(rest) for i in range(rank))


def _fold(op: str, start: Dim) -> Callable[[Context, Sequence[Value]], Value]:
    def run(ctx: Context, args: Sequence[Value]) -> Value:
        items = args[0]
        if not isinstance(items, tuple):
            return None
        result = start
        for item in items:
            result = arith(op, result, item)
        return result

    return run


def _extreme(pick: Callable[[int, int], int]) -> Callable[[Context, Sequence[Value]], Value]:
    def run(ctx: Context, args: Sequence[Value]) -> Value:
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]  # max(L): the largest item of a list
        if not args or not all(is_int(a) for a in args):
            return None
        result = args[0]
        for arg in args[1:]:
            result = pick(result, arg)  # type: ignore[arg-type]
        return result

    return run


def _ceil_div(ctx: Context, args: Sequence[Value]) -> Value:
    """ceil(a / b): exact for ints; with a float (a float Range's bounds), `ceil(a / b)`."""
    a, b = args[0], args[1]
    if is_int(a) and is_int(b) and b != 0:
        return bounded(-(-a // b))  # type: ignore[operator]
    if isinstance(a, float) or isinstance(b, float):
        return _rounding(True)(ctx, (num_arith("/", a, b),))  # type: ignore[arg-type]
    return a if isinstance(a, Sym) and b == 1 else None


def _rounding(up: bool) -> Callable[[Context, Sequence[Value]], Value]:
    def run(ctx: Context, args: Sequence[Value]) -> Value:
        number = args[0]
        if isinstance(number, bool) or not (number is None or isinstance(number, (int, float, Sym))):
            return None
        return round_to_int(number, up)

    return run


def _symbol(ctx: Context, args: Sequence[Value]) -> Value:
    item = args[0]
    return None if item is None or isinstance(item, bool) else isinstance(item, Sym)


def _present(ctx: Context, args: Sequence[Value]) -> Value:
    name = args[0]
    return ctx.present(name) if isinstance(name, str) else None


def _value(ctx: Context, args: Sequence[Value]) -> Value:
    name = args[0]
    return ctx.value(name) if isinstance(name, str) else None


_TABLE = (
    Builtin("broadcast", ("many*",), "list", _broadcast, summary="multidirectional broadcasting of shapes"),
    Builtin(
        "unidirectional", ("list", "list"), "list", _unidirectional, summary="B broadcast to A: A's shape"
    ),
    Builtin(
        "matmul", ("list", "list"), "list", _matmul, summary="numpy matmul: 1-D promotion, batch broadcast"
    ),
    Builtin(
        "conv_out",
        ("list", "list", "list", "list", "list", "str"),
        "list",
        lambda ctx, args: _window(ctx, args, 0),
        summary="spatial sizes of a convolution: (sizes, kernel, pads, strides, dilations, auto_pad)",
    ),
    Builtin(
        "pool_out",
        ("list", "list", "list", "list", "list", "str", "num"),
        "list",
        lambda ctx, args: _window(ctx, args, args[6]),
        summary="spatial sizes of a pooling window: conv_out's arguments and ceil_mode",
    ),
    Builtin("reshape", ("list", "list", "num"), "list", _reshape, optional=1, summary="Reshape's output"),
    Builtin("concat", ("shapes", "num"), "list", _concat, summary="shapes joined along an axis"),
    Builtin(
        "reduce", ("list", "list", "num", "num"), "list", _reduce, optional=1, summary="a reduction's output"
    ),
    Builtin("unsqueeze", ("list", "list"), "list", _unsqueeze, summary="ones inserted at the axes"),
    Builtin(
        "normalize_axes",
        ("list", "num"),
        "list",
        _normalize_axes,
        summary="negative axes counted from the end",
    ),
    Builtin(
        "normalize_axis",
        ("num", "num"),
        "num",
        lambda ctx, args: _normalize_axis(ctx, args[0], args[1]),
        summary="one axis counted from the end when negative",
    ),
    Builtin("fresh", (), "num", lambda ctx, args: ctx.fresh(), summary="a new symbolic size"),
    Builtin("value", ("input",), "list", _value, summary="a constant input's values"),
    Builtin("present", ("input",), "bool", _present, summary="whether the node gives an optional input"),
    Builtin(
        "len",
        ("any",),
        "num",
        lambda ctx, args: len(args[0]) if isinstance(args[0], tuple) else None,
        summary="length of a list",
    ),
    Builtin("sum", ("list",), "num", _fold("+", 0), summary="sum of a list"),
    Builtin("prod", ("list",), "num", _fold("*", 1), summary="product of a list"),
    Builtin("max", ("nums", "num*"), "num", _extreme(max), summary="the largest of numbers, or of a list"),
    Builtin("min", ("nums", "num*"), "num", _extreme(min), summary="the smallest of numbers, or of a list"),
    Builtin(
        "output_count",
        (),
        "num",
        lambda ctx, args: ctx.output_count(),
        summary="the number of outputs the node gives",
    ),
    Builtin(
        "split",
        ("list", "num", "list", "num"),
        "shapes",
        split,
        summary="Split's outputs: (X, axis, sizes or [] for equal pieces, count)",
    ),
    Builtin("einsum", ("shapes", "str"), "list", einsum, summary="Einsum's output: (shapes, equation)"),
    Builtin(
        "conv_transpose_out",
        ("list", "list", "list", "list", "list", "list", "list", "str"),
        "list",
        conv_transpose_out,
        summary="spatial sizes of a transposed convolution: conv_out's first five, output_padding, "
        "output_shape, auto_pad",
    ),
    Builtin("ceil_div", ("real", "real"), "num", _ceil_div, summary="division rounded up"),
    Builtin("unknown", (), "num", lambda ctx, args: None, summary="a dimension not known"),
    Builtin("floor", ("real",), "num", _rounding(False), summary="a number rounded down to an int"),
    Builtin("ceil", ("real",), "num", _rounding(True), summary="a number rounded up to an int"),
    Builtin("symbol", ("num",), "bool", _symbol, summary="whether a dimension is a symbol (a dim_param)"),
    Builtin("flatten", ("many",), "list", flatten, summary="the items of a list of lists, in order"),
    Builtin(
        "slice_indices",
        ("num", "num", "num", "num"),
        "list",
        slice_indices,
        summary="the indices start:end:step takes of n items, bounds clamped as Slice clamps them",
    ),
    Builtin(
        "slice_len",
        ("num", "num", "num", "num"),
        "num",
        slice_len,
        summary="items a slice takes from an axis: (size, start, end, step), clamped as onnx's Slice",
    ),
    Builtin(
        "scatter",
        ("list", "list", "list"),
        "list",
        scatter,
        summary="a list with items put at positions: (list, positions, items)",
    ),
    Builtin(
        "given",
        ("any",),
        "bool",
        lambda ctx, args: args[0] is not ABSENT,
        summary="whether a value is given (an attribute the node sets or that has a default)",
    ),
    Builtin(
        "reverse",
        ("list",),
        "list",
        lambda ctx, args: tuple(reversed(args[0])) if isinstance(args[0], tuple) else None,
        summary="a list reversed",
    ),
)

BUILTINS: dict[str, Builtin] = {b.name: b for b in _TABLE}
