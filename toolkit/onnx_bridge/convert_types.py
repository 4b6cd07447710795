"""The value types `opset convert` checks type-dependent steps against: what the model declares
plus what onnx's shape inference finds, in the main graph, its subgraphs and, per call site, the
bodies of model-local functions. A value whose type stays unknown is refused by a step that
depends on it (`type_restriction`), never assumed fine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkit.onnx_bridge.check import declared_types
from toolkit.onnx_bridge.graph import subgraphs
from toolkit.onnx_bridge.shape_infer import infer_types

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

UNKNOWN = None


FunctionKey = tuple[str, str]


Shapes = dict[str, tuple[int | None, ...]]


def value_types(
    model: Any,
    registry: Registry | None = None,
) -> tuple[dict[str, str | None], dict[FunctionKey, dict[str, str | None]], Shapes]:
    """(main graph and subgraphs, per model-local function (domain, name)): value name -> type
    string (`tensor(float)`), None where a function's call sites disagree; and the tensor
    shapes of the main graph and subgraphs whose rank is known (None for a dimension that is
    not a number)."""
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    except Exception:
        inferred = model
    types: dict[str, str | None] = {}
    infos: dict[str, Any] = {}
    _collect(inferred.graph, types, infos)
    if registry is not None:
        # The toolkit's own inference (check-model's) also types the outputs of ai.onnx.ml and
        # vendor operators that onnx's shape inference leaves unknown.
        for name, found in infer_types(model, registry).items():
            types.setdefault(name, found)
    functions: dict[FunctionKey, dict[str, str | None]] = {}
    for function in model.functions:
        body: dict[str, str | None] = {}
        functions[(function.domain, function.name)] = body
        _function_types(inferred, function, infos, body)
    return types, functions, _shapes(inferred.graph, infos)


def _shapes(graph: Any, infos: dict[str, Any]) -> Shapes:
    out: Shapes = {init.name: tuple(int(d) for d in init.dims) for init in graph.initializer}
    for name, info in infos.items():
        kind = info.type.WhichOneof("value")
        if kind != "tensor_type" or not info.type.tensor_type.HasField("shape"):
            continue
        dims = info.type.tensor_type.shape.dim
        out.setdefault(name, tuple(int(d.dim_value) if d.HasField("dim_value") else None for d in dims))
    return out


def _collect(graph: Any, types: dict[str, str | None], infos: dict[str, Any]) -> None:
    for name, found in declared_types(graph).items():
        if found is not None:
            types.setdefault(name, found)
    for info in (*graph.input, *graph.value_info, *graph.output):
        if info.HasField("type"):
            infos.setdefault(info.name, info)
    for node in graph.node:
        for _suffix, sub in subgraphs(node):
            _collect(sub, types, infos)


def _function_types(model: Any, function: Any, infos: dict[str, Any], out: dict[str, str | None]) -> None:
    """Types inside `function`'s body, inferred once per call site whose input types are known."""
    import onnx
    from onnx import helper

    seen: dict[str, str | None] = {}
    for node in _calls(model.graph, function):
        inputs = []
        for formal, actual in zip(function.input, node.input, strict=False):
            if actual not in infos:
                break
            info = onnx.ValueInfoProto()
            info.CopyFrom(infos[actual])
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
            body: dict[str, str | None] = {}
            _collect(inferred.graph, body, {})
            for name, found in body.items():
                if name in seen and seen[name] != found:
                    seen[name] = UNKNOWN  # call sites disagree: no single type to check
                else:
                    seen.setdefault(name, found)
    for name, found in seen.items():
        out.setdefault(name, found)


def _calls(graph: Any, function: Any) -> list[Any]:
    calls = []
    for node in graph.node:
        if node.op_type == function.name and node.domain == function.domain:
            calls.append(node)
        for _suffix, sub in subgraphs(node):
            calls.extend(_calls(sub, function))
    return calls
