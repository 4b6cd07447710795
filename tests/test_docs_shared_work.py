"""The work the docs generator skips gives what the full work gives: `diff_schemas` leaves out
the passes over the sections a version left as they were (against every pass of the collector,
kept here as the reference), and the since_version table resolved per operator
(`registry.inventory.since_table`) against `Registry.find_schema` cell by cell."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.model.change_detection import Collector
from toolkit.model.changes import SchemaChange, diff_schemas
from toolkit.model.spec import (
    Attribute,
    AttrType,
    Differentiability,
    FormalParameter,
    OpSchema,
    ParamOption,
    Status,
    TypeConstraint,
)
from toolkit.registry.inventory import since_table

# --------------------------------------------------------------------------- version changes


TypeSets = Mapping[str, tuple[str, ...]]


def every_pass(
    old: OpSchema, new: OpSchema, old_sets: TypeSets, new_sets: TypeSets | None = None
) -> list[SchemaChange]:
    """`diff_schemas` of two versions with every pass of the collector run."""
    if old == new:
        return []
    out = Collector(old, new, old_sets, old_sets if new_sets is None else new_sets)
    out.operator_level()
    out.attributes()
    renamed = out.type_constraints_renames()
    out.params("INPUT", old.inputs, new.inputs, renamed)
    out.params("OUTPUT", old.outputs, new.outputs, renamed)
    out.type_constraints(renamed)
    out.docs()
    return out.changes


def changes(old: OpSchema, new: OpSchema, type_sets: TypeSets) -> list[SchemaChange]:
    return diff_schemas(old, new, old_type_sets=type_sets, new_type_sets=type_sets)


def test_diff_schemas_equals_every_pass_on_the_catalog(onnx_registry: Any) -> None:
    compared = 0
    for name in onnx_registry.domains():
        type_sets = dict(onnx_registry.domain(name).type_sets)
        for op in onnx_registry.operators(name):
            for old, new in zip(op.versions, op.versions[1:]):
                assert changes(old, new, type_sets) == every_pass(old, new, type_sets)
                compared += 1
    assert compared > 300


NAMES = st.sampled_from(["a", "b", "c"])
DOCS = st.sampled_from(["", "The input.", "Another doc."])
TYPES = ("tensor(float)", "tensor(int64)", "tensor(bool)")
DEFAULTS = st.sampled_from([None, 0, 0.0, -0.0, 1, 1.5, float("nan"), "s", (1, 2), (float("nan"),)])
ATTRIBUTES = st.builds(
    Attribute,
    name=NAMES,
    type=st.sampled_from([AttrType.FLOAT, AttrType.INT, AttrType.INTS]),
    doc=DOCS,
    required=st.booleans(),
    default=DEFAULTS,
)
PARAMS = st.builds(
    FormalParameter,
    name=NAMES,
    type_str=st.sampled_from(["T", "U", *TYPES]),
    doc=DOCS,
    option=st.sampled_from(list(ParamOption)),
    homogeneous=st.booleans(),
    min_arity=st.integers(min_value=0, max_value=2),
    differentiability=st.sampled_from(list(Differentiability)),
)
CONSTRAINTS = st.builds(
    TypeConstraint,
    param=st.sampled_from(["T", "U", "V"]),
    allowed=st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True).map(tuple),
    doc=DOCS,
    type_sets=st.sampled_from([(), ("floats",), ("floats", "ints")]),
)


def unique(items: st.SearchStrategy[Any], key: str) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(items, max_size=3, unique_by=lambda item: getattr(item, key)).map(tuple)


SCHEMAS = st.builds(
    OpSchema,
    domain=st.just("com.example"),
    name=st.just("Op"),
    since_version=st.just(1),
    status=st.sampled_from(list(Status)),
    deprecated=st.booleans(),
    doc=DOCS,
    inputs=unique(PARAMS, "name"),
    outputs=unique(PARAMS, "name"),
    attributes=unique(ATTRIBUTES, "name"),
    type_constraints=unique(CONSTRAINTS, "param"),
)
SECTIONS = ("status", "deprecated", "doc", "inputs", "outputs", "attributes", "type_constraints")


@st.composite
def version_pairs(draw: st.DrawFn) -> tuple[OpSchema, OpSchema]:
    """A version and the next, which redraws some of its sections (the others stay the very
    same objects, as in a version that inherits them)."""
    old = draw(SCHEMAS)
    other = draw(SCHEMAS)
    changed = draw(st.sets(st.sampled_from(SECTIONS)))
    new = dataclasses.replace(old, since_version=2, **{key: getattr(other, key) for key in changed})
    if new.type_constraints and draw(st.booleans()):  # a type parameter renamed, nothing else
        first, *rest = new.type_constraints
        renamed = dataclasses.replace(first, param=draw(st.sampled_from(["T", "U", "V", "W"])))
        new = dataclasses.replace(new, type_constraints=(renamed, *rest))
    return old, new


@settings(max_examples=800, deadline=None)
@given(
    version_pairs(),
    st.sampled_from([{}, {"floats": ("tensor(float)",), "ints": ("tensor(int64)",)}]),
)
def test_diff_schemas_equals_every_pass(pair: tuple[OpSchema, OpSchema], type_sets: dict[str, Any]) -> None:
    old, new = pair
    assert changes(old, new, type_sets) == every_pass(old, new, type_sets)
    other_sets = {"floats": ("tensor(float)", "tensor(int64)")}  # the gate compares two trees' tables
    found = diff_schemas(old, new, old_type_sets=type_sets, new_type_sets=other_sets)
    assert found == every_pass(old, new, type_sets, other_sets)


def test_a_nan_default_is_compared_even_when_the_attributes_are_the_same_objects() -> None:
    """Field equality holds an attribute equal to itself; the diff's `!=` finds its NaN changed."""
    attrs = (Attribute("alpha", AttrType.FLOAT, default=float("nan")),)
    old = OpSchema("com.example", "Op", 1, attributes=attrs)
    new = dataclasses.replace(old, since_version=2)
    assert [change.kind for change in changes(old, new, {})] == ["ATTR-DEFAULT-CHANGED"]


def test_a_renamed_type_parameter_changes_the_inputs_that_use_it_though_they_are_the_same() -> None:
    inputs = (FormalParameter("X", "T"),)
    old = OpSchema("com.example", "Op", 1, inputs=inputs, type_constraints=(TypeConstraint("T", TYPES),))
    new = dataclasses.replace(old, since_version=2, type_constraints=(TypeConstraint("U", TYPES),))
    assert [change.kind for change in changes(old, new, {})] == ["INPUT-TYPE-CHANGED", "TYPE-PARAM-RENAMED"]


# --------------------------------------------------------------------------- since_version table


@pytest.mark.parametrize("which", ["shipped_registry", "onnx_registry"])
def test_since_table_resolves_every_cell_as_find_schema(which: str, request: pytest.FixtureRequest) -> None:
    registry = request.getfixturevalue(which)
    for name in registry.domains():
        table = since_table(registry, name)
        assert [row for row, _ in table.rows] == sorted(op.name for op in registry.operators(name))
        for op, cells in table.rows:
            previous = None
            for version, cell in zip(table.opset_versions, cells, strict=True):
                schema = registry.find_schema(op, version, name)
                expected = None if schema is None else schema.since_version
                assert (cell.since_version, cell.changed) == (expected, expected != previous), (op, version)
                previous = expected
