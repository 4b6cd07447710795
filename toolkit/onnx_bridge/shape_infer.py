"""The model walk: element types and shapes through an ONNX model from the specs' type and shape
rules (#27), in one traversal; `toolkit.infer_shapes` and `opset infer-shapes` write them into the
model's `value_info` as onnx.shape_inference does, check-model reports what contradicts them.

The main graph's nodes are visited in order (onnx requires it topological); each node's operator
version is resolved in the registry (the imported onnx catalog with its shape overlay, plus any
vendor specs) once per (domain, op_type); its output types follow check-model's type rules
(`check.inference`), its shapes its `shape:` rules evaluated by `toolkit.shapes.engine`.
Constant inputs (integer and float initializers and Constant nodes, at most `shape_read.MAX_CONSTANT` elements) feed
the rules' `value(I)`, and so do the values the operators' value rules compute from shapes
(Shape -> Gather -> Concat: onnx's data propagation), kept for an output of rank 0 or 1.
Subgraphs are walked with their outer graphs' values in scope: If's outputs are what both
branches agree on, Loop's and Scan's states what the body keeps, their scan outputs the body's
slices with the iteration axis added. A call of a model-local function gets the outputs of the
function's body walked with the call's values (`shape_functions`). Nothing of the model is
executed.
"""

from __future__ import annotations

import itertools
import os
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from toolkit.model.spec import OpSchema
from toolkit.onnx_bridge.check.inference import CONTROL_FLOW, Add, TypeInference, body_inputs
from toolkit.onnx_bridge.check.types import Declared, Pairs, declarations
from toolkit.onnx_bridge.graph import graph_path, node_path, opset_imports, subgraphs
from toolkit.onnx_bridge.shape_read import constant_node, tensor_constant
from toolkit.onnx_bridge.shape_result import Conflict, ShapeResult, Subgraph
from toolkit.onnx_bridge.shape_versions import OpVersion, Outcome, read_attributes, resolve_version
from toolkit.onnx_bridge.walk_hooks import GraphHooks, WalkHooks
from toolkit.registry.core import Registry
from toolkit.shapes.engine import bind_inputs, infer
from toolkit.shapes.flow import agree, contradicts, loop_shapes, merge, scan_shapes
from toolkit.shapes.values import ABSENT, Num, Shape, Sym, Value

if TYPE_CHECKING:
    from toolkit.onnx_bridge.shape_functions import Calls
    from toolkit.onnx_bridge.shape_versions import AttributeReads, Picked

__all__ = [
    "Conflict",
    "GraphHooks",
    "ShapeResult",
    "Subgraph",
    "WalkHooks",
    "infer_model_shapes",
    "infer_types",
    "registry_for",
]


def registry_for(specs: Registry | Sequence[str | os.PathLike[str]] | None) -> Registry:
    """The registry of `specs` (a Registry, or spec paths added to the onnx catalog), or the catalog."""
    if isinstance(specs, Registry):
        return specs
    from toolkit.onnx_bridge.catalog import model_registry

    return model_registry(list(specs or ()), adapters=False)


def infer_model_shapes(
    model: Any, registry: Registry, add: Add | None = None, hooks: WalkHooks | None = None
) -> ShapeResult:
    """Every value's shape the rules give over the main graph and its subgraphs, its element type
    (the main graph's in `ShapeResult.types`, each subgraph's in `ShapeResult.subgraphs`), and
    the shape constraints' findings; the inferred types that contradict a declaration go to
    `add` (check-model's MODEL-TYPE-INFERRED-MISMATCH), when given. `hooks` run beside the walk
    over the main graph and its subgraphs (check-model's other checks: one traversal, each
    node's fields read once)."""
    result = ShapeResult()
    counter = itertools.count()

    def fresh() -> Sym:
        return Sym(f"opset_unk__{next(counter)}")

    imports = opset_imports(model.opset_import)
    functions = {(f.domain, f.name): f for f in model.functions}
    types = TypeInference(registry, functions, add or _dropped, imports)
    walk = _Walk(registry, imports, result, fresh, types)
    walk.hooks = hooks
    if model.functions:
        from toolkit.onnx_bridge.shape_functions import Calls, function_map

        walk.calls = Calls(functions=function_map(model.functions), imports=imports, fresh=fresh)
    main = _Scope(graph_path(model), result.shapes, {}, {}, checked=hooks is not None)
    walk.graph(model.graph, main)
    result.types, result.produced, result.declared = main.inferred, main.produced, main.declared
    return result


