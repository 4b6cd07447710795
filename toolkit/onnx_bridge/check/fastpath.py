"""check-model's fast path: pass a node that certainly has no findings without building its
path, messages or finding lists.

Most nodes of a real model are clean. `clean(node, fast, types)` reads each protobuf field of
the node once against a schema's facts compiled into plain ints, names and frozensets
(`FastSchema`), and answers DIRTY as soon as anything might be reported; the reporting checker
(`checker.py`) then checks that node the plain way and reports what is wrong. So the fast path
may be conservative (DIRTY for a node the checker passes costs time, not correctness) but must
never call a node clean that the checker would report: tests/test_check_fastpath.py checks
that, and that findings are the same with and without the fast path, on random and real models.

What `clean` tests is derived from the node rules (`rules.NODE_RULES`): each declares the
precondition under which it cannot fire, and `clean` is the conjunction of the `GUARDS` of the
preconditions they name (RESOLVED is `plan`'s: a node without a plan takes the reporting path).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolkit.model.spec import FormalParameter, OpSchema, ParamOption, canonical_domain
from toolkit.onnx_bridge.check.rules import NODE_RULES, Precondition
from toolkit.onnx_bridge.check.schema_facts import PerRegistry, SchemaFacts
from toolkit.onnx_bridge.check.types import AttributeFacts, attribute_facts
from toolkit.onnx_bridge.graph import GRAPH_ATTR, GRAPHS_ATTR
from toolkit.registry.core import Registry

_Slot = tuple[
    str, frozenset[str], bool
]  # per input/output position: type parameter, allowed types, homogeneous


@dataclass(frozen=True, slots=True)
class FastSchema:
    """A schema's facts in the shape `clean` reads them."""

    min_in: int
    max_in: int
    min_out: int
    max_out: int
    single_in: tuple[int, ...]  # positions of inputs that may not be empty
    single_out: tuple[int, ...]
    attr_types: Mapping[str, int]  # attribute name -> AttributeProto type number
    required_attrs: tuple[str, ...]
    unchecked: bool  # the schema accepts undeclared attributes
    in_slots: tuple[_Slot, ...]
    out_slots: tuple[_Slot, ...]
    # (input types, output types) already found to pass the type check: the check is a function
    # of the declared types per position alone (when no name is empty), and few combinations occur
    typings: set[tuple[tuple[str | None, ...], tuple[str | None, ...]]] = field(default_factory=set)


def compile_schema(schema: OpSchema, facts: SchemaFacts, unchecked: bool) -> FastSchema:
    def singles(params: tuple[FormalParameter, ...]) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(params) if p.option is ParamOption.SINGLE)

    def slots(params: tuple[FormalParameter, ...]) -> tuple[_Slot, ...]:
        return tuple((p.type_str, facts.allowed[p.type_str], p.homogeneous) for p in params)

    min_in, max_in, min_out, max_out = facts.arity
    return FastSchema(
        min_in,
        max_in,
        min_out,
        max_out,
        singles(schema.inputs),
        singles(schema.outputs),
        {name: spec.type.proto_number for name, spec in facts.attributes.items()},
        tuple(spec.name for spec in facts.required),
        unchecked,
        slots(schema.inputs),
        slots(schema.outputs),
    )


# (schema id, accepts undeclared attributes) -> FastSchema, per registry
FAST: PerRegistry[dict[tuple[str, bool], FastSchema]] = PerRegistry(dict)


def plan(
    registry: Registry,
    functions: Container[tuple[str, str]],
    imports: Mapping[str, int],
    raw_domain: str,
    op_type: str,
    unchecked_attributes: Container[str],
    facts_of: Callable[[OpSchema], SchemaFacts],
    cache: dict[tuple[str, bool], FastSchema],
) -> FastSchema | None:
    """What `clean` checks nodes (raw_domain, op_type) of a scope importing `imports` against;
    None when such nodes always take the reporting path (function calls, domains not imported or
    without specs, operators not resolving, deprecated or experimental: each has a finding or
    needs the checker's per-domain bookkeeping)."""
    if (raw_domain, op_type) in functions:
        return None
    domain = canonical_domain(raw_domain)
    if domain not in imports or not registry.has_domain(domain):
        return None
    schema = registry.find_schema(op_type, imports[domain], domain)
    if schema is None or schema.deprecated or schema.experimental:
        return None
    schema_id = schema.id
    unchecked = schema_id in unchecked_attributes
    found = cache.get((schema_id, unchecked))
    if found is None:
        found = cache[schema_id, unchecked] = compile_schema(schema, facts_of(schema), unchecked)
    return found


DIRTY = -1  # `clean` and the guards: the node may have findings, take the reporting path
HOLDS_GRAPHS = 1  # `clean` and the guards: the precondition holds and the node has graph attributes

Types = Callable[[str], str | None]
# (node, inputs, outputs, attribute facts, schema, types) -> DIRTY, or what the test saw on its
# way (0 or HOLDS_GRAPHS); the node's fields read once (`clean_view`)
GuardTest = Callable[[Any, list[str], list[str], AttributeFacts, "FastSchema", Types | None], int]


@dataclass(frozen=True, slots=True)
class Guard:
    """The test of a precondition on one node. `by_typing`: when no value name is empty, the
    answer depends only on the declared types per position, so one answer serves every node of
    the same typing (`FastSchema.typings`); the others run on every node."""

    test: GuardTest
    by_typing: bool
    reports_graphs: bool = False  # its test reads every attribute and says HOLDS_GRAPHS


