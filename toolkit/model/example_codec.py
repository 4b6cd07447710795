"""Examples <-> protobuf (`ExampleProto`, Part 3 of schemas/opset_toolkit.proto), for the codec in
`toolkit.model.codec`: the registry cache and `.pb` schema documents keep a version's examples."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit.model.examples import FLOAT_TYPES, Example, ExampleAttribute, ExampleTensor
from toolkit.model.spec import NOWHERE, AttrType, Location
from toolkit.proto.opset_toolkit_pb2 import (
    ExampleAttributeProto,
    ExampleProto,
    ExampleTensorProto,
    SourceLocation,
)

_ATTR_FROM_NUMBER = {t.proto_number: t for t in AttrType}
_LIST_FIELDS = {AttrType.FLOATS: "floats", AttrType.INTS: "ints", AttrType.STRINGS: "strings"}


def _set_location(message: SourceLocation, location: Location) -> None:
    if location != NOWHERE:
        message.file, message.line, message.column = location.file, location.line, location.column


def _location(message: Any) -> Location:
    if not message.HasField("location"):
        return NOWHERE
    loc = message.location
    return Location(loc.file, loc.line, loc.column)


def encode_tensor(message: ExampleTensorProto, tensor: ExampleTensor) -> None:
    message.dtype = tensor.dtype
    message.shape.extend(tensor.shape)
    if tensor.dtype in FLOAT_TYPES:
        message.floats.extend(float(v) for v in tensor.data)
    elif tensor.dtype == "string":
        message.strings.extend(str(v) for v in tensor.data)
    elif tensor.dtype in ("uint32", "uint64"):
        message.uints.extend(int(v) for v in tensor.data)
    else:
        message.ints.extend(int(v) for v in tensor.data)
    if tensor.file:
        message.file = tensor.file
    _set_location(message.location, tensor.location)


def decode_tensor(message: ExampleTensorProto) -> ExampleTensor:
    dtype = message.dtype
    data: tuple[Any, ...]
    if dtype in FLOAT_TYPES:
        data = tuple(message.floats)
    elif dtype == "string":
        data = tuple(message.strings)
    elif dtype in ("uint32", "uint64"):
        data = tuple(message.uints)
    elif dtype == "bool":
        data = tuple(bool(v) for v in message.ints)
    else:
        data = tuple(message.ints)
    return ExampleTensor(dtype, tuple(message.shape), data, message.file, _location(message))


def _encode_attribute(message: ExampleAttributeProto, attr: ExampleAttribute) -> None:
    message.name = attr.name
    message.type = attr.type.proto_number
    value = attr.value
    if isinstance(value, ExampleTensor):
        encode_tensor(message.t, value)
    elif attr.type in _LIST_FIELDS:
        assert isinstance(value, tuple)
        getattr(message, _LIST_FIELDS[attr.type]).values.extend(value)
    elif attr.type is AttrType.FLOAT:
        assert isinstance(value, (int, float))
        message.f = float(value)
    elif attr.type is AttrType.INT:
        assert isinstance(value, int)
        message.i = value
    else:
        message.s = str(value)
    _set_location(message.location, attr.location)


def _decode_attribute(message: ExampleAttributeProto) -> ExampleAttribute:
    attr_type = _ATTR_FROM_NUMBER.get(message.type)
    if attr_type is None:
        raise ValueError(f"example attribute {message.name}: unknown attribute type {message.type}")
    kind = message.WhichOneof("value")
    value: Any
    if kind == "t":
        value = decode_tensor(message.t)
    elif kind in ("floats", "ints", "strings"):
        value = tuple(getattr(message, kind).values)
    else:
        value = getattr(message, kind) if kind else None
    return ExampleAttribute(message.name, attr_type, value, _location(message))


def encode_examples(messages: Any, examples: Iterable[Example]) -> None:
    """Append every example to the repeated ExampleProto field `messages`."""
    for example in examples:
        message: ExampleProto = messages.add()
        message.name = example.name
        if example.doc:
            message.doc = example.doc
        for attr in example.attributes:
            _encode_attribute(message.attributes.add(), attr)
        for tensor in example.inputs:
            slot = message.inputs.add()
            if tensor is not None:
                encode_tensor(slot.tensor, tensor)
        for tensor in example.outputs:
            encode_tensor(message.outputs.add(), tensor)
        message.rtol = example.rtol
        message.atol = example.atol
        _set_location(message.location, example.location)


def decode_examples(messages: Iterable[ExampleProto]) -> tuple[Example, ...]:
    return tuple(
        Example(
            name=m.name,
            doc=m.doc,
            attributes=tuple(_decode_attribute(a) for a in m.attributes),
            inputs=tuple(decode_tensor(i.tensor) if i.HasField("tensor") else None for i in m.inputs),
            outputs=tuple(decode_tensor(o) for o in m.outputs),
            rtol=m.rtol,
            atol=m.atol,
            location=_location(m),
        )
        for m in messages
    )
