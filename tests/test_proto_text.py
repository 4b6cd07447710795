"""The fast text printer (toolkit/generate/proto_text_fast.py) prints exactly what protobuf's
`text_format.MessageToString(..., as_utf8=True, indent=n)` prints: on messages hypothesis builds
from the descriptors of our documents (every field type they use, nested messages, repeated
fields, special floats, escapes) and on every opset document of the onnx catalog."""

from __future__ import annotations

from typing import Any

from google.protobuf import struct_pb2, text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.proto_docs import operator_set_document
from toolkit.generate.proto_text_fast import message_to_text
from toolkit.proto import OperatorSchemaSetProto, OperatorSetProto

# Quotes, backslashes, every kind of control character, DEL, non-ASCII and astral characters.
TEXT = st.text(alphabet=st.sampled_from(list("ab Z\"'\\\n\r\t\x00\x01\x0b\x1f\x7f\x80é€😀")), max_size=10)
INT_RANGES = {
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
}


def _values(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return TEXT
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=8)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_FLOAT:
        return st.floats(width=32)  # nan and infinities included
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return st.floats()
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        return st.sampled_from(numbers)  # our enums are closed: only known numbers can be set
    low, high = INT_RANGES[kind]
    return st.integers(low, high)


def messages(cls: type[Message], depth: int = 3) -> st.SearchStrategy[Message]:
    @st.composite
    def build(draw: st.DrawFn) -> Message:
        message = cls()
        _fill(draw, message, depth)
        return message

    return build()


def _fill(draw: st.DrawFn, message: Message, depth: int) -> None:
    for field in message.DESCRIPTOR.fields:
        if not draw(st.integers(0, 2)):  # a third of the fields left unset
            continue
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth == 0:
                continue
            count = draw(st.integers(0, 2)) if field.is_repeated else 1
            for _ in range(count):
                child = (
                    getattr(message, field.name).add() if field.is_repeated else getattr(message, field.name)
                )
                _fill(draw, child, depth - 1)
                if not field.is_repeated:
                    child.SetInParent()
        elif field.is_repeated:
            getattr(message, field.name).extend(draw(st.lists(_values(field), max_size=3)))
        else:
            setattr(message, field.name, draw(_values(field)))


@settings(max_examples=300, deadline=None)
@given(messages(OperatorSetProto), st.sampled_from([0, 2, 4]))
def test_operator_set_documents_print_as_text_format_prints_them(message: Message, indent: int) -> None:
    assert message_to_text(message, indent) == text_format.MessageToString(
        message, as_utf8=True, indent=indent
    )


@settings(max_examples=100, deadline=None)
@given(messages(OperatorSchemaSetProto))
def test_schema_documents_print_as_text_format_prints_them(message: Message) -> None:
    assert message_to_text(message) == text_format.MessageToString(message, as_utf8=True)


def test_types_it_does_not_cover_are_printed_by_text_format() -> None:
    """Maps (and Any, groups, extensions) are not planned here: text_format prints them."""
    message = struct_pb2.Struct()
    message.update({"b": [1.5, "x\n"], "a": {"nested": True}})
    printed = message_to_text(message, indent=2)
    assert printed == text_format.MessageToString(message, as_utf8=True, indent=2)
    assert printed.index('key: "a"') < printed.index('key: "b"')  # text_format sorts map keys


def test_catalog_documents_print_as_text_format_prints_them(onnx_registry) -> None:  # type: ignore[no-untyped-def]
    printed = 0
    for name in onnx_registry.domains():
        domain = onnx_registry.domain(name)
        for version in domain.versions:
            document = operator_set_document(domain, version, onnx_registry.inventory(name, version))
            assert message_to_text(document) == text_format.MessageToString(document, as_utf8=True)
            printed += 1
    assert printed >= 30
