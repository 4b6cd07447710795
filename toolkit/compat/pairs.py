"""The corresponding elements of two trees that gate rules compare, one pair at a time.

Like buf's breaking-change handlers, a gate rule is written for one kind of pair and the engine
(`toolkit.compat.engine.DiffContext`) iterates the pairs:

- `DomainPair`: a domain's spec in the old and the new tree, with what the gate knows about the
  domain (its released opset versions) and the profile's options;
- `OperatorPair`: an operator's spec in both trees (None on the side that lacks it), with the
  versions edited in place, the versions only the new tree has and the released ones it dropped;
- `TypeSetPair`: a type set of a domain both trees have, with the old tree's operator versions
  that name it.

A pair handler sees its pair and nothing else of the trees, and the engine never hands it a
pair whose two sides are equal (equal as model objects, which ignore source locations). That
is what lets `opset diff` skip every operator whose content did not change
(`toolkit.compat.gate_fast`). The handler types are in `toolkit.compat.handlers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from toolkit.model.changes import SchemaChange, diff_schemas
from toolkit.model.spec import NOWHERE, DomainSpec, Location, OperatorSpec, OpSchema, display_domain


@dataclass(frozen=True, slots=True)
class Edit:
    """A version present in both trees (same since_version) whose content differs."""

    old: OpSchema
    new: OpSchema
    changes: tuple[SchemaChange, ...]
    released: bool  # the old version is released (`DomainPair.released`)


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A version only the new tree has (a version bump); `previous` is the version before it in
    the new tree. (Not `Bump`: that name is model-diff's semver level.)"""

    schema: OpSchema
    previous: OpSchema | None
    changes: tuple[SchemaChange, ...]  # previous -> schema ("what this version changed")
    in_new_opset: bool  # since_version > every released opset version (an open opset)
    new_operator: bool  # the old tree has no such operator


@dataclass(frozen=True, eq=False)
class DomainPair:
    """A domain in both trees (None on the side without a domain file) and what the gate knows
    about it; every operator and type-set pair of the domain holds it as `domain`."""

    name: str
    old: DomainSpec | None
    new: DomainSpec | None
    released_max: int  # the newest released opset version in the old tree (0: nothing released)
    options: Mapping[str, object] = field(default_factory=dict)  # the profile's options
    release_table: bool = False  # the old tree's releases.yaml names the domain (it decides)
    base: str = "the old tree"  # what the old tree is, for messages: a git ref or a folder

    @property
    def old_max(self) -> int:
        """The old tree's latest opset version of the domain (0 when the domain is new)."""
        return self.old.max_version if self.old is not None else 0

    def released(self, schema: OpSchema) -> bool:
        """Whether `schema`, a version of the old tree, is released: the one test every rule
        about released versions asks (not experimental, in an opset up to `released_max`).
        `old_max` is not it: an open opset of the old tree is declared but not released."""
        return not schema.experimental and schema.since_version <= self.released_max

    @property
    def next_opset(self) -> int:
        """The first open opset version: where a change to a released version must go."""
        return self.released_max + 1

    @property
    def location(self) -> Location:
        spec = self.new or self.old
        return spec.location if spec is not None else NOWHERE

    @cached_property
    def changed(self) -> bool:
        return self.old != self.new

    def released_because(self, opset: int) -> str:
        """Why opset `opset` counts as released (`toolkit.model.released`), for a message: a
        newcomer's first edit of opset 1 must not read as if something had shipped."""
        name = display_domain(self.name)
        if self.release_table:
            return f"releases.yaml of {self.base} ships {name} up to opset {self.released_max}"
        return f"opset {opset} of {name} is in {self.base}, which has no releases.yaml naming the domain"

    def bump_hint(self, schema: OpSchema) -> str:
        """How to make the change legally: the `opset bump` command that starts the new version,
        what it adds, and, without a release table, what releases.yaml would change."""
        target, unreleased = self._bump_target()
        command = f"opset bump {display_domain(schema.domain)}.{schema.name} --opset {target}"
        declared = self.new is not None and self.new.opset(target) is not None
        where = (
            f"(opset {target}, declared in domain.yaml)" if declared else f"and opset {target} to domain.yaml"
        )
        text = (
            f"keep {schema.id} as it was and put the change into a new version: "
            f"`{command}{' --unreleased' if unreleased else ''}` adds `since_version: {target}` {where}"
        )
        if not self.release_table:
            text += (
                "; without a release table every opset version of the base counts as released: once "
                "releases.yaml (beside the domain folders) lists what your releases ship, only those "
                "opset versions are frozen"
            )
        return text

    def _bump_target(self) -> tuple[int, bool]:
        """The opset version `opset bump` accepts for the change (`toolkit.authoring.bump`): the
        first open one, or, without a release table, the newest declared one when that is later
        (bump treats every existing opset version as released unless told `--unreleased`)."""
        n = self.next_opset
        newest = self.new.max_version if self.new is not None else 0
        if self.release_table or newest < n:
            return n, False
        return newest, True


