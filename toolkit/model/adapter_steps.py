"""The vocabulary of version-adapter steps: which step kinds exist, the arguments each takes, and
which schema changes a `compatible` step cannot cover. Shared by the adapter checks (ADAPTER-*,
checks layer) and the adapter engine (`toolkit.adapters`), which runs the steps on nodes.

`STEP_KINDS` is the one list of kinds. Each of those layers has one function per kind (what the
step does to a node; what its arguments must name), registered under its kind with a `PerKind`
table, which refuses a kind outside `STEP_KINDS` and a table that misses one.
"""

from __future__ import annotations

import keyword
import struct
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from toolkit.model.changes import SchemaChange, diff_schemas
from toolkit.model.spec import AdapterStep, Location, OpSchema, ParamOption

# kind -> (required argument groups, allowed arguments). A group is satisfied by any one of
# its names (`input` or `index`).
STEP_KINDS: Mapping[str, tuple[tuple[tuple[str, ...], ...], frozenset[str]]] = {
    "compatible": ((), frozenset()),
    "remove_attribute": ((("attribute",),), frozenset({"attribute", "value"})),
    "rename_attribute": ((("attribute",), ("to",)), frozenset({"attribute", "to"})),
    "set_attribute_if_absent": ((("attribute",), ("value",)), frozenset({"attribute", "value"})),
    "attribute_to_input": ((("attribute",), ("input", "index")), frozenset({"attribute", "input", "index"})),
    "input_to_attribute": ((("input", "index"), ("attribute",)), frozenset({"attribute", "input", "index"})),
    "type_restriction": ((("param",), ("types",)), frozenset({"param", "types"})),
    "require_attribute": ((("attribute",), ("values", "min")), frozenset({"attribute", "values", "min"})),
    "remove_input": ((("input", "index"),), frozenset({"input", "index"})),
    "python": ((("callable",),), frozenset({"callable"})),
}
COMMON_ARGS = frozenset({"doc"})

F = TypeVar("F", bound=Callable[..., Any])


class PerKind(Generic[F]):
    """One function per step kind for one layer (`layer` names it in errors): each function
    declares its kind with `@table.of("kind")`, and `complete()`, called once the layer's module
    has defined them all, gives the kind -> function mapping or refuses a table missing a kind."""

    def __init__(self, layer: str) -> None:
        self._layer = layer
        self._by_kind: dict[str, F] = {}

    def of(self, kind: str) -> Callable[[F], F]:
        if kind not in STEP_KINDS:
            raise ValueError(f"{self._layer}: '{kind}' is not a step kind (one of {', '.join(STEP_KINDS)})")

        def attach(function: F) -> F:
            if kind in self._by_kind:
                raise ValueError(f"{self._layer}: step kind '{kind}' has two functions")
            self._by_kind[kind] = function
            return function

        return attach

    def complete(self) -> Mapping[str, F]:
        missing = [kind for kind in STEP_KINDS if kind not in self._by_kind]
        if missing:
            raise ValueError(f"{self._layer}: no function for step kind(s) {', '.join(missing)}")
        return MappingProxyType(self._by_kind)


# Changes after which a node of the source version is not a valid node of the target
# version as it is: the value says whether every change of the kind does, or only those
# making something required.
_INVALIDATING = {
    "ATTR-ADDED": False,  # only a required attribute
    "ATTR-REQUIRED-CHANGED": False,  # only when it became required
    "ATTR-REMOVED": True,
    "ATTR-RENAMED": True,
    "ATTR-TYPE-CHANGED": True,
    "INPUT-ADDED": False,  # only a required input
    "INPUT-OPTION-CHANGED": False,  # only when it became required
    "INPUT-REMOVED": True,
    "OUTPUT-REMOVED": True,
    "TYPE-REMOVED": True,
}


def invalidating_changes(source: OpSchema, target: OpSchema) -> list[SchemaChange]:
    """The differences that make a `source` node invalid on `target` unchanged."""
    out = []
    for change in diff_schemas(source, target):
        if change.kind == "INPUT-TYPE-CHANGED":  # bound to another parameter: narrowed?
            if not set(_allowed(source, str(change.old))) <= set(_allowed(target, str(change.new))):
                out.append(change)
            continue
        always = _INVALIDATING.get(change.kind)
        if always is None:
            continue
        if change.kind == "TYPE-REMOVED" and _types_kept(source, target, str(change.subject)):
            continue
        if always or _makes_required(change):
            out.append(change)
    return out


