"""How a gate rule is written: `compat_rule`, the doc template, and the change-rule helper.

A gate rule is a `toolkit.model.rules.Rule` of family "gate" whose `check` is a pair handler
(`toolkit.compat.handlers`: called by the engine once per operator, domain or type set that
differs between the trees) or a whole-tree handler of the `DiffContext`, and yields `Hit`s;
`compat_rule` is `toolkit.model.rules.rule(..., family="gate")` with the fields every gate rule
must fill (name, BC/FC, category, doc). The rule modules of this package use it, and so do user
plugins (`plugins = [...]` in the gate configuration):

    from toolkit.compat.rules import compat_rule, operator_pairs
    from toolkit.compat.engine import Hit, OperatorPair

    @compat_rule(
        "ACME-NO-FLOAT64",
        name="no-new-float64",
        severity="warning",
        bc=False,
        fc=True,
        category="types",
        summary="New operator versions must not accept tensor(double).",
        option="no_float64",   # optional: runs only when the profile option is true
        doc=rule_doc(why, before, after, fix),
    )
    @operator_pairs
    def no_float64(pair: OperatorPair) -> Iterator[Hit]: ...

Ids are stable API (configs and allowlists name them); never reuse or rename one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from toolkit.compat.engine import Edit, Hit, OperatorPair
from toolkit.compat.handlers import GateCheck, operator_pairs
from toolkit.compat.rules.bcfc import note
from toolkit.model.changes import KINDS, SchemaChange, kind_defaults
from toolkit.model.diagnostics import Severity
from toolkit.model.rules import register, rule

FAMILY = "gate"
# The gate's categories in the order `opset rules` and the rules page list them.
CATEGORIES = ("signature", "types", "versioning", "inventory", "lifecycle", "docs", "config")

C = TypeVar("C", bound=GateCheck)


def compat_rule(
    rule_id: str,
    *,
    name: str,
    severity: str | Severity,
    bc: bool,
    fc: bool,
    category: str,
    summary: str,
    doc: str,
    hint: str = "",
    option: str | None = None,
) -> Callable[[C], C]:
    """Register a check (a pair handler or a whole-tree handler) as gate rule `rule_id` (see the
    module docstring)."""
    _check_category(rule_id, category)
    return rule(
        rule_id,
        FAMILY,
        severity,
        summary,
        name=name,
        bc=bc,
        fc=fc,
        category=category,
        doc=_with_note(doc, rule_id, bc, fc),
        hint=hint,
        option=option,
    )


def emitted_rule(
    rule_id: str,
    *,
    name: str,
    severity: str | Severity,
    category: str,
    summary: str,
    doc: str,
    bc: bool = False,
    fc: bool = False,
) -> None:
    """Register a gate rule that no `DiffContext` check reports: the gate emits it itself
    (the allowlist rules, see `toolkit.compat.rules.allowlist`). Its record has no `check`."""
    _check_category(rule_id, category)
    register(
        rule_id,
        FAMILY,
        severity,
        summary,
        name=name,
        bc=bc,
        fc=fc,
        category=category,
        doc=_with_note(doc, rule_id, bc, fc),
    )


def _with_note(doc: str, rule_id: str, bc: bool, fc: bool) -> str:
    """The doc plus the BC/FC argument of a built-in rule (`toolkit.compat.rules.bcfc`)."""
    paragraph = note(rule_id, bc, fc)
    return doc.strip() + (f"\n\n{paragraph}" if paragraph else "")


def _check_category(rule_id: str, category: str) -> None:
    if category not in CATEGORIES:
        raise ValueError(f"rule {rule_id}: unknown category '{category}' (one of {', '.join(CATEGORIES)})")


# --------------------------------------------------------------------------- docs


def rule_doc(why: str, before: str, after: str, fix: str) -> str:
    """A rule's Markdown doc: why it breaks, a YAML before/after, how to fix."""
    return (
        f"**Why:** {why}\n\n"
        f"**Before:**\n\n```yaml\n{before.strip(chr(10)).rstrip()}\n```\n\n"
        f"**After:**\n\n```yaml\n{after.strip(chr(10)).rstrip()}\n```\n\n"
        f"**How to fix:** {fix}"
    )


FIX_BUMP = (
    "keep the released version exactly as it was and put the change into a new operator version "
    "whose `since_version` is a new opset version (N+1), declared in the domain's `domain.yaml`."
)
V1 = "versions:\n  - since_version: 1\n"


# --------------------------------------------------------------------------- change rules


def change_rule(kind: str, name: str, category: str, why: str, before: str, after: str) -> None:
    """Register the rule reporting in-place changes of `kind` (a `toolkit.model.changes.KINDS`
    key) to released versions; its BC/FC come from the change model, its fix is a bump."""
    _breaking, bc, fc = kind_defaults(kind)

    def check(pair: OperatorPair) -> Iterator[Hit]:
        for edit in pair.edits:
            for change in edit.changes:
                if change.kind == kind:
                    yield change_hit(pair, edit, change)

    compat_rule(
        kind,
        name=name,
        severity=Severity.ERROR,
        bc=bc,
        fc=fc,
        category=category,
        summary=_change_title(kind),
        doc=rule_doc(why, before, after, FIX_BUMP),
    )(operator_pairs(check))


def _change_title(kind: str) -> str:
    text = KINDS[kind]
    return text[0].upper() + text[1:] + " in a released operator version."


def change_hit(pair: OperatorPair, edit: Edit, change: SchemaChange) -> Hit:
    return Hit(
        operator=edit.new.id,
        message=f"{change.message} in released version {edit.new.id} "
        f"({pair.domain.released_because(edit.new.since_version)})",
        location=change.new_location,
        old_location=change.old_location,
        hint=pair.domain.bump_hint(edit.new),
        subject=change.subject,
        key=(change.old, change.new),
        bc=change.bc,
        fc=change.fc,
    )
