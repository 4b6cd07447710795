"""Protobuf bindings of `schemas/opset_toolkit.proto` (checked in; see `toolkit.proto.regen`).

`OperatorSetProto`, `OperatorProto` and `OperatorStatus` are wire-compatible with ONNX's
operator set documents (`onnx.onnx_operators_pb`); `OperatorSchemaSetProto` is opset-toolkit's
own full-signature document. The package is `onnx_opset_toolkit`, so these classes coexist with
onnx's generated ones in one process.
"""

from __future__ import annotations

from toolkit.proto.opset_toolkit_pb2 import (
    AdapterProto,
    AdapterStepListProto,
    AdapterStepProto,
    AttributeSchemaProto,
    FloatList,
    FormalParameterProto,
    FunctionBodyProto,
    FunctionProto,
    GraphProto,
    IntList,
    NodeProto,
    OperatorProto,
    OperatorSchemaProto,
    OperatorSchemaSetProto,
    OperatorSetIdProto,
    OperatorSetProto,
    OperatorStatus,
    OpSchemaProto,
    OpsetVersionProto,
    ShapeTextProto,
    SourceLocation,
    StringList,
    TensorProto,
    TensorShapeProto,
    TypeConstraintProto,
    TypeProto,
    TypeSetProto,
    ValueInfoProto,
)

# Function bodies (issue #16): FunctionProto and the messages it holds, wire-compatible with onnx's.
from toolkit.proto.opset_toolkit_pb2 import (
    AttributeProto as OnnxAttributeProto,
)

__all__ = [
    "AdapterProto",
    "AdapterStepListProto",
    "AdapterStepProto",
    "AttributeSchemaProto",
    "FloatList",
    "FormalParameterProto",
    "FunctionBodyProto",
    "FunctionProto",
    "GraphProto",
    "IntList",
    "NodeProto",
    "OnnxAttributeProto",
    "OpSchemaProto",
    "OperatorProto",
    "OperatorSchemaProto",
    "OperatorSchemaSetProto",
    "OperatorSetIdProto",
    "OperatorSetProto",
    "OperatorStatus",
    "OpsetVersionProto",
    "ShapeTextProto",
    "SourceLocation",
    "StringList",
    "TensorProto",
    "TensorShapeProto",
    "TypeConstraintProto",
    "TypeProto",
    "TypeSetProto",
    "ValueInfoProto",
]
