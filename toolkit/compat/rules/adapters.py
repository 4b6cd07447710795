"""Versioning rules of the authoring workflow: a version bump that old nodes cannot follow
unchanged needs a version adapter.

PyTorch's versioning RFC asks for an upgrader with every operator bump; here the adapter is
part of the spec (`adapter: {upgrade: [...]}` on the new version). Whether a bump needs one is
the converter's own answer (`toolkit.model.node_moves`): only when a change breaks backward
compatibility, so that some node of the previous version is not a node of the new one meaning
the same; a type added, a trailing optional input or an optional attribute need none (the
converter moves those nodes with the implicit adapter). One condition, two ids, so profiles can
treat them apart:
- ADAPTER-MISSING (error) runs when the profile's option `require_adapters` is true (of the
  built-in profiles only `onnx-strict` sets it);
- ADAPTER-RECOMMENDED (warning) reports the same bumps when the option is false or unset
  (the built-in `bc-only` profile, or `options = { require_adapters = false }`).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, NewVersion, OperatorPair, is_exempt
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import compat_rule, rule_doc
from toolkit.model.node_moves import suggested_steps, upgrade_blockers
from toolkit.model.spec import OpSchema

OPTION = "require_adapters"

_BEFORE = """
  - since_version: 1
    attributes:
      axes: {type: ints}
  - since_version: 2
    based_on: 1
    inputs: [{name: data, type: T}, {name: axes, type: tensor(int64), option: optional}]
    attributes: {axes: null}
"""
_AFTER = """
  - since_version: 2
    based_on: 1
    inputs: [{name: data, type: T}, {name: axes, type: tensor(int64), option: optional}]
    attributes: {axes: null}
    adapter:
      upgrade:
        - {kind: attribute_to_input, attribute: axes, input: axes}
"""
_WHY = (
    "Models written against the previous version keep existing. A converter can only move them to "
    "the new version when the spec says how: which attributes were renamed or removed, which "
    "became inputs, which types the new version no longer accepts. ONNX asks contributors to "
    "write such an adapter by hand for every breaking change; PyTorch asks for an upgrader with "
    "every bump. A bump that every old node survives unchanged (types added, a trailing optional "
    "input, an optional attribute, a renamed input) needs none: `opset convert` moves those nodes "
    "as they are, and this rule asks the converter's own model (`toolkit.model.node_moves`). A "
    "bump that changes nothing in the signature changes what nodes compute and needs one (`{kind: "
    "compatible}` when old nodes still mean the same). Experimental operators and brand-new "
    "operators are exempt."
)
_FIX = (
    "add `adapter: {upgrade: [...]}` to the new version with the steps that turn a node of the "
    "previous version into a node of this one; `opset bump` writes an empty stub (`{upgrade: []}`), which counts as no adapter "
    "until the steps are filled in. Add a `downgrade` list when the steps cannot be "
    "inverted (a `python` step)."
)
_DOC = rule_doc(_WHY, _BEFORE, _AFTER, _FIX)


def breaking_bumps_without_adapter(pair: OperatorPair) -> Iterator[Hit]:
    """Bumps of stable, pre-existing operators that old nodes cannot follow unchanged and that
    lack an adapter."""
    for bump in pair.bumps:
        blockers = _blockers(pair, bump)
        if not blockers:
            continue
        previous = bump.previous
        assert previous is not None
        listed = "; ".join(blockers[:3]) + ("; ..." if len(blockers) > 3 else "")
        steps = "; ".join(suggested_steps(bump.changes)[:3])
        stub = bump.schema.adapter
        if stub is not None:  # the empty stub `opset bump` wrote: say what to fill it with
            hint = f"fill in the `upgrade` list on line {stub.location.line}: {steps}"
        else:
            hint = (
                f"add `adapter: {{upgrade: [...]}}` to {bump.schema.id}: how a version-"
                f"{previous.since_version} node becomes a node of this version: {steps}"
            )
        yield Hit(
            bump.schema.id,
            f"version-{previous.since_version} nodes may not mean the same under this version "
            f"({listed}) but it declares no adapter"
            + (" (its `upgrade` list is empty)" if bump.schema.adapter is not None else ""),
            stub.location if stub is not None else bump.schema.location,
            hint=hint,
            subject="adapter",
        )


def has_upgrade(schema: OpSchema) -> bool:
    """True when the version declares upgrade steps; `adapter: {upgrade: []}` (the stub
    `opset bump` writes) is no adapter yet."""
    return schema.adapter is not None and bool(schema.adapter.upgrade)


def _blockers(pair: OperatorPair, bump: NewVersion) -> tuple[str, ...]:
    """The changes of the bump that need an adapter (none: the bump needs no adapter)."""
    if bump.previous is None or bump.new_operator or has_upgrade(bump.schema):
        return ()
    if bump.previous.experimental or bump.schema.experimental:
        return ()
    if pair.new is None or is_exempt(pair.new):
        return ()
    return upgrade_blockers(bump.changes)


@compat_rule(
    "ADAPTER-MISSING",
    name="breaking-bump-without-adapter",
    severity="error",
    bc=True,
    fc=False,
    category="versioning",
    summary="A new version of a stable operator that old nodes cannot follow unchanged has no "
    "adapter from the previous version (profiles with `require_adapters = true`).",
    option=OPTION,
    doc=_DOC,
)
@operator_pairs
def adapter_missing(pair: OperatorPair) -> Iterator[Hit]:
    yield from breaking_bumps_without_adapter(pair)


@compat_rule(
    "ADAPTER-RECOMMENDED",
    name="breaking-bump-adapter-recommended",
    severity="warning",
    bc=True,
    fc=False,
    category="versioning",
    summary="A new version of a stable operator that old nodes cannot follow unchanged has no "
    "adapter from the previous version (profiles without `require_adapters`).",
    doc=_DOC,
)
@operator_pairs
def adapter_recommended(pair: OperatorPair) -> Iterator[Hit]:
    if pair.domain.options.get(OPTION):
        return  # ADAPTER-MISSING reports these as errors
    yield from breaking_bumps_without_adapter(pair)
