"""The rule catalog of the breaking-change gate.

Every rule is a small registered unit: a stable id, a name, a default severity, its BC/FC
classification, a Markdown doc (why it breaks, before/after, how to fix) and a check function
over a `DiffContext` that yields `Hit`s.

Adding a rule from another module is one decorator (plus importing that module, e.g. by
listing it in `RULE_MODULES` below or in `plugins = [...]` of the gate configuration):

    from toolkit.compat.rules import compat_rule
    from toolkit.compat.engine import DiffContext, Hit

    @compat_rule(
        "ADAPTER-MISSING",
        name="breaking-bump-without-adapter",
        severity="error",
        bc=True,
        fc=False,
        category="versioning",
        summary="A breaking new version has no adapter from the previous version.",
        option="require_adapters",   # runs only when the profile option is true
        doc=\"\"\"Markdown: why / before / after / how to fix.\"\"\",
    )
    def adapter_missing(ctx: DiffContext) -> Iterator[Hit]:
        for bump in ctx.bumps:          # versions only the new tree has
            if any(c.breaking for c in bump.changes) and bump.schema.adapter is None:
                yield Hit(bump.schema.id, "...", bump.schema.location, hint="...")

Ids are stable API (configs and allowlists name them); never reuse or rename one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.compat.engine import DiffContext, Edit, Hit, is_exempt
from toolkit.model.changes import KINDS, SchemaChange, kind_defaults
from toolkit.model.diagnostics import Severity
from toolkit.model.rules import docs_link
from toolkit.model.spec import display_domain

RULES_PAGE = "reference/rules/"  # docs/reference/rules.md, one heading (anchor) per rule id
CATEGORIES = ("signature", "types", "versioning", "inventory", "lifecycle", "docs", "config")
# Modules holding more rules (imported on first use of the catalog).
RULE_MODULES: tuple[str, ...] = ("toolkit.compat.adapter_rules",)

if TYPE_CHECKING:
    from toolkit.compat.config import GateConfig

CheckFn = Callable[[DiffContext], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: Severity
    bc: bool  # old models may stop working on the new registry
    fc: bool  # new models may not run on runtimes built from the old registry
    category: str
    summary: str
    doc: str
    func: CheckFn
    hint: str = ""
    option: str | None = None  # a profile option that must be true for the rule to run

    def check(self, ctx: DiffContext) -> Iterable[Hit]:
        return self.func(ctx)

    @property
    def help_uri(self) -> str:
        return docs_link(RULES_PAGE, self.id.lower())

    @property
    def compat_text(self) -> str:
        parts = [name for name, flag in (("BC", self.bc), ("FC", self.fc)) if flag]
        return " and ".join(parts) + "-breaking" if parts else "not breaking old or new models"


_RULES: dict[str, Rule] = {}
_loaded = False


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
) -> Callable[[CheckFn], CheckFn]:
    """Register a check function as rule `rule_id` (see the module docstring)."""
    if category not in CATEGORIES:
        raise ValueError(f"rule {rule_id}: unknown category '{category}' (one of {', '.join(CATEGORIES)})")

    def register(func: CheckFn) -> CheckFn:
        if rule_id in _RULES and _RULES[rule_id].func is not func:
            raise ValueError(f"rule id {rule_id} is registered twice")
        _RULES[rule_id] = Rule(
            rule_id, name, Severity(severity), bc, fc, category, summary, doc.strip(), func, hint, option
        )
        return func

    return register


def all_rules() -> list[Rule]:
    """The catalog, sorted by category then id."""
    _load_modules()
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(_RULES.values(), key=lambda r: (order[r.category], r.id))


def get_rule(rule_id: str) -> Rule | None:
    _load_modules()
    return _RULES.get(rule_id.upper())


def load_plugins(modules: Iterable[str]) -> None:
    for module in modules:
        importlib.import_module(module)


def load_gate_config(path: Path | None, profile: str | None) -> GateConfig:
    """The gate configuration at `path` (None: built-in profiles only). Its plugin modules are
    imported first, so the rule ids it names are checked against the whole catalog."""
    from toolkit.compat.config import load_config

    load_plugins(load_config(path, profile).plugins)
    return load_config(path, profile, known_rules=frozenset(r.id for r in all_rules()))


def _load_modules() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        load_plugins(RULE_MODULES)


# --------------------------------------------------------------------------- docs helpers


def rule_doc(why: str, before: str, after: str, fix: str) -> str:
    return (
        f"**Why:** {why}\n\n"
        f"**Before:**\n\n```yaml\n{before.strip(chr(10)).rstrip()}\n```\n\n"
        f"**After:**\n\n```yaml\n{after.strip(chr(10)).rstrip()}\n```\n\n"
        f"**How to fix:** {fix}"
    )


_FIX_BUMP = (
    "keep the released version exactly as it was and put the change into a new operator version "
    "whose `since_version` is a new opset version (N+1), declared in the domain's `domain.yaml`."
)
_V1 = "versions:\n  - since_version: 1\n"
_V2 = "  - since_version: 1        # unchanged\n    # ...\n  - since_version: 2        # new opset version\n"


# --------------------------------------------------------------------------- change rules


@dataclass(frozen=True)
class _ChangeRule:
    kind: str
    name: str
    category: str
    why: str
    before: str
    after: str


_CHANGE_RULES = (
    _ChangeRule(
        "ATTR-ADDED",
        "attribute-added",
        "signature",
        "Runtimes built from the old registry reject nodes that set the new attribute (FC); a "
        "required attribute also invalidates every existing node (BC). ONNX counts even an optional "
        "attribute with a default as breaking.",
        _V1 + "    attributes: {}",
        _V1 + "    attributes:\n      axes: {type: ints}",
    ),
    _ChangeRule(
        "ATTR-REMOVED",
        "attribute-removed",
        "signature",
        "Existing models that set the attribute no longer validate (BC).",
        _V1 + "    attributes:\n      axis: {type: int, default: 0}",
        _V1 + "    attributes: {}",
    ),
    _ChangeRule(
        "ATTR-RENAMED",
        "attribute-renamed",
        "signature",
        "Attributes are matched by name: old models carry the old name, new models the new one; "
        "neither runs on the other registry. Reported once, not as a removal plus an addition, "
        "when the attribute keeps its position, type, required-ness and default.",
        _V1 + "    attributes:\n      paddings: {type: ints}",
        _V1 + "    attributes:\n      pads: {type: ints}",
    ),
    _ChangeRule(
        "ATTR-TYPE-CHANGED",
        "attribute-type-changed",
        "signature",
        "An attribute value is typed in the model (AttributeProto.type); the other type is rejected.",
        _V1 + "    attributes:\n      to: {type: string}",
        _V1 + "    attributes:\n      to: {type: int}",
    ),
    _ChangeRule(
        "ATTR-DEFAULT-CHANGED",
        "attribute-default-changed",
        "signature",
        "Nodes that omit the attribute silently compute something else: new behaviour under the "
        "same signature, which the versioning rules count as breaking.",
        _V1 + "    attributes:\n      mode: {type: string, default: nearest}",
        _V1 + "    attributes:\n      mode: {type: string, default: linear}",
    ),
    _ChangeRule(
        "ATTR-REQUIRED-CHANGED",
        "attribute-required-changed",
        "signature",
        "Becoming required rejects old nodes that omitted it (BC); becoming optional lets new "
        "models omit it, which old runtimes reject (FC).",
        _V1 + "    attributes:\n      axis: {type: int, default: 1}",
        _V1 + "    attributes:\n      axis: {type: int, required: true}",
    ),
    _ChangeRule(
        "INPUT-ADDED",
        "input-added",
        "signature",
        "Old runtimes do not know the input (FC); a non-optional input also invalidates existing nodes (BC).",
        _V1 + "    inputs:\n      - {name: X, type: T}",
        _V1
        + "    inputs:\n      - {name: X, type: T}\n      - {name: axes, type: tensor(int64), optional: true}",
    ),
    _ChangeRule(
        "INPUT-REMOVED",
        "input-removed",
        "signature",
        "Inputs are positional: old nodes pass a value the new version does not accept.",
        _V1 + "    inputs:\n      - {name: X, type: T}\n      - {name: scale, type: T}",
        _V1 + "    inputs:\n      - {name: X, type: T}",
    ),
    _ChangeRule(
        "INPUT-RENAMED",
        "input-renamed",
        "signature",
        "Inputs are positional on the wire, but generated APIs, docs and keyword-based builders use "
        "the name. Reported when the input keeps its position and shape.",
        _V1 + "    inputs:\n      - {name: X, type: T}",
        _V1 + "    inputs:\n      - {name: input, type: T}",
    ),
    _ChangeRule(
        "INPUT-REORDERED",
        "inputs-reordered",
        "signature",
        "Inputs are positional: every existing node now binds its values to the wrong inputs.",
        _V1 + "    inputs:\n      - {name: A, type: T}\n      - {name: B, type: T}",
        _V1 + "    inputs:\n      - {name: B, type: T}\n      - {name: A, type: T}",
    ),
    _ChangeRule(
        "INPUT-OPTION-CHANGED",
        "input-option-changed",
        "signature",
        "single/optional/variadic decide how many values a node passes: becoming optional lets new "
        "models omit it (FC), becoming single rejects old nodes that omitted it (BC).",
        _V1 + "    inputs:\n      - {name: C, type: T, optional: true}",
        _V1 + "    inputs:\n      - {name: C, type: T}",
    ),
    _ChangeRule(
        "INPUT-ARITY-CHANGED",
        "input-arity-changed",
        "signature",
        "A variadic input's homogeneity or min_arity decides which nodes are valid.",
        _V1 + "    inputs:\n      - {name: inputs, type: T, option: variadic}",
        _V1 + "    inputs:\n      - {name: inputs, type: T, option: variadic, min_arity: 2}",
    ),
    _ChangeRule(
        "INPUT-TYPE-CHANGED",
        "input-type-changed",
        "signature",
        "The input binds to another type parameter or concrete type: the set of valid models changes.",
        _V1 + "    inputs:\n      - {name: scale, type: T}",
        _V1 + "    inputs:\n      - {name: scale, type: T1}",
    ),
    _ChangeRule(
        "OUTPUT-ADDED",
        "output-added",
        "signature",
        "Outputs are positional; old runtimes produce fewer outputs than new models consume.",
        _V1 + "    outputs:\n      - {name: Y, type: T}",
        _V1 + "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: T1, optional: true}",
    ),
    _ChangeRule(
        "OUTPUT-REMOVED",
        "output-removed",
        "signature",
        "Old models that consume the output break.",
        _V1 + "    outputs:\n      - {name: Y, type: T}\n      - {name: mean, type: T}",
        _V1 + "    outputs:\n      - {name: Y, type: T}",
    ),
    _ChangeRule(
        "OUTPUT-RENAMED",
        "output-renamed",
        "signature",
        "Outputs are positional on the wire, but generated APIs and docs use the name.",
        _V1 + "    outputs:\n      - {name: Y, type: T}",
        _V1 + "    outputs:\n      - {name: output, type: T}",
    ),
    _ChangeRule(
        "OUTPUT-REORDERED",
        "outputs-reordered",
        "signature",
        "Outputs are positional: consumers read the wrong values.",
        _V1 + "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: T1}",
        _V1 + "    outputs:\n      - {name: mask, type: T1}\n      - {name: Y, type: T}",
    ),
    _ChangeRule(
        "OUTPUT-OPTION-CHANGED",
        "output-option-changed",
        "signature",
        "Whether an output is always produced is part of the contract consumers rely on.",
        _V1 + "    outputs:\n      - {name: Y_h, type: T}",
        _V1 + "    outputs:\n      - {name: Y_h, type: T, optional: true}",
    ),
    _ChangeRule(
        "OUTPUT-ARITY-CHANGED",
        "output-arity-changed",
        "signature",
        "A variadic output's homogeneity or min_arity decides how many values consumers get.",
        _V1 + "    outputs:\n      - {name: outputs, type: T, option: variadic}",
        _V1 + "    outputs:\n      - {name: outputs, type: T, option: variadic, homogeneous: false}",
    ),
    _ChangeRule(
        "OUTPUT-TYPE-CHANGED",
        "output-type-changed",
        "signature",
        "The output's type changes: consumers inferred or declared the old one.",
        _V1 + "    outputs:\n      - {name: Y, type: T}",
        _V1 + "    outputs:\n      - {name: Y, type: tensor(float)}",
    ),
    _ChangeRule(
        "TYPE-PARAM-ADDED",
        "type-param-added",
        "types",
        "A new type parameter changes how inputs and outputs are typed together.",
        _V1 + "    type_constraints:\n      T: {allowed: '@float_types'}",
        _V1
        + "    type_constraints:\n      T: {allowed: '@float_types'}\n      T1: {allowed: [tensor(int64)]}",
    ),
    _ChangeRule(
        "TYPE-PARAM-REMOVED",
        "type-param-removed",
        "types",
        "Removing a type parameter changes how inputs and outputs are typed together.",
        _V1
        + "    type_constraints:\n      T: {allowed: '@float_types'}\n      T1: {allowed: [tensor(int64)]}",
        _V1 + "    type_constraints:\n      T: {allowed: '@float_types'}",
    ),
    _ChangeRule(
        "TYPE-PARAM-RENAMED",
        "type-param-renamed",
        "types",
        "The allowed types are the same, but generated APIs and docs name the parameter. Uses of "
        "the parameter by inputs/outputs follow the rename and are not reported again.",
        _V1 + "    type_constraints:\n      T: {allowed: '@float_types'}",
        _V1 + "    type_constraints:\n      T1: {allowed: '@float_types'}",
    ),
    _ChangeRule(
        "TYPE-ADDED",
        "type-added",
        "types",
        "Models using the new type do not run on old runtimes (FC). This also happens when a "
        "domain type set the constraint uses gains a type: every operator using the set changes "
        "(see TYPE-SET-CHANGED).",
        _V1 + "    type_constraints:\n      T: {allowed: [tensor(float)]}",
        _V1 + "    type_constraints:\n      T: {allowed: [tensor(float), tensor(bfloat16)]}",
    ),
    _ChangeRule(
        "TYPE-REMOVED",
        "type-removed",
        "types",
        "Existing models using the type no longer validate (BC), also when the type leaves a "
        "shared type set.",
        _V1 + "    type_constraints:\n      T: {allowed: [tensor(float), tensor(bool)]}",
        _V1 + "    type_constraints:\n      T: {allowed: [tensor(float)]}",
    ),
    _ChangeRule(
        "STATUS-CHANGED",
        "status-demoted",
        "versioning",
        "A stable version turned experimental loses its compatibility promise. (Experimental "
        "versions are exempt from the gate, so promoting one to stable is not reported.)",
        _V1 + "    status: stable",
        _V1 + "    status: experimental",
    ),
)


def _change_title(kind: str) -> str:
    text = KINDS[kind]
    return text[0].upper() + text[1:] + " in a released operator version."


def _register_change_rule(spec: _ChangeRule) -> None:
    _breaking, bc, fc = kind_defaults(spec.kind)

    def check(ctx: DiffContext) -> Iterator[Hit]:
        for edit in ctx.edits:
            for change in edit.changes:
                if change.kind == spec.kind:
                    yield change_hit(ctx, edit, change)

    compat_rule(
        spec.kind,
        name=spec.name,
        severity=Severity.ERROR,
        bc=bc,
        fc=fc,
        category=spec.category,
        summary=_change_title(spec.kind),
        doc=rule_doc(spec.why, spec.before, spec.after, _FIX_BUMP),
    )(check)


def change_hit(ctx: DiffContext, edit: Edit, change: SchemaChange) -> Hit:
    return Hit(
        operator=edit.new.id,
        message=f"{change.message} in released version {edit.new.id}",
        location=change.new_location,
        old_location=change.old_location,
        hint=ctx.bump_hint(edit.new),
        subject=change.subject,
        key=(change.old, change.new),
        bc=change.bc,
        fc=change.fc,
    )


for _spec in _CHANGE_RULES:
    _register_change_rule(_spec)


# --------------------------------------------------------------------------- versioning rules


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
        _V1 + "    inputs:\n      - {name: X, type: T}",
        _V1 + "    inputs:\n      - {name: X, type: T, differentiability: differentiable}",
        _FIX_BUMP,
    ),
)
def version_modified(ctx: DiffContext) -> Iterator[Hit]:
    for edit in ctx.edits:
        other = [c for c in edit.changes if not c.breaking and c.kind != "DOC-CHANGED"]
        if other:
            yield Hit(
                edit.new.id,
                f"released version {edit.new.id} modified in place: " + "; ".join(c.message for c in other),
                edit.new.location,
                edit.old.location,
                ctx.bump_hint(edit.new),
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
        _V1 + "    # ...\n  - since_version: 3\n    # ...",
        _V1 + "    # ...  (version 3 deleted)",
        "restore the version; to retire the operator set `removed_in:` to a new opset version.",
    ),
)
def version_removed(ctx: DiffContext) -> Iterator[Hit]:
    for schema, spec in ctx.removed_versions:
        yield Hit(
            schema.id,
            f"released version {schema.id} was deleted",
            spec.location,
            schema.location,
            f"restore {schema.id}; to retire {spec.name} set `removed_in: {ctx.next_opset(spec.domain)}`",
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
        "# domain.yaml: opset_versions 1..3\n" + _V1,
        "versions:\n  - since_version: 1\n  - since_version: 3        # opset 3 already released",
        "use `since_version: N+1` where N is the latest released opset version, and declare "
        "opset N+1 in domain.yaml.",
    ),
)
def version_not_new_opset(ctx: DiffContext) -> Iterator[Hit]:
    for bump in ctx.bumps:
        if bump.in_new_opset or bump.new_operator or bump.schema.experimental:
            continue
        n = ctx.next_opset(bump.schema.domain)
        yield Hit(
            bump.schema.id,
            f"new version {bump.schema.id} uses since_version {bump.schema.since_version}, an opset version "
            f"that is already released (latest is {n - 1})",
            bump.schema.location,
            bump.previous.location if bump.previous else None,
            f"set `since_version: {n}` and declare opset {n} in domain.yaml",
        )


# --------------------------------------------------------------------------- inventory rules


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
def opset_op_added(ctx: DiffContext) -> Iterator[Hit]:
    for spec in ctx.added_operators:
        first = spec.versions[0] if spec.versions else None
        if first is None or is_exempt(spec) or first.since_version > ctx.old_max(spec.domain):
            continue
        yield Hit(
            first.id,
            f"operator {display_domain(spec.domain)}.{spec.name} added with since_version "
            f"{first.since_version}, an already released opset version",
            first.location,
            None,
            f"use `since_version: {ctx.next_opset(spec.domain)}` for the first version",
        )
    for old, new in ctx.kept_operators:
        # un-removing: the operator reappears in opsets released without it
        old_max = ctx.old_max(new.domain)
        reappears = new.removed_in is None or (old.removed_in is not None and new.removed_in > old.removed_in)
        if old.removed_in is not None and old.removed_in <= old_max and not is_exempt(new) and reappears:
            yield Hit(
                f"{display_domain(new.domain)}.{new.name}",
                f"operator {new.name} was removed in opset {old.removed_in} and now reappears there",
                new.location,
                old.location,
                f"keep `removed_in: {old.removed_in}`; to bring it back add a version with since_version "
                f"{ctx.next_opset(new.domain)}",
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
def opset_op_removed(ctx: DiffContext) -> Iterator[Hit]:
    for spec in ctx.removed_operators:
        if is_exempt(spec) or not spec.versions or spec.versions[0].since_version > ctx.old_max(spec.domain):
            continue
        yield Hit(
            f"{display_domain(spec.domain)}.{spec.name}",
            f"operator {display_domain(spec.domain)}.{spec.name} was deleted from released opsets",
            ctx.domain_location(spec.domain),
            spec.location,
            f"restore {spec.location.file} and set `removed_in: {ctx.next_opset(spec.domain)}` instead",
        )
    for old, new in ctx.kept_operators:
        old_max = ctx.old_max(new.domain)
        if new.removed_in is None or is_exempt(new) or new.removed_in > old_max:
            continue
        if old.removed_in is not None and old.removed_in <= new.removed_in:
            continue  # unchanged (or un-removal, see OPSET-OP-ADDED)
        yield Hit(
            f"{display_domain(new.domain)}.{new.name}",
            f"operator {new.name} removed in opset {new.removed_in}, which is already released",
            new.location,
            old.location,
            f"set `removed_in: {ctx.next_opset(new.domain)}` (a new opset version)",
            key=(old.removed_in, new.removed_in),
        )


@compat_rule(
    "OPSET-REMOVED",
    name="opset-version-removed",
    severity="error",
    bc=True,
    fc=True,
    category="inventory",
    summary="A released opset version (or a whole domain) was removed.",
    doc=rule_doc(
        "Models declare opset versions in their opset_import; a removed version makes them unloadable.",
        "opset_versions:\n  - {version: 1, ir_version: 8}\n  - {version: 2, ir_version: 9}",
        "opset_versions:\n  - {version: 1, ir_version: 8}",
        "restore the opset version; opset versions are append-only.",
    ),
)
def opset_removed(ctx: DiffContext) -> Iterator[Hit]:
    for old, new in ctx.domain_pairs:
        if old is None:
            continue
        if new is None:
            yield Hit(
                old.display_name,
                f"domain {old.display_name} (opset versions {_ranges(old.versions)}) was removed",
                old.location,
                old.location,
                f"restore {old.location.file}",
            )
            continue
        gone = [v for v in old.opset_versions if new.opset(v.version) is None]
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
def opset_ir_changed(ctx: DiffContext) -> Iterator[Hit]:
    for old, new in ctx.domain_pairs:
        if old is None or new is None:
            continue
        for opset in old.opset_versions:
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


@compat_rule(
    "TYPE-SET-CHANGED",
    name="type-set-changed",
    severity="info",
    bc=True,
    fc=True,
    category="types",
    summary="A domain type set changed; names every released operator version that uses it.",
    doc=rule_doc(
        "Type sets are expanded into every constraint that references them, so editing one edits "
        "every operator version using it in place (each is reported as TYPE-ADDED / TYPE-REMOVED). "
        "This finding names them all in one place.",
        "type_sets:\n  float_types: [tensor(float16), tensor(float)]",
        "type_sets:\n  float_types: [tensor(float16), tensor(float), tensor(bfloat16)]",
        "leave the released set alone and define a new set (e.g. `float_types_v2`) for new versions.",
    ),
)
def type_set_changed(ctx: DiffContext) -> Iterator[Hit]:
    for old, new in ctx.domain_pairs:
        if old is None or new is None:
            continue
        new_sets = dict(new.type_sets)
        for name, types in old.type_sets:
            now = new_sets.get(name)
            if now is None or set(now) == set(types):
                continue
            users = sorted(
                schema.id
                for spec in ctx.old.operators(old.name)
                for schema in spec.versions
                if not schema.experimental
                and schema.since_version <= old.max_version
                and any(name in c.type_sets for c in schema.type_constraints)
            )
            added = [t for t in now if t not in types]
            removed = [t for t in types if t not in now]
            delta = ", ".join([f"+{t}" for t in added] + [f"-{t}" for t in removed])
            yield Hit(
                new.display_name,
                f"type set `@{name}` changed ({delta}); affects {len(users)} released operator version(s): "
                + (", ".join(users) if users else "none"),
                new.type_set_location(name),
                old.type_set_location(name),
                f"define a new type set for new versions and keep `@{name}` unchanged" if users else "",
                subject=name,
                key=(tuple(types), tuple(now)),
            )


# --------------------------------------------------------------------------- lifecycle rules


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
def deprecated_without_replacement(ctx: DiffContext) -> Iterator[Hit]:
    for pair in ctx.operator_pairs:
        new = pair.new
        if new is None or new.replaced_by or not new.versions or not new.versions[-1].deprecated:
            continue
        old_latest = pair.old.versions[-1] if pair.old and pair.old.versions else None
        if old_latest is not None and old_latest.deprecated and pair.old and not pair.old.replaced_by:
            continue  # already so in the old tree: not this change's doing
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
def removed_without_replacement(ctx: DiffContext) -> Iterator[Hit]:
    for old, new in ctx.kept_operators:
        if new.removed_in is None or new.replaced_by or old.removed_in == new.removed_in:
            continue
        yield Hit(
            f"{display_domain(new.domain)}.{new.name}",
            f"{display_domain(new.domain)}.{new.name} is removed in opset {new.removed_in} "
            "but names no replacement",
            new.location,
            old.location,
            "add `replaced_by: OTHER_OP` to the operator file",
        )


# --------------------------------------------------------------------------- docs


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
        _V1 + "    doc: Adds two tensors.",
        _V1 + "    doc: Adds two tensors element-wise, with Numpy-style broadcasting.",
        "nothing to fix; make sure the edit clarifies and does not change behaviour.",
    ),
)
def doc_changed(ctx: DiffContext) -> Iterator[Hit]:
    for edit in ctx.edits:
        docs = [c for c in edit.changes if c.kind == "DOC-CHANGED"]
        if docs:
            subjects = [c.subject or "operator" for c in docs]
            yield Hit(
                edit.new.id,
                f"documentation of {edit.new.id} changed ({', '.join(subjects)})",
                docs[0].new_location,
                docs[0].old_location,
                "",
                key=tuple((c.subject, c.new) for c in docs),
            )


# --------------------------------------------------------------------------- config (engine-emitted)


def _emitted_by_engine(ctx: DiffContext) -> Iterator[Hit]:
    return iter(())


compat_rule(
    "ALLOWLIST-EXPIRED",
    name="allowlist-entry-expired",
    severity="error",
    bc=False,
    fc=False,
    category="config",
    summary="An allowlist entry is past its expiry date.",
    doc=(
        "**Why:** allowlists rot: entries outlive the reason they were added for (pytorch #81983). "
        "An expired entry no longer silences anything and is itself an error.\n\n"
        '**Before:**\n\n```toml\n[[tool.opset-toolkit.allowlist]]\nrule = "ATTR-ADDED"\n'
        'operator = "com.acme.vision.Resize:2"\nreason = "..."\nexpires = 2024-01-31\n```\n\n'
        "**After:** the entry is deleted (the change was fixed) or re-justified with a new date.\n\n"
        "**How to fix:** remove the entry, or extend `expires` with a reason that still holds."
    ),
)(_emitted_by_engine)

compat_rule(
    "ALLOWLIST-UNUSED",
    name="allowlist-entry-unused",
    severity="warning",
    bc=False,
    fc=False,
    category="config",
    summary="An allowlist entry matches no finding.",
    doc=(
        "**Why:** an entry that silences nothing is stale and may later hide a new, unrelated "
        "finding for the same operator.\n\n"
        '**Before:**\n\n```toml\n[[tool.opset-toolkit.allowlist]]\nrule = "TYPE-ADDED"\n'
        'operator = "com.acme.vision.Resize:2"\n```\n\n'
        "**After:** the entry is deleted.\n\n"
        "**How to fix:** delete the entry (or add `fingerprint` to pin it to one finding)."
    ),
)(_emitted_by_engine)


def _ranges(versions: tuple[int, ...]) -> str:
    if not versions:
        return "none"
    return f"{versions[0]}-{versions[-1]}" if len(versions) > 1 else str(versions[0])
