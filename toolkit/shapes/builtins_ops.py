"""Built-ins of the shape language that compute one operator family's sizes (Split, Einsum,
ConvTranspose), the broadcasting they share with the general ones, and the list and slice
arithmetic of the indexing operators (`scatter`, `slice_len`), kept apart from `builtins` (which
lists them in its table).

Like every built-in they never raise on a node's shapes: what they cannot know is unknown, and
what cannot be right is a finding reported through the context.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from toolkit.shapes.builtins_values import slice_range
from toolkit.shapes.values import LIMIT, Dim, Shape, Sym, Value, arith, axis_in, bounded, is_int, same_dim


class Reporter(Protocol):
    """What these built-ins ask of the evaluation (a part of `builtins.Context`)."""

    def report(self, message: str) -> None: ...


__all__ = ["Reporter", "broadcast_dims", "conv_transpose_out", "einsum", "scatter", "slice_len", "split"]

MAX_EQUATION = 256  # characters of an Einsum equation read (an attribute of an untrusted model)


def broadcast_dims(ctx: Reporter, shapes: Sequence[Shape]) -> Shape:
    """Multidirectional (numpy) broadcasting of any number of shapes."""
    if any(s is None for s in shapes):
        return None
    known = [s for s in shapes if s is not None]
    rank = max((len(s) for s in known), default=0)
    out: list[Dim] = []
    for axis in range(rank):
        dims = [s[len(s) - rank + axis] for s in known if len(s) - rank + axis >= 0]
        out.append(_broadcast_one(ctx, [d for d in dims if d != 1], axis - rank))
    return tuple(out)


def _broadcast_one(ctx: Reporter, dims: list[Dim], axis: int) -> Dim:
    if not dims:
        return 1
    ints = {d for d in dims if isinstance(d, int)}
    if len(ints) > 1:
        ctx.report(f"dimensions {' and '.join(map(str, sorted(ints)))} do not broadcast (axis {axis})")
        return None
    if ints:
        return ints.pop()  # every other size must be it or 1
    first = dims[0]
    return first if isinstance(first, Sym) and all(d == first for d in dims) else None


def split(ctx: Reporter, args: Sequence[Value]) -> Value:
    """`split(X, axis, sizes, count)`: the shapes of X cut along `axis` into pieces of `sizes`, or,
    with no sizes (`[]`), into `count` pieces of ceil(size / count) (the last one smaller)."""
    data, axis, sizes, count = args
    if not isinstance(data, tuple) or not isinstance(sizes, tuple):
        return None
    at = axis_in(axis, len(data))
    if at is None:
        if is_int(axis):
            ctx.report(f"axis {axis} is out of range for rank {len(data)}")
        return None
    size = data[at]
    if sizes:
        if is_int(count) and count != len(sizes):
            ctx.report(f"{len(sizes)} split sizes for {count} outputs")
            return None
        total: Dim = 0
        for piece in sizes:
            total = arith("+", total, piece)
        if isinstance(total, int) and isinstance(size, int) and total != size:
            ctx.report(f"the split sizes add up to {total}, the axis has {size}")
            return None
        pieces: tuple[Dim, ...] = sizes
    else:
        if not is_int(count) or count <= 0:  # type: ignore[operator]
            return None
        assert isinstance(count, int)
        chunk = arith("+", arith("//", arith("-", size, 1), count), 1) if isinstance(size, int) else None
        if count == 1:
            pieces = (size,)
        elif isinstance(size, int) and isinstance(chunk, int):
            pieces = tuple(max(min(chunk, size - k * chunk), 0) for k in range(count))
        else:
            pieces = (None,) * count
    return tuple((*data[:at], piece, *data[at + 1 :]) for piece in pieces)


_TERM = re.compile(r"^(?:[A-Za-z]|\.\.\.)*$")


def _letters(term: str) -> list[str]:
    """A term's labels in order, `...` as one label."""
    return re.findall(r"\.\.\.|[A-Za-z]", term)


