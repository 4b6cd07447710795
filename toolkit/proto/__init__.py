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
    IntList,
    OperatorProto,
    OperatorSchemaProto,
    OperatorSchemaSetProto,
    OperatorSetProto,
    OperatorStatus,
    OpSchemaProto,
    OpsetVersionProto,
    SourceLocation,
    StringList,
    TypeConstraintProto,
    TypeSetProto,
)

# Function bodies (issue #16): FunctionProto and the messages it holds, wire-compatible with onnx's.
from toolkit.proto.opset_toolkit_pb2 import (  # noqa: E402
    AttributeProto as OnnxAttributeProto,
    FunctionBodyProto,
    FunctionProto,
    GraphProto,
    NodeProto,
    OperatorSetIdProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)

__all__ = [
    "AdapterProto",
    "AdapterStepListProto",
    "AdapterStepProto",
    "AttributeSchemaProto",
    "FloatList",
    "FormalParameterProto",
    "IntList",
    "OpSchemaProto",
    "OperatorProto",
    "OperatorSchemaProto",
    "OperatorSchemaSetProto",
    "OperatorSetProto",
    "OperatorStatus",
    "OpsetVersionProto",
    "SourceLocation",
    "StringList",
    "TypeConstraintProto",
    "TypeSetProto",
    "FunctionBodyProto",
    "FunctionProto",
    "GraphProto",
    "NodeProto",
    "OnnxAttributeProto",
    "OperatorSetIdProto",
    "TensorProto",
    "TensorShapeProto",
    "TypeProto",
    "ValueInfoProto",
]
