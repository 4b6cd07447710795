"""Shapes through control flow and declarations: what two shapes agree on (If's branches, a
loop's state), whether a declared shape contradicts an inferred one, a declaration refined by
inference, and Scan's shapes around its body. The model walk (`onnx_bridge.shape_infer`) applies
them; nothing here reads a model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolkit.shapes.values import Dim, Shape, Sym, axis_in

__all__ = ["agree", "contradicts", "loop_shapes", "merge", "scan_shapes"]


def agree(a: Shape, b: Shape) -> Shape:
    """What two shapes agree on (the branches of an If, a loop's state before and after)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def contradicts(declared: tuple[int | Sym | None, ...], inferred: tuple[int | Sym | None, ...]) -> bool:
    """Whether both cannot hold: a different rank, or two different static sizes of a dimension
    (a symbol or an unknown on either side agrees with anything)."""
    if len(declared) != len(inferred):
        return True
    return any(isinstance(d, int) and isinstance(i, int) and d != i for d, i in zip(declared, inferred))


def merge(declared: Shape, inferred: Shape) -> Shape:
    """A declared shape refined by the inferred one (a declared int is kept over anything)."""
    if declared is None or inferred is None or len(declared) != len(inferred):
        return inferred if declared is None else declared
    return tuple(d if isinstance(d, int) else i if i is not None else d for d, i in zip(declared, inferred))


def loop_shapes(body: Callable[[Sequence[Shape]], list[Shape]], given: list[Shape]) -> list[Shape]:
    """Loop's output shapes: each state's what its initial value and the body's output agree on,
    each scan output the body's with the iteration count (unknown) first. `given`: the node's
    input shapes; `body` walks the body with the given input shapes and gives its outputs'. The
    body is fed none, as onnx feeds it: a state's shape may change from one iteration to the next,
    the body's declarations (of the iteration number and condition too) hold for all."""
    states = given[2:]
    got = body(())[1:]
    out = [agree(a, b) for a, b in zip(states, got)]
    return out + [None if s is None else (None, *s) for s in got[len(states) :]]


def scan_shapes(
    body: Callable[[Sequence[Shape]], list[Shape]], given: list[Shape], ints: dict[str, Any], opset: int
) -> list[Shape]:
    """Scan-8 scans axis 1 of batched inputs (batch first); Scan-9 and later scan the axes
    `scan_input_axes` (default 0) and insert the count at `scan_output_axes` (default 0).
    `given`: the node's input shapes, `ints` its int attributes, `opset` the ai.onnx opset
    imported; `body` walks the body with the given input shapes and gives its outputs' shapes."""
    batched = opset < 9
    scanned = int(ints["num_scan_inputs"])
    inputs = given[1:] if batched else given
    states, scans = inputs[: len(inputs) - scanned], inputs[len(inputs) - scanned :]
    axes = ints.get("scan_input_axes") or (0,) * scanned
    if batched:
        axes = (1,) * scanned
    slices: list[Shape] = []
    length: Dim = None
    for shape, axis in zip(scans, axes):
        at = axis_in(axis, len(shape)) if shape is not None else None
        if shape is None or at is None:
            slices.append(None)
            continue
        length = shape[at] if length is None else length
        slices.append(shape[:at] + shape[at + 1 :] if not batched else shape[2:])
    if batched:
        batch = scans[0][0] if scans and scans[0] else None
        inner_states = [s[1:] if s else None for s in states]
        got = body([*inner_states, *slices])
        out = [agree(s, None if g is None else (batch, *g)) for s, g in zip(states, got)]
        return out + [None if g is None else (batch, length, *g) for g in got[len(states) :]]
    got = body([*states, *slices])
    out = [agree(s, g) for s, g in zip(states, got)]
    out_axes = ints.get("scan_output_axes") or ()
    for index, shape in enumerate(got[len(states) :]):
        axis = out_axes[index] if index < len(out_axes) else 0
        at = axis_in(axis, len(shape) + 1) if shape is not None else None
        out.append(None if shape is None or at is None else (*shape[:at], length, *shape[at:]))
    return out