def einsum(ctx: Reporter, args: Sequence[Value]) -> Value:
    """`einsum(shapes, equation)`: the output shape of Einsum (explicit `->` or implicit: the
    ellipsis' sizes, then the labels used once, in alphabetical order)."""
    shapes, equation = args
    if not isinstance(shapes, tuple) or not isinstance(equation, str) or len(equation) > MAX_EQUATION:
        return None
    text = equation.replace(" ", "")
    left, arrow, right = text.partition("->")
    terms = left.split(",")
    if len(terms) != len(shapes) or not all(_TERM.match(t) for t in (*terms, right)):
        return None
    sizes: dict[str, Dim] = {}
    ellipses: list[Shape] = []
    counts: dict[str, int] = {}
    for term, shape in zip(terms, shapes):
        if not isinstance(shape, tuple):
            return None
        labels = _letters(term)
        dots = len(shape) - (len(labels) - labels.count("..."))
        if labels.count("...") > 1 or dots < 0 or (dots and "..." not in labels):
            ctx.report(f"the term '{term}' does not fit an input of rank {len(shape)}")
            return None
        at = 0
        for label in labels:
            if label == "...":
                ellipses.append(shape[at : at + dots])
                at += dots
                continue
            dim = shape[at]
            at += 1
            counts[label] = counts.get(label, 0) + 1
            if label not in sizes:
                sizes[label] = dim
                continue
            same = same_dim(sizes[label], dim)
            if same is False and 1 not in (sizes[label], dim):
                ctx.report(f"the label '{label}' has sizes {sizes[label]} and {dim}")
                return None
            if not same:
                sizes[label] = None  # a symbol, or a size 1 some runtimes broadcast: not known
    dotted = broadcast_dims(ctx, ellipses) if ellipses else ()
    if dotted is None:
        return None
    if not arrow:
        right = "..." + "".join(sorted(label for label, n in counts.items() if n == 1))
    out: list[Dim] = []
    for label in _letters(right):
        if label == "...":
            out.extend(dotted)
        elif label in sizes:
            out.append(sizes[label])
        else:
            ctx.report(f"the output label '{label}' is in no input")
            return None
    return tuple(out)


def conv_transpose_out(ctx: Reporter, args: Sequence[Value]) -> Value:
    """`conv_transpose_out(sizes, kernel, pads, strides, dilations, output_padding, output_shape,
    auto_pad)`: the spatial sizes of a transposed convolution; an `output_shape` given is taken."""
    spatial, kernel, pads, strides, dilations, extra, wanted, auto_pad = args
    if not isinstance(spatial, tuple) or not isinstance(kernel, tuple):
        return None
    n = len(spatial)
    if isinstance(wanted, tuple) and wanted:
        return wanted if len(wanted) == n else None
    if len(kernel) != n:
        ctx.report(f"the kernel has {len(kernel)} spatial dimensions, the input {n}")
        return None
    pads = pads if isinstance(pads, tuple) and pads else (0,) * (2 * n)
    strides = strides if isinstance(strides, tuple) and strides else (1,) * n
    dilations = dilations if isinstance(dilations, tuple) and dilations else (1,) * n
    extra = extra if isinstance(extra, tuple) and extra else (0,) * n
    if len(pads) != 2 * n or len(strides) != n or len(dilations) != n or len(extra) != n:
        ctx.report(f"pads, strides, dilations and output_padding do not match the {n} spatial dimensions")
        return None
    out: list[Dim] = []
    for i in range(n):
        values = (spatial[i], kernel[i], strides[i], dilations[i], extra[i], pads[i], pads[i + n])
        if not all(is_int(v) for v in values):
            out.append(None)
            continue
        size, k, s, d, more, begin, end = values
        assert isinstance(size, int) and isinstance(k, int) and isinstance(s, int) and isinstance(d, int)
        assert isinstance(more, int) and isinstance(begin, int) and isinstance(end, int)
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(bounded(size * s))
            continue
        if auto_pad == "VALID":
            begin = end = 0
        total = s * (size - 1) + more + (k - 1) * d + 1 - begin - end
        out.append(bounded(total) if total >= 0 else None)
    return tuple(out)


def slice_len(ctx: Reporter, args: Sequence[Value]) -> Value:
    """`slice_len(size, start, end, step)`: how many items a slice takes from an axis of `size`,
    clamped as onnx's Slice clamps (`builtins_values.slice_range`, the one definition); a step of
    0 is a finding. With a symbolic size only the whole axis is known (start 0, an end past any
    size, step 1; or its reverse)."""
    size, start, end, step = args
    if step == 0 and is_int(step):
        ctx.report("a slice step is 0")
        return None
    if isinstance(size, Sym):
        if not (isinstance(start, int) and isinstance(end, int)):
            return None
        forward = step == 1 and start == 0 and end >= LIMIT
        backward = step == -1 and start >= LIMIT and end <= -LIMIT
        return size if forward or backward else None
    taken = slice_range(size, start, end, step)
    return None if taken is None else len(taken)


def scatter(ctx: Reporter, args: Sequence[Value]) -> Value:
    """`scatter(L, positions, items)`: L with `items[j]` at `positions[j]` (normalized positions,
    as `normalize_axes` gives them). Unknown positions leave every item of L unknown (the length
    stays known); unknown items leave the positions unknown."""
    base, positions, items = args
    if not isinstance(base, tuple):
        return None
    if not isinstance(positions, tuple) or not all(is_int(p) and 0 <= p < len(base) for p in positions):
        return (None,) * len(base)  # which items change is not known
    if len(set(positions)) != len(positions):
        ctx.report(f"positions repeat: {list(positions)}")
        return None
    if isinstance(items, tuple) and len(items) != len(positions):
        ctx.report(f"{len(items)} values for {len(positions)} positions")
        return None
    out = list(base)
    for j, at in enumerate(positions):
        out[at] = items[j] if isinstance(items, tuple) else None
    return tuple(out)
