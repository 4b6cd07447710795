"""Release notes between two trees (`opset changelog`): every change, grouped by domain and
operator, breaking first, from the gate's own pairing and change detection (`DiffContext`: the
operator pairs' in-place edits, new versions and removed versions, each with the change model's
`SchemaChange`s and their BC/FC flags), not from a second diff.

Each entry has a level, from its BC/FC flags as the gate's profiles read them
(`toolkit.model.change_compat.finding_class`):

- `breaking`: old models may fail on the new tree (BC), e.g. a type removed from a released
  version, an operator removed, a new version in an already released opset;
- `forward-incompatible`: only new models on old runtimes may fail (FC), e.g. a type or an
  optional attribute added to a released version, an operator added to a released opset;
- `non-breaking`: neither, e.g. a new version in a new opset, documentation, a change to an
  opset that was not released yet.

A new version in a new opset is additive, whatever it changed from the version before it; its
entry lists those changes (with the flags of moving a node to it). Documentation changes of one
version are summarised in one entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from toolkit.compat.engine import DiffContext
from toolkit.compat.pairs import DomainPair, NewVersion, OperatorPair
from toolkit.compat.rules.functions import function_change
from toolkit.compat.rules.shapes import shape_rule_changes
from toolkit.model.change_compat import BREAKS_BC, BREAKS_NEITHER, finding_class
from toolkit.model.change_kinds import SchemaChange
from toolkit.model.diagnostics import escape, escape_fields
from toolkit.model.node_moves import upgrade_blockers
from toolkit.model.spec import NOWHERE, Location, OpSchema, display_domain

BREAKING, FORWARD, NON_BREAKING = "breaking", "forward-incompatible", "non-breaking"
LEVELS = (BREAKING, FORWARD, NON_BREAKING)  # the order entries are listed in


@dataclass(frozen=True)
class Entry:
    kind: str  # a change kind (`SchemaChange.kind`) or one of the changelog's own (VERSION-ADDED, ...)
    level: str
    subject: str  # `domain.Op:since`, `domain.Op` or the domain
    message: str
    location: Location = NOWHERE
    bc: bool = False
    fc: bool = False
    details: tuple[str, ...] = ()  # a new version: what it changed from the one before

    def __post_init__(self) -> None:
        # Messages quote names and values of the trees: held escaped, as a Diagnostic's are.
        escape_fields(self, ("subject", "message"))
        details = tuple(escape(detail) for detail in self.details)
        if details != self.details:
            object.__setattr__(self, "details", details)


@dataclass
class OperatorChanges:
    name: str
    entries: list[Entry] = field(default_factory=list)


@dataclass
class DomainChanges:
    name: str  # display name
    entries: list[Entry] = field(default_factory=list)  # the domain's own (opset versions)
    operators: list[OperatorChanges] = field(default_factory=list)


@dataclass
class Changelog:
    against: str
    domains: list[DomainChanges]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(LEVELS, 0)
        for entry in self.entries():
            out[entry.level] += 1
        return out

    def entries(self) -> Iterator[Entry]:
        for domain in self.domains:
            yield from domain.entries
            for op in domain.operators:
                yield from op.entries


def level_of(kind: str, bc: bool, fc: bool) -> str:
    cls = finding_class(kind, bc, fc)
    return BREAKING if cls == BREAKS_BC else NON_BREAKING if cls == BREAKS_NEITHER else FORWARD


def changelog(ctx: DiffContext) -> Changelog:
    """Every change between the trees of `ctx`, grouped by domain and operator, breaking first."""
    by_domain: dict[str, DomainChanges] = {}
    for domain in ctx.changed_domains:
        entries = list(_domain_entries(domain))
        if entries:
            by_domain[domain.name] = DomainChanges(display_domain(domain.name), entries)
    for pair in ctx.changed_operator_pairs:
        entries = list(_operator_entries(pair))
        if not entries:
            continue
        name = pair.domain.name
        holder = by_domain.setdefault(name, DomainChanges(display_domain(name)))
        holder.operators.append(OperatorChanges(pair.any.name, entries))
    domains = sorted(by_domain.values(), key=lambda d: (_worst(_all(d)), d.name))
    for changes in domains:
        changes.entries.sort(key=_entry_key)
        for op in changes.operators:
            op.entries.sort(key=_entry_key)
        changes.operators.sort(key=lambda o: (_worst(o.entries), o.name))
    return Changelog(ctx.old_label, domains)


def _all(domain: DomainChanges) -> list[Entry]:
    return [*domain.entries, *(e for op in domain.operators for e in op.entries)]


def _worst(entries: Iterable[Entry]) -> int:
    return min((LEVELS.index(e.level) for e in entries), default=len(LEVELS))


def _entry_key(entry: Entry) -> int:
    return LEVELS.index(entry.level)  # stable: the detection order within a level


# --------------------------------------------------------------------------- domains


def _domain_entries(pair: DomainPair) -> Iterator[Entry]:
    name = display_domain(pair.name)
    if pair.old is None and pair.new is not None:
        yield Entry(
            "DOMAIN-ADDED",
            NON_BREAKING,
            name,
            f"domain added (opsets {_ints(pair.new.versions)})",
            pair.location,
        )
        return
    if pair.new is None and pair.old is not None:
        yield Entry("DOMAIN-REMOVED", BREAKING, name, "domain removed", pair.location, bc=True)
        return
    assert pair.old is not None and pair.new is not None
    added = [v for v in pair.new.versions if v not in pair.old.versions]
    removed = [v for v in pair.old.versions if v not in pair.new.versions]
    if added:
        yield Entry("OPSET-ADDED", NON_BREAKING, name, f"opset {_ints(added)} added", pair.location)
    if removed:
        yield Entry(
            "OPSET-REMOVED", BREAKING, name, f"opset {_ints(removed)} removed", pair.location, bc=True
        )
    for version in pair.old.versions:
        before, after = pair.old.opset(version), pair.new.opset(version)
        if before is not None and after is not None and before.ir_version != after.ir_version:
            released = version <= pair.released_max
            yield Entry(
                "OPSET-IR-CHANGED",
                BREAKING if released else NON_BREAKING,
                name,
                f"opset {version}: IR version {before.ir_version} -> {after.ir_version}",
                pair.location,
                bc=released,
                fc=released,
            )


# --------------------------------------------------------------------------- operators


def _operator_entries(pair: OperatorPair) -> Iterator[Entry]:
    domain = display_domain(pair.domain.name)
    op = pair.any
    ref = f"{domain}.{op.name}"
    released = pair.domain.released_max
    if pair.old is None:
        first = op.versions[0].since_version if op.versions else 0
        fc = 0 < first <= released  # added to an opset that already shipped: OPSET-OP-ADDED
        sinces = ", ".join(str(v.since_version) for v in op.versions)
        yield Entry(
            "OPERATOR-ADDED",
            level_of("OPSET-OP-ADDED", False, fc),
            ref,
            f"operator added (version{'s' if len(op.versions) > 1 else ''} {sinces})",
            op.location,
            fc=fc,
        )
        return
    if pair.new is None:
        yield Entry("OPERATOR-REMOVED", BREAKING, ref, "operator removed", op.location, bc=True)
        return
    old, new = pair.old, pair.new
    if old.removed_in != new.removed_in and new.removed_in is not None:
        yield Entry(
            "OPERATOR-RETIRED", NON_BREAKING, ref, f"removed from opset {new.removed_in} on", new.location
        )
    if old.replaced_by != new.replaced_by and new.replaced_by:
        yield Entry("REPLACEMENT-NAMED", NON_BREAKING, ref, f"replaced by {new.replaced_by}", new.location)
    for edit in pair.all_edits:
        yield from _change_entries(edit.new, edit.changes, edit.released)
    yield from _function_edits(pair)
    yield from _shape_edits(pair)
    for bump in pair.bumps:
        yield _bump_entry(bump)
    for version in pair.removed_versions:
        yield Entry(
            "VERSION-REMOVED", BREAKING, version.id, "released version removed", version.location, True, True
        )


def _change_entries(schema: OpSchema, changes: Iterable[SchemaChange], released: bool) -> Iterator[Entry]:
    """An in-place edit's changes; its documentation changes as one entry. An edit of a version
    no released opset has yet is non-breaking whatever it changed."""
    docs = []
    for change in changes:
        if change.kind == "DOC-CHANGED":
            docs.append(change)
            continue
        level = level_of(change.kind, change.bc, change.fc) if released else NON_BREAKING
        where = "" if released else " (not released yet)"
        yield Entry(
            change.kind, level, schema.id, change.message + where, change.new_location, change.bc, change.fc
        )
    if docs:
        yield Entry("DOC-CHANGED", NON_BREAKING, schema.id, _docs_message(docs), docs[0].new_location)


def _function_edits(pair: OperatorPair) -> Iterator[Entry]:
    for old, schema in pair.kept_versions:
        what = function_change(old, schema)
        if what is None:
            continue
        released = pair.domain.released(old)
        yield Entry(
            "FUNCTION-BODY-CHANGED",
            BREAKING if released else NON_BREAKING,
            schema.id,
            what + ("" if released else " (not released yet)"),
            (schema.function or schema).location,
            released,
            released,
        )


def _shape_edits(pair: OperatorPair) -> Iterator[Entry]:
    """In-place edits of shape rules: changing one of a released version is breaking, giving one
    where there was none is not (SHAPE-RULE-CHANGED, SHAPE-RULE-ADDED)."""
    for old, schema in pair.kept_versions:
        released = pair.domain.released(old)
        for change in shape_rule_changes(old, schema):
            breaking = released and not change.added
            yield Entry(
                "SHAPE-RULE-ADDED" if change.added else "SHAPE-RULE-CHANGED",
                BREAKING if breaking else NON_BREAKING,
                schema.id,
                change.message + ("" if released else " (not released yet)"),
                change.location,
                breaking,
                breaking,
            )


def _bump_entry(bump: NewVersion) -> Entry:
    schema, previous = bump.schema, bump.previous
    details: list[str] = []
    if previous is not None:
        signature = [c for c in bump.changes if c.kind != "DOC-CHANGED"]
        details = [_flagged(c) for c in signature]
        docs = [c for c in bump.changes if c.kind == "DOC-CHANGED"]
        if docs:
            details.append(_docs_message(docs))
        what = function_change(previous, schema)
        if what is not None:
            details.append(what)
        details += [change.message for change in shape_rule_changes(previous, schema)]
        blockers = upgrade_blockers(bump.changes)
        details.append(
            "old nodes move to it unchanged"
            if not blockers
            else "old nodes need an adapter"
            + (" (declared)" if schema.adapter and schema.adapter.upgrade else "")
        )
    since = schema.since_version
    if bump.in_new_opset or bump.new_operator:
        text = f"new version {schema.id} (opset {since})"
        return Entry("VERSION-ADDED", NON_BREAKING, schema.id, text, schema.location, details=tuple(details))
    text = f"new version {schema.id} in the already released opset {since}"
    return Entry("VERSION-ADDED", BREAKING, schema.id, text, schema.location, True, True, tuple(details))


def _flagged(change: SchemaChange) -> str:
    flags = ", ".join(name for name, on in (("BC", change.bc), ("FC", change.fc)) if on)
    return change.message + (f" (breaks {flags})" if flags else "")


def _docs_message(docs: list[SchemaChange]) -> str:
    subjects = list(dict.fromkeys(c.subject or "operator" for c in docs))
    return f"documentation changed ({', '.join(subjects)})"


def _ints(values: Iterable[int]) -> str:
    return ", ".join(str(v) for v in values)
