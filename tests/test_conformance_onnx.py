"""The registry built from the imported catalog resolves exactly like onnx.defs.get_schema.

For every domain, every operator and every opset version 1..max of the installed onnx,
the resolved schema must equal onnx's field by field (or both must have nothing).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import defs, helper  # noqa: E402

from toolkit.model.spec import MAX_ARITY, Attribute, FormalParameter, OpSchema  # noqa: E402
from toolkit.model.types import canonical_type  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

OPTION = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}
DIFF = {"Unknown": "unknown", "Differentiable": "differentiable", "NonDifferentiable": "non_differentiable"}


def _tail(enum_value: Any) -> str:
    return str(enum_value).rsplit(".", 1)[-1]


def _same_value(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, bytes):
        theirs = theirs.decode()
    if isinstance(theirs, list):
        return isinstance(ours, tuple) and len(ours) == len(theirs) and all(map(_same_value, ours, theirs))
    if isinstance(theirs, float):
        return isinstance(ours, float) and math.isclose(ours, theirs, rel_tol=1e-6, abs_tol=1e-12)
    return bool(ours == theirs)


def _param_problems(where: str, ours: FormalParameter, theirs: Any) -> list[str]:
    expected = {
        "name": theirs.name,
        "type_str": theirs.type_str,
        "option": OPTION[_tail(theirs.option)],
        "homogeneous": theirs.is_homogeneous,
        "min_arity": theirs.min_arity,
        "differentiability": DIFF[_tail(theirs.differentiation_category)],
        "doc": theirs.description,
    }
    actual = {
        "name": ours.name,
        "type_str": ours.type_str,
        "option": ours.option.value,
        "homogeneous": ours.homogeneous,
        "min_arity": ours.min_arity,
        "differentiability": ours.differentiability.value,
        "doc": ours.doc,
    }
    return [f"{where}.{k}: {actual[k]!r} != {expected[k]!r}" for k in expected if actual[k] != expected[k]]


def _attribute_problems(where: str, ours: Attribute, theirs: Any) -> list[str]:
    problems = []
    if ours.type.value != _tail(theirs.type).lower():
        problems.append(f"{where}.type: {ours.type.value} != {theirs.type}")
    if ours.required != theirs.required:
        problems.append(f"{where}.required")
    if ours.doc != theirs.description:
        problems.append(f"{where}.doc")
    default = theirs.default_value
    if default is not None and default.type:
        value = helper.get_attribute_value(default)
        if not _same_value(ours.default, value):
            problems.append(f"{where}.default: {ours.default!r} != {value!r}")
    elif ours.default is not None:
        problems.append(f"{where}.default: {ours.default!r} but onnx has none")
    return problems


def schema_problems(ours: OpSchema, theirs: Any) -> list[str]:
    problems: list[str] = []
    scalar = {
        "since_version": (ours.since_version, theirs.since_version),
        "deprecated": (ours.deprecated, theirs.deprecated),
        "experimental": (ours.experimental, _tail(theirs.support_level) == "EXPERIMENTAL"),
        "doc": (ours.doc, theirs.doc or ""),
        "min_input": (ours.min_input, theirs.min_input),
        "max_input": (ours.max_input, theirs.max_input),
        "min_output": (ours.min_output, theirs.min_output),
        "max_output": (ours.max_output, theirs.max_output),
    }
    problems += [f"{k}: {a!r} != {b!r}" for k, (a, b) in scalar.items() if a != b]
    for kind, mine, other in (
        ("inputs", ours.inputs, theirs.inputs),
        ("outputs", ours.outputs, theirs.outputs),
    ):
        if len(mine) != len(other):
            problems.append(f"{kind}: {len(mine)} != {len(other)}")
            continue
        for index, (a, b) in enumerate(zip(mine, other)):
            problems += _param_problems(f"{kind}[{index}]", a, b)
    their_attrs = dict(theirs.attributes)
    if set(ours.attribute_map) != set(their_attrs):
        problems.append(f"attributes: {sorted(ours.attribute_map)} != {sorted(their_attrs)}")
    else:
        for name, attr in ours.attribute_map.items():
            problems += _attribute_problems(f"attributes.{name}", attr, their_attrs[name])
    their_constraints = {tc.type_param_str: tc for tc in theirs.type_constraints}
    if list(ours.constraint_map) != list(their_constraints):
        problems.append(f"type_constraints: {list(ours.constraint_map)} != {list(their_constraints)}")
    else:
        for param, constraint in ours.constraint_map.items():
            theirs_tc = their_constraints[param]
            # onnx spells a tensor inside a container either way (`map(int64, float)`); compared
            # canonically, as onnx itself compares types (DataTypeUtils::ToType)
            if list(constraint.allowed) != [canonical_type(t) for t in theirs_tc.allowed_type_strs]:
                problems.append(f"type_constraints.{param}.allowed")
            if constraint.doc != theirs_tc.description:
                problems.append(f"type_constraints.{param}.doc")
    return problems


@pytest.mark.report
def test_every_schema_version_resolves_like_onnx(onnx_registry: Registry) -> None:
    ranges = defs.C.schema_version_map()
    names_by_domain: dict[str, set[str]] = {}
    for schema in defs.get_all_schemas_with_history():
        names_by_domain.setdefault(schema.domain, set()).add(schema.name)

    compared = absent = 0
    distinct: set[tuple[str, str, int]] = set()
    failures: list[str] = []
    for domain, names in sorted(names_by_domain.items()):
        assert onnx_registry.has_domain(domain), domain
        max_version = ranges[domain][1]
        assert onnx_registry.domain(domain).max_version == max_version
        for name in sorted(names):
            for version in range(1, max_version + 1):
                ours = onnx_registry.find_schema(name, version, domain)
                try:
                    theirs = defs.get_schema(name, version, domain)
                except defs.SchemaError:
                    theirs = None
                if theirs is None or ours is None:
                    if (theirs is None) != (ours is None):
                        failures.append(f"{domain}.{name} @ {version}: ours={ours} onnx={theirs}")
                    absent += 1
                    continue
                compared += 1
                distinct.add((domain, name, theirs.since_version))
                failures += [f"{domain}.{name} @ {version}: {p}" for p in schema_problems(ours, theirs)]
    print(
        f"\ncompared {compared} (domain, op, opset) resolutions covering {len(distinct)} schema versions; "
        f"{absent} agreed on 'not available'"
    )
    assert not failures, "\n".join(failures[:40])
    assert len(distinct) == len(defs.get_all_schemas_with_history()) == 659


def test_default_domain_spellings_are_the_same(onnx_registry: Registry) -> None:
    a = onnx_registry.get_schema("Conv", 11, "")
    b = onnx_registry.get_schema("Conv", 11, "ai.onnx")
    assert a is b and a.since_version == 11
    assert onnx_registry.inventory("ai.onnx", 13) == onnx_registry.inventory("", 13)


def test_max_arity_matches_onnx_unbounded(onnx_registry: Registry) -> None:
    concat = onnx_registry.get_schema("Concat", 13)
    assert concat.max_input == MAX_ARITY == defs.get_schema("Concat", 13).max_input
