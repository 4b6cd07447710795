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
   types the node feeds them.

A node output whose type is also declared (value_info, a graph output) and differs is reported
(MODEL-TYPE-INFERRED-MISMATCH); the declared type is what later nodes then see, so one wrong
declaration is reported once. Values nobody can type stay unknown: inference never guesses.

One pass over the nodes in order (subgraphs when reached), with the schema, bindings and output
rules of each (domain, op_type) resolved once per scope.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from toolkit.model.spec import FormalParameter, OpSchema, canonical_domain
from toolkit.model.types import ELEMENT_TYPE_NUMBERS, looks_like_type_string
from toolkit.onnx_bridge.check.types import declared_types, type_string
from toolkit.onnx_bridge.graph import node_path, opset_imports, subgraphs
from toolkit.registry.core import Registry

Add = Callable[..., None]  # _Walk.add: (rule, path, message, hint="", operator="")

RULES = frozenset({"MODEL-TYPE-INFERRED-MISMATCH"})

_ELEMENTS = {number: name for name, number in ELEMENT_TYPE_NUMBERS.items()}
# AttributeProto type numbers read by `type_from` (int, tensor, sparse_tensor, type_proto)
_INT, _TENSOR, _SPARSE, _TYPE_PROTO = 2, 4, 11, 13
# (subgraph attribute, offset): node output i has the type of the subgraph's output i + offset
_CONTROL_FLOW = {"If": ("then_branch", 0), "Loop": ("body", 1), "Scan": ("body", 0)}


@dataclass(frozen=True, slots=True)
class _Plan:
    """What inference needs of one schema, in positional form."""

    schema: OpSchema
    in_params: tuple[str | None, ...]  # per input position: the type parameter it binds, or None
    outputs: tuple[FormalParameter, ...]
    fixed: tuple[str | None, ...]  # per output: the type known without the node (concrete / one allowed)
    defaults: Mapping[str, Any]  # attribute name -> default value (for type_from)
    input_index: Mapping[str, int]  # input name -> position
    allowed: Mapping[str, frozenset[str]]  # type parameter -> its allowed types


def _plan(schema: OpSchema) -> _Plan:
    constraints = schema.constraint_map
    in_params = tuple(
        p.type_str if p.homogeneous and p.type_str in constraints else None for p in schema.inputs
    )
    fixed: list[str | None] = []
    for param in schema.outputs:
        constraint = constraints.get(param.type_str)
        if constraint is None and looks_like_type_string(param.type_str):
            fixed.append(param.type_str)
        elif constraint is not None and len(constraint.allowed) == 1:
            fixed.append(constraint.allowed[0])
        else:
            fixed.append(None)
    return _Plan(
        schema, in_params, schema.outputs, tuple(fixed),
        {a.name: a.default for a in schema.attributes if a.default is not None},
        {p.name: i for i, p in enumerate(schema.inputs)},
        {c.param: frozenset(c.allowed) for c in schema.type_constraints},
    )


