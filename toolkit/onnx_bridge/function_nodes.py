"""onnx NodeProtos as the parsed nodes of `toolkit.model.onnx_text` (issue #16, #26).

Two readers of a FunctionProto's nodes share this: the body checker (check-model checks a model's
functions with the spec checker; a value it cannot read is left out, `strict=False`) and the
importer, which prints the nodes with `toolkit.model.onnx_text_print` (`strict=True`: every value
is carried over, and one the text syntax cannot hold is a ValueError naming it). Only protobuf
fields are read, so it works the same with every onnx release. A node's position is its index
(line = index + 1).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from toolkit.model.onnx_text import (
    AttrLiteral,
    GraphLiteral,
    Pos,
    Scalar,
    TensorLiteral,
    TextAttribute,
    TextNode,
    ValueDecl,
)
from toolkit.model.spec import AttrType
from toolkit.model.types import ELEMENT_TYPE_NUMBERS, ELEMENT_TYPES

_TYPES = {t.proto_number: t for t in AttrType}
_N = ELEMENT_TYPE_NUMBERS
# Per element type: the TensorProto field holding its values, and its raw_data layout (onnx.proto).
_FIELDS: dict[int, tuple[str, str]] = {
    _N["float"]: ("float_data", "f"),
    _N["double"]: ("double_data", "d"),
    _N["int64"]: ("int64_data", "q"),
    _N["uint32"]: ("uint64_data", "I"),
    _N["uint64"]: ("uint64_data", "Q"),
    _N["int32"]: ("int32_data", "i"),
    _N["int16"]: ("int32_data", "h"),
    _N["int8"]: ("int32_data", "b"),
    _N["uint16"]: ("int32_data", "H"),
    _N["uint8"]: ("int32_data", "B"),
    _N["bool"]: ("int32_data", "?"),
    _N["string"]: ("string_data", ""),
}


class _Unwritable(ValueError):
    """A value the text syntax cannot hold."""


def text_nodes(nodes: Iterable[Any], *, strict: bool = False) -> tuple[TextNode, ...]:
    """The nodes as parsed nodes. `strict`: raise ValueError on a value the syntax cannot hold."""
    return tuple(_node(node, index, strict) for index, node in enumerate(nodes))


def _node(node: Any, index: int, strict: bool) -> TextNode:
    pos = Pos(index + 1, 1)
    attrs = []
    for attr in node.attribute:
        try:
            attrs.append(_attribute(attr, pos, strict))
        except _Unwritable as error:
            raise ValueError(f"node {index} ({node.op_type}), attribute '{attr.name}': {error}") from None
    return TextNode(
        tuple(node.output),
        node.op_type,
        node.domain,
        tuple(node.input),
        tuple(attrs),
        pos,
        getattr(node, "overload", ""),  # NodeProto.overload is new in onnx 1.16 (IR 10)
    )


def _attribute(attr: Any, pos: Pos, strict: bool) -> TextAttribute:
    kind = _TYPES.get(attr.type)
    if attr.ref_attr_name:
        return TextAttribute(attr.name, kind, None, attr.ref_attr_name, pos)
    value: AttrLiteral | None = None
    if kind is AttrType.INT:
        value = int(attr.i)
    elif kind is AttrType.FLOAT:
        value = float(attr.f)
    elif kind is AttrType.STRING:
        value = _text(attr.s)
    elif kind is AttrType.INTS:
        value = tuple(int(v) for v in attr.ints)
    elif kind is AttrType.FLOATS:
        value = tuple(float(v) for v in attr.floats)
    elif kind is AttrType.STRINGS:
        value = tuple(_text(v) for v in attr.strings)
    elif kind is AttrType.TENSOR:
        value = _tensor(attr.t, strict)
    elif kind is AttrType.GRAPH:
        value = _graph(attr.g, strict)
    elif strict:
        raise _Unwritable(f"{kind.value if kind else 'an undefined'} attribute values have no text syntax")
    return TextAttribute(attr.name, kind, value, None, pos)


def graph_literal(graph: Any) -> GraphLiteral:
    """A GraphProto as a parsed graph, every value carried over (a ValueError names the first the
    text syntax cannot hold: initializers and value_info have none)."""
    for field in ("initializer", "sparse_initializer", "value_info", "quantization_annotation"):
        if len(getattr(graph, field, ())):
            raise ValueError(f"graph '{graph.name}' has {field} entries, which the text syntax cannot hold")
    return _graph(graph, strict=True)


def _graph(graph: Any, strict: bool) -> GraphLiteral:
    return GraphLiteral(
        graph.name,
        tuple(_decl(v, strict) for v in graph.input),
        tuple(_decl(v, strict) for v in graph.output),
        text_nodes(graph.node, strict=strict),
    )


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unwritable("a string that is not UTF-8") from None


def _tensor(tensor: Any, strict: bool) -> TensorLiteral:
    dims = tuple(int(d) for d in tensor.dims) or None  # rank 0: written without a shape, as parsed
    try:
        values = _tensor_values(tensor)
    except _Unwritable:
        if strict:
            raise
        values = ()  # the checker reads the element type only
    return TensorLiteral(int(tensor.data_type), dims, values)


def _tensor_values(tensor: Any) -> tuple[Scalar, ...]:
    elem = int(tensor.data_type)
    if elem not in _FIELDS:
        name = ELEMENT_TYPES[elem - 1] if 0 < elem <= len(ELEMENT_TYPES) else f"number {elem}"
        raise _Unwritable(f"tensors of element type {name} have no text syntax")
    if tensor.external_data or tensor.data_location:
        raise _Unwritable("a tensor with external data")
    field, layout = _FIELDS[elem]
    if field == "string_data":
        return tuple(_text(v) for v in tensor.string_data)
    if tensor.raw_data:
        raw = bytes(tensor.raw_data)
        size = struct.calcsize("<" + layout)
        if len(raw) % size:
            raise _Unwritable("raw_data is not a whole number of elements")
        found = struct.unpack(f"<{len(raw) // size}{layout}", raw)
    else:
        found = tuple(getattr(tensor, field))
    if layout in "fd":
        return tuple(float(v) for v in found)
    return tuple(int(v) for v in found)


def _decl(value: Any, strict: bool) -> ValueDecl:
    if not value.type.HasField("tensor_type"):
        if strict and value.type.WhichOneof("value") is not None:
            raise _Unwritable(f"graph value '{value.name}' has a type other than a tensor")
        return ValueDecl(value.name)
    tensor = value.type.tensor_type
    elem = int(tensor.elem_type) or None
    if not tensor.HasField("shape"):
        return ValueDecl(value.name, elem)
    dims: list[int | str] = []
    for dim in tensor.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(int(dim.dim_value))
        elif dim.dim_param:
            dims.append(dim.dim_param)
        elif strict:
            raise _Unwritable(f"graph value '{value.name}' has a dimension of unknown size")
    return ValueDecl(value.name, elem, tuple(dims))
