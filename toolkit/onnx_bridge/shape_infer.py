"""`toolkit.infer_shapes` and `opset infer-shapes`: shapes through an ONNX model from the specs'
shape rules (#27), written into the model's `value_info` as onnx.shape_inference does.

The main graph's nodes are visited in order (onnx requires it topological); each node's operator
version is resolved in the registry (the imported onnx catalog with its shape overlay, plus any
vendor specs) and its rules evaluated by `toolkit.shapes.engine`. Element types come from the
type inference check-model runs (`check.inference.infer_types`). Constant inputs (integer
initializers and Constant nodes, at most `MAX_CONSTANT` elements) feed the rules' `value(I)`.
Nothing of the model is executed. Not yet: subgraphs (If, Loop, Scan bodies) and model-local
functions are left as they are.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.model.types import ELEMENT_TYPE_NUMBERS
from toolkit.onnx_bridge.graph import opset_imports
from toolkit.registry.core import Registry
from toolkit.shapes.engine import MAX_LIST, bind_inputs, infer
from toolkit.shapes.values import ABSENT, Shape, Sym, Value

__all__ = [
    "MAX_CONSTANT",
    "ShapeResult",
    "infer_model_shapes",
    "infer_shapes",
    "infer_shapes_file",
    "registry_for",
]

MAX_CONSTANT = MAX_LIST  # elements of a constant read for value(I)
_INT_TYPES = {
    ELEMENT_TYPE_NUMBERS[t] for t in ("int64", "int32", "int16", "int8", "uint8", "uint16", "uint32")
}


@dataclass
class ShapeResult:
    shapes: dict[str, Shape] = field(default_factory=dict)  # value name -> shape (None: rank unknown)
    findings: list[tuple[str, str]] = field(default_factory=list)  # (node path, message)


def registry_for(specs: Registry | Sequence[str | os.PathLike[str]] | None) -> Registry:
    """The registry of `specs` (a Registry, or spec paths added to the onnx catalog), or the catalog."""
    if isinstance(specs, Registry):
        return specs
    from toolkit.onnx_bridge.catalog import model_registry

    return model_registry(list(specs or ()), adapters=False)


def _shape_of(type_proto: Any) -> Shape:
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    dims: list[int | Sym | None] = []
    for dim in type_proto.tensor_type.shape.dim:
        kind = dim.WhichOneof("value")
        dims.append(
            dim.dim_value if kind == "dim_value" else Sym(dim.dim_param) if kind == "dim_param" else None
        )
    return tuple(dims)


def _constant(tensor: Any) -> tuple[Shape, tuple[int, ...] | None]:
    """A tensor's shape, and its values when it is a small integer tensor."""
    shape = tuple(int(d) for d in tensor.dims)
    if tensor.data_type not in _INT_TYPES or len(shape) > 1:
        return shape, None
    count = shape[0] if shape else 1
    if count > MAX_CONSTANT:
        return shape, None
    from onnx import numpy_helper

    values = numpy_helper.to_array(tensor).reshape(-1).tolist()
    return shape, tuple(int(v) for v in values)


def _attribute(attr: Any) -> Value:
    from onnx import helper

    value = helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value)
    return value if isinstance(value, (int, float)) else ABSENT


