"""The diff engine: two registries (old tree, new tree) -> findings of the registered rules.

The law (ONNX Versioning.md, PyTorch's operator-versioning RFC): a released operator version
never changes; a breaking change is legal only as a new operator version whose since_version
is an open opset version (after every released one); any change to a released opset's
inventory needs a new opset version. Experimental operators are exempt. What is released is
`toolkit.model.released` (the old tree's release table, else every opset of the old tree).

`DiffContext` pairs the two trees once: domains, operators and type sets
(`toolkit.compat.pairs`; an operator pair knows its in-place edits, version bumps and removed
versions). A rule's check is a handler of one kind of pair, which the engine calls for each
pair whose sides differ, or a whole-tree handler of the context (`toolkit.compat.handlers`); it
yields `Hit`s, which `run_rules` turns into `Finding`s (rule id, severity, fingerprint) and
filters through the gate configuration (profile, severities, allowlist).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from toolkit.compat.pairs import DomainPair, Edit, NewVersion, OperatorPair, TypeSetPair, is_exempt
from toolkit.model.diagnostics import Severity, escape_fields
from toolkit.model.released import has_release_rows, released_through
from toolkit.model.rules import Rule
from toolkit.model.spec import DomainSpec, Location, OperatorSpec, OpSchema
from toolkit.registry.core import Registry

# The pairs are defined in `toolkit.compat.pairs`; plugins import them from here too.
__all__ = [
    "DiffContext",
    "DomainPair",
    "Edit",
    "Finding",
    "Hit",
    "NewVersion",
    "OperatorPair",
    "TypeSetPair",
    "fingerprint",
    "is_exempt",
    "run_rules",
]


@dataclass(frozen=True, slots=True)
class Hit:
    """What a rule check yields; the engine adds rule id, severity and fingerprint."""

    operator: str  # `domain.Op:since`, `domain.Op` or a domain name for domain-level findings
    message: str
    location: Location
    old_location: Location | None = None
    hint: str = ""
    subject: str = ""
    key: tuple[object, ...] = ()  # extra identity for the fingerprint (old/new values)
    bc: bool | None = None  # None: the rule's classification
    fc: bool | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    severity: Severity
    operator: str
    message: str
    hint: str
    location: Location
    old_location: Location | None
    fingerprint: str
    subject: str = ""
    bc: bool = True
    fc: bool = True
    allowed_by: str = ""  # the allowlist entry's reason when allowlisted

    def __post_init__(self) -> None:
        # Messages quote names and values of the trees: printed as a Diagnostic's are (escaped).
        escape_fields(self, ("operator", "message", "subject", "allowed_by"), ("hint",))

    @property
    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.rule, self.operator, self.message)


def fingerprint(rule: str, operator: str, subject: str, key: tuple[object, ...]) -> str:
    """Stable identity of a finding: no line numbers, no file names, no unrelated content."""
    text = json.dumps([rule, operator, subject, list(key)], default=repr, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- the pairing


@dataclass
class DiffContext:
    """The two trees paired once: per domain, per operator and per type set (the pairs of
    `toolkit.compat.pairs`, which pair handlers get one at a time), and the whole-tree views a
    whole-tree handler reads (`edits`, `bumps`, ..., each the pairs' lists in pair order)."""

    old: Registry
    new: Registry
    options: Mapping[str, object] = field(default_factory=dict)
    old_label: str = "old tree"
    _domains: dict[str, DomainPair] = field(default_factory=dict, init=False, repr=False)

    # -- per domain ---------------------------------------------------------------------

    def domain(self, name: str) -> DomainPair:
        """The pair of domain `name` (both sides None when neither tree has a domain file)."""
        pair = self._domains.get(name)
        if pair is None:
            old, new = self.old_domain(name), self.new_domain(name)
            released = released_through(old, self.old.releases) if old is not None else 0
            table = has_release_rows(self.old.releases, name)
            pair = self._domains[name] = DomainPair(
                name, old, new, released, self.options, release_table=table, base=self.old_label
            )
        return pair

    @cached_property
    def domains(self) -> list[DomainPair]:
        """Every domain of either tree, by name."""
        return [self.domain(n) for n in sorted(set(self.old.domains()) | set(self.new.domains()))]

    def old_max(self, domain: str) -> int:
        """The old tree's latest opset version of `domain` (0 when the domain is new)."""
        return self.domain(domain).old_max

    def released_max(self, domain: str) -> int:
        """The newest released opset version of `domain` in the old tree (0 when the domain is
        new): with the old tree's release table, the newest version a row ships; without one,
        every opset of the old tree (`toolkit.model.released`). Versions after it are open."""
        return self.domain(domain).released_max

    def next_opset(self, domain: str) -> int:
        """The first open opset version: where a change to a released version must go."""
        return self.domain(domain).next_opset

    def new_domain(self, domain: str) -> DomainSpec | None:
        return self.new.domain(domain) if self.new.has_domain(domain) else None

    def old_domain(self, domain: str) -> DomainSpec | None:
        return self.old.domain(domain) if self.old.has_domain(domain) else None

    def domain_location(self, domain: str) -> Location:
        return self.domain(domain).location

    @cached_property
    def changed_domains(self) -> list[DomainPair]:
        return [pair for pair in self.domains if pair.changed]

    @property
    def domain_pairs(self) -> list[tuple[DomainSpec | None, DomainSpec | None]]:
        return [(pair.old, pair.new) for pair in self.domains]

    @cached_property
    def type_set_pairs(self) -> list[TypeSetPair]:
        """The type sets of the domains both trees have, the old tree's sets first (in its
        order), then the sets only the new tree has."""
        out: list[TypeSetPair] = []
        for domain in self.domains:
            if domain.old is None or domain.new is None:
                continue
            old_sets, new_sets = dict(domain.old.type_sets), dict(domain.new.type_sets)
            for name in [*old_sets, *(n for n in new_sets if n not in old_sets)]:
                before, now = old_sets.get(name), new_sets.get(name)
                users = () if before == now else self._set_users(domain.name, name)
                out.append(TypeSetPair(name, before, now, users, domain))
        return out

    @cached_property
    def changed_type_set_pairs(self) -> list[TypeSetPair]:
        return [pair for pair in self.type_set_pairs if pair.changed]

    def _set_users(self, domain: str, name: str) -> tuple[OpSchema, ...]:
        return tuple(
            schema
            for spec in self.old.operators(domain)
            for schema in spec.versions
            if any(name in c.type_sets for c in schema.type_constraints)
        )

    # -- per operator -------------------------------------------------------------------

    @cached_property
    def operator_pairs(self) -> list[OperatorPair]:
        old = {(o.domain, o.name): o for o in self.old.specs.operators}
        new = {(o.domain, o.name): o for o in self.new.specs.operators}
        return [OperatorPair(old.get(k), new.get(k), self.domain(k[0])) for k in sorted(set(old) | set(new))]

    @cached_property
    def changed_operator_pairs(self) -> list[OperatorPair]:
        return [pair for pair in self.operator_pairs if pair.changed]

    @property
    def all_edits(self) -> list[Edit]:
        """Every version changed in place, experimental or not, released or not."""
        return [edit for pair in self.operator_pairs for edit in pair.all_edits]

    @cached_property
    def edits(self) -> list[Edit]:
        """In-place changes of released, non-experimental versions: what the law forbids."""
        return [edit for pair in self.operator_pairs for edit in pair.edits]

    @cached_property
    def bumps(self) -> list[NewVersion]:
        """The versions only the new tree has."""
        return [bump for pair in self.operator_pairs for bump in pair.bumps]

    @cached_property
    def removed_versions(self) -> list[tuple[OpSchema, OperatorSpec]]:
        """(old version, new operator spec) for released versions the new tree dropped."""
        return [(v, pair.new) for pair in self.operator_pairs if pair.new for v in pair.removed_versions]

    @property
    def added_operators(self) -> list[OperatorSpec]:
        return [p.new for p in self.operator_pairs if p.old is None and p.new is not None]

    @property
    def removed_operators(self) -> list[OperatorSpec]:
        return [p.old for p in self.operator_pairs if p.new is None and p.old is not None]

    @property
    def kept_operators(self) -> list[tuple[OperatorSpec, OperatorSpec]]:
        return [(p.old, p.new) for p in self.operator_pairs if p.old is not None and p.new is not None]

    # -- helpers for rules ----------------------------------------------------------------

    def bump_hint(self, schema: OpSchema) -> str:
        return self.domain(schema.domain).bump_hint(schema)


# --------------------------------------------------------------------------- running rules


def run_rules(ctx: DiffContext, rules: Iterable[Rule], severities: Mapping[str, Severity]) -> list[Finding]:
    """Run each rule's check and stamp its hits; `severities` maps rule id -> effective severity.
    Rules without a check (the allowlist's, which the gate emits itself) are skipped."""
    out: list[Finding] = []
    for rule in rules:
        if rule.check is None:
            continue
        severity = severities.get(rule.id, rule.severity)
        for hit in rule.check(ctx):
            out.append(
                Finding(
                    rule=rule.id,
                    severity=severity,
                    operator=hit.operator,
                    message=hit.message,
                    hint=hit.hint or rule.hint,
                    location=hit.location,
                    old_location=hit.old_location,
                    fingerprint=fingerprint(rule.id, hit.operator, hit.subject, hit.key),
                    subject=hit.subject,
                    bc=bool(rule.bc) if hit.bc is None else hit.bc,
                    fc=bool(rule.fc) if hit.fc is None else hit.fc,
                )
            )
    return sorted(_unique_fingerprints(out), key=lambda f: f.sort_key)


def _unique_fingerprints(findings: list[Finding]) -> Iterator[Finding]:
    """Two hits with the same identity are one finding (e.g. the same change seen twice)."""
    seen: set[str] = set()
    for finding in sorted(findings, key=lambda f: f.sort_key):
        if finding.fingerprint not in seen:
            seen.add(finding.fingerprint)
            yield finding