def _types_kept(source: OpSchema, target: OpSchema, param: str) -> bool:
    """True when every input and output `param` binds in `source` accepts at least its types in
    `target`, whatever parameter binds it there: a type parameter renamed or reused for other
    parameters (QuantizeLinear 23's `T2`, 21's `T3`) removes no type from any node."""
    sides = (("in", source.inputs, target.inputs), ("out", source.outputs, target.outputs))
    before = _allowed(source, param)
    for _side, old_formals, new_formals in sides:
        for index, formal in enumerate(old_formals):
            if formal.type_str != param:
                continue
            if index >= len(new_formals) or not set(before) <= set(
                _allowed(target, new_formals[index].type_str)
            ):
                return False
    return True


def _allowed(schema: OpSchema, type_str: str) -> tuple[str, ...]:
    constraint = schema.constraint_map.get(type_str)
    return constraint.allowed if constraint is not None else (type_str,)


def _makes_required(change: SchemaChange) -> bool:
    if change.kind == "ATTR-ADDED":
        return change.bc  # bc is the new attribute's required-ness
    if change.kind == "ATTR-REQUIRED-CHANGED":
        return change.new is True
    if change.kind == "INPUT-ADDED":
        return change.bc  # bc: neither optional nor variadic
    return change.kind == "INPUT-OPTION-CHANGED" and change.new == ParamOption.SINGLE.value


def callable_problem(spec: object) -> str | None:
    """Why `spec` is not a well-formed `package.module:function`, or None."""
    if not isinstance(spec, str) or spec.count(":") != 1:
        return f"'{spec}' is not `package.module:function`"
    module_name, _, attr = spec.partition(":")
    for part in (*module_name.split("."), attr):
        if not part.isidentifier():
            return f"'{part}' in '{spec}' is not a Python identifier"
        if keyword.iskeyword(part):
            return f"'{part}' in '{spec}' is a Python keyword"
    return None


def same_value(a: Any, b: Any) -> bool:
    """Attribute values equal as ONNX stores them (floats compared at float32 precision)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bytes):
        a = a.decode("utf-8")
    if isinstance(b, bytes):
        b = b.decode("utf-8")
    numbers = (int, float)
    if (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return _float32(float(a)) == _float32(float(b))
    return bool(a == b)


def _float32(value: float) -> float:
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return value


def type_changes(
    old: OpSchema, new: OpSchema
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(added, removed) allowed types per type parameter present in both versions."""
    added: dict[str, tuple[str, ...]] = {}
    removed: dict[str, tuple[str, ...]] = {}
    before = old.constraint_map
    for constraint in new.type_constraints:
        previous = before.get(constraint.param)
        if previous is None or not set(_binding(old, constraint.param)) & set(
            _binding(new, constraint.param)
        ):
            continue  # absent, or the same name binds wholly other inputs/outputs: another parameter
        plus = tuple(t for t in constraint.allowed if t not in previous.allowed)
        minus = tuple(t for t in previous.allowed if t not in constraint.allowed)
        if plus:
            added[constraint.param] = plus
        if minus:
            removed[constraint.param] = minus
    return added, removed


def type_restrictions(banned: Mapping[str, tuple[str, ...]], origin: Location) -> tuple[AdapterStep, ...]:
    """One `type_restriction` step per type parameter of `banned` (the types, of `type_changes`,
    that the version a node moves to does not allow), by parameter name, located at `origin`."""
    return tuple(
        AdapterStep("type_restriction", (("param", param), ("types", types)), origin)
        for param, types in sorted(banned.items())
    )


def _binding(schema: OpSchema, param: str) -> tuple[tuple[str, int], ...]:
    """Which inputs and outputs a type parameter binds (by side and position)."""
    return tuple(
        (side, index)
        for side, formals in (("in", schema.inputs), ("out", schema.outputs))
        for index, formal in enumerate(formals)
        if formal.type_str == param
    )
