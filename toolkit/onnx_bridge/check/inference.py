"""check-model's element-type inference: the type of every node output, from the operator specs.

An output's type follows, in this order, from:

1. its `type_from` sources in the spec (`toolkit.model.spec.TypeSource`: Cast's `to`, CastLike's
   `target_type`, RandomNormal's `dtype` with its default, ...), the first that applies;
2. a concrete type string (`tensor(int64)` for ArgMax's output);
3. the type its type parameter is bound to by the node's inputs (`Add(a, b) -> c`: c has a's
   type); only homogeneous parameters bind, only to a type they allow, and only homogeneous
   outputs take a binding;
4. a type constraint allowing exactly one type;
5. for If, Loop and Scan, the matching output of the subgraph (then_branch; the body's outputs
   after the condition for Loop); a Loop or Scan body's inputs declared without a type get the
   types the node feeds them;
6. for a call of a model-local function, the types its body gives with the call's input types
   (the model walk walks the body, `shape_functions`).

A node output whose type is also declared (value_info, a graph output) and differs is reported
(MODEL-TYPE-INFERRED-MISMATCH); the declared type is what later nodes then see, so one wrong
declaration is reported once. Values nobody can type stay unknown: inference never guesses.

The rules of one node are here; the pass over the nodes in order (subgraphs when reached) is the
model walk's (`toolkit.onnx_bridge.shape_infer`), which infers types and shapes in one traversal:
check-model, `toolkit.infer_shapes` and convert read the types it gives. The schema, bindings and
output rules of each (domain, op_type) are resolved once per model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolkit.model.spec import FormalParameter, OpSchema, canonical_domain
from toolkit.model.types import ATTRIBUTE_TYPE_NUMBERS, ELEMENT_TYPE_NUMBERS, looks_like_type_string
from toolkit.onnx_bridge.check.types import type_string
from toolkit.registry.core import Registry
from toolkit.shapes.engine import attribute_defaults

Add = Callable[..., None]  # _Walk.add: (rule, path, message, hint="", operator="")

RULES = frozenset({"MODEL-TYPE-INFERRED-MISMATCH"})

_ELEMENTS = {number: name for name, number in ELEMENT_TYPE_NUMBERS.items()}
_TENSOR_TYPES = {number: f"tensor({name})" for number, name in _ELEMENTS.items()}  # made once, not per node
# AttributeProto type numbers read by `type_from` (int, tensor, sparse_tensor, type_proto)
_INT, _TENSOR, _SPARSE, _TYPE_PROTO = (
    ATTRIBUTE_TYPE_NUMBERS[name] for name in ("int", "tensor", "sparse_tensor", "type_proto")
)
# (subgraph attribute, offset): node output i has the type of the subgraph's output i + offset
CONTROL_FLOW = {"If": ("then_branch", 0), "Loop": ("body", 1), "Scan": ("body", 0)}


Lookup = Callable[[str], "str | None"]  # value name -> its type in a scope (None: unknown)


@dataclass(frozen=True, slots=True)
class TypePlan:
    """What inference needs of one schema, in positional form."""

    schema: OpSchema
    in_params: tuple[str | None, ...]  # per input position: the type parameter it binds, or None
    # per output: (its parameter when it has type_from, else None; the type known without the
    # node (concrete, or a constraint's only type); the type parameter whose binding it takes)
    out_rules: tuple[tuple[FormalParameter | None, str | None, str | None], ...]
    defaults: Mapping[str, Any]  # attribute name -> default value (for type_from)
    input_index: Mapping[str, int]  # input name -> position
    allowed: Mapping[str, frozenset[str]]  # type parameter -> its allowed types
    # the attributes its type_from sources read: with the node's input types and output count,
    # what its output types depend on (attribute_type of each gives all they read of one)
    attributes: frozenset[str]


def _plan(schema: OpSchema) -> TypePlan:
    constraints = schema.constraint_map
    in_params = tuple(
        p.type_str if p.homogeneous and p.type_str in constraints else None for p in schema.inputs
    )
    rules = []
    for param in schema.outputs:
        constraint = constraints.get(param.type_str)
        fixed = None
        if constraint is None and looks_like_type_string(param.type_str):
            fixed = param.type_str
        elif constraint is not None and len(constraint.allowed) == 1:
            fixed = constraint.allowed[0]
        # a heterogeneous output (SequenceMap's) is not one binding
        binding = param.type_str if param.homogeneous and constraint is not None else None
        rules.append((param if param.type_from else None, fixed, binding))
    return TypePlan(
        schema,
        in_params,
        tuple(rules),
        attribute_defaults(schema),
        {p.name: i for i, p in enumerate(schema.inputs)},
        {c.param: frozenset(c.allowed) for c in schema.type_constraints},
        frozenset(s.attribute for p in schema.outputs for s in p.type_from if s.attribute),
    )


_MISSING = object()


class TypeInference:
    """The element types of one model's node outputs, node by node as the model walk reaches them
    (see the module doc; the walk keeps each graph's apart)."""

    def __init__(
        self,
        registry: Registry,
        functions: Mapping[tuple[str, str], Any],
        add: Add,
        imports: Mapping[str, int],
    ) -> None:
        self.registry = registry
        self.functions = functions
        self.add = add
        self.imports = imports
        self._plans: dict[tuple[str, str], TypePlan | None] = {}  # (raw domain, op_type) -> plan

    def plan(self, raw_domain: str, op_type: str) -> TypePlan | None:
        key = (raw_domain, op_type)
        found = self._plans.get(key, _MISSING)
        if found is _MISSING:
            found = None
            domain = canonical_domain(raw_domain)
            version = self.imports.get(domain)
            if version is not None and key not in self.functions and self.registry.has_domain(domain):
                schema = self.registry.find_schema(op_type, version, domain)
                found = _plan(schema) if schema is not None else None
            self._plans[key] = found
        return found  # type: ignore[return-value]

    def fed_mismatches(
        self, fed: Mapping[str, str | None], declared: Mapping[str, str | None], path: str
    ) -> None:
        """A body input declared with another type than the Loop or Scan node feeds it."""
        for name, found in fed.items():
            stated = declared.get(name)
            if stated is not None and found is not None and stated != found:
                self.add(
                    "MODEL-TYPE-INFERRED-MISMATCH",
                    path,
                    f"body input '{name}' is declared {stated}, but the node feeds it {found}",
                )

    def mismatch(
        self, node: Any, plan: TypePlan | None, position: int, name: str, stated: str, found: str, path: str
    ) -> None:
        """Output `position` of the node at `path` is declared `stated` but inferred `found`."""
        operator = plan.schema.id if plan is not None else node.op_type
        self.add(
            "MODEL-TYPE-INFERRED-MISMATCH",
            path,
            f"output {position} '{name}' is declared {stated}, but {operator} makes it {found}",
            operator=operator,
        )

    def node(
        self, node: Any, plan: TypePlan, lookup: Lookup, flow: list[str | None], count: int
    ) -> list[str | None]:
        """The types of the node's `count` outputs (None where unknown)."""
        bound: dict[str, str] = {}
        params = plan.in_params
        if params:
            last = len(params) - 1
            for position, name in enumerate(node.input[:]):
                param = params[position if position < last else last]
                if param is not None and name and param not in bound:
                    found = lookup(name)
                    # a type the parameter does not allow is the node's finding, not a binding
                    if found is not None and found in plan.allowed[param]:
                        bound[param] = found
        results: list[str | None] = []
        rules = plan.out_rules
        if not rules:
            return results
        last = len(rules) - 1
        for position in range(count):
            with_sources, fixed, binding = rules[position if position < last else last]
            found = None
            if with_sources is not None:
                found = self.type_from(node, plan, with_sources, lookup)
            if found is None:
                found = fixed or (bound.get(binding) if binding is not None else None)
            if found is None and position < len(flow):
                found = flow[position]
            results.append(found)
        return results

    def type_from(self, node: Any, plan: TypePlan, param: FormalParameter, lookup: Lookup) -> str | None:
        attrs = {a.name: a for a in node.attribute} if node.attribute else {}
        for source in param.type_from:
            if source.attribute:
                attr = attrs.get(source.attribute)
                if attr is None:
                    default = plan.defaults.get(source.attribute)
                    if default is None:
                        continue
                    if source.type:
                        return source.type
                    found = _element(default) if isinstance(default, int) else None
                elif source.type:
                    return source.type
                else:
                    found = attribute_type(attr)
                if found is not None:
                    return found
            elif source.input:
                position = plan.input_index.get(source.input)
                if position is not None and position < len(node.input) and node.input[position]:
                    found = lookup(node.input[position])
                    if found is not None:
                        return found
            elif source.type:
                return source.type
        return None


def body_inputs(node: Any, body: Any, lookup: Lookup, imports: Mapping[str, int]) -> dict[str, str | None]:
    """The types a Loop or Scan node feeds its body's inputs: Loop's body gets the iteration
    number, the condition, then the node's loop-carried values (its inputs from the third on);
    Scan feeds its inputs to the body one for one (state values, then a slice of each scanned
    tensor, of the same element type), after Scan-8's sequence_lens."""
    names = [i.name for i in body.input]
    if node.op_type == "Loop":
        fed = ["tensor(int64)", "tensor(bool)", *(lookup(n) if n else None for n in node.input[2:])]
    else:  # Scan-8's first input is the optional sequence_lens, not fed to the body
        fed = [lookup(n) if n else None for n in node.input[(0 if imports.get("", 0) >= 9 else 1) :]]
    return {name: found for name, found in zip(names, fed, strict=False) if found is not None}


def _element(number: int) -> str | None:
    """tensor(<data type>) of a TensorProto data type number; None for UNDEFINED or unknown."""
    return _TENSOR_TYPES.get(number)


def attribute_type(attr: Any) -> str | None:
    """The type an attribute gives a type_from source (an int data type, a tensor's, a TypeProto)."""
    kind = attr.type
    if kind == _INT:
        return _element(attr.i)
    if kind == _TENSOR:
        return _element(attr.t.data_type)
    if kind == _SPARSE:
        name = _ELEMENTS.get(attr.sparse_tensor.values.data_type)
        return f"sparse_tensor({name})" if name else None
    if kind == _TYPE_PROTO:
        return type_string(attr.tp)
    return None
