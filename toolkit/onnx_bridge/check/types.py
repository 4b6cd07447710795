"""Canonical type strings (`tensor(float)`, `seq(tensor(int64))`) of the values of an ONNX model,
and where an attribute keeps its value."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, cast

from toolkit.model.types import ELEMENT_TYPE_NUMBERS, TypeStringError, canonical_type
from toolkit.onnx_bridge.shape_read import shape_of
from toolkit.shapes.values import Shape

if TYPE_CHECKING:
    import onnx


# AttributeProto type -> the field holding the value, for the types whose value is a message
VALUE_FIELDS = {4: "t", 5: "g", 11: "sparse_tensor", 13: "tp"}

# per attribute of a node: its name, its AttributeProto type number, whether it holds a value
# (what check-model's fast path reads of attributes, check.fastpath)
AttributeFacts = tuple[tuple[str, int, bool], ...]

_ELEMENT_NAMES = {number: name for name, number in ELEMENT_TYPE_NUMBERS.items()}


def type_string(proto: onnx.TypeProto) -> str | None:
    """Canonical type string of a TypeProto, None when (partly) unknown."""
    # The common case, a tensor, by one lookup: a nonzero elem_type means tensor_type is the
    # oneof member set (an unset member reads as its default, elem_type 0).
    elem_type = proto.tensor_type.elem_type
    if elem_type:
        try:
            return _TENSOR_TYPES[elem_type]
        except KeyError:
            found = _TENSOR_TYPES[elem_type] = _canonical(_raw_type(proto))
            return found
    return _canonical(_raw_type(proto))


_CANONICAL: dict[str, str | None] = {}  # raw type string -> canonical (parsing is the slow part)
_TENSOR_TYPES: dict[int, str | None] = {}  # TensorProto data type -> canonical tensor type


def _canonical(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return _CANONICAL[text]
    except KeyError:
        pass
    try:
        found: str | None = canonical_type(text)
    except TypeStringError:
        found = None
    _CANONICAL[text] = found
    return found


def _raw_type(proto: Any) -> str | None:
    kind = proto.WhichOneof("value")
    if kind == "tensor_type" or kind == "sparse_tensor_type":
        elem = _ELEMENT_NAMES.get(getattr(proto, kind).elem_type)
        prefix = "tensor" if kind == "tensor_type" else "sparse_tensor"
        return f"{prefix}({elem})" if elem else None
    if kind == "sequence_type":
        inner = _raw_type(proto.sequence_type.elem_type)
        return f"seq({inner})" if inner else None
    if kind == "optional_type":
        inner = _raw_type(proto.optional_type.elem_type)
        return f"optional({inner})" if inner else None
    if kind == "map_type":
        key = _ELEMENT_NAMES.get(proto.map_type.key_type)
        value = _raw_type(proto.map_type.value_type)
        return f"map({key}, {value})" if key and value else None
    return None


def type_string_of_tensor(elem: str) -> str:
    """canonical_type(f"tensor({elem})"), memoised (raises TypeStringError like it)."""
    text = f"tensor({elem})"
    found = _CANONICAL.get(text)
    if found is None:
        found = _CANONICAL[text] = canonical_type(text)
    return found


def declared_types(graph: Any) -> dict[str, str | None]:
    """Names -> declared type in one graph scope; declarations win over initializers."""
    return declarations(graph).types


# a declared TypeProto as the walk reads it: its canonical type string and its shape
Declared = tuple[str | None, Shape]
Pairs = list[tuple[str, Shape]]  # value name -> declared shape, in the graph's order


@dataclass(slots=True)
class Declarations:
    """What one graph declares of its values, each value_info, input and output read once for
    both its type and its shape (#27: the model walk wants both, check-model's types are the
    walk's)."""

    types: dict[str, str | None]  # name -> declared type; declarations win over initializers
    # name -> declared shape, of the entry its type is read from (`declarations`: one per name)
    shapes: dict[str, Shape]
    inputs: Pairs
    value_info: Pairs
    outputs: Pairs
    unnamed: int = 0  # the value_info entries with an empty name (graph_checks reports them)


_NAME = attrgetter("name")
_TYPE = attrgetter("type")
_FIRST = itemgetter(0)  # of a Declared: the type string
_SECOND = itemgetter(1)  # of a Declared: the shape


def declarations(graph: Any, memo: dict[bytes, Declared] | None = None) -> Declarations:
    """The declarations of `graph` (a GraphProto, or anything with its four fields). A TypeProto
    is read by its bytes, once per distinct type in `memo` (a model declares the same few types
    on thousands of values, and their bytes are quicker to read than their fields).

    A name declared more than once (two value_info entries, a value_info entry and a graph input
    or output) is declared by one entry, its type and its shape alike, as onnx's inference reads
    them: the last entry with a type field (an unknown type too) of value_info, then the
    outputs, then the inputs; entries without a type declare nothing. An initializer's type
    stands where no entry declares a known one (onnx merges it into the declaration)."""
    if memo is None:
        memo = {}
    types: dict[str, str | None] = {}
    shapes: dict[str, Shape] = {}
    value_info: Pairs = []
    outputs: Pairs = []
    inputs: Pairs = []
    unnamed = 0
    for infos, pairs in ((graph.value_info, value_info), (graph.output, outputs), (graph.input, inputs)):
        # list by list rather than entry by entry (a main graph can declare 10,000 values), each
        # list read in C loops: no Python code runs per entry, but where a type is new
        if not infos:
            continue
        names = list(map(_NAME, infos))
        # (the class's method: one read off each TypeProto would look among its fields first)
        keys = list(map(type(infos[0].type).SerializeToString, map(_TYPE, infos)))
        if pairs is value_info:
            unnamed = names.count("")
        looked_up = list(map(memo.get, keys))
        if None in looked_up:  # a type not read before
            for at, key in enumerate(keys):
                if looked_up[at] is None:
                    read = memo.get(key)  # (an earlier entry of this list may have read it)
                    if read is None:
                        proto = infos[at].type
                        read = memo[key] = (type_string(proto), shape_of(proto))
                    looked_up[at] = read
        reads = cast(list[Declared], looked_up)  # (every miss read above)
        # (two C loops: zip(*reads) would make an iterator per entry)
        found: list[str | None] = list(map(_FIRST, reads))
        read_shapes: list[Shape] = list(map(_SECOND, reads))
        pairs += zip(names, read_shapes)
        if None not in found:  # every type known: each entry has a type field, the last one wins
            types.update(zip(names, found))
            shapes.update(zip(names, read_shapes))
            continue
        for name, declared, shape, key, info in zip(names, found, read_shapes, keys, infos):
            if declared is None and not key and not info.HasField("type"):
                continue  # no type field: it declares neither a type nor a shape
            types[name] = declared
            shapes[name] = shape
    if graph.initializer:
        given: dict[str, str | None] = {}  # (the last of two initializers of a name, as the walk's shape)
        for init in graph.initializer:
            elem = _ELEMENT_NAMES.get(init.data_type)
            given[init.name] = type_string_of_tensor(elem) if elem else None
        for name, held in given.items():
            if types.get(name) is None:
                types[name] = held
    return Declarations(types, shapes, inputs, value_info, outputs, unnamed)


def attribute_facts(attrs: list[Any]) -> AttributeFacts:
    """All the guards read of a node's attributes. The guards read attributes through these
    alone, so they are also what a memo of a node's verdict is keyed by (walk_checks)."""
    return tuple(map(attribute_fact, attrs))


def attribute_fact(attr: Any) -> tuple[str, int, bool]:
    """One attribute's facts: its name, type, and whether it holds a value (a message-valued one
    when it is set or refers to a function's attribute; the others always do)."""
    kind = attr.type
    value_field = VALUE_FIELDS.get(kind)
    held = not value_field or attr.HasField(value_field) or bool(attr.ref_attr_name)
    return attr.name, kind, held
