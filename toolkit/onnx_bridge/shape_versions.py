"""What the model walk (`shape_infer`) reads of a node for its operator version: resolved once per
(domain, op_type) of a model, so that the per-node work is lookups in what is resolved here."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.model.spec import OpSchema
from toolkit.onnx_bridge.check.inference import CONTROL_FLOW, TypeInference, TypePlan
from toolkit.registry.core import Registry
from toolkit.shapes.engine import reads
from toolkit.shapes.values import Value

__all__ = ["OpVersion", "resolve_version"]

_CONTROL = frozenset(CONTROL_FLOW)  # If, Loop, Scan: shapes from their bodies


@dataclass(frozen=True, slots=True)
class OpVersion:
    """The operator version a model's (domain, op_type) resolves to: its type rules (`plan`), and,
    when it has shape rules, what the walk must read of a node for them: the attributes named, the
    inputs (by position and formal name) whose known values they may read (engine.reads); a
    variadic one's are read from its position on."""

    schema: OpSchema | None
    attributes: frozenset[str] = frozenset()
    values: tuple[tuple[int, str, bool], ...] = ()  # (position, formal name, variadic)
    plan: TypePlan | None = None
    constant: bool = False  # ai.onnx's Constant: its output's shape and value are its tensor's
    reads: frozenset[str] = frozenset()  # the attributes its shape rules or its type_from read
    # the constants `values` gives when none of a node's inputs has a known value (None: there are
    # none, or a variadic input's depend on the node's input count): most nodes take this as it is
    unknown: tuple[tuple[str, Value], ...] | None = None


def resolve_version(
    types: TypeInference, registry: Registry, imports: dict[str, int], domain: str, op_type: str
) -> OpVersion:
    """What the walk reads of a node of (domain, op_type) in a model importing `imports`."""
    plan = types.plan(domain, op_type)
    typed = plan.attributes if plan is not None else frozenset()
    if domain in ("", "ai.onnx") and op_type in _CONTROL:
        return OpVersion(None, plan=plan, reads=typed)  # its outputs' shapes come from its bodies
    version = imports.get(domain or "")
    schema = registry.find_schema(op_type, version, domain) if version is not None else None
    constant = domain in ("", "ai.onnx") and op_type == "Constant"
    if schema is None or not any(p.shape is not None for p in schema.outputs):
        return OpVersion(None, plan=plan, constant=constant, reads=typed)
    read = reads(schema)
    values = tuple((at, p.name, p.is_variadic) for at, p in enumerate(schema.inputs) if p.name in read.values)
    spread = any(variadic for _, _, variadic in values)  # a variadic input among them
    unknown = None if not values or spread else tuple((name, None) for _, name, _ in values)
    return OpVersion(schema, read.attributes, values, plan, constant, read.attributes | typed, unknown)
