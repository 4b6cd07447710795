"""Inventory rules: what a released opset version contains (its operators, its IR version)
and the released opset versions themselves never change."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import DomainPair, Hit, OperatorPair, is_exempt
from toolkit.compat.handlers import domain_pairs, operator_pairs
from toolkit.compat.rules.base import compat_rule, rule_doc
from toolkit.model.spec import display_domain


@compat_rule(
    "OPSET-OP-ADDED",
    name="operator-added-to-released-opset",
    severity="error",
    bc=False,
    fc=True,
    category="inventory",
    summary="An operator was added to an opset version that is already released.",
    doc=rule_doc(
        "Runtimes that implement the released opset do not have the operator, yet models declaring "
        "that opset may now use it.",
        "# domain.yaml: opset_versions 1..3",
        "operator: Gelu\nversions:\n  - since_version: 3        # opset 3 already released",
        "give the operator's first version `since_version: N+1` (a new opset version).",
    ),
)
@operator_pairs
def opset_op_added(pair: OperatorPair) -> Iterator[Hit]:
    old, new, domain = pair.old, pair.new, pair.domain
    if new is None:
        return
    if old is None:
        first = new.versions[0] if new.versions else None
        if first is None or is_exempt(new) or first.since_version > domain.released_max:
            return
        yield Hit(
            first.id,
            f"operator {display_domain(new.domain)}.{new.name} added with since_version "
            f"{first.since_version}, an already released opset version",
            first.location,
            None,
            f"use `since_version: {domain.next_opset}` for the first version",
        )
        return
    # un-removing: the operator reappears in opsets released without it
    reappears = new.removed_in is None or (old.removed_in is not None and new.removed_in > old.removed_in)
    if (
        old.removed_in is not None
        and old.removed_in <= domain.released_max
        and not is_exempt(new)
        and reappears
    ):
        yield Hit(
            f"{display_domain(new.domain)}.{new.name}",
            f"operator {new.name} was removed in opset {old.removed_in} and now reappears there",
            new.location,
            old.location,
            f"keep `removed_in: {old.removed_in}`; to bring it back add a version with since_version "
            f"{domain.next_opset}",
            key=(old.removed_in, new.removed_in),
        )


@compat_rule(
    "OPSET-OP-REMOVED",
    name="operator-removed-from-released-opset",
    severity="error",
    bc=True,
    fc=False,
    category="inventory",
    summary="An operator was removed from an opset version that is already released.",
    doc=rule_doc(
        "Models declaring the released opset use the operator; it must stay resolvable there. "
        "Removal is legal only from a new opset version on (`removed_in: N+1`).",
        "operator: Scatter\nversions:\n  - since_version: 9",
        "operator: Scatter\nremoved_in: 3            # opset 3 already released\nversions: ...",
        "keep the operator file and set `removed_in:` to a new opset version (N+1); name the "
        "successor with `replaced_by:`.",
    ),
)
@operator_pairs
def opset_op_removed(pair: OperatorPair) -> Iterator[Hit]:
    old, new, domain = pair.old, pair.new, pair.domain
    if old is None:
        return
    if new is None:
        if is_exempt(old) or not old.versions or old.versions[0].since_version > domain.released_max:
            return
        yield Hit(
            f"{display_domain(old.domain)}.{old.name}",
            f"operator {display_domain(old.domain)}.{old.name} was deleted from released opsets",
            domain.location,
            old.location,
            f"restore {old.location.file} and set `removed_in: {domain.next_opset}` instead",
        )
        return
    if new.removed_in is None or is_exempt(new) or new.removed_in > domain.released_max:
        return
    if old.removed_in is not None and old.removed_in <= new.removed_in:
        return  # unchanged (or un-removal, see OPSET-OP-ADDED)
    yield Hit(
        f"{display_domain(new.domain)}.{new.name}",
        f"operator {new.name} removed in opset {new.removed_in}, which is already released",
        new.location,
        old.location,
        f"set `removed_in: {domain.next_opset}` (a new opset version)",
        key=(old.removed_in, new.removed_in),
    )


@compat_rule(
    "OPSET-REMOVED",
    name="opset-version-removed",
    severity="error",
    bc=True,
    fc=False,
    category="inventory",
    summary="A released opset version (or a whole domain) was removed.",
    doc=rule_doc(
        "Models declare opset versions in their opset_import; a removed version makes them unloadable.",
        "opset_versions:\n  - {version: 1, ir_version: 8}\n  - {version: 2, ir_version: 9}",
        "opset_versions:\n  - {version: 1, ir_version: 8}",
        "restore the opset version; opset versions are append-only.",
    ),
)
@domain_pairs
def opset_removed(pair: DomainPair) -> Iterator[Hit]:
    old, new, released = pair.old, pair.new, pair.released_max
    if old is None:
        return
    if new is None:
        if released < (old.versions[0] if old.versions else 1):
            return  # nothing of the domain was released yet
        yield Hit(
            old.display_name,
            f"domain {old.display_name} (opset versions {_ranges(old.versions)}) was removed",
            old.location,
            old.location,
            f"restore {old.location.file}",
        )
        return
    gone = [v for v in old.opset_versions if new.opset(v.version) is None and v.version <= released]
    for opset in gone:
        yield Hit(
            new.display_name,
            f"opset version {opset.version} of {new.display_name} was removed",
            new.location,
            opset.location,
            "restore it; opset versions are append-only",
            subject=str(opset.version),
        )


@compat_rule(
    "OPSET-IR-CHANGED",
    name="opset-ir-version-changed",
    severity="error",
    bc=True,
    fc=True,
    category="inventory",
    summary="The IR version of a released opset version changed.",
    doc=rule_doc(
        "The IR version an opset version requires is part of what runtimes and models agreed on.",
        "opset_versions:\n  - {version: 3, ir_version: 8}",
        "opset_versions:\n  - {version: 3, ir_version: 9}",
        "restore the IR version; declare a new opset version with the new IR version instead.",
    ),
)
@domain_pairs
def opset_ir_changed(pair: DomainPair) -> Iterator[Hit]:
    old, new = pair.old, pair.new
    if old is None or new is None:
        return
    for opset in old.opset_versions:
        if opset.version > pair.released_max:
            continue  # an open opset version may still change
        now = new.opset(opset.version)
        if now is not None and now.ir_version != opset.ir_version:
            yield Hit(
                new.display_name,
                f"opset {new.display_name} {opset.version}: ir_version changed from "
                f"{opset.ir_version} to {now.ir_version}",
                now.location,
                opset.location,
                f"restore `ir_version: {opset.ir_version}`",
                subject=str(opset.version),
                key=(opset.ir_version, now.ir_version),
            )


def _ranges(versions: tuple[int, ...]) -> str:
    if not versions:
        return "none"
    return f"{versions[0]}-{versions[-1]}" if len(versions) > 1 else str(versions[0])
