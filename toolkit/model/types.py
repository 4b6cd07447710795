"""The ONNX type-string grammar.

    type   := tensor(<elem>) | sparse_tensor(<elem>) | seq(inner) | optional(inner)
            | map(<key>, inner)
    key    := an integer element type or string
    inner  := type | <elem>

In onnx's type language a bare element type inside `seq(...)`, `optional(...)` or `map(...)`
denotes a tensor of it (the ML domain writes `seq(map(int64, float))`; a model's TypeProto says
`seq(map(int64, tensor(float)))`): both are ONE type, and its canonical spelling is the explicit
one, `tensor(<elem>)`, which is also what a TypeProto spells. Every comparison of types
(check-model, the gate, docs, the builders) goes through `canonical_type`, so the two spellings
never differ anywhere.

Canonical spelling: no spaces except `map(K, V)`, and every element type inside a container
written `tensor(<elem>)`.
"""

from __future__ import annotations

from functools import lru_cache

# TensorProto.DataType names known to onnx 1.23 (UNDEFINED excluded), as the DSL spells them.
ELEMENT_TYPES: tuple[str, ...] = (
    "float",
    "uint8",
    "int8",
    "uint16",
    "int16",
    "int32",
    "int64",
    "string",
    "bool",
    "float16",
    "double",
    "uint32",
    "uint64",
    "complex64",
    "complex128",
    "bfloat16",
    "float8e4m3fn",
    "float8e4m3fnuz",
    "float8e5m2",
    "float8e5m2fnuz",
    "uint4",
    "int4",
    "float4e2m1",
    "float8e8m0",
    "uint2",
    "int2",
    "float6e2m3",
    "float6e3m2",
)
ELEMENT_TYPE_SET = frozenset(ELEMENT_TYPES)
# TensorProto.DataType enum numbers, in the order above (facts from onnx.proto).
ELEMENT_TYPE_NUMBERS: dict[str, int] = {name: index + 1 for index, name in enumerate(ELEMENT_TYPES)}
MAP_KEY_TYPES = frozenset(
    {"string", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
)


# ONNX nests types two or three levels (`optional(seq(tensor(float)))`); the limit keeps the
# recursive parser, and everything that walks a parsed type, far from Python's recursion limit.
MAX_TYPE_DEPTH = 16
# Type sets include other sets (`@floats`); chains this long are a mistake or a hostile input.
MAX_TYPE_SET_DEPTH = 32
# How much of a bad type string a message quotes.
_QUOTED_CHARS = 80


class TypeStringError(ValueError):
    """A type string that does not follow the grammar; the message says where and why."""


@lru_cache(maxsize=8192)
def canonical_type(text: str) -> str:
    """Parse `text` and return its canonical spelling, or raise TypeStringError."""
    parser = _Parser(text)
    result = parser.parse_type()
    parser.expect_end()
    return result


def looks_like_type_string(text: str) -> bool:
    """True for anything shaped like `kind(...)`: a concrete type rather than a type parameter."""
    return "(" in text


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    def fail(self, message: str) -> TypeStringError:
        text = self.text if len(self.text) <= _QUOTED_CHARS else self.text[:_QUOTED_CHARS] + "..."
        return TypeStringError(f"{message} at character {self.pos + 1} of '{text}'")

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def word(self) -> str:
        self.skip_spaces()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        if start == self.pos:
            raise self.fail("expected a name")
        return self.text[start : self.pos]

    def punct(self, char: str) -> None:
        self.skip_spaces()
        if self.pos >= len(self.text) or self.text[self.pos] != char:
            raise self.fail(f"expected '{char}'")
        self.pos += 1

    def expect_end(self) -> None:
        self.skip_spaces()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the type")

    def element(self) -> str:
        name = self.word()
        if name not in ELEMENT_TYPE_SET:
            raise self.fail(f"unknown element type '{name}'")
        return name

    def parse_type(self) -> str:
        self.depth += 1
        if self.depth > MAX_TYPE_DEPTH:
            raise self.fail(f"types are nested more than {MAX_TYPE_DEPTH} levels deep")
        kind = self.word()
        try:
            return self.parse_kind(kind)
        finally:
            self.depth -= 1

    def parse_kind(self, kind: str) -> str:
        if kind in ("tensor", "sparse_tensor"):
            self.punct("(")
            elem = self.element()
            self.punct(")")
            return f"{kind}({elem})"
        if kind in ("seq", "optional"):
            self.punct("(")
            inner = self.inner_type()
            self.punct(")")
            return f"{kind}({inner})"
        if kind == "map":
            self.punct("(")
            key = self.element()
            if key not in MAP_KEY_TYPES:
                raise self.fail(f"'{key}' cannot be a map key (integers or string only)")
            self.punct(",")
            value = self.inner_type()
            self.punct(")")
            return f"map({key}, {value})"
        raise self.fail(f"unknown type kind '{kind}' (tensor, sparse_tensor, seq, optional, map)")

    def inner_type(self) -> str:
        """A type nested in a container; a bare element type there is a tensor of it."""
        self.skip_spaces()
        start = self.pos
        name = self.word()
        self.skip_spaces()
        if self.pos < len(self.text) and self.text[self.pos] == "(":
            self.pos = start
            return self.parse_type()
        if name not in ELEMENT_TYPE_SET:
            raise self.fail(f"unknown element type '{name}'")
        return f"tensor({name})"


# AttributeProto.AttributeType numbers by the DSL's attribute type names (onnx.proto facts).
ATTRIBUTE_TYPE_NUMBERS: dict[str, int] = {
    "float": 1,
    "int": 2,
    "string": 3,
    "tensor": 4,
    "graph": 5,
    "floats": 6,
    "ints": 7,
    "strings": 8,
    "tensors": 9,
    "graphs": 10,
    "sparse_tensor": 11,
    "sparse_tensors": 12,
    "type_proto": 13,
    "type_protos": 14,
}
