"""Operator set documents assembled from per-operator fragments rendered once.

An operator version recurs in every later opset of its domain (ai.onnx: 659 versions, 4,442
operator entries over 28 documents), so each `OperatorProto` is serialized and printed once and
the documents are concatenations. Protobuf allows it: a repeated message field's wire form is the
concatenation of its elements (tag, length, bytes), and both the deterministic binary form and the
text format write fields in field-number order, so a document is its fields before `operator`,
the operator entries, then its fields after `operator`.

`proto_docs.operator_set_document` + `SerializeToString` / `text_format` stay the definition;
tests/test_proto_fragments.py checks these bytes equal theirs (hypothesis and the onnx catalog).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from google.protobuf import text_format

from toolkit.proto import OperatorProto, OperatorSetProto

__all__ = ["FragmentCache", "assemble"]

_OPERATOR_FIELD = OperatorSetProto.DESCRIPTOR.fields_by_name["operator"]
_TAG = bytes([_OPERATOR_FIELD.number << 3 | 2])  # wire type 2 (length-delimited); number < 16


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


class FragmentCache:
    """(binary, text) fragments of operator entries, keyed by whatever identifies the operator
    version (the caller's choice, e.g. `(name, since_version)`), each built and rendered once."""

    def __init__(self) -> None:
        self._fragments: dict[Hashable, tuple[bytes, str]] = {}

    def get(self, key: Hashable, build: Callable[[], OperatorProto]) -> tuple[bytes, str]:
        found = self._fragments.get(key)
        if found is None:
            operator = build()
            body = operator.SerializeToString(deterministic=True)
            text = text_format.MessageToString(operator, as_utf8=True, indent=2)
            found = self._fragments[key] = (_TAG + _varint(len(body)) + body, "operator {\n" + text + "}\n")
        return found


def _split(document: OperatorSetProto) -> tuple[OperatorSetProto, OperatorSetProto]:
    """The document's fields numbered below `operator`, and those above it (operators cleared)."""
    before, after = OperatorSetProto(), OperatorSetProto()
    before.CopyFrom(document)
    before.ClearField("operator")
    after.CopyFrom(before)
    for field, _ in document.ListFields():
        if field.number > _OPERATOR_FIELD.number:
            before.ClearField(field.name)
        elif field.number < _OPERATOR_FIELD.number:
            after.ClearField(field.name)
    return before, after


def assemble(document: OperatorSetProto, fragments: Iterable[tuple[bytes, str]]) -> tuple[bytes, str]:
    """(deterministic binary form, text format) of `document` with `fragments` (from
    `FragmentCache.get`, in document order) as its operators; `document`'s own operators are
    ignored."""
    before, after = _split(document)
    items = list(fragments)
    binary = b"".join(
        [
            before.SerializeToString(deterministic=True),
            *(b for b, _ in items),
            after.SerializeToString(deterministic=True),
        ]
    )
    text = "".join(
        [
            text_format.MessageToString(before, as_utf8=True),
            *(t for _, t in items),
            text_format.MessageToString(after, as_utf8=True),
        ]
    )
    return binary, text
