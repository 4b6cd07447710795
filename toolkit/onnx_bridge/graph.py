"""The one way the model tools walk an ONNX model: which graphs it has, which subgraphs a node
holds, and how a node is named in findings.

A node is located by a path `graph/node/index` (the node's name, else its op_type, then its
position in its graph); a subgraph held in an attribute continues its node's path with the
attribute name (`then_branch`, or `branches[1]` for a list of graphs). Model-local functions are
graphs of their own, `function:domain.Name`, resolving operators by their own opset_import with
the model's filling the gaps (as runtimes resolve them).

check-model, compat and convert all walk with these pieces: check-model and convert recurse
themselves (each subgraph opens a scope of declared types and constants, and check-model's fast
path decides per node whether to look at its attributes at all), compat and the name scans use
`walk`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from toolkit.model.spec import canonical_domain, display_domain
from toolkit.model.types import ATTRIBUTE_TYPE_NUMBERS

# AttributeProto.type numbers of the attributes that hold graphs
GRAPH_ATTR, GRAPHS_ATTR = ATTRIBUTE_TYPE_NUMBERS["graph"], ATTRIBUTE_TYPE_NUMBERS["graphs"]


def node_path(graph_path: str, node: Any, index: int) -> str:
    """Path of the `index`-th node of the graph at `graph_path`."""
    return f"{graph_path}/{node.name or node.op_type}/{index}"


def subgraphs(node: Any) -> Iterator[tuple[str, Any]]:
    """(path suffix, GraphProto) of every graph the node's attributes hold, in attribute order.

    The attribute's declared type says where its graphs are (`g` for a graph, `graphs` for a
    list), as onnx reads them."""
    for attr in node.attribute:
        kind = attr.type
        if kind == GRAPH_ATTR:
            if attr.HasField("g"):
                yield attr.name, attr.g
        elif kind == GRAPHS_ATTR:
            for position, sub in enumerate(attr.graphs):
                yield f"{attr.name}[{position}]", sub


def walk(graph: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(path, node) of every node of `graph` and of its subgraphs, each node before its subgraphs."""
    for index, node in enumerate(graph.node):
        here = node_path(path, node, index)
        yield here, node
        if node.attribute:
            for suffix, sub in subgraphs(node):
                yield from walk(sub, f"{here}/{suffix}")


def walk_nodes(graph: Any) -> Iterator[Any]:
    """Every node of `graph` and of its subgraphs (no paths), each node before its subgraphs."""
    for node in graph.node:
        yield node
        if node.attribute:
            for _suffix, sub in subgraphs(node):
                yield from walk_nodes(sub)


def opset_imports(entries: Iterable[Any]) -> dict[str, int]:
    """Canonical domain -> imported opset version of an opset_import list."""
    return {canonical_domain(entry.domain): int(entry.version) for entry in entries}


def graph_path(model: Any) -> str:
    """Path of the model's main graph: its name, else `graph`."""
    return model.graph.name or "graph"


def function_path(function: Any) -> str:
    return f"function:{display_domain(function.domain)}.{function.name}"


def function_imports(function: Any, model_imports: Mapping[str, int]) -> dict[str, int]:
    """A function's own opset imports win; the model's fill the gaps."""
    return {**model_imports, **opset_imports(function.opset_import)}


def model_graphs(model: Any) -> Iterator[tuple[Any, str, dict[str, int]]]:
    """(graph or FunctionProto, path, effective imports): the main graph, then the model-local
    functions in model order."""
    imports = opset_imports(model.opset_import)
    yield model.graph, graph_path(model), imports
    for function in model.functions:
        yield function, function_path(function), function_imports(function, imports)


def value_names(model: Any) -> Iterator[str]:
    """Every value name the model uses: the main graph's declared values and initializers, and
    the inputs and outputs of every node (subgraphs and functions included)."""
    graph = model.graph
    yield from (v.name for v in (*graph.input, *graph.output, *graph.value_info, *graph.initializer))
    for g in (graph, *model.functions):
        for node in walk_nodes(g):
            yield from node.input
            yield from node.output


def output_names(graph: Any) -> list[str]:
    """The output names of a GraphProto (ValueInfoProtos) or a FunctionProto (plain strings)."""
    return [o if isinstance(o, str) else o.name for o in graph.output]


def read_names(model: Any) -> Iterator[str]:
    """Every node input name of the model (subgraphs and functions included)."""
    for g in (model.graph, *model.functions):
        for node in walk_nodes(g):
            yield from node.input