def infer_types(model: Any, registry: Registry) -> dict[str, str]:
    """Value name -> inferred element type over the main graph and its subgraphs, as one map: a
    name typed in several graphs (sibling branches reusing it) keeps the main graph's type, else
    the first walked subgraph's (`infer_model_shapes` keeps each graph's apart)."""
    result = infer_model_shapes(model, registry)
    types = dict(result.types)
    for sub in result.subgraphs:
        for name, found in sub.types.items():
            types.setdefault(name, found)
    return types


def _dropped(*args: Any, **kwargs: Any) -> None:
    """A finding nobody asked for."""


Scope = MutableMapping[str, Shape]
_NO_ATTRIBUTES: AttributeReads = ((), (), False)  # what read_attributes gives of no attributes
_UNDECLARED = object()
# what is known of small tensors' contents: constants (ints, floats), and values computed from
# shapes by the operators' value rules (Shape -> Gather -> Concat -> Reshape); None: not known
# (a body's input of an outer constant's name: the outer value is not the one the body reads)
Values = MutableMapping[str, tuple[Num, ...] | None]


@dataclass(slots=True)
class _Scope:
    """One graph's values as the walk reaches them: shapes and constants (a subgraph's chained over
    its outer graphs'), element types (declared, else inferred; chained likewise), the types
    the graph itself declares (an inferred type contradicting one is a finding) and the types
    inferred for its own node outputs (`inferred`: its alone, a sibling graph's are not seen)."""

    path: str
    shapes: Scope
    values: Values
    types: MutableMapping[str, str | None]
    declared: dict[str, str | None] = field(default_factory=dict)
    produced: list[str] = field(default_factory=list)  # its nodes' outputs, in order
    outputs: Pairs = field(default_factory=list)  # the graph's declared outputs and their shapes
    inferred: dict[str, str] = field(default_factory=dict)  # its node outputs' inferred types
    shaped: bool = True  # False: types only (a graph other than If's, Loop's or Scan's, see control)
    checked: bool = False  # the walk's hooks run over this graph (the main graph and its subgraphs)
    check: GraphHooks | None = None  # their hooks of this graph (before it is entered: its outer's)
    # `types.get`, `shapes.get` bound once: every node reads its inputs' (a bound method is an object)
    type_of: Callable[[str], str | None] = field(init=False)
    shape_of: Callable[[str], Shape] = field(init=False)

    def __post_init__(self) -> None:
        self.type_of, self.shape_of = self.types.get, self.shapes.get


def _inputs_of(key: tuple[object, ...], count: int, shaped: bool) -> tuple[tuple[object, ...], ...]:
    """A node's `count` input types and shapes (none if its rules do not run), from its memo key's
    end (`_Walk.node`): no count of the fields before them to keep in step."""
    start = len(key) - count * (2 if shaped else 1)
    return key[start : start + count], key[start + count :]


