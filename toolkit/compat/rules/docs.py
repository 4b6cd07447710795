"""Documentation rule: a doc-only edit of a released version is allowed and reported as info."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, OperatorPair
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import V1, compat_rule, rule_doc


@compat_rule(
    "DOC-CHANGED",
    name="doc-only-change",
    severity="info",
    bc=False,
    fc=False,
    category="docs",
    summary="Only documentation of a released operator version changed (allowed).",
    doc=rule_doc(
        "Clarifying documentation is not a breaking change; it is reported for reviewers' information only.",
        V1 + "    doc: Adds two tensors.",
        V1 + "    doc: Adds two tensors element-wise, with Numpy-style broadcasting.",
        "nothing to fix; make sure the edit clarifies and does not change behaviour.",
    ),
)
@operator_pairs
def doc_changed(pair: OperatorPair) -> Iterator[Hit]:
    for edit in pair.edits:
        # An empty doc is unknown, not a doc that changed: onnxruntime before 1.22 is built
        # without its operators' docs, so a doc appearing or vanishing says nothing (#26).
        docs = [c for c in edit.changes if c.kind == "DOC-CHANGED" and c.old and c.new]
        if docs:
            yield Hit(
                edit.new.id,
                f"only documentation changed in released version {edit.new.id} (allowed): "
                + "; ".join(c.message for c in docs),
                docs[0].new_location,
                docs[0].old_location,
                "",
                key=tuple((c.subject, c.new) for c in docs),
            )
