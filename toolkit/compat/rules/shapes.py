"""SHAPE-RULE-CHANGED and SHAPE-RULE-ADDED: a released version's shape rules (#27).

The policy, as a standards body would keep it: an operator version's behaviour is what its doc
and kernels compute, fixed when the version is released. A `shape:` rule or a `shape_requires:`
constraint *describes* that behaviour for tools (check-model, infer-shapes, onnx's inference
through `register_onnx`). So:

- a rule given where the released version had none (an output without `shape:` or `value:`, a version
  without `shape_requires:`) adds information and changes no node: SHAPE-RULE-ADDED, info. The
  author vouches that it states what the operator already computes and requires;
- a rule changed or removed changes what tools on either side of the change infer and accept for
  the same model: SHAPE-RULE-CHANGED, an error (BC and FC), fixed by a new version.

Rules are compared as parsed structure (`toolkit.shapes.engine.parsed`), so spacing and
parentheses that change nothing are no change; a rule that does not parse is compared as text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from toolkit.compat.engine import Hit, OperatorPair
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import FIX_BUMP, V1, compat_rule, rule_doc
from toolkit.model.spec import Location, OpSchema, ShapeText
from toolkit.shapes.engine import parsed

__all__ = ["ShapeRuleChange", "shape_rule_changes"]


@dataclass(frozen=True, slots=True)
class ShapeRuleChange:
    added: bool  # a rule where there was none (else changed or removed)
    message: str
    location: Location
    old_location: Location


def _structure(node: object) -> object:
    """A parsed rule without its text positions (`Node.pos`): what the rule means, not where."""
    if isinstance(node, tuple):
        return tuple(_structure(item) for item in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        fields = (f.name for f in dataclasses.fields(node) if f.name != "pos")
        return (type(node).__name__, *(_structure(getattr(node, name)) for name in fields))
    return node


def _same(old: ShapeText, new: ShapeText) -> bool:
    old_tree, new_tree = parsed(old.text), parsed(new.text)
    if old_tree is None or new_tree is None:
        return old.text.strip() == new.text.strip()
    return _structure(old_tree) == _structure(new_tree)


def shape_rule_changes(old: OpSchema, new: OpSchema) -> list[ShapeRuleChange]:
    """How the shape rules of two states of one version differ: per output both have (by
    position) and the version's constraints (as a set). The words of the gate's findings and the
    changelog."""
    out: list[ShapeRuleChange] = []
    # An output past the old ones is an output added, its rules with it (OUTPUT-ADDED reports
    # the addition; one removed took its rules along): one change, one finding.
    for index, param in enumerate(new.outputs[: len(old.outputs)]):
        for kind in ("shape", "value"):  # an output's shape rule and its value rule alike
            before: ShapeText | None = getattr(old.outputs[index], kind)
            after: ShapeText | None = getattr(param, kind)
            if before is None and after is not None:
                out.append(
                    ShapeRuleChange(
                        True,
                        f"output '{param.name}' gained the {kind} rule `{after.text}`",
                        after.location,
                        old.location,
                    )
                )
            elif before is not None and after is None:
                out.append(
                    ShapeRuleChange(
                        False,
                        f"output '{param.name}' lost its {kind} rule `{before.text}`",
                        param.location,
                        before.location,
                    )
                )
            elif before is not None and after is not None and not _same(before, after):
                out.append(
                    ShapeRuleChange(
                        False,
                        f"the {kind} rule of output '{param.name}' changed from `{before.text}` to `{after.text}`",
                        after.location,
                        before.location,
                    )
                )
    dropped = [r for r in old.shape_requires if not any(_same(r, n) for n in new.shape_requires)]
    gained = [r for r in new.shape_requires if not any(_same(r, o) for o in old.shape_requires)]
    if gained and not old.shape_requires:
        texts = ", ".join(f"`{r.text}`" for r in gained)
        out.append(
            ShapeRuleChange(True, f"gained the shape constraints {texts}", gained[0].location, old.location)
        )
    elif gained or dropped:
        parts = [f"constraint `{r.text}` removed" for r in dropped] + [
            f"constraint `{r.text}` added" for r in gained
        ]
        where = gained[0].location if gained else new.location
        was = dropped[0].location if dropped else old.location
        out.append(ShapeRuleChange(False, "shape_requires changed: " + "; ".join(parts), where, was))
    return out


_RULE = "\n    outputs:\n      - name: Y\n        type: T\n"


@compat_rule(
    "SHAPE-RULE-CHANGED",
    name="released-shape-rule-changed",
    severity="error",
    bc=True,
    fc=True,
    category="versioning",
    summary="A shape rule (`shape:` of an output, or `shape_requires:`) of a released operator version "
    "was changed or removed in place.",
    doc=rule_doc(
        "A shape rule states the shapes a released version computes and the input shapes it accepts; "
        "check-model, infer-shapes and onnx's own inference (through `register_onnx`) rely on it. Changed "
        "or removed in place, the same model gets other shapes, or other findings, depending on which "
        "side of the change a tool was built from. Giving a rule where the released version had none "
        "is SHAPE-RULE-ADDED (info), not this rule: it describes what the operator already computes. "
        "Rules are compared as parsed structure: spacing and redundant parentheses are no change.",
        V1 + _RULE.rstrip() + "\n        shape: broadcast(A, B)",
        V1 + _RULE.rstrip() + "\n        shape: A",
        FIX_BUMP,
    ),
)
@operator_pairs
def shape_rule_changed(pair: OperatorPair) -> Iterator[Hit]:
    for old, schema in pair.released_versions:
        for change in shape_rule_changes(old, schema):
            if not change.added:
                yield Hit(
                    schema.id,
                    f"released version {schema.id}: {change.message}",
                    change.location,
                    change.old_location,
                    pair.domain.bump_hint(schema),
                    key=(change.message,),
                )


@compat_rule(
    "SHAPE-RULE-ADDED",
    name="released-shape-rule-added",
    severity="info",
    bc=False,
    fc=False,
    category="versioning",
    summary="A released operator version gained a shape rule where it had none (allowed).",
    doc=rule_doc(
        "A released version without a shape rule says nothing about its output shapes; a rule added "
        "later documents what its doc and kernels already compute (and the input shapes they already "
        "refuse), so no node changes meaning and it is allowed, reported for the reviewer to check "
        "that the rule states the operator's behaviour and no new one. Changing or removing a rule "
        "once given is SHAPE-RULE-CHANGED.",
        V1 + _RULE.rstrip(),
        V1 + _RULE.rstrip() + "\n        shape: broadcast(A, B)",
        "nothing to fix; check the rule against the operator's doc and kernels (onnx's backend "
        "cases or `opset test-runtime` examples) before the release.",
    ),
)
@operator_pairs
def shape_rule_added(pair: OperatorPair) -> Iterator[Hit]:
    for old, schema in pair.released_versions:
        for change in shape_rule_changes(old, schema):
            if change.added:
                yield Hit(
                    schema.id,
                    f"released version {schema.id}: {change.message} (allowed)",
                    change.location,
                    change.old_location,
                    "",
                    key=(change.message,),
                )