def _guards(preconditions: Container[Precondition], by_typing: bool) -> tuple[GuardTest, ...]:
    """The tests of `preconditions` (in `Precondition` order) with the given `by_typing`."""
    out = []
    for precondition in Precondition:
        if precondition not in preconditions or precondition is Precondition.RESOLVED:
            continue  # RESOLVED: a node has a plan only when it holds
        guard = GUARDS.get(precondition)
        if guard is None:
            raise LookupError(f"check-model's fast path has no test of precondition {precondition.name}")
        if guard.by_typing == by_typing:
            out.append(guard.test)
    return tuple(out)


def clean(node: Any, fast: FastSchema, types: Types | None) -> int:
    """DIRTY unless `node` certainly passes every check the reporting checker makes against the
    schema of `fast` (then HOLDS_GRAPHS when it holds graph attributes, else 0). `types` looks up
    declared value types; None in a function body, where types are not checked."""
    return clean_view(node, node.input[:], node.output[:], attribute_facts(node.attribute), fast, types)


def clean_view(
    node: Any,
    inputs: list[str],
    outputs: list[str],
    attrs: AttributeFacts,
    fast: FastSchema,
    types: Types | None,
    input_types: tuple[str | None, ...] | None = None,
) -> int:
    """`clean` of a node whose inputs, outputs and attribute facts were read already (the model walk
    reads each node's fields once for every pass over it, and looks up its inputs' types:
    `input_types`, when they are what `types` gives)."""
    typing = None
    if types is not None and "" not in inputs and "" not in outputs:
        if input_types is None:
            input_types = tuple(map(types, inputs))
        typing = (input_types, tuple(map(types, outputs)))
    if typing is None or typing not in fast.typings:
        for test in _BY_TYPING:
            if test(node, inputs, outputs, attrs, fast, types) == DIRTY:
                return DIRTY
        if typing is not None:
            fast.typings.add(typing)
    graphs = 0
    for test in _PER_NODE:
        verdict = test(node, inputs, outputs, attrs, fast, types)
        if verdict == DIRTY:
            return DIRTY
        graphs |= verdict
    if not _SEES_GRAPHS:
        graphs = _graphs(attrs)
    return graphs


def _graphs(attrs: AttributeFacts) -> int:
    """HOLDS_GRAPHS when the node has a graph attribute (for a guard set that reads no attribute)."""
    return HOLDS_GRAPHS if any(kind in (GRAPH_ATTR, GRAPHS_ATTR) for _, kind, _ in attrs) else 0


def _clean_attributes(
    node: Any,
    inputs: list[str],
    outputs: list[str],
    attrs: AttributeFacts,
    fast: FastSchema,
    types: Types | None,
) -> int:
    """Whether the node's attributes pass the checker's attribute checks (and it holds graphs)."""
    if not attrs:
        return DIRTY if fast.required_attrs else 0
    graphs = 0
    attr_types = fast.attr_types
    seen: set[str] = set()
    for name, kind, held in attrs:
        if kind in (GRAPH_ATTR, GRAPHS_ATTR):
            graphs = HOLDS_GRAPHS
        if name in seen:
            return DIRTY
        seen.add(name)
        if name.startswith("__"):
            continue
        expected = attr_types.get(name)
        if expected is None:
            if fast.unchecked:
                continue
            return DIRTY
        if kind != expected or not held:
            return DIRTY
    for name in fast.required_attrs:
        if name not in seen:
            return DIRTY
    return graphs


def _clean_values(
    node: Any,
    inputs: list[str],
    outputs: list[str],
    attrs: AttributeFacts,
    fast: FastSchema,
    types: Types | None,
) -> int:
    """Whether the node's input and output names pass the checker's count and empty-name checks."""
    count = len(inputs)
    if not fast.min_in <= count <= fast.max_in:
        return DIRTY
    if "" in inputs:
        for position in fast.single_in:
            if position < count and not inputs[position]:
                return DIRTY
    count = len(outputs)
    if not fast.min_out <= count <= fast.max_out:
        return DIRTY
    if "" in outputs:
        for position in fast.single_out:
            if position < count and not outputs[position]:
                return DIRTY
    return 0


def _clean_types(
    node: Any,
    inputs: list[str],
    outputs: list[str],
    attrs: AttributeFacts,
    fast: FastSchema,
    types: Types | None,
) -> int:
    """Whether the declared types of the node's values pass the checker's type checks (which
    function bodies, `types` None, skip)."""
    if types is None:
        return 0
    bound: dict[str, str] = {}
    for names, slots in ((inputs, fast.in_slots), (outputs, fast.out_slots)):
        if not slots:
            continue
        last = len(slots) - 1
        for position, name in enumerate(names):
            if not name:
                continue
            actual = types(name)
            if actual is None:
                continue
            param, allowed, homogeneous = slots[position if position < last else last]
            if allowed and actual not in allowed:
                return DIRTY
            if homogeneous and bound.setdefault(param, actual) != actual:
                return DIRTY
    return 0


GUARDS: Mapping[Precondition, Guard] = {
    Precondition.VALUES: Guard(_clean_values, by_typing=True),
    Precondition.TYPES: Guard(_clean_types, by_typing=True),
    Precondition.ATTRIBUTES: Guard(_clean_attributes, by_typing=False, reports_graphs=True),
}
_DECLARED = frozenset(NODE_RULES.values())
_BY_TYPING = _guards(_DECLARED, by_typing=True)
_PER_NODE = _guards(_DECLARED, by_typing=False)
_SEES_GRAPHS = any(guard.reports_graphs and guard.test in _PER_NODE for guard in GUARDS.values())