def infer_model_shapes(model: Any, registry: Registry) -> ShapeResult:
    """Every value's shape the rules give over the main graph, and the constraints' findings."""
    result = ShapeResult()
    shapes, values = result.shapes, {}
    graph = model.graph
    for info in (*graph.input, *graph.value_info):
        shapes[info.name] = _shape_of(info.type)
    for tensor in graph.initializer:
        shapes[tensor.name], constant = _constant(tensor)
        if constant is not None:
            values[tensor.name] = constant
    imports = opset_imports(model.opset_import)
    counter = itertools.count()

    def fresh() -> Sym:
        return Sym(f"opset_unk__{next(counter)}")

    for index, node in enumerate(graph.node):
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and len(node.output) == 1:
            tensors = [a.t for a in node.attribute if a.name == "value" and a.HasField("t")]
            if tensors:
                shapes[node.output[0]], constant = _constant(tensors[0])
                if constant is not None:
                    values[node.output[0]] = constant
            continue
        version = imports.get(node.domain or "")
        schema = registry.find_schema(node.op_type, version, node.domain) if version is not None else None
        if schema is None or not any(p.shape is not None for p in schema.outputs):
            continue
        given: list[Value] = [shapes.get(name) if name else ABSENT for name in node.input]
        bound = bind_inputs(schema, given)
        constants = {
            p.name: values[actual]
            for p, actual in zip(schema.inputs, node.input)
            if not p.is_variadic and actual in values
        }
        attributes = {a.name: _attribute(a) for a in node.attribute}
        inferred = infer(
            schema,
            bound,
            {k: v for k, v in attributes.items() if v is not ABSENT},
            constants,
            fresh,
            outputs=len(node.output),
        )
        path = f"graph/node[{index}]" + (f"({node.name})" if node.name else "")
        result.findings.extend((path, message) for message in inferred.findings)
        for name, shape, has_rule in zip(node.output, inferred.outputs, inferred.has_rule):
            if name and has_rule and shape is not None:
                shapes[name] = _merge(shapes.get(name), shape)
    return result


def _merge(declared: Shape, inferred: Shape) -> Shape:
    """A declared shape refined by the inferred one (a declared int is kept over anything)."""
    if declared is None or inferred is None or len(declared) != len(inferred):
        return inferred if declared is None else declared
    return tuple(d if isinstance(d, int) else i if i is not None else d for d, i in zip(declared, inferred))


def infer_shapes(model: Any, specs: Registry | Sequence[str | os.PathLike[str]] | None = None) -> Any:
    """A copy of `model` with the inferred element types and shapes in `value_info` (and on graph
    outputs that declare none), like `onnx.shape_inference.infer_shapes`."""
    from onnx import ModelProto, TensorShapeProto, TypeProto

    from toolkit.onnx_bridge.check.inference import infer_types

    registry = registry_for(specs)
    out = ModelProto()
    out.CopyFrom(model)
    result = infer_model_shapes(out, registry)
    types = infer_types(out, registry)
    graph = out.graph
    declared = {info.name for info in (*graph.input, *graph.value_info)} | {t.name for t in graph.initializer}
    outputs = {info.name: info for info in graph.output}
    for node in graph.node:
        for name in node.output:
            if not name or name in declared:
                continue
            element = (
                ELEMENT_TYPE_NUMBERS.get(types.get(name, "")[7:-1])
                if types.get(name, "").startswith("tensor(")
                else None
            )
            shape = result.shapes.get(name)
            if element is None and shape is None:
                continue
            target = outputs.get(name)
            if target is None:
                target = graph.value_info.add(name=name)
            elif target.type.HasField("tensor_type") and target.type.tensor_type.HasField("shape"):
                continue
            type_proto = TypeProto()
            type_proto.tensor_type.elem_type = element or 0
            if shape is not None:
                type_proto.tensor_type.shape.CopyFrom(TensorShapeProto())
                for dim in shape:
                    entry = type_proto.tensor_type.shape.dim.add()
                    if isinstance(dim, int):
                        entry.dim_value = dim
                    elif isinstance(dim, Sym):
                        entry.dim_param = dim.name
            if target.type.tensor_type.elem_type and not type_proto.tensor_type.elem_type:
                type_proto.tensor_type.elem_type = target.type.tensor_type.elem_type
            target.type.CopyFrom(type_proto)
    return out


def infer_shapes_file(
    source: str | os.PathLike[str], out: str | os.PathLike[str], registry: Registry
) -> ShapeResult:
    """`opset infer-shapes`: read a model (without its external data), write it with the inferred
    value_info to `out` (atomically), and return what was inferred with the constraints' findings."""
    from pathlib import Path

    from toolkit.load.writer import write_file
    from toolkit.model.diagnostics import UsageError
    from toolkit.onnx_bridge.check import load_model

    model = load_model(source)
    inferred = infer_shapes(model, registry)
    result = infer_model_shapes(model, registry)
    try:
        write_file(Path(out), inferred.SerializeToString())
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    return result
