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
    __slots__ = ("magic", "ir_version", "ir_version_prerelease", "ir_build_metadata", "domain", "opset_version", "doc_string", "operator")
    MAGIC_FIELD_NUMBER: _ClassVar[int]
    IR_VERSION_FIELD_NUMBER: _ClassVar[int]
    IR_VERSION_PRERELEASE_FIELD_NUMBER: _ClassVar[int]
    IR_BUILD_METADATA_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    OPSET_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOC_STRING_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    magic: str
    ir_version: int
    ir_version_prerelease: str
    ir_build_metadata: str
    domain: str
    opset_version: int
    doc_string: str
    operator: _containers.RepeatedCompositeFieldContainer[OperatorProto]
    def __init__(self, magic: _Optional[str] = ..., ir_version: _Optional[int] = ..., ir_version_prerelease: _Optional[str] = ..., ir_build_metadata: _Optional[str] = ..., domain: _Optional[str] = ..., opset_version: _Optional[int] = ..., doc_string: _Optional[str] = ..., operator: _Optional[_Iterable[_Union[OperatorProto, _Mapping]]] = ...) -> None: ...

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
    __slots__ = ("name", "type_str", "doc", "option", "homogeneous", "min_arity", "differentiability", "location", "doc_location", "doc_literal", "type_from")
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
    def __init__(self, name: _Optional[str] = ..., type_str: _Optional[str] = ..., doc: _Optional[str] = ..., option: _Optional[_Union[FormalParameterProto.Option, str]] = ..., homogeneous: _Optional[bool] = ..., min_arity: _Optional[int] = ..., differentiability: _Optional[_Union[FormalParameterProto.Differentiability, str]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ..., type_from: _Optional[_Iterable[_Union[TypeSourceProto, _Mapping]]] = ...) -> None: ...

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
    __slots__ = ("name", "type", "doc", "required", "default_float", "default_int", "default_string", "default_floats", "default_ints", "default_strings", "location", "doc_location", "doc_literal")
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
    location: SourceLocation
    doc_location: SourceLocation
    doc_literal: bool
    def __init__(self, name: _Optional[str] = ..., type: _Optional[int] = ..., doc: _Optional[str] = ..., required: _Optional[bool] = ..., default_float: _Optional[float] = ..., default_int: _Optional[int] = ..., default_string: _Optional[str] = ..., default_floats: _Optional[_Union[FloatList, _Mapping]] = ..., default_ints: _Optional[_Union[IntList, _Mapping]] = ..., default_strings: _Optional[_Union[StringList, _Mapping]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ...) -> None: ...

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
    __slots__ = ("since_version", "status", "deprecated", "doc", "based_on", "inputs", "outputs", "attributes", "type_constraints", "adapter", "location", "suppress", "doc_location", "doc_literal")
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
    def __init__(self, since_version: _Optional[int] = ..., status: _Optional[_Union[OperatorStatus, str]] = ..., deprecated: _Optional[bool] = ..., doc: _Optional[str] = ..., based_on: _Optional[int] = ..., inputs: _Optional[_Iterable[_Union[FormalParameterProto, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[FormalParameterProto, _Mapping]]] = ..., attributes: _Optional[_Iterable[_Union[AttributeSchemaProto, _Mapping]]] = ..., type_constraints: _Optional[_Iterable[_Union[TypeConstraintProto, _Mapping]]] = ..., adapter: _Optional[_Union[AdapterProto, _Mapping]] = ..., location: _Optional[_Union[SourceLocation, _Mapping]] = ..., suppress: _Optional[_Iterable[str]] = ..., doc_location: _Optional[_Union[SourceLocation, _Mapping]] = ..., doc_literal: _Optional[bool] = ...) -> None: ...

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