class Inference:
    """Infers the types of one model's main graph and subgraphs (see the module doc)."""

    def __init__(self, registry: Registry, functions: Mapping[tuple[str, str], Any], add: Add) -> None:
        self.registry = registry
        self.functions = functions
        self.add = add
        self.inferred: dict[str, str] = {}  # every value typed by inference (all scopes)
        self._plans: dict[tuple[str, str, int], _Plan | None] = {}

    def plan(self, domain: str, op_type: str, version: int) -> _Plan | None:
        key = (domain, op_type, version)
        found = self._plans.get(key, _NO_PLAN)
        if found is _NO_PLAN:
            schema = self.registry.find_schema(op_type, version, domain) if self.registry.has_domain(domain) else None
            found = self._plans[key] = _plan(schema) if schema is not None else None
        return found  # type: ignore[return-value]

    def graph(self, graph: Any, path: str, imports: Mapping[str, int],
              outer: Mapping[str, str | None] | None = None,
              fed: Mapping[str, str | None] | None = None) -> Mapping[str, str | None]:
        """Infer `graph` (its subgraphs too); returns its scope's types (declared win). `fed`:
        the types a Loop or Scan feeds its body's inputs, for the inputs declared without one."""
        declared = declared_types(graph)
        scopes: list[Mapping[str, str | None]] = [declared] if outer is None else [declared, outer]
        if fed:
            scopes.insert(0, {name: found for name, found in fed.items() if declared.get(name) is None})
        known: MutableMapping[str, str | None] = ChainMap({}, *scopes)  # type: ignore[arg-type]
        for index, node in enumerate(graph.node):
            domain = canonical_domain(node.domain)
            version = imports.get(domain)
            plan = None
            if version is not None and (node.domain, node.op_type) not in self.functions:
                plan = self.plan(domain, node.op_type, version)
            results: list[str | None] = []
            if node.attribute:
                results = self.control_flow(node, node_path(path, node, index), imports, known)
            if plan is not None:
                results = self.node(node, plan, known, results)
            for position, name in enumerate(node.output):
                if not name or position >= len(results):
                    continue
                found = results[position]
                if found is None:
                    continue
                self.inferred[name] = found
                stated = declared.get(name)
                if stated is not None and stated != found:
                    operator = plan.schema.id if plan is not None else node.op_type
                    self.add("MODEL-TYPE-INFERRED-MISMATCH", node_path(path, node, index),
                             f"output {position} '{name}' is declared {stated}, but {operator} makes it {found}",
                             operator=operator)
                elif stated is None:
                    known[name] = found
        return known

    def control_flow(self, node: Any, path: str, imports: Mapping[str, int],
                     known: Mapping[str, str | None]) -> list[str | None]:
        """Infer the node's subgraphs; for If/Loop/Scan the types their outputs hand back."""
        wanted = _CONTROL_FLOW.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        results: list[str | None] = []
        for suffix, sub in subgraphs(node):
            fed = _body_inputs(node, sub, known, imports) if wanted is not None and suffix == "body" else None
            scope = self.graph(sub, f"{path}/{suffix}", imports, known, fed)
            if wanted is not None and suffix == wanted[0]:
                outputs = [o.name for o in sub.output][wanted[1]:]
                results = [scope.get(name) for name in outputs]
        return results

    def node(self, node: Any, plan: _Plan, known: Mapping[str, str | None],
             flow: list[str | None]) -> list[str | None]:
        bound: dict[str, str] = {}
        params = plan.in_params
        if params:
            last = len(params) - 1
            for position, name in enumerate(node.input):
                param = params[position if position < last else last]
                if param is not None and name and param not in bound:
                    found = known.get(name)
                    # a type the parameter does not allow is the node's finding, not a binding
                    if found is not None and found in plan.allowed[param]:
                        bound[param] = found
        results: list[str | None] = []
        outputs = plan.outputs
        for position in range(len(node.output)):
            if not outputs:
                break
            index = position if position < len(outputs) else len(outputs) - 1
            output = outputs[index]
            found = None
            if output.type_from:
                found = self.type_from(node, plan, output, known)
            if found is None:  # a heterogeneous output (SequenceMap's) is not one binding
                found = plan.fixed[index] or (bound.get(output.type_str) if output.homogeneous else None)
            if found is None and position < len(flow):
                found = flow[position]
            results.append(found)
        return results

    def type_from(self, node: Any, plan: _Plan, param: FormalParameter,
                  known: Mapping[str, str | None]) -> str | None:
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
                    found = _attribute_type(attr)
                if found is not None:
                    return found
            elif source.input:
                position = plan.input_index.get(source.input)
                if position is not None and position < len(node.input) and node.input[position]:
                    found = known.get(node.input[position])
                    if found is not None:
                        return found
            elif source.type:
                return source.type
        return None


_NO_PLAN = object()


def _body_inputs(node: Any, body: Any, known: Mapping[str, str | None],
                 imports: Mapping[str, int]) -> dict[str, str | None]:
    """The types a Loop or Scan node feeds its body's inputs: Loop's body gets the iteration
    number, the condition, then the node's loop-carried values (its inputs from the third on);
    Scan (opset 9 on) feeds its inputs to the body one for one (state values, then a slice of each
    scanned tensor, of the same element type)."""
    names = [i.name for i in body.input]
    if node.op_type == "Loop":
        fed = ["tensor(int64)", "tensor(bool)", *(known.get(n) if n else None for n in node.input[2:])]
    elif imports.get("", 0) >= 9:
        fed = [known.get(n) if n else None for n in node.input]
    else:
        return {}
    return {name: found for name, found in zip(names, fed, strict=False) if found is not None}


def _element(number: int) -> str | None:
    """tensor(<data type>) of a TensorProto data type number; None for UNDEFINED or unknown."""
    name = _ELEMENTS.get(number)
    return f"tensor({name})" if name else None


def _attribute_type(attr: Any) -> str | None:
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



def infer_types(model: Any, registry: Registry) -> dict[str, str]:
    """Value name -> inferred type over the main graph and its subgraphs (findings dropped)."""
    inference = Inference(registry, {(f.domain, f.name): f for f in model.functions}, lambda *a, **k: None)
    inference.graph(model.graph, "graph", opset_imports(model.opset_import))
    return inference.inferred
