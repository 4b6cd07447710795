"""The protobuf text format of our operator-set documents: the one printer (#24).

It prints what protobuf's text format says (fields in field-number order, as `ListFields()`
gives them; `name: value` for scalars with strings escaped as C escapes, UTF-8 kept; `name {`
... `}` blocks for messages, indented two spaces a level), for the message types of
`schemas/opset_toolkit.proto`. Each message type gets a plan once (field name, how to print its
values), which is what makes it fast. Types it does not plan (maps, groups, extensions, `Any`)
are refused with a TypeError rather than printed some other way: our documents have none.

`text_format.MessageToString` printed the same text before; it is not used beside this (what it
cost is measured in docs/architecture.md, "Fast paths").
tests/test_proto_text.py judges the text with protobuf's own parser: it reads back
(`text_format.Parse`) as the message that was printed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from google.protobuf import text_encoding
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal.type_checkers import ToShortestFloat
from google.protobuf.message import Message

from toolkit.model.diagnostics import UNPRINTABLE_IN_TEXT, find_unprintable

__all__ = ["message_to_text"]

_Printer = Callable[[Any], str]
# A message type's descriptor: protobuf's C implementation and its Python one have different
# classes (the stubs name both), used here only for their common read-only attributes.
_Descriptor = Any
# The stubs say bytes; it takes str too, which is what strings need here.
_c_escape: Callable[[str | bytes, bool], str] = text_encoding.CEscape  # type: ignore[assignment]


# Strings with a control or bidi character (`UNPRINTABLE_IN_TEXT`: the ASCII ones `CEscape` writes
# as octal escapes, and the others, which it keeps raw with `as_utf8`) are escaped in full, each of
# the others as the octal escapes of its UTF-8 bytes (text_format reads them back as the same
# string): a text document never holds one raw. Strings without any are escaped by a few
# `str.replace` calls, which are much faster than `str.translate`'s per-character table lookups on
# long doc strings.
_REPLACEMENTS = (("\\", "\\\\"), ('"', '\\"'), ("'", "\\'"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))


def _octal_utf8(match: re.Match[str]) -> str:
    return "".join(f"\\{byte:03o}" for byte in match.group(0).encode("utf-8"))


def _string(value: str) -> str:
    if find_unprintable(value, UNPRINTABLE_IN_TEXT) is not None:
        return '"' + UNPRINTABLE_IN_TEXT.sub(_octal_utf8, _c_escape(value, True)) + '"'
    for old, new in _REPLACEMENTS:  # the backslash first: the others add backslashes
        if old in value:
            value = value.replace(old, new)
    return '"' + value + '"'


def _bytes(value: bytes) -> str:
    return '"' + _c_escape(value, False) + '"'


def _float(value: float) -> str:
    return str(value) if math.isnan(value) else str(ToShortestFloat(value))


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _enum(field: FieldDescriptor) -> _Printer:
    assert field.enum_type is not None
    names = {number: value.name for number, value in field.enum_type.values_by_number.items()}

    def name(value: int) -> str:
        found = names.get(value)
        return found if found is not None else str(value)

    return name


def _scalar_printer(field: FieldDescriptor) -> _Printer:
    if field.type == FieldDescriptor.TYPE_STRING:
        return _string
    if field.type == FieldDescriptor.TYPE_BYTES:
        return _bytes
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum(field)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return _bool
    if field.type == FieldDescriptor.TYPE_FLOAT:
        return _float
    return str  # integers, and doubles (Python's shortest repr, which reads back exactly)


def _covered(descriptor: _Descriptor, seen: set[str]) -> bool:
    """Whether every message type reachable from `descriptor` is one this printer plans."""
    if descriptor.full_name in seen:
        return True
    seen.add(descriptor.full_name)
    if descriptor.full_name == "google.protobuf.Any" or descriptor.extension_ranges:
        return False
    for field in descriptor.fields:
        if field.type == FieldDescriptor.TYPE_GROUP:
            return False
        child = field.message_type
        if child is not None and (child.GetOptions().map_entry or not _covered(child, seen)):
            return False
    return True


# message type -> {field number: (name, is message, is repeated, value printer)}
_PLANS: dict[_Descriptor, dict[int, tuple[str, bool, bool, _Printer | None]]] = {}
_COVERED: dict[_Descriptor, bool] = {}


def _plan(descriptor: _Descriptor) -> dict[int, tuple[str, bool, bool, _Printer | None]]:
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = {}
        for field in descriptor.fields:
            is_message = field.type == FieldDescriptor.TYPE_MESSAGE
            plan[field.number] = (
                field.name,
                is_message,
                field.is_repeated,
                None if is_message else _scalar_printer(field),
            )
        _PLANS[descriptor] = plan
    return plan


def _print(message: Message, indent: int, out: list[str]) -> None:
    plan = _plan(message.DESCRIPTOR)
    pad = " " * indent
    for field, value in message.ListFields():
        name, is_message, repeated, printer = plan[field.number]
        if is_message:
            opening, closing = f"{pad}{name} {{\n", pad + "}\n"
            for item in value if repeated else (value,):
                out.append(opening)
                _print(item, indent + 2, out)
                out.append(closing)
        elif printer is not None:
            head = f"{pad}{name}: "
            for item in value if repeated else (value,):
                out.append(head + printer(item) + "\n")


def message_to_text(message: Message, indent: int = 0) -> str:
    """The text format of `message`, each line indented by `indent` spaces (TypeError for a message
    type that holds a map, group, extension or `Any`)."""
    descriptor = message.DESCRIPTOR
    covered = _COVERED.get(descriptor)
    if covered is None:
        covered = _COVERED[descriptor] = _covered(descriptor, set())
    if not covered:
        raise TypeError(f"{descriptor.full_name} holds a map, group, extension or Any: not printed here")
    out: list[str] = []
    _print(message, indent, out)
    return "".join(out)
