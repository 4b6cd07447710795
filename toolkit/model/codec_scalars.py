"""The codec's plain fields, listed from their two definitions instead of by hand.

A plain field is a compared field of a model dataclass whose type is `str`, `int` or `bool`, or
one of them or None. It is carried by the field of the same name of the proto message, so the
list of them is the dataclass's fields read against the message's descriptor: a new plain field
of the model needs its proto field (schemas/opset_toolkit.proto) and nothing in the codec, and a
plain field without one fails when the codec is imported, never as a value lost on the way
through the cache or a schema document.

A field is written when it differs from the dataclass's default (a field without a default
always; one whose default is None when it is not None), and read back as the message holds it
(by presence when the default is None). `always` names the fields that format 1 documents
write even at their default: they stay so, since the documents' bytes are outputs.

Fields with a richer type (enums, nested records, tuples) and the `compare=False` fields
(locations, `doc_literal`, examples) are the codec's own code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from operator import attrgetter
from typing import Any

__all__ = ["Scalars"]

_PLAIN = frozenset({"str", "int", "bool", "str | None", "int | None"})


class Scalars:
    """The plain fields of one dataclass in one proto message."""

    __slots__ = ("_values", "decode", "decoded", "encoded")

    def __init__(
        self, cls: type, message: Any, *, outside: tuple[str, ...] = (), always: tuple[str, ...] = ()
    ) -> None:
        """`outside`: plain fields the message does not hold (the record around it does, as an
        operator version's domain and name are its operator's)."""
        descriptor = message.DESCRIPTOR
        encoded: list[tuple[str, object, bool]] = []
        decoded: list[tuple[str, bool]] = []
        for item in fields(cls):
            if not item.compare or item.type not in _PLAIN or item.name in outside:
                continue
            proto = descriptor.fields_by_name.get(item.name)
            if (
                proto is None
                or proto.message_type is not None
                or proto.enum_type is not None
                or proto.is_repeated
            ):
                raise TypeError(
                    f"{cls.__name__}.{item.name} has no scalar field of that name in {descriptor.name}: "
                    "add it to schemas/opset_toolkit.proto and run tools/regen_proto.py"
                )
            default = item.default
            if default is not MISSING and default is not None and proto.default_value != default:
                raise TypeError(
                    f"{cls.__name__}.{item.name} defaults to {default!r}, {descriptor.name}.{item.name} "
                    f"to {proto.default_value!r}: an absent field would read back as another value"
                )
            encoded.append((item.name, default, item.name in always))
            decoded.append((item.name, default is None))
        unknown = set(always) - {name for name, _, _ in encoded}
        if unknown:
            raise TypeError(f"{cls.__name__}: not plain fields: {sorted(unknown)}")
        self.encoded = tuple(encoded)
        self.decoded = tuple(decoded)
        # Each read in one call (they run for every record the caches and documents hold).
        names = tuple(name for name, _ in decoded)
        self._values = attrgetter(*names) if len(names) > 1 else _one(names)
        self.decode = _decoder(
            names, self._values, tuple(name for name, by_presence in decoded if by_presence)
        )

    def encode(self, message: Any, value: object) -> None:
        for (name, default, always), field_value in zip(self.encoded, self._values(value)):
            if always or field_value != default:  # a field without a default is never MISSING
                setattr(message, name, field_value)


def _decoder(
    names: tuple[str, ...], values: Callable[[Any], tuple[Any, ...]], by_presence: tuple[str, ...]
) -> Callable[[Any], dict[str, Any]]:
    """The plain fields of a message as keyword arguments of the dataclass."""
    if not by_presence:
        return lambda message: dict(zip(names, values(message)))

    def decode(message: Any) -> dict[str, Any]:
        found = dict(zip(names, values(message)))
        for name in by_presence:
            if not message.HasField(name):
                found[name] = None
        return found

    return decode


def _one(names: tuple[str, ...]) -> Any:
    """attrgetter of one name returns the value itself, not a 1-tuple (and of none, fails)."""
    if not names:
        return lambda _item: ()
    getter = attrgetter(names[0])
    return lambda item: (getter(item),)
