"""What the model walk (`shape_infer`) reads of a node for its operator version: resolved once per
(domain, op_type) of a model, so that the per-node work is lookups in what is resolved here; what
it reads of a node's attributes, once per distinct list of them (`read_attributes`); and what it
works out of a node's result, once per memo entry (`Outcome`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from toolkit.model.spec import OpSchema
from toolkit.model.types import ATTRIBUTE_TYPE_NUMBERS
from toolkit.onnx_bridge.check.inference import CONTROL_FLOW, TypeInference, TypePlan, attribute_type
from toolkit.onnx_bridge.check.types import AttributeFacts, attribute_fact
from toolkit.onnx_bridge.graph import GRAPH_ATTR, GRAPHS_ATTR
from toolkit.onnx_bridge.shape_read import attribute_value
from toolkit.registry.core import Registry
from toolkit.shapes.engine import Inference, reads
from toolkit.shapes.values import Num, Sym, Value

__all__ = ["AttributeReads", "OpVersion", "Outcome", "Picked", "read_attributes", "resolve_version"]

_CONTROL = frozenset(CONTROL_FLOW)  # If, Loop, Scan: shapes from their bodies

# the attributes a rule reads: (name, value as a rule sees it, the type it gives a type_from)
Picked = tuple[tuple[str, Value, str | None], ...]
# what the walk reads of a node's attributes: the ones its rules read, every one's facts (the
# fast path's, check.fastpath), whether one holds graphs
AttributeReads = tuple[Picked, AttributeFacts, bool]
_GRAPH_KINDS = frozenset({GRAPH_ATTR, GRAPHS_ATTR})
# attribute types whose encoded bytes are never a memo key: graphs (their bytes hold every nested
# graph's, read again at each level) and tensors (a weight can be most of a model's bytes)
_UNKEYED = _GRAPH_KINDS | {
    ATTRIBUTE_TYPE_NUMBERS[kind] for kind in ("tensor", "tensors", "sparse_tensor", "sparse_tensors")
}


@dataclass(frozen=True, slots=True, eq=False)
class OpVersion:
    """The operator version a model's (domain, op_type) resolves to: its type rules (`plan`), and,
    when it has shape rules, what the walk must read of a node for them: the attributes named, the
    inputs (by position and formal name) whose known values they may read (engine.reads); a
    variadic one's are read from its position on. Compared and hashed by identity (one is
    resolved per (domain, op_type) of a walk): it heads the walk's memo keys."""

    schema: OpSchema | None
    attributes: frozenset[str] = frozenset()
    values: tuple[tuple[int, str, bool], ...] = ()  # (position, formal name, variadic)
    plan: TypePlan | None = None
    constant: bool = False  # ai.onnx's Constant: its output's shape and value are its tensor's
    reads: frozenset[str] = frozenset()  # the attributes its shape rules or its type_from read
    # the constants `values` gives when none of a node's inputs has a known value (None: there are
    # none, or a variadic input's depend on the node's input count): most nodes take this as it is
    unknown: tuple[tuple[str, Value], ...] | None = None
    # read_attributes' memo: the encoded attributes of a node -> what is read of them
    attribute_reads: dict[tuple[bytes, ...], AttributeReads] = field(
        default_factory=dict, compare=False, hash=False
    )

    def constants(
        self, names: list[str], values: Mapping[str, tuple[Num, ...] | None]
    ) -> tuple[tuple[str, Value], ...]:
        """The known values of a node's inputs `names` that its rules read, by formal name (None:
        not known, or not given); a variadic input's from its position on."""
        if self.unknown is not None and values.keys().isdisjoint(names):
            return self.unknown  # what the listing below gives when nothing is known
        return tuple(
            [
                (
                    formal,
                    tuple(map(values.get, names[at:]))
                    if variadic
                    else (values.get(names[at]) if at < len(names) else None),
                )
                for at, formal, variadic in self.values
            ]
        )


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


def read_attributes(version: OpVersion, attrs: Sequence[Any]) -> AttributeReads:
    """What the walk reads of the attributes `attrs` of a node of `version`. A model repeats a few
    attribute lists on thousands of nodes (a Transpose's perm, a Cast's type): a list of plain
    values (numbers, strings, their lists, types) is read once, by its encoded bytes, which upb
    gives quicker than its fields; one holding a graph or a tensor is read as it is."""
    raws = []
    for attr in attrs:
        if attr.type in _UNKEYED:
            return _read(version.reads, attrs)
        raws.append(attr.SerializeToString())
    key = tuple(raws)
    found = version.attribute_reads.get(key)
    if found is None:
        found = version.attribute_reads[key] = _read(version.reads, attrs)
    return found


def _read(reads: frozenset[str], attrs: Sequence[Any]) -> AttributeReads:
    picked = []
    graphs = False
    for attr in attrs:
        if attr.type in _GRAPH_KINDS:
            graphs = True
        name = attr.name
        if name in reads:
            picked.append((name, attribute_value(attr), attribute_type(attr)))
    return tuple(picked), tuple(map(attribute_fact, attrs)), graphs


class Outcome:
    """A node's output types and shape rules' result (shape_infer's `_Walk.evaluate`), with what applying them
    to the node's outputs needs to know, worked out once for every node the memo gives it to."""

    __slots__ = ("complete", "inferred", "ruled", "single", "typed", "valued")

    def __init__(self, typed: tuple[str | None, ...], inferred: Inference | None, count: int) -> None:
        self.typed = typed
        self.inferred = inferred
        # the types when every one of the `count` outputs is typed, position by position (a call of
        # a local function may name fewer outputs than the function has: `typed` is longer then);
        # `single`: the type of the one output of a one-output node, typed by a dict item, not a zip
        known = len(typed) == count and None not in typed
        self.complete: tuple[str, ...] | None = (
            cast("tuple[str, ...]", typed) if known and count > 1 else None
        )
        self.single: str | None = typed[0] if known and count == 1 else None
        # the outputs' contents (some known) and shapes by a rule (position, shape)
        self.valued = inferred is not None and any(content is not None for content in inferred.values)
        self.ruled: tuple[tuple[int, tuple[int | Sym | None, ...]], ...] = ()
        if inferred is not None:
            self.ruled = tuple(
                (position, shape)
                for position, (shape, has_rule) in enumerate(zip(inferred.outputs[:count], inferred.has_rule))
                if has_rule and shape is not None
            )
