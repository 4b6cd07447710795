"""Lifecycle rules: deprecating or removing an operator names its successor (`replaced_by`)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, OperatorPair
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import compat_rule, rule_doc
from toolkit.model.spec import display_domain


@compat_rule(
    "DEPRECATED-WITHOUT-REPLACEMENT",
    name="deprecated-without-replacement",
    severity="warning",
    bc=False,
    fc=False,
    category="lifecycle",
    summary="An operator was deprecated without naming a replacement (`replaced_by`).",
    doc=rule_doc(
        "Users of a deprecated operator need a migration path; PyTorch's policy deprecates for a "
        "release before breaking and points to the successor.",
        "operator: Upsample\nversions:\n  - since_version: 9",
        "operator: Upsample\nversions:\n  - since_version: 10\n    deprecated: true",
        "add `replaced_by: Resize` (the successor operator) at the top of the operator file.",
    ),
)
@operator_pairs
def deprecated_without_replacement(pair: OperatorPair) -> Iterator[Hit]:
    new = pair.new
    if new is None or new.replaced_by or not new.versions or not new.versions[-1].deprecated:
        return
    old_latest = pair.old.versions[-1] if pair.old and pair.old.versions else None
    if old_latest is not None and old_latest.deprecated and pair.old and not pair.old.replaced_by:
        return  # already so in the old tree: not this change's doing
    latest = new.versions[-1]
    yield Hit(
        latest.id,
        f"{display_domain(new.domain)}.{new.name} is deprecated but names no replacement",
        latest.location,
        old_latest.location if old_latest else None,
        "add `replaced_by: OTHER_OP` to the operator file",
    )


@compat_rule(
    "REMOVED-WITHOUT-REPLACEMENT",
    name="removed-without-replacement",
    severity="warning",
    bc=False,
    fc=False,
    category="lifecycle",
    summary="An operator was removed (`removed_in`) without naming a replacement (`replaced_by`).",
    doc=rule_doc(
        "Models using the operator cannot be upgraded past the removal without a successor to convert to.",
        "operator: A\nversions: ...",
        "operator: A\nremoved_in: 4\nversions: ...",
        "add `replaced_by: C` naming the operator that takes over.",
    ),
)
@operator_pairs
def removed_without_replacement(pair: OperatorPair) -> Iterator[Hit]:
    old, new = pair.old, pair.new
    if old is None or new is None:
        return
    if new.removed_in is None or new.replaced_by or old.removed_in == new.removed_in:
        return
    yield Hit(
        f"{display_domain(new.domain)}.{new.name}",
        f"{display_domain(new.domain)}.{new.name} is removed in opset {new.removed_in} "
        "but names no replacement",
        new.location,
        old.location,
        "add `replaced_by: OTHER_OP` to the operator file",
    )
