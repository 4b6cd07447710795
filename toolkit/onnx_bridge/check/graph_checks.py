"""check-model's graph-level checks: how values are defined and used, scope by scope.

ONNX graphs are in static single assignment form and topologically sorted (IR.md, "Graphs"):
every value name is defined once (a graph input, an initializer or one node output) before any
node reads it. A subgraph (If/Loop/Scan bodies) also sees the names its enclosing graphs have
defined *before the node holding it*, and may not define those names again. A model-local
function sees only its own inputs. These are the checks `onnx.checker` makes at graph level;
here each finding names its rule and where it is (`graph/node/index`, see graph.py).

One pass per graph over node inputs and outputs, with the enclosing scopes chained (never
copied), so the cost grows with the model, not with its nesting.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any

from toolkit.model.spec import canonical_domain, display_domain
from toolkit.onnx_bridge.graph import node_path, subgraphs

Add = Callable[..., None]  # _Walk.add: (rule, path, message, hint="", operator="")

# The rule ids these checks report (the node checks never do).
RULES = frozenset(
    {
        "MODEL-NAME-EMPTY",
        "MODEL-NAME-DUPLICATE",
        "MODEL-IO-TYPE-INCOMPLETE",
        "MODEL-IO-SHAPE-MISSING",
        "MODEL-VALUE-REDEFINED",
        "MODEL-NODE-ORDER",
        "MODEL-VALUE-UNDEFINED",
        "MODEL-OUTPUT-UNDEFINED",
        "MODEL-FUNCTION-IMPORT-MISSING",
    }
)


class GraphScope:
    """The names one graph (or function body) has defined so far, on top of its enclosing
    scopes' names at the node holding it; its nodes are checked in it node by node (`step`)."""

    __slots__ = ("add", "defined", "nodes", "outer", "path", "producers", "what")

    def __init__(
        self, defined: set[str], outer: tuple[set[str], ...], nodes: Any, path: str, add: Add, what: str
    ) -> None:
        self.defined = defined
        self.outer = outer
        self.nodes = nodes  # the graph's (or body's) nodes, read only where an input is not defined
        self.path = path
        self.add = add
        self.what = what  # "graph" or "function", as the findings say
        self.producers: dict[str, int] | None = None  # built on the first input not yet defined

    def inner(self) -> tuple[set[str], ...]:
        """What a subgraph of the node being checked sees of this scope and its enclosing ones."""
        return (self.defined, *self.outer)

    def sees(self, name: str) -> bool:
        if name in self.defined:
            return True
        return any(name in names for names in self.outer)

    def outer_has(self, name: str) -> bool:
        return any(name in names for names in self.outer)

    def inputs(self, node: Any, index: int, inputs: Sequence[str]) -> None:
        """Report the node's inputs that are not defined yet."""
        if not self.defined.issuperset(inputs):  # (the common case, every input defined, is one call)
            if self.producers is None:
                self.producers = _producers(self.nodes)
            _inputs(node, index, inputs, self.producers, self.path, self.add, self, self.what)

    def step(self, node: Any, index: int, inputs: Sequence[str], outputs: list[str]) -> None:
        """The SSA rule at one node: its `inputs` read (those not defined yet reported; none
        where they were read before its subgraphs were checked), then its outputs defined (those
        already defined reported). One call per node (the model walk runs it as the hook
        `repeated` of most nodes)."""
        defined = self.defined
        if not defined.issuperset(inputs):
            self.inputs(node, index, inputs)
        if not self.outer:  # the common cases in a step: every output new ("" is always defined)
            if len(outputs) == 1:
                if outputs[0] not in defined:
                    defined.add(outputs[0])
                    return
            elif defined.isdisjoint(outputs) and len(set(outputs)) == len(outputs):
                defined.update(outputs)
                return
        for name in outputs:
            if not name:
                continue
            if name in defined or (self.outer and self.outer_has(name)):
                self.add(
                    "MODEL-VALUE-REDEFINED",
                    node_path(self.path, node, index),
                    f"output '{name}' is already defined {_where(name, self)}: values are assigned once (SSA)",
                    operator=node.op_type,
                )
            defined.add(name)


