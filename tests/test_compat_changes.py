"""The change model (`diff_schemas`) shared by the gate and the docs generator."""

from __future__ import annotations

import dataclasses

from toolkit.model.changes import KINDS, SchemaChange, diff_schemas
from toolkit.model.spec import (
    Attribute,
    AttrType,
    FormalParameter,
    Location,
    OpSchema,
    ParamOption,
    TypeConstraint,
)
from toolkit.registry.core import Registry

X = FormalParameter("X", "T", location=Location("f.yaml", 5, 9))
B = FormalParameter("B", "T", option=ParamOption.OPTIONAL)
Y = FormalParameter("Y", "T")
MODE = Attribute("mode", AttrType.STRING, default="nearest", location=Location("f.yaml", 9, 7))
T = TypeConstraint("T", ("tensor(float)", "tensor(double)"), type_sets=("floats",))
BASE = OpSchema(
    "com.x",
    "Op",
    1,
    inputs=(X, B),
    outputs=(Y,),
    attributes=(MODE,),
    type_constraints=(T,),
    location=Location("f.yaml", 3, 5),
)


def kinds(changes: list[SchemaChange]) -> list[str]:
    return [c.kind for c in changes]


def test_identical_versions_have_no_changes() -> None:
    assert diff_schemas(BASE, dataclasses.replace(BASE, location=Location("g.yaml", 1, 1))) == []


def test_sentences() -> None:
    new = dataclasses.replace(
        BASE,
        inputs=(X, dataclasses.replace(B, option=ParamOption.SINGLE)),
        attributes=(
            dataclasses.replace(MODE, default="linear"),
            Attribute("axes", AttrType.INTS),
        ),
        type_constraints=(dataclasses.replace(T, allowed=(*T.allowed, "tensor(bfloat16)")),),
    )
    messages = [c.message for c in diff_schemas(BASE, new)]
    assert messages == [
        "attribute `mode` default changed from 'nearest' to 'linear'",
        "attribute `axes` added (ints, optional)",
        "input `B` is no longer optional",
        "type `tensor(bfloat16)` added to `T` (via type set `@floats`)",
    ]
    optional = diff_schemas(new, dataclasses.replace(new, inputs=(X, B)))
    assert [c.message for c in optional] == ["input `B` became optional"]
    assert optional[0].bc is False and optional[0].fc is True


def test_rename_reported_once_and_remove_plus_add_otherwise() -> None:
    renamed = dataclasses.replace(BASE, attributes=(dataclasses.replace(MODE, name="method"),))
    changes = diff_schemas(BASE, renamed)
    assert kinds(changes) == ["ATTR-RENAMED"]
    assert changes[0].old_location == MODE.location
    # different default: not the same attribute, so removal plus addition
    other = dataclasses.replace(BASE, attributes=(Attribute("method", AttrType.STRING, default="linear"),))
    assert kinds(diff_schemas(BASE, other)) == ["ATTR-REMOVED", "ATTR-ADDED"]


def test_input_reorder_and_rename() -> None:
    swapped = dataclasses.replace(BASE, inputs=(dataclasses.replace(B, option=ParamOption.SINGLE), X))
    assert "INPUT-REORDERED" in kinds(diff_schemas(BASE, swapped))
    renamed = dataclasses.replace(BASE, inputs=(X, dataclasses.replace(B, name="bias")))
    changes = diff_schemas(BASE, renamed)
    assert (
        kinds(changes) == ["INPUT-RENAMED"]
        and changes[0].message == "input `B` (position 1) renamed to `bias`"
    )


def test_type_param_rename_follows_uses() -> None:
    u = dataclasses.replace(T, param="U")
    new = dataclasses.replace(
        BASE,
        inputs=(dataclasses.replace(X, type_str="U"), dataclasses.replace(B, type_str="U")),
        outputs=(dataclasses.replace(Y, type_str="U"),),
        type_constraints=(u,),
    )
    assert kinds(diff_schemas(BASE, new)) == ["TYPE-PARAM-RENAMED"]


def test_type_sets_narrowed_with_tables() -> None:
    two = dataclasses.replace(T, type_sets=("floats", "ints"))
    old = dataclasses.replace(BASE, type_constraints=(two,))
    new = dataclasses.replace(
        old, type_constraints=(dataclasses.replace(two, allowed=(*two.allowed, "tensor(int8)")),)
    )
    tables = {"floats": ("tensor(float)", "tensor(double)"), "ints": ("tensor(int8)",)}
    (change,) = diff_schemas(old, new, old_type_sets=tables, new_type_sets=tables)
    assert change.type_sets == ("ints",) and change.message.endswith("(via type set `@ints`)")


def test_docs_come_last() -> None:
    new = dataclasses.replace(BASE, doc="New doc.", attributes=())
    assert kinds(diff_schemas(BASE, new)) == ["ATTR-REMOVED", "DOC-CHANGED"]


def test_every_kind_is_known_and_onnx_history_uses_them(onnx_registry: Registry) -> None:
    seen = set()
    for spec in onnx_registry.specs.operators:
        for a, b in zip(spec.versions, spec.versions[1:]):
            seen |= {c.kind for c in diff_schemas(a, b)}
    assert seen <= set(KINDS)
    assert {"ATTR-ADDED", "ATTR-REMOVED", "ATTR-RENAMED", "TYPE-ADDED", "INPUT-ADDED", "DOC-CHANGED"} <= seen
