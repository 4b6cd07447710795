"""What the node checks read from an operator schema, computed once per schema and kept per
registry across `check_model` calls (a CLI run or a test suite checks many models, most of them
small, against one registry)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from toolkit.model.spec import OpSchema
from toolkit.model.types import TypeStringError, canonical_type

V = TypeVar("V")


class PerRegistry(Generic[V]):
    """A value per registry (made by `factory` on first use), held weakly: a registry that goes
    away takes its value along. A registry-like object without weak references gets a fresh value
    on every call instead (nothing is shared)."""

    def __init__(self, factory: Callable[[], V]) -> None:
        self._factory = factory
        self._values: weakref.WeakKeyDictionary[Any, V] = weakref.WeakKeyDictionary()

    def get(self, registry: object) -> V:
        try:
            found = self._values.get(registry)
            if found is None:
                found = self._values[registry] = self._factory()
        except TypeError:  # not weakly referenceable
            return self._factory()
        return found


@dataclass(frozen=True, slots=True)
class SchemaFacts:
    """What the node check reads from a schema."""

    arity: tuple[int, int, int, int]  # min/max inputs, min/max outputs
    attributes: Mapping[str, Any]  # name -> Attribute
    required: tuple[Any, ...]  # required Attributes
    allowed: Mapping[str, frozenset[str]]  # type_str -> allowed canonical types


def schema_facts(schema: OpSchema) -> SchemaFacts:
    allowed: dict[str, frozenset[str]] = {}
    constraints = schema.constraint_map
    for param in (*schema.inputs, *schema.outputs):
        constraint = constraints.get(param.type_str)
        allowed[param.type_str] = frozenset(constraint.allowed if constraint else _concrete(param.type_str))
    return SchemaFacts(
        (schema.min_input, schema.max_input, schema.min_output, schema.max_output),
        schema.attribute_map,
        tuple(a for a in schema.attributes if a.required),
        allowed,
    )


def _concrete(type_str: str) -> tuple[str, ...]:
    try:
        return (canonical_type(type_str),)
    except TypeStringError:
        return ()


# Schema id -> facts, per registry (a schema id names one schema of a registry).
FACTS: PerRegistry[dict[str, SchemaFacts]] = PerRegistry(dict)


def facts_of(schema: OpSchema, cache: dict[str, SchemaFacts]) -> SchemaFacts:
    key = schema.id
    found = cache.get(key)
    if found is None:
        found = cache[key] = schema_facts(schema)
    return found
