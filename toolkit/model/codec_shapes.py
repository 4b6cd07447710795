"""Shape rules in protobuf: `ShapeText` <-> `ShapeTextProto` (an output's `shape`, a version's
`shape_requires` entries), locations included."""

from __future__ import annotations

from toolkit.model.spec import NOWHERE, Location, ShapeText
from toolkit.proto import ShapeTextProto

__all__ = ["decode_shape_text", "encode_shape_text"]


def encode_shape_text(message: ShapeTextProto, value: ShapeText) -> None:
    message.text = value.text
    if value.message:
        message.message = value.message
    if value.location != NOWHERE:
        where = value.location
        message.location.file, message.location.line, message.location.column = (
            where.file,
            where.line,
            where.column,
        )
    if value.literal:
        message.literal = True


def decode_shape_text(message: ShapeTextProto) -> ShapeText:
    where = NOWHERE
    if message.HasField("location"):
        where = Location(message.location.file, message.location.line, message.location.column)
    return ShapeText(message.text, message.message, where, message.literal)
