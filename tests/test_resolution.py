"""THE versioning rule (toolkit/model/resolution.py) against its definition in Versioning.md, and
the registry's indexed lookup against the rule, over random operators (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolkit.model.resolution import chain, in_effect, inventory, is_in_effect, version_at
from toolkit.model.spec import DomainSpec, OperatorSpec, OpSchema, OpsetVersion, SpecSet
from toolkit.registry.core import Registry

MAX_OPSET = 30


@st.composite
def operators(draw: st.DrawFn, name: str = "Op") -> OperatorSpec:
    since = sorted(draw(st.sets(st.integers(1, MAX_OPSET), min_size=1, max_size=6)))
    removed = draw(st.one_of(st.none(), st.integers(since[-1] + 1, MAX_OPSET + 2)))
    versions = tuple(OpSchema(domain="com.test", name=name, since_version=v) for v in since)
    return OperatorSpec(domain="com.test", name=name, versions=versions, removed_in=removed)


def _by_definition(op: OperatorSpec, opset: int) -> OpSchema | None:
    """Versioning.md: the version with the largest since_version <= v, unless removed at or before v."""
    if op.removed_in is not None and op.removed_in <= opset:
        return None
    candidates = [v for v in op.versions if v.since_version <= opset]
    return max(candidates, key=lambda v: v.since_version) if candidates else None


@given(operators(), st.integers(0, MAX_OPSET + 3))
def test_version_at_is_the_definition(op: OperatorSpec, opset: int) -> None:
    assert version_at(op, opset) == _by_definition(op, opset)


@given(operators(), st.integers(0, MAX_OPSET + 3))
def test_in_effect_ranges_agree_with_resolution(op: OperatorSpec, opset: int) -> None:
    """A version is in effect at v exactly when v resolves to it; the ranges tile the opsets."""
    resolved = version_at(op, opset)
    holders = [v for v in op.versions if is_in_effect(op, v.since_version, opset)]
    assert holders == ([] if resolved is None else [resolved])
    for version in op.versions:
        start, until = in_effect(op, version.since_version)
        assert start == version.since_version and (until is None or until > start)


@given(operators(), st.integers(0, MAX_OPSET), st.integers(0, MAX_OPSET))
def test_chain_is_the_versions_taking_effect_between(op: OperatorSpec, a: int, b: int) -> None:
    low, high = min(a, b), max(a, b)
    steps = chain(op, low, high)
    assert [v.since_version for v in steps] == sorted(v.since_version for v in steps)
    assert all(low < v.since_version <= high for v in steps)
    assert len(steps) == sum(1 for v in op.versions if low < v.since_version <= high)


@given(st.lists(operators(), min_size=1, max_size=4), st.integers(0, MAX_OPSET + 3))
def test_registry_lookup_and_inventory_follow_the_rule(ops: list[OperatorSpec], opset: int) -> None:
    named = [
        OperatorSpec(
            o.domain,
            f"Op{i}",
            tuple(
                OpSchema(domain=o.domain, name=f"Op{i}", since_version=v.since_version) for v in o.versions
            ),
            o.removed_in,
        )
        for i, o in enumerate(ops)
    ]
    domain = DomainSpec("com.test", tuple(OpsetVersion(v, 9) for v in range(1, MAX_OPSET + 3)))
    registry = Registry(SpecSet(domains=(domain,), operators=tuple(named), releases=()))
    for op in named:
        assert registry.find_schema(op.name, opset, "com.test") == version_at(op, opset)
    if 1 <= opset <= MAX_OPSET + 2:
        assert registry.inventory("com.test", opset) == inventory(named, opset)
