"""Function bodies in protobuf: the spec's FunctionBody fields of `OpSchemaProto`, and a parsed
body encoded as a `FunctionProto` wire-compatible with onnx's (schemas/opset_toolkit.proto,
Part 1b), so `onnx.FunctionProto.FromString(encode_function(...).SerializeToString())` reads it.

The encoding follows what onnx.parser builds from the same text: an attribute's `type` is set
whenever it is written or inferred (an untyped `@ref` leaves it UNDEFINED), tensor literals put
their values in the typed field of their element type, graph inputs and outputs carry a tensor
type only when one is written. Pure functions; no onnx import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkit.model.examples import ExampleTensor, GraphValue, SparseTensorValue
from toolkit.model.onnx_text import (
    GraphLiteral,
    TensorLiteral,
    TextAttribute,
    TextNode,
    ValueDecl,
    parse_graph,
    parse_nodes,
)
from toolkit.model.onnx_wire import tensor_proto
from toolkit.model.spec import NOWHERE, Attribute, AttrType, FunctionBody, Location, OpSchema
from toolkit.model.types import ELEMENT_TYPE_NUMBERS
from toolkit.proto import (
    FunctionProto,
    GraphProto,
    NodeProto,
    OnnxAttributeProto,
    OpSchemaProto,
    SourceLocation,
    TensorProto,
    ValueInfoProto,
)

__all__ = [
    "decode_function_fields",
    "encode_default",
    "encode_function",
    "encode_function_fields",
    "encode_nodes",
]

_N = ELEMENT_TYPE_NUMBERS
# Which TensorProto field holds the values of each element type (onnx.proto facts).
_FLOAT_FIELD = {_N["float"]: "float_data", _N["double"]: "double_data", _N["string"]: "string_data"}
_INT64_FIELD = {_N["int64"]: "int64_data", _N["uint32"]: "uint64_data", _N["uint64"]: "uint64_data"}
_INT32_TYPES = {_N[name] for name in ("int32", "int16", "int8", "uint16", "uint8", "bool")}


# -- the spec's fields in OpSchemaProto ------------------------------------------------------------


def _set(message: SourceLocation, location: Location) -> None:
    message.file, message.line, message.column = location.file, location.line, location.column


def encode_function_fields(message: OpSchemaProto, schema: OpSchema) -> None:
    body = schema.function
    if body is None:
        return
    out = message.function
    out.text = body.text
    for domain, version in body.opset_imports:
        out.opset_imports.add(domain=domain, version=version)
    if body.location != NOWHERE:
        _set(out.location, body.location)
    if body.text_location != NOWHERE:
        _set(out.text_location, body.text_location)
    if body.text_literal:
        out.text_literal = True


def decode_function_fields(message: OpSchemaProto) -> Mapping[str, Any]:
    fields: dict[str, Any] = {}  # context_dependent_function is a plain field (`codec_scalars`)
    if message.HasField("function"):
        body = message.function

        def loc(name: str) -> Location:
            if not body.HasField(name):
                return NOWHERE
            found: SourceLocation = getattr(body, name)
            return Location(found.file, found.line, found.column)

        fields["function"] = FunctionBody(
            text=body.text,
            opset_imports=tuple((o.domain, o.version) for o in body.opset_imports),
            location=loc("location"),
            text_location=loc("text_location"),
            text_literal=body.text_literal,
        )
    return fields


# -- a parsed body as FunctionProto -------------------------------------------------------------------


def encode_function(schema: OpSchema, body: FunctionBody | None = None) -> FunctionProto:
    """The version's body as a FunctionProto named after the operator. Raises TextParseError."""
    body = body or schema.function
    if body is None:
        raise ValueError(f"{schema.id} has no function body")
    message = FunctionProto(name=schema.name, domain=schema.domain)
    message.input.extend(p.name for p in schema.inputs)
    message.output.extend(p.name for p in schema.outputs)
    for attr in schema.attributes:
        if attr.default is None:
            message.attribute.append(attr.name)
        else:
            encode_default(message.attribute_proto.add(), attr)
    for domain, version in body.opset_imports:
        message.opset_import.add(domain=domain, version=version)
    encode_nodes(message.node, parse_nodes(body.text))
    return message


def encode_nodes(target: Any, nodes: tuple[TextNode, ...]) -> None:
    """Append the nodes to a repeated NodeProto field."""
    for node in nodes:
        _encode_node(target.add(), node)


