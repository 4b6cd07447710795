from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OperatorStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPERIMENTAL: _ClassVar[OperatorStatus]
    STABLE: _ClassVar[OperatorStatus]
EXPERIMENTAL: OperatorStatus
STABLE: OperatorStatus

class OperatorProto(_message.Message):
    __slots__ = ("op_type", "since_version", "status", "doc_string")
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    SINCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    op_type: str
    since_version: int
    status: OperatorStatus
    doc_string: str
    def __init__(self, op_type: _Optional[str] = ..., since_version: _Optional[int] = ..., status: _Optional[_Union[OperatorStatus, str]] = ..., doc_string: _Optional[str] = ...) -> None: ...

class OperatorSetProto(_message.Message):
    __slots__ = ("magic", "ir_version", "ir_version_prerelease", "ir_build_metadata", "domain", "opset_version", "doc_string", "operator", "functions")
    MAGIC_FIELD_NUMBER: _ClassVar[int]
    IR_VERSION_FIELD_NUMBER: _ClassVar[int]
    IR_VERSION_PRERELEASE_FIELD_NUMBER: _ClassVar[int]
    IR_BUILD_METADATA_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    OPSET_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    FUNCTIONS_FIELD_NUMBER: _ClassVar[int]
    magic: str
    ir_version: int
    ir_version_prerelease: str
    ir_build_metadata: str
    domain: str
    opset_version: int
    doc_string: str
    operator: _containers.RepeatedCompositeFieldContainer[OperatorProto]
    functions: _containers.RepeatedCompositeFieldContainer[FunctionProto]
    def __init__(self, magic: _Optional[str] = ..., ir_version: _Optional[int] = ..., ir_version_prerelease: _Optional[str] = ..., ir_build_metadata: _Optional[str] = ..., domain: _Optional[str] = ..., opset_version: _Optional[int] = ..., doc_string: _Optional[str] = ..., operator: _Optional[_Iterable[_Union[OperatorProto, _Mapping]]] = ..., functions: _Optional[_Iterable[_Union[FunctionProto, _Mapping]]] = ...) -> None: ...

class OperatorSetIdProto(_message.Message):
    __slots__ = ("domain", "version")
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    domain: str
    version: int
    def __init__(self, domain: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class TensorShapeProto(_message.Message):
    __slots__ = ("dim",)
    class Dimension(_message.Message):
        __slots__ = ("dim_value", "dim_param")
        DIM_VALUE_FIELD_NUMBER: _ClassVar[int]
        DIM_PARAM_FIELD_NUMBER: _ClassVar[int]
        dim_value: int
        dim_param: str
        def __init__(self, dim_value: _Optional[int] = ..., dim_param: _Optional[str] = ...) -> None: ...
    DIM_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedCompositeFieldContainer[TensorShapeProto.Dimension]
    def __init__(self, dim: _Optional[_Iterable[_Union[TensorShapeProto.Dimension, _Mapping]]] = ...) -> None: ...

class TypeProto(_message.Message):
    __slots__ = ("tensor_type", "sequence_type", "optional_type")
    class Tensor(_message.Message):
        __slots__ = ("elem_type", "shape")
        ELEM_TYPE_FIELD_NUMBER: _ClassVar[int]
        SHAPE_FIELD_NUMBER: _ClassVar[int]
        elem_type: int
        shape: TensorShapeProto
        def __init__(self, elem_type: _Optional[int] = ..., shape: _Optional[_Union[TensorShapeProto, _Mapping]] = ...) -> None: ...
    class Sequence(_message.Message):
        __slots__ = ("elem_type",)
        ELEM_TYPE_FIELD_NUMBER: _ClassVar[int]
        elem_type: TypeProto
        def __init__(self, elem_type: _Optional[_Union[TypeProto, _Mapping]] = ...) -> None: ...
    class Optional(_message.Message):
        __slots__ = ("elem_type",)
        ELEM_TYPE_FIELD_NUMBER: _ClassVar[int]
        elem_type: TypeProto
        def __init__(self, elem_type: _Optional[_Union[TypeProto, _Mapping]] = ...) -> None: ...
    TENSOR_TYPE_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_TYPE_FIELD_NUMBER: _ClassVar[int]
    tensor_type: TypeProto.Tensor
    sequence_type: TypeProto.Sequence
    optional_type: TypeProto.Optional
    def __init__(self, tensor_type: _Optional[_Union[TypeProto.Tensor, _Mapping]] = ..., sequence_type: _Optional[_Union[TypeProto.Sequence, _Mapping]] = ..., optional_type: _Optional[_Union[TypeProto.Optional, _Mapping]] = ...) -> None: ...

class ValueInfoProto(_message.Message):
    __slots__ = ("name", "type", "doc_string")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: TypeProto
    doc_string: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[TypeProto, _Mapping]] = ..., doc_string: _Optional[str] = ...) -> None: ...

