"""`toolkit.infer_shapes` and `opset infer-shapes`: what the model walk (`shape_infer`) infers,
written into a model's `value_info` as onnx.shape_inference does: each node output that declares
no type gets its element type and shape (a graph output declaring none, on that output), in the
main graph and in the If, Loop and Scan bodies the walk shaped.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from toolkit.model.types import ELEMENT_TYPE_NUMBERS
from toolkit.onnx_bridge.shape_infer import ShapeResult, infer_model_shapes, registry_for
from toolkit.registry.core import Registry
from toolkit.shapes.values import Shape, Sym

__all__ = ["infer_shapes", "infer_shapes_file"]


def infer_shapes(model: Any, specs: Registry | Sequence[str | os.PathLike[str]] | None = None) -> Any:
    """A copy of `model` with the inferred element types and shapes in `value_info` (and on graph
    outputs that declare none), like `onnx.shape_inference.infer_shapes`."""
    from onnx import ModelProto

    registry = registry_for(specs)
    out = ModelProto()
    out.CopyFrom(model)
    _write(out, infer_model_shapes(out, registry))
    return out


def _write(model: Any, result: ShapeResult) -> None:
    """What one inference of `model` found, written into its value_info (as infer_shapes does):
    each graph's values with that graph's own types and shapes (two If branches may each define
    a value of one name, of different types)."""
    _write_value_info(model.graph, result.produced, result.shapes, result.types)
    for sub in result.subgraphs:
        if sub.shapes is not None:  # a subgraph the walk shaped (If's, Loop's, Scan's)
            _write_value_info(sub.graph, sub.produced, sub.shapes, sub.types)


def _write_value_info(
    graph: Any, produced: list[str], shapes: dict[str, Shape], types: dict[str, str]
) -> None:
    """The inferred type and shape of each node output of `graph` (`produced`, in node order)
    that declares none, as value_info (or on the graph output of that name).

    A model has few distinct (type, shape) pairs: each one's wire form as a ValueInfoProto's
    `type` field is built once; the new value_info entries are then written as their wire form
    (name, then that type) and parsed into the graph in one call (appending, as a repeated field
    merges), not built one message each."""
    declared = {info.name for info in (*graph.input, *graph.value_info)} | {t.name for t in graph.initializer}
    declared.add("")
    outputs = {info.name: info for info in graph.output}
    made: dict[tuple[str, Shape], tuple[bytes, int] | None] = {}  # (type, shape) -> type field
    elements: dict[str, int | None] = {"": None}  # type string -> element type; -1: not a tensor
    added: list[bytes] = []
    type_of, shape_of = types.get, shapes.get
    for name in produced:
        if name in declared:
            continue
        kind, shape = type_of(name, ""), shape_of(name)
        if name in outputs:
            _write_output(outputs[name], _element(kind, elements), shape)
            continue
        key = kind, shape
        if key in made:
            built = made[key]
        else:
            element = _element(kind, elements)
            # None: nothing to write (not a tensor: an optional or a sequence; or nothing known)
            unknown = element == -1 or (element is None and shape is None)
            field = None if unknown else _field(_TYPE, type_proto(element or 0, shape).SerializeToString())
            built = made[key] = None if field is None else (field, len(field) + 2)
        if built is None:
            continue
        encoded = name.encode()
        size = len(encoded)
        if size + built[1] < 0x80:  # both lengths one byte (nearly every name): their heads are tabled
            added += _ENTRY_HEAD[size + built[1]], _NAME_HEAD[size], encoded, built[0]
        else:
            entry = b"\n" + _length(size) + encoded + built[0]  # field 1 (name), then type
            added += _TAG_VALUE_INFO, _length(len(entry)), entry
    if added:
        graph.MergeFromString(b"".join(added))


def _write_output(target: Any, element: int | None, shape: Shape) -> None:
    """A graph output's inferred type and shape, unless it declares a shape (or nothing is known)."""
    if element == -1 or (element is None and shape is None):
        return
    if target.type.HasField("tensor_type") and target.type.tensor_type.HasField("shape"):
        return
    target.type.CopyFrom(type_proto(element or target.type.tensor_type.elem_type, shape))


def _element(kind: str, elements: dict[str, int | None]) -> int | None:
    """The element type number of a tensor type string (None: not known), -1 for another type."""
    if kind not in elements:
        elements[kind] = ELEMENT_TYPE_NUMBERS.get(kind[7:-1]) if kind.startswith("tensor(") else -1
    return elements[kind]


# the protobuf wire form written above (onnx.proto): GraphProto.value_info is field 13,
# ValueInfoProto.name field 1 and type field 2, each length-delimited (wire type 2)
_TAG_VALUE_INFO = bytes((13 << 3 | 2,))
_TYPE = 2
_SHORT = [bytes((n,)) for n in range(0x80)]  # a length under 128 is one byte
_ENTRY_HEAD = [_TAG_VALUE_INFO + n for n in _SHORT]  # a value_info entry of n bytes: its tag, length
_NAME_HEAD = [bytes((1 << 3 | 2,)) + n for n in _SHORT]  # a name of n bytes: its tag, length


def _length(size: int) -> bytes:
    """A length as a protobuf varint."""
    if size < 0x80:
        return _SHORT[size]
    out = bytearray()
    while size > 0x7F:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    out.append(size)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field: its tag, its length, its bytes."""
    return bytes((number << 3 | 2,)) + _length(len(payload)) + payload


def type_proto(element: int, shape: Shape) -> Any:
    """A tensor TypeProto of `element` and `shape` (None: rank unknown; a Sym dimension is a
    dim_param, an unknown one neither)."""
    from onnx import TensorShapeProto, TypeProto

    result = TypeProto()
    result.tensor_type.elem_type = element
    if shape is not None:
        result.tensor_type.shape.CopyFrom(TensorShapeProto())
        for dim in shape:
            entry = result.tensor_type.shape.dim.add()
            if isinstance(dim, int):
                entry.dim_value = dim
            elif isinstance(dim, Sym):
                entry.dim_param = dim.name
    return result


def infer_shapes_file(
    source: str | os.PathLike[str], out: str | os.PathLike[str], registry: Registry
) -> ShapeResult:
    """`opset infer-shapes`: read a model (without its external data), write it with the inferred
    value_info to `out` (atomically), and return what was inferred with the constraints' findings."""
    from pathlib import Path

    from toolkit.load.writer import write_file
    from toolkit.model.diagnostics import UsageError
    from toolkit.onnx_bridge.check.model_io import load_model

    model = load_model(source)
    result = infer_model_shapes(model, registry)
    _write(model, result)
    try:
        write_file(Path(out), model.SerializeToString())
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    return result
