"""The diff engine: two registries (old tree, new tree) -> findings of the registered rules.

The law (ONNX Versioning.md, PyTorch's operator-versioning RFC): a released operator version
never changes; a breaking change is legal only as a new operator version whose since_version
is an open opset version (after every released one); any change to a released opset's
inventory needs a new opset version. Experimental operators are exempt. What is released is
`toolkit.model.released` (the old tree's release table, else every opset of the old tree).

`DiffContext` pairs the two trees once (in-place edits, version bumps, added/removed operators
and versions, changed opsets and type sets); every rule of `toolkit.compat.rules` reads it and
yields `Hit`s, which `run_rules` turns into `Finding`s (rule id, severity, fingerprint) and
filters through the gate configuration (profile, severities, allowlist).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from toolkit.model.changes import SchemaChange, diff_schemas
from toolkit.model.diagnostics import Severity
from toolkit.model.released import released_through
from toolkit.model.rules import Rule
from toolkit.model.spec import NOWHERE, DomainSpec, Location, OperatorSpec, OpSchema, display_domain
from toolkit.registry.core import Registry


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

    @property
    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.rule, self.operator, self.message)


def fingerprint(rule: str, operator: str, subject: str, key: tuple[object, ...]) -> str:
    """Stable identity of a finding: no line numbers, no file names, no unrelated content."""
    text = json.dumps([rule, operator, subject, list(key)], default=repr, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# --------------------------------------------------------------------------- the pairing


@dataclass(frozen=True, slots=True)
class Edit:
    """A version present in both trees (same since_version) whose content differs."""

    old: OpSchema
    new: OpSchema
    changes: tuple[SchemaChange, ...]
    released: bool  # since_version <= the old tree's newest released opset version (released_max)


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A version only the new tree has (a version bump); `previous` is the version before it in
    the new tree. (Not `Bump`: that name is model-diff's semver level.)"""

    schema: OpSchema
    previous: OpSchema | None
    changes: tuple[SchemaChange, ...]  # previous -> schema ("what this version changed")
    in_new_opset: bool  # since_version > every released opset version (an open opset)
    new_operator: bool  # the old tree has no such operator


@dataclass(frozen=True, slots=True)
class OperatorPair:
    old: OperatorSpec | None
    new: OperatorSpec | None

    @property
    def any(self) -> OperatorSpec:
        spec = self.new or self.old
        assert spec is not None
        return spec


@dataclass
class DiffContext:
    old: Registry
    new: Registry
    options: Mapping[str, object] = field(default_factory=dict)
    old_label: str = "old tree"

    # -- per domain ---------------------------------------------------------------------

    def old_max(self, domain: str) -> int:
        """The old tree's latest opset version of `domain` (0 when the domain is new)."""
        return self.old.domain(domain).max_version if self.old.has_domain(domain) else 0

    def released_max(self, domain: str) -> int:
        """The newest released opset version of `domain` in the old tree (0 when the domain is
        new): with the old tree's release table, the newest version a row ships; without one,
        every opset of the old tree (`toolkit.model.released`). Versions after it are open."""
        if not self.old.has_domain(domain):
            return 0
        return released_through(self.old.domain(domain), self.old.releases)

    def next_opset(self, domain: str) -> int:
        """The first open opset version: where a change to a released version must go."""
        return self.released_max(domain) + 1

    def new_domain(self, domain: str) -> DomainSpec | None:
        return self.new.domain(domain) if self.new.has_domain(domain) else None

    def old_domain(self, domain: str) -> DomainSpec | None:
        return self.old.domain(domain) if self.old.has_domain(domain) else None

    def domain_location(self, domain: str) -> Location:
        spec = self.new_domain(domain) or self.old_domain(domain)
        return spec.location if spec is not None else NOWHERE

    @cached_property
    def domain_pairs(self) -> list[tuple[DomainSpec | None, DomainSpec | None]]:
        names = sorted(set(self.old.domains()) | set(self.new.domains()))
        return [(self.old_domain(n), self.new_domain(n)) for n in names]

    def _type_sets(self, domain: DomainSpec | None) -> dict[str, tuple[str, ...]]:
        return dict(domain.type_sets) if domain is not None else {}

    # -- per operator -------------------------------------------------------------------

    @cached_property
    def operator_pairs(self) -> list[OperatorPair]:
        old = {(o.domain, o.name): o for o in self.old.specs.operators}
        new = {(o.domain, o.name): o for o in self.new.specs.operators}
        return [OperatorPair(old.get(k), new.get(k)) for k in sorted(set(old) | set(new))]

    @cached_property
    def _pairing(self) -> tuple[list[Edit], list[NewVersion], list[tuple[OpSchema, OperatorSpec]]]:
        edits: list[Edit] = []
        bumps: list[NewVersion] = []
        removed: list[tuple[OpSchema, OperatorSpec]] = []
        for pair in self.operator_pairs:
            domain = pair.any.domain
            released = self.released_max(domain)
            old_sets = self._type_sets(self.old_domain(domain))
            new_sets = self._type_sets(self.new_domain(domain))
            old_versions = {v.since_version: v for v in pair.old.versions} if pair.old else {}
            if pair.new is None:
                continue
            previous: OpSchema | None = None
            for schema in pair.new.versions:
                before = old_versions.get(schema.since_version)
                if before is None:
                    changes = (
                        diff_schemas(previous, schema, old_type_sets=new_sets, new_type_sets=new_sets)
                        if previous is not None
                        else []
                    )
                    bumps.append(
                        NewVersion(
                            schema, previous, tuple(changes), schema.since_version > released, pair.old is None
                        )
                    )
                elif before != schema:
                    changes = diff_schemas(before, schema, old_type_sets=old_sets, new_type_sets=new_sets)
                    if changes:
                        edits.append(Edit(before, schema, tuple(changes), before.since_version <= released))
                previous = schema
            if pair.old is not None:
                new_since = {v.since_version for v in pair.new.versions}
                removed.extend((v, pair.new) for v in pair.old.versions if v.since_version not in new_since)
        return edits, bumps, removed

    @property
    def all_edits(self) -> list[Edit]:
        """Every version changed in place, experimental or not, released or not."""
        return self._pairing[0]

    @cached_property
    def edits(self) -> list[Edit]:
        """In-place changes of released, non-experimental versions: what the law forbids."""
        return [e for e in self._pairing[0] if e.released and not e.old.experimental]

    @property
    def bumps(self) -> list[NewVersion]:
        """The versions only the new tree has."""
        return self._pairing[1]

    @cached_property
    def removed_versions(self) -> list[tuple[OpSchema, OperatorSpec]]:
        """(old version, new operator spec) for released versions the new tree dropped."""
        return [
            (v, spec)
            for v, spec in self._pairing[2]
            if v.since_version <= self.released_max(v.domain) and not v.experimental
        ]

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
        n = self.next_opset(schema.domain)
        return (
            f"keep {schema.id} as released and add the change as a new version "
            f"`since_version: {n}` (opset {n} of {display_domain(schema.domain)}, declared in domain.yaml)"
        )


def is_exempt(spec: OperatorSpec) -> bool:
    """Experimental operators (every version experimental) are outside the versioning law."""
    return all(v.experimental for v in spec.versions)


# --------------------------------------------------------------------------- running rules


def run_rules(
    ctx: DiffContext, rules: Iterable[Rule], severities: Mapping[str, Severity]
) -> list[Finding]:
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
