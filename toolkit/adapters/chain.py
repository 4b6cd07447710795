"""Moving a node between versions: one adjacent step (`apply_upgrade` / `apply_downgrade`) or
every version between two opsets (`upgrade_node` / `downgrade_node`), resolved with the model's
one resolution rule (`toolkit.model.resolution`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
from typing import Any

from toolkit.adapters.defaults import write_source_defaults
from toolkit.adapters.inverse import inverse_steps
from toolkit.adapters.node import (
    AdapterContext,
    AdapterError,
    AdapterResult,
    ConstantLookup,
    MissingAdapter,
    Node,
    ShapeLookup,
    TypeLookup,
)
from toolkit.adapters.steps import apply_steps
from toolkit.model.node_moves import implicit_adapter
from toolkit.model.resolution import chain, version_at
from toolkit.model.spec import Adapter, AdapterStep, OperatorSpec, OpSchema


def apply_upgrade(
    node: Node,
    old: OpSchema,
    new: OpSchema,
    *,
    constants: ConstantLookup | None = None,
    value_types: TypeLookup | None = None,
    taken: Collection[str] = (),
    value_shapes: ShapeLookup | None = None,
) -> AdapterResult:
    """Turn `node` (a node of version `old`) into a node of `new` with `new.adapter.upgrade`
    (or the implicit adapter of a version old nodes follow unchanged), the defaults that differ
    between the two written explicitly (`adapters.defaults`)."""
    adapter = _adapter_of(old, new, "upgrade")
    ctx = AdapterContext(old, new, "upgrade", constants, value_types, taken, value_shapes)
    return _move(adapter.upgrade, node, ctx)


def apply_downgrade(
    node: Node,
    new: OpSchema,
    old: OpSchema,
    *,
    constants: ConstantLookup | None = None,
    value_types: TypeLookup | None = None,
    taken: Collection[str] = (),
    value_shapes: ShapeLookup | None = None,
) -> AdapterResult:
    """Turn `node` (a node of version `new`) back into one of `old`: `downgrade` or the inverse."""
    adapter = _adapter_of(old, new, "downgrade")
    steps = adapter.downgrade if adapter.downgrade is not None else inverse_steps(adapter.upgrade, new, old)
    ctx = AdapterContext(new, old, "downgrade", constants, value_types, taken, value_shapes)
    return _move(steps, node, ctx)


def _move(steps: Sequence[AdapterStep], node: Node, ctx: AdapterContext) -> AdapterResult:
    """The steps run on a copy of `node` whose absent attributes keep their meaning."""
    filled = node.copy()
    notes = write_source_defaults(filled, steps, ctx.source, ctx.target)
    result = apply_steps(steps, filled, ctx)
    result.notes[:0] = notes
    return result


def _adapter_of(old: OpSchema, new: OpSchema, direction: str) -> Adapter:
    """The adapter declared on `new` (for a downgrade, a `downgrade` list alone will do), else
    the implicit one of a version every old node follows unchanged (`toolkit.model.node_moves`,
    the gate's answer too); MissingAdapter otherwise. An empty stub (`adapter: {upgrade: []}`,
    what `opset bump` writes) declares nothing."""
    declared = new.adapter
    if declared is not None and (
        declared.upgrade or (direction == "downgrade" and declared.downgrade is not None)
    ):
        return declared
    implicit = implicit_adapter(old, new)
    if implicit is not None:
        return implicit
    if declared is not None:
        raise MissingAdapter(f"{new.id} declares no adapter (its `upgrade` list is empty)")
    raise MissingAdapter(f"{new.id} declares no adapter")


def upgrade_node(
    op: OperatorSpec, node: Node, from_opset: int, to_opset: int, **context: Any
) -> AdapterResult:
    """Move `node` from its version in opset `from_opset` to the one in `to_opset`, step by step."""
    versions = _chain(op, from_opset, to_opset)
    return _run_chain(node, list(itertools.pairwise(versions)), apply_upgrade, context)


def downgrade_node(
    op: OperatorSpec, node: Node, from_opset: int, to_opset: int, **context: Any
) -> AdapterResult:
    """Move `node` from its version in opset `from_opset` back to the one in `to_opset`."""
    versions = _chain(op, to_opset, from_opset)[::-1]
    return _run_chain(node, list(itertools.pairwise(versions)), apply_downgrade, context)


def _chain(op: OperatorSpec, low: int, high: int) -> list[OpSchema]:
    if low > high:
        raise AdapterError(f"opset {low} is after opset {high}: swap upgrade and downgrade")
    start = version_at(op, low)
    if start is None:
        raise AdapterError(f"operator {op.name} has no version in opset {low}")
    return [start, *chain(op, start.since_version, high)]


def _run_chain(
    node: Node,
    pairs: list[tuple[OpSchema, OpSchema]],
    apply: Callable[..., AdapterResult],
    context: dict[str, Any],
) -> AdapterResult:
    total = AdapterResult(node.copy())
    taken = set(context.pop("taken", ()))
    for first, second in pairs:
        result = apply(total.node, first, second, taken=taken, **context)
        taken.update(c.name for c in result.constants)
        total = AdapterResult(
            result.node,
            total.constants + result.constants,
            total.dropped_inputs + result.dropped_inputs,
            total.notes + result.notes,
            total.before + result.before,
            result.after + total.after,
        )
    return total
