"""The work the docs generator shares or skips gives what the plain code gives: rows made once
for equal values (`fast.SharedRows`), changes found without the sections a version left as they
were (`fast.version_changes`), and the since_version table resolved per operator
(`registry.inventory.since_table`) against `Registry.find_schema` cell by cell."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.docs import fast
from toolkit.generate.docs.views import attribute_row, body_parts, plain_changes
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

# --------------------------------------------------------------------------- shared rows


def test_shared_rows_equal_the_plain_rows_on_the_catalog(onnx_registry: Any) -> None:
    rows = fast.SharedRows().makers()
    for schema in onnx_registry.all_schemas():
        assert body_parts(schema, rows) == body_parts(schema), schema.id


def test_equal_defaults_with_different_spellings_are_different_rows() -> None:
    """0 == 0.0 == False and -0.0 == 0.0, but each is written as it is."""
    shared = fast.SharedRows()
    defaults: list[Any] = [0, 0.0, -0.0, False, 1, 1.0, True, "0", (0,), (0.0,)]
    for default in defaults:
        attr = Attribute("alpha", AttrType.FLOAT, "The slope.", default=default)
        assert shared.attribute(attr) == attribute_row(attr), default


# --------------------------------------------------------------------------- version changes


def test_version_changes_equal_diff_schemas_on_the_catalog(onnx_registry: Any) -> None:
    compared = 0
    for name in onnx_registry.domains():
        type_sets = dict(onnx_registry.domain(name).type_sets)
        for op in onnx_registry.operators(name):
            for old, new in zip(op.versions, op.versions[1:]):
                assert fast.version_changes(old, new, type_sets) == plain_changes(old, new, type_sets)
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
def test_version_changes_equal_diff_schemas(
    pair: tuple[OpSchema, OpSchema], type_sets: dict[str, Any]
) -> None:
    old, new = pair
    assert fast.version_changes(old, new, type_sets) == plain_changes(old, new, type_sets)


def test_a_nan_default_is_compared_even_when_the_attributes_are_the_same_objects() -> None:
    """Field equality holds an attribute equal to itself; the diff's `!=` finds its NaN changed."""
    attrs = (Attribute("alpha", AttrType.FLOAT, default=float("nan")),)
    old = OpSchema("com.example", "Op", 1, attributes=attrs)
    new = dataclasses.replace(old, since_version=2)
    plain = plain_changes(old, new, {})
    assert [change.kind for change in plain] == ["ATTR-DEFAULT-CHANGED"]
    assert fast.version_changes(old, new, {}) == plain


def test_a_renamed_type_parameter_changes_the_inputs_that_use_it_though_they_are_the_same() -> None:
    inputs = (FormalParameter("X", "T"),)
    old = OpSchema("com.example", "Op", 1, inputs=inputs, type_constraints=(TypeConstraint("T", TYPES),))
    new = dataclasses.replace(old, since_version=2, type_constraints=(TypeConstraint("U", TYPES),))
    plain = plain_changes(old, new, {})
    assert [change.kind for change in plain] == ["INPUT-TYPE-CHANGED", "TYPE-PARAM-RENAMED"]
    assert fast.version_changes(old, new, {}) == plain


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
