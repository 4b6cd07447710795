"""Between ONNX protos and adapter nodes: NodeProto <-> `Node`, and the tensors or Constant
nodes of the constants an adapter creates. onnx is imported only when these are called."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkit.adapters.node import ELEMENT_OF_ATTR, AdapterError, NewConstant, Node
from toolkit.model.codec_functions import encode_default
from toolkit.model.spec import Attribute, OpSchema
from toolkit.proto import OnnxAttributeProto

if TYPE_CHECKING:
    from onnx import AttributeProto, NodeProto, TensorProto


def default_proto(attr: Attribute) -> AttributeProto:
    """The attribute's default as an onnx.AttributeProto (a tensor, sparse-tensor or graph one
    too), read from the toolkit's wire-compatible encoding (`codec_functions.encode_default`)."""
    from onnx import AttributeProto

    message = OnnxAttributeProto()
    encode_default(message, attr)
    return AttributeProto.FromString(message.SerializeToString())


def node_from_onnx(proto: NodeProto) -> Node:
    """A NodeProto as a neutral Node (strings decoded; tensors and graphs kept as protos).

    AdapterError for what a Node cannot hold: an attribute a function body takes by reference
    (`ref_attr_name`: its value is the caller's, unknown here) and a string that is not UTF-8."""
    from onnx import helper

    attributes: dict[str, Any] = {}
    for attr in proto.attribute:
        if attr.ref_attr_name:
            raise AdapterError(
                f"attribute '{attr.name}' refers to the function's attribute '{attr.ref_attr_name}', "
                "whose value each call gives",
                hint="inline the function (or write the attribute's value in its body) before converting",
            )
        value = helper.get_attribute_value(attr)
        try:
            if isinstance(value, bytes):
                value = value.decode("utf-8")
            elif isinstance(value, list) and value and isinstance(value[0], bytes):
                value = [v.decode("utf-8") for v in value]
        except UnicodeDecodeError as exc:
            raise AdapterError(
                f"attribute '{attr.name}' holds a string that is not UTF-8 (byte {exc.start})",
                hint="write the attribute's strings as UTF-8",
            ) from None
        attributes[attr.name] = value
    return Node(
        op_type=proto.op_type,
        inputs=list(proto.input),
        outputs=list(proto.output),
        attributes=attributes,
        domain=proto.domain,
        name=proto.name,
    )


def node_to_onnx(node: Node, schema: OpSchema | None = None) -> NodeProto:
    """A Node as a NodeProto; `schema` gives the attribute types of empty lists."""
    from onnx import helper

    proto = helper.make_node(
        node.op_type, node.inputs, node.outputs, name=node.name or None, domain=node.domain
    )
    for name in sorted(node.attributes):
        value = node.attributes[name]
        declared = schema.attribute(name) if schema is not None else None
        if declared is not None:
            proto.attribute.append(helper.make_attribute(name, value, attr_type=declared.type.proto_number))
        else:
            proto.attribute.append(helper.make_attribute(name, value))
    return proto


def constant_tensor(constant: NewConstant, elem_type: int | None = None) -> TensorProto:
    """The TensorProto of a new constant; `elem_type` (TensorProto.DataType) overrides its own."""
    from onnx import TensorProto, helper

    if elem_type is None:
        name = constant.element_type or ELEMENT_OF_ATTR.get(constant.attr_type.element, "float")
        elem_type = _ONNX_ELEMENT_NUMBERS.get(name)
        if elem_type is None:
            raise AdapterError(f"no ONNX element type '{name}' for constant {constant.name}")
    values = constant.value if isinstance(constant.value, (list, tuple)) else [constant.value]
    if elem_type == TensorProto.STRING:
        values = [str(v).encode("utf-8") for v in values]
    return helper.make_tensor(constant.name, elem_type, constant.dims, values)


def constant_node(constant: NewConstant, elem_type: int | None = None) -> NodeProto:
    """A Constant node producing the new constant (for graphs that avoid initializers)."""
    from onnx import helper

    return helper.make_node(
        "Constant",
        [],
        [constant.name],
        name=f"{constant.name}_const",
        value=constant_tensor(constant, elem_type),
    )


_ONNX_ELEMENT_NUMBERS = {
    "float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "string": 8,
    "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13, "bfloat16": 16,
}  # fmt: skip


def element_type_number(name: str) -> int | None:
    """ONNX TensorProto.DataType of an element type name (`int64` -> 7)."""
    return _ONNX_ELEMENT_NUMBERS.get(name)
