"""Operator set documents assembled from per-entry fragments rendered once.

An operator version recurs in every later opset of its domain (ai.onnx: 659 versions, 4,442
operator entries over 28 documents), and so does the function body of an operator defined by one;
so each `OperatorProto` and `FunctionProto` is serialized and printed once and the documents are
concatenations (the text printed by `proto_text`). Protobuf allows it: a repeated message
field's wire form is the concatenation of its elements (tag, length, bytes), and both the
deterministic binary form and the text format write fields in field-number order, so a document
is its fields before `operator`, the operator entries, its fields between `operator` and
`functions`, the function entries, then its fields after `functions`.

This is how the documents are written, the only way (#24): a whole `OperatorSetProto` serialized
and printed per document (by `SerializeToString` and `text_format`) is not kept beside it (what
that cost is measured in docs/architecture.md, "Fast paths").
tests/test_proto_fragments.py judges the bytes with protobuf's own parsers: they read back
(`FromString`, `text_format.Parse`) as the document `proto_docs.operator_set_document` means,
which serializes deterministically to the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from google.protobuf.message import Message

from toolkit.generate.proto_text import message_to_text
from toolkit.model.onnx_wire import field_bytes
from toolkit.proto import OperatorSetProto

__all__ = ["FragmentCache", "assemble"]

_OPERATOR = OperatorSetProto.DESCRIPTOR.fields_by_name["operator"]
_FUNCTIONS = OperatorSetProto.DESCRIPTOR.fields_by_name["functions"]
assert _OPERATOR.number < _FUNCTIONS.number  # their order in documents

Fragment = tuple[bytes, str]


class FragmentCache:
    """(binary, text) fragments of the entries of one repeated message field of
    `OperatorSetProto` (`operator` by default, or `functions`), keyed by whatever identifies the
    entry (the caller's choice, e.g. `(name, since_version)`), each built and rendered once.
    With `max_entries` it holds at most that many: when full it starts over (a cache that lives
    as long as the process, in a language server or `mkdocs serve`, stays bounded)."""

    def __init__(self, field: str = "operator", max_entries: int | None = None) -> None:
        self._number = OperatorSetProto.DESCRIPTOR.fields_by_name[field].number
        self._opening = f"{field} {{\n"
        self._fragments: dict[Hashable, Fragment] = {}
        self._max_entries = max_entries

    def __len__(self) -> int:
        return len(self._fragments)

    def get(self, key: Hashable, build: Callable[[], Message]) -> Fragment:
        found = self._fragments.get(key)
        if found is None:
            if self._max_entries is not None and len(self._fragments) >= self._max_entries:
                self._fragments.clear()
            entry = build()
            body = entry.SerializeToString(deterministic=True)
            text = message_to_text(entry, indent=2)
            found = self._fragments[key] = (field_bytes(self._number, body), self._opening + text + "}\n")
        return found


def _part(document: OperatorSetProto, low: int, high: int) -> OperatorSetProto:
    """A copy of `document` with only its non-repeated fields numbered in [low, high)."""
    part = OperatorSetProto()
    for field, value in document.ListFields():
        if low <= field.number < high and not field.is_repeated:
            setattr(part, field.name, value)
    return part


def assemble(
    document: OperatorSetProto, operators: Iterable[Fragment], functions: Iterable[Fragment] = ()
) -> Fragment:
    """(deterministic binary form, text format) of `document` with `operators` and `functions`
    (from `FragmentCache.get`, in document order) as its entries; `document`'s own `operator`
    and `functions` entries are ignored."""
    parts = (
        _part(document, 0, _OPERATOR.number),
        _part(document, _OPERATOR.number + 1, _FUNCTIONS.number),
        _part(document, _FUNCTIONS.number + 1, 1 << 29),
    )
    ops, fns = list(operators), list(functions)
    binary = b"".join(
        [
            parts[0].SerializeToString(deterministic=True),
            *(b for b, _ in ops),
            parts[1].SerializeToString(deterministic=True),
            *(b for b, _ in fns),
            parts[2].SerializeToString(deterministic=True),
        ]
    )
    text = "".join(
        [
            message_to_text(parts[0]),
            *(t for _, t in ops),
            message_to_text(parts[1]),
            *(t for _, t in fns),
            message_to_text(parts[2]),
        ]
    )
    return binary, text