class TensorProto(_message.Message):
    __slots__ = ("dims", "data_type", "float_data", "int32_data", "string_data", "int64_data", "name", "doc_string", "raw_data", "double_data", "uint64_data")
    DIMS_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FLOAT_DATA_FIELD_NUMBER: _ClassVar[int]
    INT32_DATA_FIELD_NUMBER: _ClassVar[int]
    STRING_DATA_FIELD_NUMBER: _ClassVar[int]
    INT64_DATA_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    RAW_DATA_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_DATA_FIELD_NUMBER: _ClassVar[int]
    UINT64_DATA_FIELD_NUMBER: _ClassVar[int]
    dims: _containers.RepeatedScalarFieldContainer[int]
    data_type: int
    float_data: _containers.RepeatedScalarFieldContainer[float]
    int32_data: _containers.RepeatedScalarFieldContainer[int]
    string_data: _containers.RepeatedScalarFieldContainer[bytes]
    int64_data: _containers.RepeatedScalarFieldContainer[int]
    name: str
    doc_string: str
    raw_data: bytes
    double_data: _containers.RepeatedScalarFieldContainer[float]
    uint64_data: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, dims: _Optional[_Iterable[int]] = ..., data_type: _Optional[int] = ..., float_data: _Optional[_Iterable[float]] = ..., int32_data: _Optional[_Iterable[int]] = ..., string_data: _Optional[_Iterable[bytes]] = ..., int64_data: _Optional[_Iterable[int]] = ..., name: _Optional[str] = ..., doc_string: _Optional[str] = ..., raw_data: _Optional[bytes] = ..., double_data: _Optional[_Iterable[float]] = ..., uint64_data: _Optional[_Iterable[int]] = ...) -> None: ...

class SparseTensorProto(_message.Message):
    __slots__ = ("values", "indices", "dims")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    INDICES_FIELD_NUMBER: _ClassVar[int]
    DIMS_FIELD_NUMBER: _ClassVar[int]
    values: TensorProto
    indices: TensorProto
    dims: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Union[TensorProto, _Mapping]] = ..., indices: _Optional[_Union[TensorProto, _Mapping]] = ..., dims: _Optional[_Iterable[int]] = ...) -> None: ...