class _Walk:
    """One pass over a graph's nodes in order, inferring each node's output types and shapes; a
    subgraph sees its outer graphs' values (ChainMaps over them) and its own are kept apart
    (`ShapeResult.subgraphs`)."""

    def __init__(
        self,
        registry: Registry,
        imports: dict[str, int],
        result: ShapeResult,
        fresh: Callable[[], Sym],
        types: TypeInference,
    ) -> None:
        self.registry = registry
        self.imports = imports
        self.result = result
        self.fresh = fresh
        self.types = types
        # per (domain, op_type): the version the model imports, and what its rules read; and the
        # node results (types, shapes) already evaluated, by what they depend on
        self.versions: dict[tuple[str, str], OpVersion] = {}
        self.memo: dict[tuple[object, ...], Outcome] = {}
        self.declared_types: dict[bytes, Declared] = {}  # check.types.declarations' memo
        self.calls: Calls | None = None  # the model's local functions, when it has any
        self.hooks: WalkHooks | None = None  # what runs beside the walk (infer_model_shapes)

    def graph(
        self,
        graph: Any,
        scope: _Scope,
        fed: Mapping[str, str | None] | None = None,
        given: Mapping[str, Shape] | None = None,
    ) -> None:
        """Walk `graph` in `scope`. `fed`: the types a Loop or Scan feeds its body's inputs declared
        without one; `given`: the shapes it feeds them (a declared one is kept: one it contradicts
        is a finding at the body, as onnx's strict inference fails the node)."""
        found = declarations(graph, self.declared_types)  # each declaration read once
        declared, scope.declared, scope.outputs = found.types, found.types, found.outputs
        hooks = self.hooks
        if hooks is not None and scope.checked:
            scope.check = hooks.enter(graph, scope.path, scope.check, found, fed, scope.types)
        scope.types.update(declared)
        if fed:
            scope.types.update((name, found) for name, found in fed.items() if declared.get(name) is None)
            self.types.fed_mismatches(fed, declared, scope.path)
        # the declared shapes (a graph output's too: a node's inferred shape is checked against
        # the declaration of its own graph), each of the entry the name's type is read from
        shapes, named = scope.shapes, found.shapes
        if shapes.keys().isdisjoint(named):
            shapes.update(named)  # none known yet: nothing to merge
        else:
            for name, declared_shape in named.items():
                known = shapes.get(name)
                shapes[name] = declared_shape if known is None else merge(known, declared_shape)
        for name, shape in given.items() if given else ():
            stated = shapes.get(name)
            if stated is not None and shape is not None and contradicts(stated, shape):
                # the declaration is kept (later nodes see it): one wrong declaration, one finding
                self.result.conflicts.append(Conflict(scope.path, name, stated, shape, "", fed=True))
            else:
                shapes[name] = merge(stated, shape)
        for tensor in graph.initializer:
            shapes[tensor.name], constant = tensor_constant(tensor)
            if constant is not None:
                scope.values[tensor.name] = constant
        self.result.nodes += len(graph.node)
        visit = self.node
        for index, node in enumerate(graph.node):
            visit(node, scope, index)
        if scope.check is not None:
            scope.check.leave()

    def node(self, node: Any, scope: _Scope, index: int) -> None:
        """One node of the graph of `scope`: its subgraphs, then its output types and shapes (its
        path, graph.node_path, is made only where there is something to locate: check-model's
        findings are located as its own). Every line runs per node: the common case (a memo hit,
        types settled, no graph, no call) is reached with the fewest tests."""
        op = node.domain, node.op_type  # each read of a protobuf field makes a new str
        found = self.versions.get(op)
        if found is None:
            found = self.versions[op] = resolve_version(self.types, self.registry, self.imports, *op)
        # (the attributes not copied out: most nodes have none, the rest are read once on a memo hit)
        names, outputs, attrs = node.input[:], node.output[:], node.attribute
        scope.produced += outputs
        check = scope.check
        read = read_attributes(found, attrs) if attrs else _NO_ATTRIBUTES
        # (`mark`: the hooks' `before`, only where subgraphs are walked between it and `after`)
        mark = flow = called = None
        if read[2]:  # an attribute holds graphs
            if check is not None:
                mark = check.before(node, index, names)
            flow = self.control(node, scope, index)
        if found.plan is None and self.calls is not None:
            called = self.calls.call(self, node, scope, index)
            if called is not None:  # a call of a local function: its body's output types and shapes
                flow = called[1]
        shapes, shaped = scope.shapes, scope.shaped
        schema = found.schema if shaped and called is None else None
        if found.constant and shaped and len(outputs) == 1:
            read_constant = constant_node(attrs)
            if read_constant is not None:
                shapes[outputs[0]], constant = read_constant
                if constant is not None:
                    scope.values[outputs[0]] = constant
            schema = None
        given: Iterable[Value] = ()
        constants: tuple[tuple[str, Value], ...] = ()
        gap = "" in names  # an optional input left out
        if schema is not None:
            given = map(scope.shape_of, names)
            if gap:
                given = [shape if name else ABSENT for name, shape in zip(names, given)]
            if found.values:  # its rules read inputs' values
                constants = found.constants(names, scope.values)
        # a node's types and shapes depend only on these (engine.reads: what its shape rules read,
        # TypePlan.attributes: its type_from's), so 10,000 nodes are a few hundred evaluations; the
        # key holds all the walk read of the attributes (the hooks' verdict is a function of the
        # outcome). Flat, inputs last (`_inputs_of`): built and hashed in one step
        key = (found, schema is not None, read, constants, len(outputs), *map(scope.type_of, names), *given)
        outcome = self.memo.get(key) if flow is None else None
        if outcome is None:
            given = _inputs_of(key, len(names), schema is not None)[1]
            outcome = self.evaluate(
                node, found, schema, scope.types, flow, given, read[0], constants, len(outputs)
            )
            if flow is None and (outcome.inferred is None or not outcome.inferred.minted):
                self.memo[key] = outcome  # (a fresh symbol stays fresh)
        # the inferred types recorded; `settled`: every output named and typed, and all of them
        # undeclared or all declared as inferred (one step each, the common cases), else a finding
        # or a partly known type, output by output
        settled = False
        single = outcome.single
        if single is not None:
            name = outputs[0]
            if name:
                scope.inferred[name] = single
                stated = scope.declared.get(name, _UNDECLARED)
                settled = stated == single
                if stated is _UNDECLARED:
                    scope.types[name] = single
                    settled = True
        elif outcome.complete is not None and "" not in outputs:
            every, declared = outcome.complete, scope.declared
            scope.inferred.update(zip(outputs, every))
            if tuple(map(declared.get, outputs)) == every:  # (a declared type is never None here)
                settled = True
            elif declared.keys().isdisjoint(outputs):
                scope.types.update(zip(outputs, every))
                settled = True
        if not settled and outcome.typed:
            self.record(node, found, scope, index, outputs, outcome.typed)
        if check is not None:
            # a node whose outputs are typed as its memo entry says: that entry (an object, hashed
            # by identity) is its signature, and one the hooks found clean needs their graph
            # checks only
            if settled and not gap and outcome in check.clean:
                check.repeated(node, index, names, outputs)
            else:
                # (the memo's entry for the key: a node like an earlier one, or the first of a kind;
                # a node whose subgraphs were walked is neither, and its key is never hashed)
                keyed = flow is None and self.memo.get(key) is outcome
                signature = outcome if settled and keyed else None
                typing = cast("tuple[str | None, ...]", _inputs_of(key, len(names), schema is not None)[0])
                check.after(mark, node, index, op, names, outputs, read[1], typing, signature)
        if called is not None:
            self.settle(outputs, shapes, called[0])
        inferred = outcome.inferred
        if inferred is None or schema is None:
            return
        if outcome.valued:
            for name, content in zip(outputs, inferred.values):
                if name and content is not None:
                    scope.values[name] = content  # computed from shapes: later nodes' value() reads it
        if inferred.findings:
            path = node_path(scope.path, node, index)
            self.result.operators[path] = schema.id
            self.result.findings.extend((path, message) for message in inferred.findings)
        for position, shape in outcome.ruled:
            name = outputs[position]
            if name:
                known_shape = shapes.get(name)
                if known_shape == shape:
                    continue  # declared as inferred (a value_info, typically): nothing to refine
                if known_shape is None:
                    shapes[name] = shape
                elif contradicts(known_shape, shape):
                    path = node_path(scope.path, node, index)
                    self.result.conflicts.append(Conflict(path, name, known_shape, shape, schema.id))
                    # later nodes see the declared shape, so one bad declaration is one finding
                else:
                    shapes[name] = merge(known_shape, shape)

    def record(
        self,
        node: Any,
        found: OpVersion,
        scope: _Scope,
        index: int,
        outputs: list[str],
        typed: tuple[str | None, ...],
    ) -> None:
        """The inferred types of a node's outputs recorded one by one (some output unnamed or not
        typed, or declared otherwise: a finding)."""
        declared, known, types = scope.declared, scope.inferred, scope.types
        for position, (name, found_type) in enumerate(zip(outputs, typed)):
            if found_type is None or not name:
                continue
            known[name] = found_type
            if name not in declared:
                types[name] = found_type
                continue
            stated = declared[name]
            if stated == found_type:
                continue
            if stated is None:
                types[name] = found_type
            else:
                path = node_path(scope.path, node, index)
                self.types.mismatch(node, found.plan, position, name, stated, found_type, path)

    def evaluate(
        self,
        node: Any,
        found: OpVersion,
        schema: OpSchema | None,
        types: MutableMapping[str, str | None],
        flow: list[str | None] | None,
        given: tuple[Value, ...],
        attributes: Picked,
        constants: tuple[tuple[str, Value], ...],
        count: int,
    ) -> Outcome:
        """A node's output types (its type plan's, else what its subgraphs hand back) and the
        result of its shape rules (None: not evaluated)."""
        plan = found.plan
        typed = (
            tuple(flow or ())
            if plan is None
            else tuple(self.types.node(node, plan, types.get, flow or [], count))
        )
        if schema is None:
            return Outcome(typed, None, count)
        inferred = infer(
            schema,
            bind_inputs(schema, given),
            {
                name: value
                for name, value, _ in attributes
                if name in found.attributes and value is not ABSENT
            },
            {name: value for name, value in constants if value is not None},
            self.fresh,
            outputs=count,
        )
        return Outcome(typed, inferred, count)

    def settle(self, outputs: Sequence[str], shapes: Scope, out: Sequence[Shape]) -> None:
        """The outputs of a node whose shapes come from a graph (a subgraph, a function's body):
        the declared shapes refined."""
        for name, shape in zip(outputs, out):
            if name and shape is not None:
                shapes[name] = merge(shapes.get(name), shape)

    def nested(self, imports: dict[str, int], fresh: Callable[[], Sym]) -> _Walk:
        """A walk of a function's body at the function's `imports`: it shares this walk's result,
        memo and calls; its type findings are dropped (check-model checks each function once, as
        a graph of its own)."""
        types = TypeInference(self.registry, self.types.functions, _dropped, imports)
        inner = _Walk(self.registry, imports, self.result, fresh, types)
        inner.memo, inner.declared_types, inner.calls = self.memo, self.declared_types, self.calls
        return inner

    def nodes(self, nodes: Sequence[Any], scope: _Scope) -> None:
        """Walk `nodes` (a function's body, bound to a call) in `scope`."""
        for index, node in enumerate(nodes):
            self.node(node, scope, index)

    def scope(
        self,
        path: str,
        shapes: dict[str, Shape],
        values: Values,
        types: dict[str, str | None],
        declared: dict[str, str | None],
        shaped: bool,
    ) -> _Scope:
        """A scope of a function's body (shape_functions makes one per call)."""
        return _Scope(path, shapes, values, types, declared, shaped=shaped)

    def body(
        self,
        graph: Any,
        inputs: Sequence[Shape],
        scope: _Scope,
        path: str,
        fed: Mapping[str, str | None] | None,
        shaped: bool,
    ) -> _Scope:
        """Walk a subgraph whose inputs have the shapes `inputs` (the declared ones past them) and
        the types `fed`; its scope. `shaped` False: its types only."""
        # its inputs shadow the outer values of their names: known only as declared or fed
        names = [info.name for info in graph.input]
        inner = _Scope(
            path,
            ChainMap(dict.fromkeys(names), scope.shapes),
            ChainMap(dict.fromkeys(names), scope.values),
            ChainMap({}, scope.types),
            shaped=shaped and scope.shaped,
            checked=scope.check is not None,
            check=scope.check,
        )
        self.graph(graph, inner, fed, dict(zip(names, inputs)))
        own = dict(inner.shapes.maps[0]) if inner.shaped else None  # type: ignore[attr-defined]
        self.result.subgraphs.append(Subgraph(graph, own, inner.produced, inner.inferred))
        return inner

    def control(self, node: Any, scope: _Scope, index: int) -> list[str | None]:
        """Walk the node's subgraphs (in attribute order, If's then_branch first); the shapes of
        If's, Loop's and Scan's outputs come from their bodies, and the types they hand back are
        returned (the matching output of then_branch, or of the body after Loop's condition)."""
        graphs = dict(subgraphs(node))
        if not graphs:
            return []
        path = node_path(scope.path, node, index)
        op = node.op_type if node.domain in ("", "ai.onnx") else ""
        wanted = CONTROL_FLOW.get(op)
        lookup = scope.types.get
        walked: dict[str, _Scope] = {}

        def walk(suffix: str, inputs: Sequence[Shape], shaped: bool = True) -> list[Shape]:
            sub = graphs[suffix]
            fed = body_inputs(node, sub, lookup, self.imports) if wanted and suffix == "body" else None
            inner = walked[suffix] = self.body(sub, inputs, scope, f"{path}/{suffix}", fed, shaped)
            return [merge(shape, inner.shapes.get(name)) for name, shape in inner.outputs]

        out: list[Shape] = []
        if op == "If" and {"then_branch", "else_branch"} <= graphs.keys():
            branches = {suffix: walk(suffix, ()) for suffix in graphs if suffix.endswith("_branch")}
            out = [agree(a, b) for a, b in zip(branches["then_branch"], branches["else_branch"])]
        elif op in ("Loop", "Scan") and "body" in graphs:
            given = [scope.shapes.get(name) if name else None for name in node.input]
            ints = {
                a.name: (a.i if a.type == a.INT else tuple(a.ints))
                for a in node.attribute
                if not a.HasField("g")
            }
            if op == "Loop":
                out = loop_shapes(lambda inputs: walk("body", inputs), given)
            elif isinstance(ints.get("num_scan_inputs"), int):
                out = scan_shapes(lambda inputs: walk("body", inputs), given, ints, self.imports.get("", 0))
        for suffix in graphs:
            if suffix not in walked:
                walk(suffix, (), shaped=False)  # its shapes depend on how its operator runs it
        if scope.check is not None and list(walked) != [suffix for suffix, _ in subgraphs(node)]:
            scope.check.reordered()
        self.settle(node.output, scope.shapes, out)
        if wanted is None or wanted[0] not in walked:
            return []
        types = walked[wanted[0]].types
        return [types.get(o.name) for o in graphs[wanted[0]].output][wanted[1] :]
