"""check-model's graph checks and node checks run by the model walk (#27, #24): one traversal of
the main graph and its subgraphs, each node's protobuf fields read once for every check.

The model walk (`shape_infer`) infers each node's output types and shapes; beside it, through
its hooks (`shape_infer.WalkHooks`), this module checks the graph (graph_checks: SSA, order,
definitions, the declarations) and the node against its schema (the fast path, `fastpath`, and
where it says DIRTY the reporting checker, `checker._Walk.report`), on the input, output and
attribute lists the walk read. Each kind of finding goes to a list of its own, so check_model
puts them in the order of the separate passes: graph checks, inferred types, node checks (a
node's findings before those of its subgraphs' nodes, though its types are only known after its
subgraphs are walked: they are moved to where the node began).

The node checks read a value's type as the separate pass did after the walk: the declared type
(even an unknown one) of the graph or its enclosing graphs, else the type inferred in its scope,
never a type a Loop or Scan only feeds its body. Where the walk's view of a type can differ from
that end-of-walk view (a value read before it is defined, defined twice, a node whose subgraphs
are not walked once each in attribute order), `exact` says no and check_model runs the separate
passes instead: the same findings either way.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Container, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from toolkit.onnx_bridge.check import graph_checks
from toolkit.onnx_bridge.check.fastpath import DIRTY, clean_view
from toolkit.onnx_bridge.check.findings import ModelFinding
from toolkit.onnx_bridge.check.types import AttributeFacts, Declarations
from toolkit.onnx_bridge.graph import node_path

if TYPE_CHECKING:
    from toolkit.onnx_bridge.shape_infer import ShapeResult

# checker._Walk and checker._Scope (checker imports this module, so not the other way round)
_Walk = Any
_Scope = Any

_UNPLANNED = object()

# the graph checks' findings after which the walk's view of types may differ from the end's
_INEXACT = frozenset({"MODEL-VALUE-REDEFINED", "MODEL-NODE-ORDER", "MODEL-VALUE-UNDEFINED"})


def check_main_graph(model: Any, walk: _Walk, imports: dict[str, int], main: str) -> ShapeResult:
    """The checks of the main graph and its subgraphs, in the order of separate passes (graph
    checks, then the inferred types' findings, then the node checks): run by the model walk, which
    gives the inferred types and shapes (walk_checks), or, with `fast` off or where the walk's view
    of the types is not the end's (walk_checks.ModelChecks.exact), as passes of their own."""
    # (imported here: the model walk reads check.inference, a module of this package)
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    start = len(walk.findings)
    graph_found: list[ModelFinding] = []
    typed: list[ModelFinding] = []
    checks = ModelChecks(walk, imports, graph_found) if walk.fast else None
    inferred = infer_model_shapes(model, walk.registry, walk.adder(typed), checks)
    if checks is None or not checks.exact:
        del walk.findings[start:], graph_found[:]
        walk.nodes, walk.unknown_domains = 0, set()
        graph_checks.check_graph(model.graph, main, walk.adder(graph_found), main=True)
        # inferred types stand in for the ones not declared, each graph's own (checker._Walk.subgraphs)
        walk.inferred = {id(sub.graph): sub.types for sub in inferred.subgraphs}
        walk.graph(model.graph, walk.scope(main, imports, {**inferred.types, **inferred.declared}))
        walk.inferred = {}  # (the ids are the walked graphs' while `inferred` holds them)
    graph_checks.check_functions_unique(model.functions, main, walk.adder(graph_found))
    walk.findings[start:start] = graph_found + typed
    return inferred


class ModelChecks:
    """The hooks of one check_model run (shape_infer.WalkHooks): graph-check findings go to
    `graph_findings`, node-check findings to the reporting checker's `findings`."""

    def __init__(self, walk: _Walk, imports: Mapping[str, int], graph_findings: list[ModelFinding]) -> None:
        self.walk = walk
        self.imports = imports
        self.graph_findings = graph_findings
        self.add = walk.adder(graph_findings)
        self.plans: dict[str, dict[str, Any]] = {}  # the reporting checker's memo (walk.plan)
        self.fast: dict[tuple[str, str], Any] = {}  # (domain, op_type) -> its plan, read per node
        # the signatures (GraphCheck.after) of nodes the fast path found clean
        self.clean: set[object] = set()
        self.reordered = False

    @property
    def exact(self) -> bool:
        """Whether the node checks saw every type as the separate pass would have (module doc)."""
        return not self.reordered and not any(f.rule in _INEXACT for f in self.graph_findings)

    def enter(
        self,
        graph: Any,
        path: str,
        outer: Any,
        found: Declarations,
        fed: Mapping[str, str | None] | None,
        types: MutableMapping[str, str | None],
    ) -> GraphCheck:
        self.walk.nodes += len(graph.node)
        masks: tuple[Mapping[str, None], ...] = ()
        declared = found.types
        if outer is None:
            scope = graph_checks.open_graph(graph, path, self.add, (), True, found.unnamed)
            layers: tuple[Mapping[str, str | None], ...] = (declared,)
        else:
            scope = graph_checks.open_graph(graph, path, self.add, outer.scope.inner(), False, found.unnamed)
            layers = (declared, *outer.layers)
            masks = (dict.fromkeys(fed or (), None), *outer.masks)  # fed types are not declared ones
        # the main graph's declared types and, where none is declared, its inferred ones are the
        # walk's own `types`; else the declarations (an unknown type too) win over inference
        exact = outer is None and None not in declared.values()
        view: MutableMapping[str, str | None] = types if exact else ChainMap(*layers, *masks, types)  # type: ignore[arg-type]
        check = GraphCheck(self, graph, path, scope, layers, self.walk.scope(path, self.imports, view))
        check.masks, check.walks_types = masks, view is types
        if check.walks_types:  # (elsewhere a signature does not say what the node checks read)
            check.clean = self.clean
        return check


class GraphCheck:
    """The checks of one graph as the walk goes through its nodes (shape_infer.GraphHooks)."""

    __slots__ = (
        "checks",
        "clean",
        "found",
        "graph",
        "layers",
        "masks",
        "node_scope",
        "path",
        "repeated",
        "scope",
        "walks_types",
    )

    def __init__(
        self,
        checks: ModelChecks,
        graph: Any,
        path: str,
        scope: graph_checks.GraphScope,
        layers: tuple[Mapping[str, str | None], ...],
        node_scope: _Scope,
    ) -> None:
        self.checks = checks
        self.found = checks.walk.findings  # the node checks' findings (a list only ever edited in place)
        self.graph = graph
        self.path = path
        self.scope = scope
        # a node without subgraphs whose signature is in `clean`: the SSA rule alone, the graph
        # scope's own method (the walk calls it for most nodes: no call of ours in between)
        self.repeated = scope.step
        self.layers = layers  # the declared types of this graph and of its enclosing graphs
        self.node_scope = node_scope
        self.masks: tuple[Mapping[str, None], ...] = ()  # the names Loops and Scans feed, inner first
        self.walks_types = False  # the node checks' view of types is the walk's own mapping
        # the signatures of nodes found clean, where a signature is all the node checks read
        self.clean: Container[object] = frozenset()

    def before(self, node: Any, index: int, inputs: list[str]) -> int:
        self.scope.inputs(node, index, inputs)
        return len(self.found)

    def after(
        self,
        mark: int | None,
        node: Any,
        index: int,
        op: tuple[str, str],
        inputs: list[str],
        outputs: list[str],
        facts: AttributeFacts,
        typing: tuple[str | None, ...],
        signature: object | None,
    ) -> None:
        checks = self.checks
        if mark is None:  # (no subgraphs: no `before`)
            self.scope.inputs(node, index, inputs)
        walk = checks.walk
        fast = checks.fast.get(op, _UNPLANNED)
        if fast is _UNPLANNED:
            fast = checks.fast[op] = walk.plan(checks.plans, checks.imports, *op)
        # the walk's input types are the view's unless the node's outputs, typed since, are among
        # its inputs (a graph finding; only a one-output node is tested, cheaply, the rest re-read)
        known = typing if self.walks_types and len(outputs) == 1 and outputs[0] not in inputs else None
        if (
            fast is None
            or clean_view(node, inputs, outputs, facts, fast, self.node_scope.types.get, known) == DIRTY
        ):
            found = walk.findings
            end = len(found)
            walk.report(node, node_path(self.path, node, index), self.node_scope)
            if (
                mark is not None and end != mark and len(found) > end
            ):  # before its subgraphs' findings, as the node pass has it
                own = found[end:]
                del found[end:]
                found[mark:mark] = own
        elif signature is not None and self.walks_types and "" not in inputs:
            # The fast path reads a node's plan (its op), its value names' count and emptiness,
            # their types in the view and its attribute facts. A walk `signature` (op, input
            # types, attribute facts, output count; outputs typed by it), in the walk's own view
            # of types, with no empty name, is all of that: a node of that signature is clean.
            checks.clean.add(signature)
        self.scope.step(node, index, (), outputs)

    def leave(self) -> None:
        graph_checks.close_graph(self.graph, self.scope, self.path, self.checks.add)

    def reordered(self) -> None:
        self.checks.reordered = True