class AttributeProto(_message.Message):
    __slots__ = ("name", "ref_attr_name", "doc_string", "type", "f", "i", "s", "t", "g", "tp", "sparse_tensor", "floats", "ints", "strings", "tensors", "graphs", "type_protos", "sparse_tensors")
    class AttributeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNDEFINED: _ClassVar[AttributeProto.AttributeType]
        FLOAT: _ClassVar[AttributeProto.AttributeType]
        INT: _ClassVar[AttributeProto.AttributeType]
        STRING: _ClassVar[AttributeProto.AttributeType]
        TENSOR: _ClassVar[AttributeProto.AttributeType]
        GRAPH: _ClassVar[AttributeProto.AttributeType]
        SPARSE_TENSOR: _ClassVar[AttributeProto.AttributeType]
        TYPE_PROTO: _ClassVar[AttributeProto.AttributeType]
        FLOATS: _ClassVar[AttributeProto.AttributeType]
        INTS: _ClassVar[AttributeProto.AttributeType]
        STRINGS: _ClassVar[AttributeProto.AttributeType]
        TENSORS: _ClassVar[AttributeProto.AttributeType]
        GRAPHS: _ClassVar[AttributeProto.AttributeType]
        SPARSE_TENSORS: _ClassVar[AttributeProto.AttributeType]
        TYPE_PROTOS: _ClassVar[AttributeProto.AttributeType]
    UNDEFINED: AttributeProto.AttributeType
    FLOAT: AttributeProto.AttributeType
    INT: AttributeProto.AttributeType
    STRING: AttributeProto.AttributeType
    TENSOR: AttributeProto.AttributeType
    GRAPH: AttributeProto.AttributeType
    SPARSE_TENSOR: AttributeProto.AttributeType
    TYPE_PROTO: AttributeProto.AttributeType
    FLOATS: AttributeProto.AttributeType
    INTS: AttributeProto.AttributeType
    STRINGS: AttributeProto.AttributeType
    TENSORS: AttributeProto.AttributeType
    GRAPHS: AttributeProto.AttributeType
    SPARSE_TENSORS: AttributeProto.AttributeType
    TYPE_PROTOS: AttributeProto.AttributeType
    NAME_FIELD_NUMBER: _ClassVar[int]
    REF_ATTR_NAME_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    F_FIELD_NUMBER: _ClassVar[int]
    I_FIELD_NUMBER: _ClassVar[int]
    S_FIELD_NUMBER: _ClassVar[int]
    T_FIELD_NUMBER: _ClassVar[int]
    G_FIELD_NUMBER: _ClassVar[int]
    TP_FIELD_NUMBER: _ClassVar[int]
    SPARSE_TENSOR_FIELD_NUMBER: _ClassVar[int]
    FLOATS_FIELD_NUMBER: _ClassVar[int]
    INTS_FIELD_NUMBER: _ClassVar[int]
    STRINGS_FIELD_NUMBER: _ClassVar[int]
    TENSORS_FIELD_NUMBER: _ClassVar[int]
    GRAPHS_FIELD_NUMBER: _ClassVar[int]
    TYPE_PROTOS_FIELD_NUMBER: _ClassVar[int]
    SPARSE_TENSORS_FIELD_NUMBER: _ClassVar[int]
    name: str
    ref_attr_name: str
    doc_string: str
    type: AttributeProto.AttributeType
    f: float
    i: int
    s: bytes
    t: TensorProto
    g: GraphProto
    tp: TypeProto
    sparse_tensor: SparseTensorProto
    floats: _containers.RepeatedScalarFieldContainer[float]
    ints: _containers.RepeatedScalarFieldContainer[int]
    strings: _containers.RepeatedScalarFieldContainer[bytes]
    tensors: _containers.RepeatedCompositeFieldContainer[TensorProto]
    graphs: _containers.RepeatedCompositeFieldContainer[GraphProto]
    type_protos: _containers.RepeatedCompositeFieldContainer[TypeProto]
    sparse_tensors: _containers.RepeatedCompositeFieldContainer[SparseTensorProto]
    def __init__(self, name: _Optional[str] = ..., ref_attr_name: _Optional[str] = ..., doc_string: _Optional[str] = ..., type: _Optional[_Union[AttributeProto.AttributeType, str]] = ..., f: _Optional[float] = ..., i: _Optional[int] = ..., s: _Optional[bytes] = ..., t: _Optional[_Union[TensorProto, _Mapping]] = ..., g: _Optional[_Union[GraphProto, _Mapping]] = ..., tp: _Optional[_Union[TypeProto, _Mapping]] = ..., sparse_tensor: _Optional[_Union[SparseTensorProto, _Mapping]] = ..., floats: _Optional[_Iterable[float]] = ..., ints: _Optional[_Iterable[int]] = ..., strings: _Optional[_Iterable[bytes]] = ..., tensors: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., graphs: _Optional[_Iterable[_Union[GraphProto, _Mapping]]] = ..., type_protos: _Optional[_Iterable[_Union[TypeProto, _Mapping]]] = ..., sparse_tensors: _Optional[_Iterable[_Union[SparseTensorProto, _Mapping]]] = ...) -> None: ...

class NodeProto(_message.Message):
    __slots__ = ("input", "output", "name", "op_type", "domain", "overload", "attribute", "doc_string")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    OVERLOAD_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    input: _containers.RepeatedScalarFieldContainer[str]
    output: _containers.RepeatedScalarFieldContainer[str]
    name: str
    op_type: str
    domain: str
    overload: str
    attribute: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    doc_string: str
    def __init__(self, input: _Optional[_Iterable[str]] = ..., output: _Optional[_Iterable[str]] = ..., name: _Optional[str] = ..., op_type: _Optional[str] = ..., domain: _Optional[str] = ..., overload: _Optional[str] = ..., attribute: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., doc_string: _Optional[str] = ...) -> None: ...