@dataclass(frozen=True, eq=False)
class OperatorPair:
    """An operator in both trees (None on the side that lacks it) within its `domain`."""

    old: OperatorSpec | None
    new: OperatorSpec | None
    domain: DomainPair

    @property
    def any(self) -> OperatorSpec:
        spec = self.new or self.old
        assert spec is not None
        return spec

    @cached_property
    def changed(self) -> bool:
        return self.old != self.new

    @cached_property
    def all_edits(self) -> tuple[Edit, ...]:
        """Every version changed in place, experimental or not, released or not."""
        return self._pairing[0]

    @cached_property
    def edits(self) -> tuple[Edit, ...]:
        """In-place changes of released, non-experimental versions: what the law forbids."""
        return tuple(e for e in self.all_edits if e.released)

    @property
    def bumps(self) -> tuple[NewVersion, ...]:
        """The versions only the new tree has."""
        return self._pairing[1]

    @cached_property
    def removed_versions(self) -> tuple[OpSchema, ...]:
        """Released, non-experimental versions of the old tree that the new tree dropped."""
        return tuple(v for v in self._pairing[2] if self.domain.released(v))

    @cached_property
    def kept_versions(self) -> tuple[tuple[OpSchema, OpSchema], ...]:
        """(old, new) of every version both trees have (the same since_version), equal or not."""
        if self.old is None or self.new is None:
            return ()
        before = {v.since_version: v for v in self.old.versions}
        return tuple((before[v.since_version], v) for v in self.new.versions if v.since_version in before)

    @cached_property
    def released_versions(self) -> tuple[tuple[OpSchema, OpSchema], ...]:
        """(old, new) of the versions both trees have that are released (`DomainPair.released`)."""
        return tuple((old, new) for old, new in self.kept_versions if self.domain.released(old))

    @cached_property
    def _pairing(self) -> tuple[tuple[Edit, ...], tuple[NewVersion, ...], tuple[OpSchema, ...]]:
        if self.new is None:
            return (), (), ()
        released = self.domain.released_max
        old_sets = dict(self.domain.old.type_sets) if self.domain.old is not None else {}
        new_sets = dict(self.domain.new.type_sets) if self.domain.new is not None else {}
        old_versions = {v.since_version: v for v in self.old.versions} if self.old else {}
        edits: list[Edit] = []
        bumps: list[NewVersion] = []
        previous: OpSchema | None = None
        for schema in self.new.versions:
            before = old_versions.get(schema.since_version)
            if before is None:
                changes = (
                    diff_schemas(previous, schema, old_type_sets=new_sets, new_type_sets=new_sets)
                    if previous is not None
                    else []
                )
                bumps.append(
                    NewVersion(
                        schema, previous, tuple(changes), schema.since_version > released, self.old is None
                    )
                )
            elif before != schema:
                changes = diff_schemas(before, schema, old_type_sets=old_sets, new_type_sets=new_sets)
                if changes:
                    edits.append(Edit(before, schema, tuple(changes), self.domain.released(before)))
            previous = schema
        removed: tuple[OpSchema, ...] = ()
        if self.old is not None:
            new_since = {v.since_version for v in self.new.versions}
            removed = tuple(v for v in self.old.versions if v.since_version not in new_since)
        return tuple(edits), tuple(bumps), removed


@dataclass(frozen=True, eq=False)
class TypeSetPair:
    """A type set of a domain both trees have, by name (None on the side without the set), and
    the old tree's operator versions of the domain whose type constraints name it."""

    name: str
    old: tuple[str, ...] | None
    new: tuple[str, ...] | None
    users: tuple[OpSchema, ...]
    domain: DomainPair

    @property
    def changed(self) -> bool:
        return self.old != self.new


def is_exempt(spec: OperatorSpec) -> bool:
    """Experimental operators (every version experimental) are outside the versioning law."""
    return all(v.experimental for v in spec.versions)