def check_graph(
    graph: Any, path: str, add: Add, outer: tuple[set[str], ...] = (), main: bool = False
) -> None:
    """The graph-level checks of `graph` and, recursively, of its subgraphs."""
    scope = open_graph(graph, path, add, outer, main)
    _nodes(scope)
    close_graph(graph, scope, path, add)


def open_graph(
    graph: Any, path: str, add: Add, outer: tuple[set[str], ...], main: bool, unnamed: int | None = None
) -> GraphScope:
    """The checks of a graph's declarations (inputs, initializers, the main graph's outputs,
    value_info names); the scope its nodes are then checked in, node by node (`GraphScope.inputs`,
    its subgraphs, `GraphScope.step`: `check_graph`, or the model walk that check-model runs). `unnamed`:
    how many value_info entries have an empty name, when the caller has read them already."""
    defined: set[str] = set()
    _declare(graph.input, "graph input", path, add, defined, value_info=True, main=main)
    initializers = [*graph.initializer, *(s.values for s in graph.sparse_initializer)]
    seen_init: set[str] = set()
    for init in initializers:
        if not init.name:
            add("MODEL-NAME-EMPTY", path, "an initializer has an empty name")
        elif init.name in seen_init:
            add("MODEL-NAME-DUPLICATE", path, f"initializer '{init.name}' is declared more than once")
        seen_init.add(init.name)
    defined |= seen_init  # an initializer may also be a graph input (its default value)
    if main:
        _declare(graph.output, "graph output", path, add, None, value_info=True, main=True)
    if unnamed is None:
        unnamed = sum(1 for info in graph.value_info if not info.name)
    for _ in range(unnamed):
        add("MODEL-NAME-EMPTY", path, "a value_info entry has an empty name")
    defined.add("")  # an empty name is an absent optional value: always fine to read
    return GraphScope(defined, outer, graph.node, path, add, "graph")


def close_graph(graph: Any, scope: GraphScope, path: str, add: Add) -> None:
    """After a graph's last node: its outputs must be defined."""
    _outputs((o.name for o in graph.output), scope.defined, path, add, "graph")


def check_function(function: Any, path: str, add: Add, model_imports: Container[str]) -> None:
    """The graph-level checks of a model-local function body (it sees its own inputs only).

    A body node whose domain only the model imports is reported here (onnx requires the
    function's own import); one nobody imports is the node check's MODEL-DOMAIN-NOT-IMPORTED."""
    defined: set[str] = set()
    for name in function.input:
        if name in defined:
            add("MODEL-NAME-DUPLICATE", path, f"function input '{name}' is declared more than once")
        defined.add(name)
    scope = GraphScope(defined, (), function.node, path, add, "function")
    _nodes(scope)
    _outputs(function.output, scope.defined, path, add, "function")
    imported = {canonical_domain(entry.domain) for entry in function.opset_import}
    reported: set[str] = set()
    for index, node in enumerate(function.node):
        domain = canonical_domain(node.domain)
        if domain not in imported and domain in model_imports and domain not in reported:
            reported.add(domain)
            add(
                "MODEL-FUNCTION-IMPORT-MISSING",
                node_path(path, node, index),
                f"{node.op_type} uses domain '{display_domain(domain)}', which the function's own "
                f"opset_import does not list (a function does not inherit the model's imports)",
                hint="add the domain to the function's opset_import",
                operator=f"{display_domain(domain)}.{node.op_type}",
            )


def check_functions_unique(functions: Sequence[Any], path: str, add: Add) -> None:
    seen: set[tuple[str, str, str]] = set()
    for function in functions:
        key = (function.domain, function.name, getattr(function, "overload", ""))
        if key in seen:
            add(
                "MODEL-NAME-DUPLICATE",
                path,
                f"model-local function {display_domain(function.domain)}.{function.name} is defined more than once",
            )
        seen.add(key)