class GraphProto(_message.Message):
    __slots__ = ("node", "name", "initializer", "doc_string", "input", "output", "value_info")
    NODE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    INITIALIZER_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    VALUE_INFO_FIELD_NUMBER: _ClassVar[int]
    node: _containers.RepeatedCompositeFieldContainer[NodeProto]
    name: str
    initializer: _containers.RepeatedCompositeFieldContainer[TensorProto]
    doc_string: str
    input: _containers.RepeatedCompositeFieldContainer[ValueInfoProto]
    output: _containers.RepeatedCompositeFieldContainer[ValueInfoProto]
    value_info: _containers.RepeatedCompositeFieldContainer[ValueInfoProto]
    def __init__(self, node: _Optional[_Iterable[_Union[NodeProto, _Mapping]]] = ..., name: _Optional[str] = ..., initializer: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., doc_string: _Optional[str] = ..., input: _Optional[_Iterable[_Union[ValueInfoProto, _Mapping]]] = ..., output: _Optional[_Iterable[_Union[ValueInfoProto, _Mapping]]] = ..., value_info: _Optional[_Iterable[_Union[ValueInfoProto, _Mapping]]] = ...) -> None: ...

class FunctionProto(_message.Message):
    __slots__ = ("name", "input", "output", "attribute", "attribute_proto", "node", "doc_string", "opset_import", "domain", "overload", "value_info")
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_PROTO_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    OPSET_IMPORT_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    OVERLOAD_FIELD_NUMBER: _ClassVar[int]
    VALUE_INFO_FIELD_NUMBER: _ClassVar[int]
    name: str
    input: _containers.RepeatedScalarFieldContainer[str]
    output: _containers.RepeatedScalarFieldContainer[str]
    attribute: _containers.RepeatedScalarFieldContainer[str]
    attribute_proto: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    node: _containers.RepeatedCompositeFieldContainer[NodeProto]
    doc_string: str
    opset_import: _containers.RepeatedCompositeFieldContainer[OperatorSetIdProto]
    domain: str
    overload: str
    value_info: _containers.RepeatedCompositeFieldContainer[ValueInfoProto]
    def __init__(self, name: _Optional[str] = ..., input: _Optional[_Iterable[str]] = ..., output: _Optional[_Iterable[str]] = ..., attribute: _Optional[_Iterable[str]] = ..., attribute_proto: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., node: _Optional[_Iterable[_Union[NodeProto, _Mapping]]] = ..., doc_string: _Optional[str] = ..., opset_import: _Optional[_Iterable[_Union[OperatorSetIdProto, _Mapping]]] = ..., domain: _Optional[str] = ..., overload: _Optional[str] = ..., value_info: _Optional[_Iterable[_Union[ValueInfoProto, _Mapping]]] = ...) -> None: ...

class SourceLocation(_message.Message):
    __slots__ = ("file", "line", "column")
    FILE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    file: str
    line: int
    column: int
    def __init__(self, file: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ...) -> None: ...

