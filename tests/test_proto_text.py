"""The text printer of our documents (toolkit/generate/proto_text.py) judged by protobuf's own
text parser: on messages hypothesis builds from the descriptors of our documents (every field type
they use, nested messages, repeated fields, special floats, escapes), what it prints reads back
(`text_format.Parse`) as the message printed, at any indent, and prints again the same."""

from __future__ import annotations

import math
from typing import Any

import pytest
from google.protobuf import struct_pb2, text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.proto_text import message_to_text
from toolkit.proto import OperatorSchemaSetProto, OperatorSetProto

# Quotes, backslashes, every kind of control character, DEL, non-ASCII and astral characters.
TEXT = st.text(alphabet=st.sampled_from(list("ab Z\"'\\\n\r\t\x00\x01\x0b\x1f\x7f\x80é€😀")), max_size=10)
INT_RANGES = {
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
}


def _one_nan(value: float) -> float:
    """Text has one nan: a nan's sign and payload bits do not survive printing, by design."""
    return math.nan if math.isnan(value) else value


def _values(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return TEXT
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=8)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_FLOAT:
        return st.floats(width=32).map(_one_nan)  # nan and infinities included
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return st.floats().map(_one_nan)
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


def _reads_back(message: Message, indent: int) -> None:
    text = message_to_text(message, indent)
    lines = text.splitlines()
    assert all(line.startswith(" " * indent) for line in lines)
    parsed = text_format.Parse(text, type(message)())
    # bytes, not ==: a nan field is never equal to itself
    assert parsed.SerializeToString(deterministic=True) == message.SerializeToString(deterministic=True)
    assert message_to_text(parsed, indent) == text


@settings(max_examples=300, deadline=None)
@given(messages(OperatorSetProto), st.sampled_from([0, 2, 4]))
def test_operator_set_documents_read_back_as_printed(message: Message, indent: int) -> None:
    _reads_back(message, indent)


@settings(max_examples=100, deadline=None)
@given(messages(OperatorSchemaSetProto))
def test_schema_documents_read_back_as_printed(message: Message) -> None:
    _reads_back(message, 0)


def test_escapes_and_floats_read_back() -> None:
    document = OperatorSetProto(doc_string='tab\t quote" back\\ nul\x00 del\x7f é 😀', domain="'")
    document.operator.add(op_type="a\nb", doc_string="\x01\x1f")
    text = message_to_text(document)
    assert 'doc_string: "tab\\t quote\\" back\\\\ nul\\000 del\\177 é 😀"' in text  # UTF-8 kept
    assert text_format.Parse(text, OperatorSetProto()) == document


def test_types_it_does_not_plan_are_refused() -> None:
    """A map (or Any, a group, an extension) is not printed some other way beside this printer."""
    message = struct_pb2.Struct()
    message.update({"a": 1.5})
    with pytest.raises(TypeError, match=r"google\.protobuf\.Struct"):
        message_to_text(message)