def _declare(
    infos: Iterable[Any],
    kind: str,
    path: str,
    add: Add,
    defined: set[str] | None,
    *,
    value_info: bool,
    main: bool,
) -> None:
    """Graph inputs (into `defined`) or the main graph's outputs: names and declared types."""
    for info in infos:
        name = info.name
        if not name:
            add("MODEL-NAME-EMPTY", path, f"a {kind} has an empty name")
            continue
        if defined is not None:
            if name in defined:
                add("MODEL-NAME-DUPLICATE", path, f"{kind} '{name}' is declared more than once")
            defined.add(name)
        if value_info and main:
            _main_io_type(info, kind, path, add)


def _main_io_type(info: Any, kind: str, path: str, add: Add) -> None:
    """The main graph's inputs and outputs are the model's interface: each needs a type, an input
    tensor its element type; onnx.checker also wants a tensor's shape (runtimes do not)."""
    if not info.HasField("type"):
        add("MODEL-IO-TYPE-INCOMPLETE", path, f"{kind} '{info.name}' has no type")
        return
    kind_field = info.type.WhichOneof("value")
    if kind_field in ("tensor_type", "sparse_tensor_type"):
        tensor = getattr(info.type, kind_field)
        if not tensor.elem_type and kind == "graph input":  # nothing can be inferred from it
            add("MODEL-IO-TYPE-INCOMPLETE", path, f"{kind} '{info.name}' has no element type")
        elif not tensor.HasField("shape"):
            add("MODEL-IO-SHAPE-MISSING", path, f"{kind} '{info.name}' has no shape")


def _nodes(scope: GraphScope) -> None:
    scope.defined.add("")  # an empty name is an absent optional value: always fine to read
    path, add = scope.path, scope.add
    for index, node in enumerate(scope.nodes):
        if node.attribute:
            inputs = node.input[:]
            scope.inputs(node, index, inputs)
            for suffix, sub in subgraphs(node):
                check_graph(sub, f"{node_path(path, node, index)}/{suffix}", add, scope.inner())
            scope.step(node, index, (), node.output[:])
        else:
            scope.step(node, index, node.input[:], node.output[:])


def _inputs(
    node: Any,
    index: int,
    inputs: Sequence[str],
    producers: dict[str, int],
    path: str,
    add: Add,
    scope: GraphScope,
    what: str,
) -> None:
    """Report the node's inputs that are read before they are produced, or never."""
    for name in inputs:
        if name in scope.defined or (scope.outer and scope.outer_has(name)):
            continue
        later = producers.get(name)
        here = node_path(path, node, index)
        if later is not None and later >= index:
            add(
                "MODEL-NODE-ORDER",
                here,
                f"input '{name}' is produced by node {later}, after this node: the {what}'s nodes "
                f"are not in topological order",
                operator=node.op_type,
            )
        else:
            add(
                "MODEL-VALUE-UNDEFINED",
                here,
                f"input '{name}' is not a {what} input{' or initializer' if what == 'graph' else ''}, "
                f"no earlier node produces it{' and no enclosing graph defines it' if scope.outer else ''}",
                operator=node.op_type,
            )


def _producers(nodes: Any) -> dict[str, int]:
    """Value name -> index of the last node producing it."""
    return {name: index for index, node in enumerate(nodes) for name in node.output if name}


def _where(name: str, scope: GraphScope) -> str:
    return "in this graph" if name in scope.defined else "in an enclosing graph"


def _outputs(names: Iterable[str], defined: set[str], path: str, add: Add, what: str) -> None:
    for name in names:
        if name and name not in defined:
            add(
                "MODEL-OUTPUT-UNDEFINED",
                path,
                f"{what} output '{name}' is not produced by any node of the {what}"
                f"{' nor one of its inputs or initializers' if what == 'graph' else ' nor one of its inputs'}",
            )
