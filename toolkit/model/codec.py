"""The model <-> protobuf codec: our `OperatorSchemaSetProto` (schemas/opset_toolkit.proto).

`schema_set_document(domain, operators)` encodes one domain with every version of every operator,
its full signature and source locations; `specset_from_schema_documents(docs)` rebuilds the
model objects from such documents exactly: every dataclass field, the `compare=False` locations
included (tests/test_codec.py compares field by field). The plain fields (str, int, bool) are
listed from the dataclasses and the messages (`codec_scalars`): a new one needs its proto field
only. Attribute float defaults are stored as double. Adapter step arguments are stored as JSON,
one text per argument (`codec_json`).

Pure functions over the frozen model; no file IO.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

from toolkit.model.attr_defaults import (
    LITERAL_DEFAULT_TYPES,
)
from toolkit.model.codec_functions import decode_function_fields, encode_default, encode_function_fields
from toolkit.model.codec_json import dump_argument, load_argument
from toolkit.model.codec_scalars import Scalars
from toolkit.model.codec_shapes import decode_shape_text, encode_shape_text
from toolkit.model.example_codec import decode_examples, decode_tensor, encode_examples, encode_tensor
from toolkit.model.examples import ExampleTensor, GraphValue, SparseTensorValue
from toolkit.model.onnx_text import TextParseError
from toolkit.model.spec import (
    NOWHERE,
    Adapter,
    AdapterStep,
    AttrDefault,
    Attribute,
    AttrType,
    Differentiability,
    DomainSpec,
    FormalParameter,
    Location,
    OperatorSpec,
    OpSchema,
    OpsetVersion,
    ParamOption,
    SpecSet,
    Status,
    TypeConstraint,
    TypeSource,
    canonical_domain,
    display_domain,
)
from toolkit.proto import (
    AdapterProto,
    AdapterStepProto,
    AttributeSchemaProto,
    FormalParameterProto,
    OperatorSchemaProto,
    OperatorSchemaSetProto,
    OperatorStatus,
    OpSchemaProto,
    OpsetVersionProto,
    SourceLocation,
    TypeConstraintProto,
)

__all__ = [
    "SCHEMAS_FORMAT_VERSION",
    "SCHEMAS_MAGIC",
    "DocumentTooLarge",
    "domain_from_schema_document",
    "operator_from_schema_message",
    "read_schema_document",
    "schema_set_document",
    "specset_from_schema_documents",
]

SCHEMAS_MAGIC = "OPSETTOOLKIT-SCHEMAS"
SCHEMAS_FORMAT_VERSION = 1
_STATUS_TO_PROTO = {Status.STABLE: OperatorStatus.STABLE, Status.EXPERIMENTAL: OperatorStatus.EXPERIMENTAL}
_STATUS_FROM_PROTO = {int(v): k for k, v in _STATUS_TO_PROTO.items()}
_OPTION_TO_PROTO = {
    ParamOption.SINGLE: FormalParameterProto.OPTION_SINGLE,
    ParamOption.OPTIONAL: FormalParameterProto.OPTION_OPTIONAL,
    ParamOption.VARIADIC: FormalParameterProto.OPTION_VARIADIC,
}
_OPTION_FROM_PROTO = {int(v): k for k, v in _OPTION_TO_PROTO.items()}
_DIFF_TO_PROTO = {
    Differentiability.UNKNOWN: FormalParameterProto.DIFFERENTIABILITY_UNKNOWN,
    Differentiability.DIFFERENTIABLE: FormalParameterProto.DIFFERENTIABILITY_DIFFERENTIABLE,
    Differentiability.NON_DIFFERENTIABLE: FormalParameterProto.DIFFERENTIABILITY_NON_DIFFERENTIABLE,
}
_DIFF_FROM_PROTO = {int(v): k for k, v in _DIFF_TO_PROTO.items()}
_ATTR_FROM_NUMBER = {t.proto_number: t for t in AttrType}
# The plain fields of each record (`codec_scalars`); the rest of each record is coded below.
_PARAM = Scalars(FormalParameter, FormalParameterProto, always=("homogeneous", "min_arity"))
_ATTRIBUTE = Scalars(Attribute, AttributeSchemaProto, always=("required",))
_CONSTRAINT = Scalars(TypeConstraint, TypeConstraintProto)
_SCHEMA = Scalars(OpSchema, OpSchemaProto, outside=("domain", "name"), always=("deprecated",))
_OPERATOR = Scalars(OperatorSpec, OperatorSchemaProto, outside=("domain",))
_OPSET = Scalars(OpsetVersion, OpsetVersionProto)
_DOMAIN = Scalars(DomainSpec, OperatorSchemaSetProto, outside=("name",))
DocOwner = FormalParameter | Attribute | TypeConstraint | OpSchema | OpsetVersion | DomainSpec


def _set_location(message: SourceLocation, location: Location) -> None:
    message.file = location.file
    message.line = location.line
    message.column = location.column


def _location(owner: object, name: str = "location") -> Location:
    """Location in the optional SourceLocation field `name` of a message (NOWHERE when absent)."""
    if not owner.HasField(name):  # type: ignore[attr-defined]
        return NOWHERE
    loc: SourceLocation = getattr(owner, name)
    return Location(loc.file, loc.line, loc.column)


def _encode_doc_at(message: object, owner: DocOwner) -> None:
    """The doc_location / doc_literal fields of any message that has them."""
    if owner.doc_location != NOWHERE:
        _set_location(message.doc_location, owner.doc_location)  # type: ignore[attr-defined]
    if owner.doc_literal:
        message.doc_literal = True  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# schema documents: model -> proto
# --------------------------------------------------------------------------------------------


def _encode_param(message: FormalParameterProto, param: FormalParameter) -> None:
    _PARAM.encode(message, param)
    message.option = _OPTION_TO_PROTO[param.option]
    message.differentiability = _DIFF_TO_PROTO[param.differentiability]
    if param.location != NOWHERE:
        _set_location(message.location, param.location)
    _encode_doc_at(message, param)
    for source in param.type_from:
        entry = message.type_from.add(attribute=source.attribute, input=source.input, type=source.type)
        if source.location != NOWHERE:
            _set_location(entry.location, source.location)
    if param.shape is not None:
        encode_shape_text(message.shape, param.shape)
    if param.value is not None:
        encode_shape_text(message.value, param.value)


def _list_kind(attr: Attribute, items: tuple[object, ...]) -> str:
    if not items:
        return {AttrType.INTS: "ints", AttrType.STRINGS: "strings"}.get(attr.type, "floats")
    if all(isinstance(v, str) for v in items):
        return "strings"
    if all(isinstance(v, int) for v in items):
        return "ints"
    if all(isinstance(v, (int, float)) for v in items):
        return "floats"
    raise TypeError(f"attribute {attr.name!r}: cannot encode default {items!r}")


def _encode_default(message: AttributeSchemaProto, attr: Attribute) -> None:
    value = attr.default
    if value is None:
        return
    if isinstance(value, str):
        message.default_string = value
    elif isinstance(value, int):
        message.default_int = value
    elif isinstance(value, float):
        message.default_float = value
    elif isinstance(value, tuple):
        items: tuple[object, ...] = value
        kind = _list_kind(attr, items)
        if kind == "strings":
            message.default_strings.SetInParent()
            message.default_strings.values.extend(v for v in items if isinstance(v, str))
        elif kind == "ints":
            message.default_ints.SetInParent()
            message.default_ints.values.extend(v for v in items if isinstance(v, int))
        else:
            message.default_floats.SetInParent()
            message.default_floats.values.extend(float(v) for v in items if isinstance(v, (int, float)))
    elif isinstance(value, ExampleTensor):
        encode_tensor(message.default_tensor, value)
    elif isinstance(value, SparseTensorValue):
        encode_tensor(message.default_sparse_tensor.values, value.values)
        encode_tensor(message.default_sparse_tensor.indices, value.indices)
        message.default_sparse_tensor.dims.extend(value.dims)
    elif isinstance(value, GraphValue):
        message.default_graph = value.text
    else:
        raise TypeError(f"attribute {attr.name!r}: cannot encode default {value!r}")
    if attr.type in LITERAL_DEFAULT_TYPES:
        # A graph text that does not parse (the loader reports and drops one, but a decoded
        # document may hold anything) keeps the spec's form only.
        with contextlib.suppress(TextParseError):
            encode_default(message.default_attribute, attr)


def _encode_attribute(message: AttributeSchemaProto, attr: Attribute) -> None:
    _ATTRIBUTE.encode(message, attr)
    message.type = attr.type.proto_number
    _encode_default(message, attr)
    if attr.location != NOWHERE:
        _set_location(message.location, attr.location)
    _encode_doc_at(message, attr)


def _encode_constraint(message: TypeConstraintProto, constraint: TypeConstraint) -> None:
    _CONSTRAINT.encode(message, constraint)
    message.allowed.extend(constraint.allowed)
    message.type_sets.extend(constraint.type_sets)
    if constraint.location != NOWHERE:
        _set_location(message.location, constraint.location)
    _encode_doc_at(message, constraint)


def _encode_step(message: AdapterStepProto, step: AdapterStep) -> None:
    message.kind = step.kind
    for key, value in step.args:
        arg = message.args.add()
        arg.key = key
        arg.value_json = dump_argument(value)
    if step.location != NOWHERE:
        _set_location(message.location, step.location)


def _encode_adapter(message: AdapterProto, adapter: Adapter) -> None:
    message.SetInParent()
    for step in adapter.upgrade:
        _encode_step(message.upgrade.add(), step)
    if adapter.downgrade is not None:
        message.downgrade.SetInParent()
        for step in adapter.downgrade:
            _encode_step(message.downgrade.steps.add(), step)
    if adapter.location != NOWHERE:
        _set_location(message.location, adapter.location)


def _encode_schema(message: OpSchemaProto, schema: OpSchema) -> None:
    _SCHEMA.encode(message, schema)
    message.status = _STATUS_TO_PROTO[schema.status]
    for param in schema.inputs:
        _encode_param(message.inputs.add(), param)
    for param in schema.outputs:
        _encode_param(message.outputs.add(), param)
    for attr in schema.attributes:
        _encode_attribute(message.attributes.add(), attr)
    for constraint in schema.type_constraints:
        _encode_constraint(message.type_constraints.add(), constraint)
    if schema.adapter is not None:
        _encode_adapter(message.adapter, schema.adapter)
    message.suppress.extend(schema.suppress)
    if schema.location != NOWHERE:
        _set_location(message.location, schema.location)
    _encode_doc_at(message, schema)
    encode_function_fields(message, schema)
    encode_examples(message.examples, schema.examples)
    for require in schema.shape_requires:
        encode_shape_text(message.shape_requires.add(), require)


def _encode_opset(message: OpsetVersionProto, opset: OpsetVersion) -> None:
    _OPSET.encode(message, opset)
    if opset.location != NOWHERE:
        _set_location(message.location, opset.location)
    _encode_doc_at(message, opset)


class DocumentTooLarge(ValueError):
    """An encoding would exceed the `max_bytes` its caller allows."""


def schema_set_document(
    domain: DomainSpec, operators: Sequence[OperatorSpec], *, max_bytes: int | None = None
) -> OperatorSchemaSetProto:
    """The full-signature document of one domain (operators kept in the given order).

    A version stores everything it inherits (`based_on`), so a small file can encode to a large
    document; with `max_bytes`, DocumentTooLarge is raised as soon as the encoded size passes it,
    so the memory spent is bounded by it too."""
    name = canonical_domain(domain.name)
    document = OperatorSchemaSetProto()
    document.magic = SCHEMAS_MAGIC
    document.format_version = SCHEMAS_FORMAT_VERSION
    document.domain = name
    _DOMAIN.encode(document, domain)
    for opset in domain.opset_versions:
        _encode_opset(document.opset_versions.add(), opset)
    set_locations = dict(domain.type_set_locations)
    for set_name, types in domain.type_sets:
        type_set = document.type_sets.add()
        type_set.name = set_name
        type_set.types.extend(types)
        where = set_locations.get(set_name, NOWHERE)
        if where != NOWHERE:
            _set_location(type_set.location, where)
    size = document.ByteSize() if max_bytes is not None else 0
    _check_size(size, max_bytes, domain)
    for spec in operators:
        if canonical_domain(spec.domain) != name:
            raise ValueError(
                f"operator {spec.name!r} belongs to domain {display_domain(spec.domain)!r}, "
                f"not {domain.display_name!r}"
            )
        operator = document.operators.add()
        _OPERATOR.encode(operator, spec)
        for schema in spec.versions:
            version = operator.versions.add()
            _encode_schema(version, schema)
            if max_bytes is not None:
                size += version.ByteSize()
                _check_size(size, max_bytes, domain)
        if spec.location != NOWHERE:
            _set_location(operator.location, spec.location)
    if domain.location != NOWHERE:
        _set_location(document.location, domain.location)
    _encode_doc_at(document, domain)
    return document


def _check_size(size: int, max_bytes: int | None, domain: DomainSpec) -> None:
    if max_bytes is not None and size > max_bytes:
        raise DocumentTooLarge(f"domain {domain.display_name!r} encodes to more than {max_bytes} bytes")


# --------------------------------------------------------------------------------------------
# schema documents: proto -> model
# --------------------------------------------------------------------------------------------


def _decode_param(message: FormalParameterProto) -> FormalParameter:
    return FormalParameter(
        **_PARAM.decode(message),
        option=_OPTION_FROM_PROTO[int(message.option)],
        differentiability=_DIFF_FROM_PROTO[int(message.differentiability)],
        location=_location(message),
        doc_location=_location(message, "doc_location"),
        doc_literal=message.doc_literal,
        type_from=tuple(TypeSource(s.attribute, s.input, s.type, _location(s)) for s in message.type_from),
        shape=decode_shape_text(message.shape) if message.HasField("shape") else None,
        value=decode_shape_text(message.value) if message.HasField("value") else None,
    )


def _decode_default(message: AttributeSchemaProto) -> AttrDefault | None:
    which = message.WhichOneof("default_value")
    if which is None:
        return None
    if which == "default_tensor":
        return decode_tensor(message.default_tensor)
    if which == "default_sparse_tensor":
        sparse = message.default_sparse_tensor
        return SparseTensorValue(
            decode_tensor(sparse.values), decode_tensor(sparse.indices), tuple(sparse.dims)
        )
    if which == "default_graph":
        return GraphValue(message.default_graph)
    if which == "default_float":
        return message.default_float
    if which == "default_int":
        return message.default_int
    if which == "default_string":
        return message.default_string
    if which == "default_floats":
        return tuple(message.default_floats.values)
    if which == "default_ints":
        return tuple(message.default_ints.values)
    return tuple(message.default_strings.values)


def _decode_attribute(message: AttributeSchemaProto) -> Attribute:
    attr_type = _ATTR_FROM_NUMBER.get(message.type)
    if attr_type is None:
        raise ValueError(f"attribute {message.name!r}: unknown AttributeProto type {message.type}")
    return Attribute(
        **_ATTRIBUTE.decode(message),
        type=attr_type,
        default=_decode_default(message),
        location=_location(message),
        doc_location=_location(message, "doc_location"),
        doc_literal=message.doc_literal,
    )


def _decode_constraint(message: TypeConstraintProto) -> TypeConstraint:
    return TypeConstraint(
        **_CONSTRAINT.decode(message),
        allowed=tuple(message.allowed),
        type_sets=tuple(message.type_sets),
        location=_location(message),
        doc_location=_location(message, "doc_location"),
        doc_literal=message.doc_literal,
    )


def _decode_step(message: AdapterStepProto) -> AdapterStep:
    return AdapterStep(
        kind=message.kind,
        args=tuple((arg.key, load_argument(arg.value_json)) for arg in message.args),
        location=_location(message),
    )


def _decode_adapter(message: AdapterProto) -> Adapter:
    downgrade = (
        tuple(_decode_step(s) for s in message.downgrade.steps) if message.HasField("downgrade") else None
    )
    return Adapter(
        upgrade=tuple(_decode_step(s) for s in message.upgrade),
        downgrade=downgrade,
        location=_location(message),
    )


def _decode_schema(domain: str, name: str, message: OpSchemaProto) -> OpSchema:
    status = _STATUS_FROM_PROTO.get(int(message.status))
    if status is None:
        raise ValueError(f"{name}:{message.since_version}: unknown status {message.status}")
    return OpSchema(
        domain=domain,
        name=name,
        **_SCHEMA.decode(message),
        status=status,
        inputs=tuple(_decode_param(p) for p in message.inputs),
        outputs=tuple(_decode_param(p) for p in message.outputs),
        attributes=tuple(_decode_attribute(a) for a in message.attributes),
        type_constraints=tuple(_decode_constraint(c) for c in message.type_constraints),
        adapter=_decode_adapter(message.adapter) if message.HasField("adapter") else None,
        suppress=tuple(message.suppress),
        location=_location(message),
        doc_location=_location(message, "doc_location"),
        doc_literal=message.doc_literal,
        **decode_function_fields(message),
        examples=decode_examples(message.examples),
        shape_requires=tuple(decode_shape_text(r) for r in message.shape_requires),
    )


def _decode_operator(domain: str, message: OperatorSchemaProto) -> OperatorSpec:
    return OperatorSpec(
        domain=domain,
        **_OPERATOR.decode(message),
        versions=tuple(_decode_schema(domain, message.name, v) for v in message.versions),
        location=_location(message),
    )


def _decode_domain(message: OperatorSchemaSetProto) -> DomainSpec:
    return DomainSpec(
        name=canonical_domain(message.domain),
        opset_versions=tuple(
            OpsetVersion(
                **_OPSET.decode(o),
                location=_location(o),
                doc_location=_location(o, "doc_location"),
                doc_literal=o.doc_literal,
            )
            for o in message.opset_versions
        ),
        type_sets=tuple((t.name, tuple(t.types)) for t in message.type_sets),
        **_DOMAIN.decode(message),
        location=_location(message),
        doc_location=_location(message, "doc_location"),
        doc_literal=message.doc_literal,
        type_set_locations=tuple((t.name, _location(t)) for t in message.type_sets if t.HasField("location")),
    )


def read_schema_document(item: OperatorSchemaSetProto | bytes) -> OperatorSchemaSetProto:
    """A schema document (parsed from bytes when given bytes), checked: raises ValueError on a
    foreign magic or a newer format version."""
    if isinstance(item, (bytes, bytearray, memoryview)):
        document = OperatorSchemaSetProto()
        document.ParseFromString(bytes(item))
    else:
        document = item
    if document.magic != SCHEMAS_MAGIC:
        raise ValueError(f"not an opset-toolkit schema document (magic {document.magic!r})")
    if document.format_version > SCHEMAS_FORMAT_VERSION:
        raise ValueError(
            f"schema document format {document.format_version} is newer than supported "
            f"({SCHEMAS_FORMAT_VERSION})"
        )
    return document


def domain_from_schema_document(document: OperatorSchemaSetProto) -> DomainSpec:
    """The domain of a (checked) schema document, without its operators."""
    return _decode_domain(document)


def operator_from_schema_message(domain: str, message: OperatorSchemaProto) -> OperatorSpec:
    """One operator of a schema document of (canonical) `domain`, every version decoded."""
    return _decode_operator(domain, message)


def specset_from_schema_documents(docs: Iterable[OperatorSchemaSetProto | bytes]) -> SpecSet:
    """Rebuild the model objects from schema documents (messages or their serialised bytes).

    Domains and operators come out in document order; `releases` is empty (not part of the
    document). Raises ValueError on a foreign magic or a newer format version.
    """
    domains: list[DomainSpec] = []
    operators: list[OperatorSpec] = []
    for item in docs:
        document = read_schema_document(item)
        domain = _decode_domain(document)
        domains.append(domain)
        operators.extend(_decode_operator(domain.name, o) for o in document.operators)
    return SpecSet(domains=tuple(domains), operators=tuple(operators), releases=())
