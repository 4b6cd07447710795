"""The value types `opset convert` checks type-dependent steps against: what the model declares
plus what onnx's shape inference finds, in the main graph, its subgraphs and, per call site, the
bodies of model-local functions. A value whose type stays unknown is refused by a step that
depends on it (`type_restriction`), never assumed fine.

Each graph's values are kept apart, by graph key (`GraphKey`: the positions of the nodes and
attributes holding it, which no node name can forge): two sibling branches may each define a value of one name, of different types
and shapes, and a subgraph's value may have the name of an outer one (`convert_scope` chains
them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkit.onnx_bridge.check import declared_types
from toolkit.onnx_bridge.graph import subgraphs
from toolkit.onnx_bridge.shape_infer import infer_model_shapes

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

UNKNOWN = None


FunctionKey = tuple[str, str]
# a graph inside the main graph or a function body: (node index, attribute suffix) per level,
# () for the main graph or body itself
GraphKey = tuple[tuple[int, str], ...]
Types = dict[str, str | None]
GraphTypes = dict[GraphKey, Types]  # graph -> its own values' types
Shapes = dict[str, tuple[int | None, ...]]
GraphShapes = dict[GraphKey, Shapes]  # graph -> its own values' shapes


def value_types(
    model: Any,
    registry: Registry | None = None,
) -> tuple[GraphTypes, dict[FunctionKey, GraphTypes], GraphShapes]:
    """(per graph of the main graph and its subgraphs, per model-local function (domain, name)
    and graph of its body): value name -> type string (`tensor(float)`), None where a function's
    call sites disagree; and the tensor shapes, per graph of the main graph and its subgraphs,
    whose rank is known (None for a dimension that is not a number)."""
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:
        inferred = model
    types: GraphTypes = {}
    infos: dict[GraphKey, dict[str, Any]] = {}
    graphs = _graphs(inferred.graph)  # walked once: the model's attributes are many protobuf reads
    _collect(graphs, types, infos)
    if registry is not None:
        # The toolkit's own inference (check-model's) also types the outputs of ai.onnx.ml and
        # vendor operators that onnx's shape inference leaves unknown.
        result = infer_model_shapes(model, registry)
        keys = {id(graph): key for key, graph in _graphs(model.graph)} if result.subgraphs else {}
        _fill(types.setdefault((), {}), result.types)
        for sub in result.subgraphs:
            if id(sub.graph) in keys:
                _fill(types.setdefault(keys[id(sub.graph)], {}), sub.types)
    functions: dict[FunctionKey, GraphTypes] = {}
    for function in model.functions:
        functions[(function.domain, function.name)] = _function_types(inferred, function, infos)
    shapes = {key: _shapes(graph, infos.get(key, {})) for key, graph in graphs}
    return types, functions, shapes


def _fill(own: Types, found: dict[str, str]) -> None:
    for name, value in found.items():
        if own.get(name) is None:
            own[name] = value


def _graphs(graph: Any, key: GraphKey = ()) -> list[tuple[GraphKey, Any]]:
    """(key, graph) of `graph` and of every subgraph in it, outer graphs first."""
    out = [(key, graph)]
    for index, node in enumerate(graph.node):
        for suffix, sub in subgraphs(node):
            out.extend(_graphs(sub, (*key, (index, suffix))))
    return out


def _shapes(graph: Any, infos: dict[str, Any]) -> Shapes:
    out: Shapes = {init.name: tuple(int(d) for d in init.dims) for init in graph.initializer}
    for name, info in infos.items():
        kind = info.type.WhichOneof("value")
        if kind != "tensor_type" or not info.type.tensor_type.HasField("shape"):
            continue
        dims = info.type.tensor_type.shape.dim
        out.setdefault(name, tuple(int(d.dim_value) if d.HasField("dim_value") else None for d in dims))
    return out


def _collect(
    graphs: list[tuple[GraphKey, Any]], types: GraphTypes, infos: dict[GraphKey, dict[str, Any]]
) -> None:
    """Each graph's declared (and onnx-inferred) types and value infos, under its key."""
    for here, sub in graphs:
        own = types.setdefault(here, {})
        for name, found in declared_types(sub).items():
            if found is not None:
                own.setdefault(name, found)
        own_infos = infos.setdefault(here, {})
        for info in (*sub.input, *sub.value_info, *sub.output):
            if info.HasField("type"):
                own_infos.setdefault(info.name, info)


def _function_types(model: Any, function: Any, infos: dict[GraphKey, dict[str, Any]]) -> GraphTypes:
    """Types inside `function`'s body, inferred once per call site whose input types are known."""
    import onnx
    from onnx import helper

    seen: GraphTypes = {}
    for node, caller in _calls(model.graph, function):
        inputs = []
        for formal, actual in zip(function.input, node.input, strict=False):
            known = _visible(infos, caller, actual)
            if known is None:
                break
            info = onnx.ValueInfoProto()
            info.CopyFrom(known)
            info.name = formal
            inputs.append(info)
        else:
            if len(inputs) != len(function.input):
                continue
            graph = helper.make_graph(
                list(function.node),
                "body",
                inputs,
                [helper.make_empty_tensor_value_info(o) for o in function.output],
            )
            probe = helper.make_model(
                graph,
                opset_imports=list(function.opset_import),
                functions=list(model.functions),
                ir_version=model.ir_version,
            )
            try:
                inferred = onnx.shape_inference.infer_shapes(probe, check_type=False, strict_mode=False)
            except Exception:
                continue
            body: GraphTypes = {}
            _collect(_graphs(inferred.graph), body, {})
            for key, found_types in body.items():
                merged = seen.setdefault(key, {})
                for name, found in found_types.items():
                    if name in merged and merged[name] != found:
                        merged[name] = UNKNOWN  # call sites disagree: no single type to check
                    else:
                        merged.setdefault(name, found)
    return seen


def _visible(infos: dict[GraphKey, dict[str, Any]], key: GraphKey, name: str) -> Any:
    """The value info of `name` as the graph `key` sees it: its own, else an outer graph's."""
    for depth in range(len(key), -1, -1):
        found = infos.get(key[:depth], {}).get(name)
        if found is not None:
            return found
    return None


def _calls(graph: Any, function: Any) -> list[tuple[Any, GraphKey]]:
    """(node, key of its graph) of every call of `function` in `graph` and its subgraphs."""
    return [
        (node, here)
        for here, sub in _graphs(graph)
        for node in sub.node
        if node.op_type == function.name and node.domain == function.domain
    ]