class TypeSetProto(_message.Message):
    __slots__ = ("name", "types", "location")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    name: str
    types: _containers.RepeatedScalarFieldContainer[str]
    location: SourceLocation
    def __init__(self, name: _Optional[str] = ..., types: _Optional[_Iterable[str]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class OpsetVersionProto(_message.Message):
    __slots__ = ("version", "ir_version", "doc", "location", "doc_location", "doc_literal")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IR_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LITERAL_FIELD_NUMBER: _ClassVar[int]
    version: int
    ir_version: int
    doc: str
    location: SourceLocation
    doc_location: SourceLocation
    doc_literal: bool
    def __init__(self, version: _Optional[int] = ..., ir_version: _Optional[int] = ..., doc: _Optional[str] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ...) -> None: ...

class FormalParameterProto(_message.Message):
    __slots__ = ("name", "type_str", "doc", "option", "homogeneous", "min_arity", "differentiability", "location", "doc_location", "doc_literal", "type_from", "shape", "value")
    class Option(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OPTION_SINGLE: _ClassVar[FormalParameterProto.Option]
        OPTION_OPTIONAL: _ClassVar[FormalParameterProto.Option]
        OPTION_VARIADIC: _ClassVar[FormalParameterProto.Option]
    OPTION_SINGLE: FormalParameterProto.Option
    OPTION_OPTIONAL: FormalParameterProto.Option
    OPTION_VARIADIC: FormalParameterProto.Option
    class Differentiability(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DIFFERENTIABILITY_UNKNOWN: _ClassVar[FormalParameterProto.Differentiability]
        DIFFERENTIABILITY_DIFFERENTIABLE: _ClassVar[FormalParameterProto.Differentiability]
        DIFFERENTIABILITY_NON_DIFFERENTIABLE: _ClassVar[FormalParameterProto.Differentiability]
    DIFFERENTIABILITY_UNKNOWN: FormalParameterProto.Differentiability
    DIFFERENTIABILITY_DIFFERENTIABLE: FormalParameterProto.Differentiability
    DIFFERENTIABILITY_NON_DIFFERENTIABLE: FormalParameterProto.Differentiability
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_STR_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    OPTION_FIELD_NUMBER: _ClassVar[int]
    HOMOGENEOUS_FIELD_NUMBER: _ClassVar[int]
    MIN_ARITY_FIELD_NUMBER: _ClassVar[int]
    DIFFERENTIABILITY_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LITERAL_FIELD_NUMBER: _ClassVar[int]
    TYPE_FROM_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type_str: str
    doc: str
    option: FormalParameterProto.Option
    homogeneous: bool
    min_arity: int
    differentiability: FormalParameterProto.Differentiability
    location: SourceLocation
    doc_location: SourceLocation
    doc_literal: bool
    type_from: _containers.RepeatedCompositeFieldContainer[TypeSourceProto]
    shape: ShapeTextProto
    value: ShapeTextProto
    def __init__(self, name: _Optional[str] = ..., type_str: _Optional[str] = ..., doc: _Optional[str] = ..., option: _Optional[_Union[FormalParameterProto.Option, str]] = ..., homogeneous: _Optional[bool] = ..., min_arity: _Optional[int] = ..., differentiability: _Optional[_Union[FormalParameterProto.Differentiability, str]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ..., type_from: _Optional[_Iterable[_Union[TypeSourceProto, _Mapping]]] = ..., shape: _Optional[_Union[ShapeTextProto, _Mapping]] = ..., value: _Optional[_Union[ShapeTextProto, _Mapping]] = ...) -> None: ...

class ShapeTextProto(_message.Message):
    __slots__ = ("text", "message", "location", "literal")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    LITERAL_FIELD_NUMBER: _ClassVar[int]
    text: str
    message: str
    location: SourceLocation
    literal: bool
    def __init__(self, text: _Optional[str] = ..., message: _Optional[str] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., literal: _Optional[bool] = ...) -> None: ...

class TypeSourceProto(_message.Message):
    __slots__ = ("attribute", "input", "type", "location")
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    attribute: str
    input: str
    type: str
    location: SourceLocation
    def __init__(self, attribute: _Optional[str] = ..., input: _Optional[str] = ..., type: _Optional[str] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class FloatList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, values: _Optional[_Iterable[float]] = ...) -> None: ...

class IntList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Iterable[int]] = ...) -> None: ...

class StringList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class AttributeSchemaProto(_message.Message):
    __slots__ = ("name", "type", "doc", "required", "default_float", "default_int", "default_string", "default_floats", "default_ints", "default_strings", "default_tensor", "default_sparse_tensor", "default_graph", "default_attribute", "location", "doc_location", "doc_literal")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FLOAT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_STRING_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FLOATS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INTS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_STRINGS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TENSOR_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_SPARSE_TENSOR_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_GRAPH_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LITERAL_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: int
    doc: str
    required: bool
    default_float: float
    default_int: int
    default_string: str
    default_floats: FloatList
    default_ints: IntList
    default_strings: StringList
    default_tensor: ExampleTensorProto
    default_sparse_tensor: SparseTensorDefaultProto
    default_graph: str
    default_attribute: AttributeProto
    location: SourceLocation
    doc_location: SourceLocation
    doc_literal: bool
    def __init__(self, name: _Optional[str] = ..., type: _Optional[int] = ..., doc: _Optional[str] = ..., required: _Optional[bool] = ..., default_float: _Optional[float] = ..., default_int: _Optional[int] = ..., default_string: _Optional[str] = ..., default_floats: _Optional[_Union[FloatList, _Mapping]] = ..., default_ints: _Optional[_Union[IntList, _Mapping]] = ..., default_strings: _Optional[_Union[StringList, _Mapping]] = ..., default_tensor: _Optional[_Union[ExampleTensorProto, _Mapping]] = ..., default_sparse_tensor: _Optional[_Union[SparseTensorDefaultProto, _Mapping]] = ..., default_graph: _Optional[str] = ..., default_attribute: _Optional[_Union[AttributeProto, _Mapping]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ...) -> None: ...

class TypeConstraintProto(_message.Message):
    __slots__ = ("param", "allowed", "doc", "type_sets", "location", "doc_location", "doc_literal")
    PARAM_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    TYPE_SETS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LITERAL_FIELD_NUMBER: _ClassVar[int]
    param: str
    allowed: _containers.RepeatedScalarFieldContainer[str]
    doc: str
    type_sets: _containers.RepeatedScalarFieldContainer[str]
    location: SourceLocation
    doc_location: SourceLocation
    doc_literal: bool
    def __init__(self, param: _Optional[str] = ..., allowed: _Optional[_Iterable[str]] = ..., doc: _Optional[str] = ..., type_sets: _Optional[_Iterable[str]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ...) -> None: ...

class AdapterStepProto(_message.Message):
    __slots__ = ("kind", "args", "location")
    class Arg(_message.Message):
        __slots__ = ("key", "value_json")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
        key: str
        value_json: str
        def __init__(self, key: _Optional[str] = ..., value_json: _Optional[str] = ...) -> None: ...
    KIND_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    kind: str
    args: _containers.RepeatedCompositeFieldContainer[AdapterStepProto.Arg]
    location: SourceLocation
    def __init__(self, kind: _Optional[str] = ..., args: _Optional[_Iterable[_Union[AdapterStepProto.Arg, _Mapping]]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class AdapterStepListProto(_message.Message):
    __slots__ = ("steps",)
    STEPS_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[AdapterStepProto]
    def __init__(self, steps: _Optional[_Iterable[_Union[AdapterStepProto, _Mapping]]] = ...) -> None: ...

class AdapterProto(_message.Message):
    __slots__ = ("upgrade", "downgrade", "location")
    UPGRADE_FIELD_NUMBER: _ClassVar[int]
    DOWNGRADE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    upgrade: _containers.RepeatedCompositeFieldContainer[AdapterStepProto]
    downgrade: AdapterStepListProto
    location: SourceLocation
    def __init__(self, upgrade: _Optional[_Iterable[_Union[AdapterStepProto, _Mapping]]] = ..., downgrade: _Optional[_Union[AdapterStepListProto, _Mapping]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class OpSchemaProto(_message.Message):
    __slots__ = ("since_version", "status", "deprecated", "doc", "based_on", "inputs", "outputs", "attributes", "type_constraints", "adapter", "location", "suppress", "doc_location", "doc_literal", "deprecated_reason", "shape_requires", "function", "context_dependent_function", "examples")
    SINCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DEPRECATED_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    BASED_ON_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    TYPE_CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    ADAPTER_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    SUPPRESS_FIELD_NUMBER: _ClassVar[int]
    DOC_LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LITERAL_FIELD_NUMBER: _ClassVar[int]
    DEPRECATED_REASON_FIELD_NUMBER: _ClassVar[int]
    SHAPE_REQUIRES_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_DEPENDENT_FUNCTION_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    since_version: int
    status: OperatorStatus
    deprecated: bool
    doc: str
    based_on: int
    inputs: _containers.RepeatedCompositeFieldContainer[FormalParameterProto]
    outputs: _containers.RepeatedCompositeFieldContainer[FormalParameterProto]
    attributes: _containers.RepeatedCompositeFieldContainer[AttributeSchemaProto]
    type_constraints: _containers.RepeatedCompositeFieldContainer[TypeConstraintProto]
    adapter: AdapterProto
    location: SourceLocation
    suppress: _containers.RepeatedScalarFieldContainer[str]
    doc_location: SourceLocation
    doc_literal: bool
    deprecated_reason: str
    shape_requires: _containers.RepeatedCompositeFieldContainer[ShapeTextProto]
    function: FunctionBodyProto
    context_dependent_function: bool
    examples: _containers.RepeatedCompositeFieldContainer[ExampleProto]
    def __init__(self, since_version: _Optional[int] = ..., status: _Optional[_Union[OperatorStatus, str]] = ..., deprecated: _Optional[bool] = ..., doc: _Optional[str] = ..., based_on: _Optional[int] = ..., inputs: _Optional[_Iterable[_Union[FormalParameterProto, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[FormalParameterProto, _Mapping]]] = ..., attributes: _Optional[_Iterable[_Union[AttributeSchemaProto, _Mapping]]] = ..., type_constraints: _Optional[_Iterable[_Union[TypeConstraintProto, _Mapping]]] = ..., adapter: _Optional[_Union[AdapterProto, _Mapping]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., suppress: _Optional[_Iterable[str]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ..., deprecated_reason: _Optional[str] = ..., shape_requires: _Optional[_Iterable[_Union[ShapeTextProto, _Mapping]]] = ..., function: _Optional[_Union[FunctionBodyProto, _Mapping]] = ..., context_dependent_function: _Optional[bool] = ..., examples: _Optional[_Iterable[_Union[ExampleProto, _Mapping]]] = ...) -> None: ...

class FunctionBodyProto(_message.Message):
    __slots__ = ("text", "opset_imports", "location", "text_location", "text_literal")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OPSET_IMPORTS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    TEXT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    TEXT_LITERAL_FIELD_NUMBER: _ClassVar[int]
    text: str
    opset_imports: _containers.RepeatedCompositeFieldContainer[OperatorSetIdProto]
    location: SourceLocation
    text_location: SourceLocation
    text_literal: bool
    def __init__(self, text: _Optional[str] = ..., opset_imports: _Optional[_Iterable[_Union[OperatorSetIdProto, _Mapping]]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., text_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., text_literal: _Optional[bool] = ...) -> None: ...

class OperatorSchemaProto(_message.Message):
    __slots__ = ("name", "removed_in", "replaced_by", "versions", "location")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REMOVED_IN_FIELD_NUMBER: _ClassVar[int]
    REPLACED_BY_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    name: str
    removed_in: int
    replaced_by: str
    versions: _containers.RepeatedCompositeFieldContainer[OpSchemaProto]
    location: SourceLocation
    def __init__(self, name: _Optional[str] = ..., removed_in: _Optional[int] = ..., replaced_by: _Optional[str] = ..., versions: _Optional[_Iterable[_Union[OpSchemaProto, _Mapping]]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class OperatorSchemaSetProto(_message.Message):
    __slots__ = ("magic", "format_version", "domain", "doc", "opset_versions", "type_sets", "operators", "location", "doc_location", "doc_literal")
    MAGIC_FIELD_NUMBER: _ClassVar[int]
    FORMAT_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    OPSET_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    TYPE_SETS_FIELD_NUMBER: _ClassVar[int]
    OPERATORS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LOCATION_FIELD_NUMBER: _ClassVar[int]
    DOC_LITERAL_FIELD_NUMBER: _ClassVar[int]
    magic: str
    format_version: int
    domain: str
    doc: str
    opset_versions: _containers.RepeatedCompositeFieldContainer[OpsetVersionProto]
    type_sets: _containers.RepeatedCompositeFieldContainer[TypeSetProto]
    operators: _containers.RepeatedCompositeFieldContainer[OperatorSchemaProto]
    location: SourceLocation
    doc_location: SourceLocation
    doc_literal: bool
    def __init__(self, magic: _Optional[str] = ..., format_version: _Optional[int] = ..., domain: _Optional[str] = ..., doc: _Optional[str] = ..., opset_versions: _Optional[_Iterable[_Union[OpsetVersionProto, _Mapping]]] = ..., type_sets: _Optional[_Iterable[_Union[TypeSetProto, _Mapping]]] = ..., operators: _Optional[_Iterable[_Union[OperatorSchemaProto, _Mapping]]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ...) -> None: ...

class ExampleTensorProto(_message.Message):
    __slots__ = ("dtype", "shape", "floats", "ints", "uints", "strings", "file", "location")
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    FLOATS_FIELD_NUMBER: _ClassVar[int]
    INTS_FIELD_NUMBER: _ClassVar[int]
    UINTS_FIELD_NUMBER: _ClassVar[int]
    STRINGS_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    dtype: str
    shape: _containers.RepeatedScalarFieldContainer[int]
    floats: _containers.RepeatedScalarFieldContainer[float]
    ints: _containers.RepeatedScalarFieldContainer[int]
    uints: _containers.RepeatedScalarFieldContainer[int]
    strings: _containers.RepeatedScalarFieldContainer[str]
    file: str
    location: SourceLocation
    def __init__(self, dtype: _Optional[str] = ..., shape: _Optional[_Iterable[int]] = ..., floats: _Optional[_Iterable[float]] = ..., ints: _Optional[_Iterable[int]] = ..., uints: _Optional[_Iterable[int]] = ..., strings: _Optional[_Iterable[str]] = ..., file: _Optional[str] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class SparseTensorDefaultProto(_message.Message):
    __slots__ = ("values", "indices", "dims")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    INDICES_FIELD_NUMBER: _ClassVar[int]
    DIMS_FIELD_NUMBER: _ClassVar[int]
    values: ExampleTensorProto
    indices: ExampleTensorProto
    dims: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Union[ExampleTensorProto, _Mapping]] = ..., indices: _Optional[_Union[ExampleTensorProto, _Mapping]] = ..., dims: _Optional[_Iterable[int]] = ...) -> None: ...

class ExampleAttributeProto(_message.Message):
    __slots__ = ("name", "type", "f", "i", "s", "t", "floats", "ints", "strings", "location")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    F_FIELD_NUMBER: _ClassVar[int]
    I_FIELD_NUMBER: _ClassVar[int]
    S_FIELD_NUMBER: _ClassVar[int]
    T_FIELD_NUMBER: _ClassVar[int]
    FLOATS_FIELD_NUMBER: _ClassVar[int]
    INTS_FIELD_NUMBER: _ClassVar[int]
    STRINGS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: int
    f: float
    i: int
    s: str
    t: ExampleTensorProto
    floats: FloatList
    ints: IntList
    strings: StringList
    location: SourceLocation
    def __init__(self, name: _Optional[str] = ..., type: _Optional[int] = ..., f: _Optional[float] = ..., i: _Optional[int] = ..., s: _Optional[str] = ..., t: _Optional[_Union[ExampleTensorProto, _Mapping]] = ..., floats: _Optional[_Union[FloatList, _Mapping]] = ..., ints: _Optional[_Union[IntList, _Mapping]] = ..., strings: _Optional[_Union[StringList, _Mapping]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...

class ExampleInputProto(_message.Message):
    __slots__ = ("tensor",)
    TENSOR_FIELD_NUMBER: _ClassVar[int]
    tensor: ExampleTensorProto
    def __init__(self, tensor: _Optional[_Union[ExampleTensorProto, _Mapping]] = ...) -> None: ...

class ExampleProto(_message.Message):
    __slots__ = ("name", "doc", "attributes", "inputs", "outputs", "rtol", "atol", "location")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    RTOL_FIELD_NUMBER: _ClassVar[int]
    ATOL_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    name: str
    doc: str
    attributes: _containers.RepeatedCompositeFieldContainer[ExampleAttributeProto]
    inputs: _containers.RepeatedCompositeFieldContainer[ExampleInputProto]
    outputs: _containers.RepeatedCompositeFieldContainer[ExampleTensorProto]
    rtol: float
    atol: float
    location: SourceLocation
    def __init__(self, name: _Optional[str] = ..., doc: _Optional[str] = ..., attributes: _Optional[_Iterable[_Union[ExampleAttributeProto, _Mapping]]] = ..., inputs: _Optional[_Iterable[_Union[ExampleInputProto, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[ExampleTensorProto, _Mapping]]] = ..., rtol: _Optional[float] = ..., atol: _Optional[float] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ...) -> None: ...
