"""Can a node of one operator version move to the next version unchanged? The one answer the
breaking-change gate (ADAPTER-MISSING / ADAPTER-RECOMMENDED) and the version converter
(`opset convert`, through `toolkit.adapters.chain`) both use.

A node of the old version moves unchanged exactly when the new version changes its signature
and no change breaks backward compatibility (`SchemaChange.bc`, decided by the change model with
the details: a trailing optional input, an optional attribute, a type added to a constraint, a
renamed input or type parameter keep every old node valid and meaning the same). A new version
whose signature did not change (only its docs, or nothing the specs compare) was added for what
it computes, which no signature shows: it needs an adapter. So does a change of meaning that a
compatible signature change hides; the specs cannot show it, so the onnx catalog's are facts of
the adapter overlay (`toolkit/data/onnx_adapters`). Such a new version needs no
adapter: `implicit_adapter` is the adapter it has without declaring one, `compatible` upward and,
downward, the per-node checks that the forward-incompatible additions need (a node of the new
version using an added type, giving an added input or setting an added attribute to a value
other than its default cannot go back). Every other new version needs a declared adapter.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolkit.model.adapter_inverse import implied_downgrade
from toolkit.model.change_kinds import SchemaChange
from toolkit.model.changes import diff_schemas
from toolkit.model.spec import Adapter, AdapterStep, OpSchema

SAME_SIGNATURE = "the signature is unchanged, so the new version changes what a node computes"


def upgrade_blockers(changes: Sequence[SchemaChange]) -> tuple[str, ...]:
    """Why a node of the old version may not be a node of the new one meaning the same (the
    messages of the changes that break backward compatibility, or `SAME_SIGNATURE`); () when
    every old node moves unchanged. `changes`: every change from the old version to the new."""
    blockers = tuple(change.message for change in changes if change.bc)
    if blockers or any(change.breaking for change in changes):
        return blockers
    return (SAME_SIGNATURE,)


def suggested_steps(changes: Sequence[SchemaChange]) -> tuple[str, ...]:
    """For each reason `upgrade_blockers` gives, the adapter step that usually answers it, as the
    `upgrade` list item to write (the author decides; `python` where no declarative kind fits)."""
    if not upgrade_blockers(changes):
        return ()
    out = [step_for(change) for change in changes if change.bc]
    return tuple(dict.fromkeys(out)) or ("`{kind: compatible}` if old nodes still compute the same",)


def step_for(change: SchemaChange) -> str:
    """The adapter step that usually answers `change` (from the source version to the target), as
    the list item to write; a `python` step where no declarative kind fits."""
    name = change.subject
    if change.kind == "ATTR-DEFAULT-CHANGED" and change.old is not None:
        old = json.dumps(list(change.old) if isinstance(change.old, tuple) else change.old, default=str)
        return f"`{{kind: set_attribute_if_absent, attribute: {name}, value: {old}}}` (the old default)"
    if change.kind in ("ATTR-ADDED", "ATTR-REQUIRED-CHANGED"):
        return f"`{{kind: set_attribute_if_absent, attribute: {name}, value: ...}}` (what old nodes computed)"
    if change.kind == "ATTR-RENAMED":
        return f"`{{kind: rename_attribute, attribute: {name}, to: {change.new}}}`"
    if change.kind == "ATTR-REMOVED":
        return (
            f"`{{kind: remove_attribute, attribute: {name}}}` (or `require_attribute` if some values differ)"
        )
    if change.kind == "INPUT-ADDED":
        return (
            f"`{{kind: attribute_to_input, attribute: ..., input: {name}}}` if an attribute became `{name}`"
        )
    if change.kind == "INPUT-REMOVED":
        return f"`{{kind: remove_input, input: {name}}}` (or `input_to_attribute` if it became one)"
    if change.kind == "TYPE-REMOVED":
        return f"`{{kind: type_restriction, param: {name}, types: [...]}}`"
    return f"a `python` step for {change.message}"


def moves_unchanged(old: OpSchema, new: OpSchema) -> bool:
    """True when every node of `old` is a node of `new` meaning the same (no adapter needed)."""
    return not upgrade_blockers(diff_schemas(old, new))


def implicit_adapter(old: OpSchema, new: OpSchema) -> Adapter | None:
    """The adapter `new` has without declaring one: None when an old node cannot move unchanged;
    otherwise `compatible` upward and, downward, a check per forward-incompatible addition
    (what `check-model`'s node checks would not tell, or would tell only as an invalid node)."""
    changes = diff_schemas(old, new)
    if upgrade_blockers(changes):
        return None
    compatible = (AdapterStep("compatible", (), new.location),)
    # What a declared `compatible` implies going back (`adapter_inverse`: a node using a type the
    # newer version added cannot go back), then the removals an old runtime needs: the added
    # trailing optional inputs, last first, and the added optional attributes (a node setting one
    # to other than its default is refused).
    removals: list[AdapterStep] = []
    for change in changes:
        if change.kind == "ATTR-ADDED":
            removals.append(AdapterStep("remove_attribute", (("attribute", change.subject),), new.location))
    for change in reversed(changes):
        if change.kind == "INPUT-ADDED":
            removals.append(AdapterStep("remove_input", (("input", change.subject),), new.location))
    downgrade = implied_downgrade(compatible, old, new) + tuple(removals)
    return Adapter(upgrade=compatible, downgrade=downgrade, location=new.location)
