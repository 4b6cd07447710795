"""Versioning rules: released operator versions are frozen; new ones go into new opset versions.

The adapter a breaking bump needs (ADAPTER-MISSING / ADAPTER-RECOMMENDED) is in
`toolkit.compat.rules.adapters`.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, OperatorPair
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import FIX_BUMP, V1, change_rule, compat_rule, rule_doc


@compat_rule(
    "VERSION-MODIFIED",
    name="released-version-modified",
    severity="error",
    bc=False,
    fc=False,
    category="versioning",
    summary="A released operator version was modified in place (a change no signature rule covers).",
    doc=rule_doc(
        "A released operator version is frozen: runtimes and converters have implemented it. "
        "Changes that no signature rule covers (differentiability, deprecation flag, ...) still "
        "change the opset's inventory and need a new version. Breaking edits are reported by "
        "their own rules (ATTR-ADDED, TYPE-ADDED, ...); documentation edits by DOC-CHANGED.",
        V1 + "    inputs:\n      - {name: X, type: T}",
        V1 + "    inputs:\n      - {name: X, type: T, differentiability: differentiable}",
        FIX_BUMP,
    ),
)
@operator_pairs
def version_modified(pair: OperatorPair) -> Iterator[Hit]:
    for edit in pair.edits:
        other = [c for c in edit.changes if not c.breaking and c.kind != "DOC-CHANGED"]
        if other:
            yield Hit(
                edit.new.id,
                f"released version {edit.new.id} modified in place "
                f"({pair.domain.released_because(edit.new.since_version)}): "
                + "; ".join(c.message for c in other),
                edit.new.location,
                edit.old.location,
                pair.domain.bump_hint(edit.new),
                key=tuple((c.kind, c.subject, c.old, c.new) for c in other),
            )


@compat_rule(
    "VERSION-REMOVED",
    name="released-version-removed",
    severity="error",
    bc=True,
    fc=True,
    category="versioning",
    summary="A released operator version was deleted from the operator's file.",
    doc=rule_doc(
        "Opsets that resolved to the deleted version now resolve to an older one (or to nothing): "
        "the inventory of released opsets changes under existing models.",
        V1 + "    # ...\n  - since_version: 3\n    # ...",
        V1 + "    # ...  (version 3 deleted)",
        "restore the version; to retire the operator set `removed_in:` to a new opset version.",
    ),
)
@operator_pairs
def version_removed(pair: OperatorPair) -> Iterator[Hit]:
    spec = pair.any
    for schema in pair.removed_versions:
        yield Hit(
            schema.id,
            f"released version {schema.id} was deleted",
            spec.location,
            schema.location,
            f"restore {schema.id}; to retire {spec.name} set `removed_in: {pair.domain.next_opset}`",
        )


@compat_rule(
    "VERSION-NOT-NEW-OPSET",
    name="version-not-in-new-opset",
    severity="error",
    bc=True,
    fc=True,
    category="versioning",
    summary="A new operator version's since_version is not a new opset version.",
    doc=rule_doc(
        "A new version with a since_version that was already released changes what that released "
        "opset means: models built against it would suddenly resolve to a different operator.",
        "# domain.yaml: opset_versions 1..3\n" + V1,
        "versions:\n  - since_version: 1\n  - since_version: 3        # opset 3 already released",
        "use `since_version: N+1` where N is the latest released opset version, and declare "
        "opset N+1 in domain.yaml.",
    ),
)
@operator_pairs
def version_not_new_opset(pair: OperatorPair) -> Iterator[Hit]:
    for bump in pair.bumps:
        if bump.in_new_opset or bump.new_operator or bump.schema.experimental:
            continue
        n = pair.domain.next_opset
        since = bump.schema.since_version
        declared = pair.domain.new is not None and pair.domain.new.opset(n) is not None
        yield Hit(
            bump.schema.id,
            f"new version {bump.schema.id} uses since_version {since}, an opset version "
            f"that is already released ({pair.domain.released_because(since)})",
            bump.schema.location,
            bump.previous.location if bump.previous else None,
            f"set `since_version: {n}`"
            + (
                f" (opset {n}, declared in domain.yaml)"
                if declared
                else f" and declare opset {n} in domain.yaml"
            ),
        )


change_rule(
    "STATUS-CHANGED",
    "status-demoted",
    "versioning",
    "A stable version turned experimental loses its compatibility promise. (Experimental "
    "versions are exempt from the gate, so promoting one to stable is not reported.)",
    V1 + "    status: stable",
    V1 + "    status: experimental",
)