def _encode_node(message: NodeProto, node: TextNode) -> None:
    message.op_type = node.op_type
    message.domain = node.domain
    if node.overload:
        message.overload = node.overload
    message.input.extend(node.inputs)
    message.output.extend(node.outputs)
    for attr in node.attributes:
        _encode_attribute(message.attribute.add(), attr)


def _encode_attribute(message: OnnxAttributeProto, attr: TextAttribute) -> None:
    message.name = attr.name
    if attr.type is not None:
        message.type = attr.type.proto_number  # type: ignore[assignment]
    if attr.ref is not None:
        message.ref_attr_name = attr.ref
        return
    assert attr.type is not None and attr.value is not None  # the parser types every value
    _encode_value(message, attr.type, attr.value)


def encode_default(message: OnnxAttributeProto, attr: Attribute) -> None:
    """The attribute's default as onnx holds it (a FunctionProto's attribute_proto, an
    OpSchema.Attribute's default_value). Raises TextParseError for a graph default that does not
    parse (the loader has reported it)."""
    message.name = attr.name
    _encode_value(message, attr.type, attr.default)


def _encode_value(message: OnnxAttributeProto, kind: AttrType, value: object) -> None:
    message.type = kind.proto_number  # type: ignore[assignment]
    if kind is AttrType.FLOAT:
        message.f = float(value)  # type: ignore[arg-type]
    elif kind is AttrType.INT:
        message.i = int(value)  # type: ignore[call-overload]
    elif kind is AttrType.STRING:
        message.s = str(value).encode()
    elif kind is AttrType.FLOATS:
        message.floats.extend(float(v) for v in value)  # type: ignore[attr-defined]
    elif kind is AttrType.INTS:
        message.ints.extend(int(v) for v in value)  # type: ignore[attr-defined]
    elif kind is AttrType.STRINGS:
        message.strings.extend(str(v).encode() for v in value)  # type: ignore[attr-defined]
    elif kind is AttrType.TENSOR and isinstance(value, TensorLiteral):
        _encode_tensor(message.t, value)
    elif kind is AttrType.GRAPH and isinstance(value, GraphLiteral):
        _encode_graph(message.g, value)
    elif kind is AttrType.TENSOR and isinstance(value, ExampleTensor):
        message.t.ParseFromString(tensor_proto(value))
    elif kind is AttrType.SPARSE_TENSOR and isinstance(value, SparseTensorValue):
        message.sparse_tensor.values.ParseFromString(tensor_proto(value.values))
        message.sparse_tensor.indices.ParseFromString(tensor_proto(value.indices))
        message.sparse_tensor.dims.extend(value.dims)
    elif kind is AttrType.GRAPH and isinstance(value, GraphValue):
        _encode_graph(message.g, parse_graph(value.text))
    else:
        raise ValueError(f"cannot encode a {kind.value} attribute value")


def _encode_tensor(message: TensorProto, tensor: TensorLiteral) -> None:
    message.data_type = tensor.elem_type
    if tensor.dims is not None:
        message.dims.extend(tensor.dims)
    elem = tensor.elem_type
    if elem in _FLOAT_FIELD:
        field = _FLOAT_FIELD[elem]
        if field == "string_data":
            message.string_data.extend(str(v).encode() for v in tensor.values)
        else:
            getattr(message, field).extend(float(v) for v in tensor.values)
    elif elem in _INT64_FIELD:
        getattr(message, _INT64_FIELD[elem]).extend(int(v) for v in tensor.values)
    elif elem in _INT32_TYPES:
        message.int32_data.extend(int(v) for v in tensor.values)
    else:
        raise ValueError("tensor literals of this element type are not supported in function bodies")


def _encode_decl(message: ValueInfoProto, decl: ValueDecl) -> None:
    message.name = decl.name
    if decl.elem_type is None:
        return
    tensor = message.type.tensor_type
    tensor.elem_type = decl.elem_type
    if decl.shape is not None:
        tensor.shape.SetInParent()
        for dim in decl.shape:
            if isinstance(dim, int):
                tensor.shape.dim.add(dim_value=dim)
            else:
                tensor.shape.dim.add(dim_param=dim)


def _encode_graph(message: GraphProto, graph: GraphLiteral) -> None:
    message.name = graph.name
    for decl in graph.inputs:
        _encode_decl(message.input.add(), decl)
    for decl in graph.outputs:
        _encode_decl(message.output.add(), decl)
    encode_nodes(message.node, graph.nodes)
