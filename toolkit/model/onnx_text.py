"""A parser for ONNX's textual syntax of nodes and graphs (what `onnx.parser` reads), in pure Python.

Function bodies in the DSL are written in this syntax, and onnx is an optional dependency, so
the core reads it itself. The subset is what function bodies use:

    node      := outputs '=' [domain '.'] op_type [':' overload] [attrs] '(' inputs ')' [attrs]
    outputs   := name {',' name}          inputs := [name] {',' [name]}   ('' or "" is a missing one)
    attrs     := '<' attr {',' attr} '>'
    attr      := name [':' attr_type] '=' (value | '@' name)
    value     := int | float | string | '[' [value {',' value}] ']' | tensor | graph
    tensor    := elem_type ['[' [dim {',' dim}] ']'] '{' [literal {',' literal}] '}'
    graph     := name '(' [decl {',' decl}] ')' '=>' '(' [decl {',' decl}] ')' '{' {node} '}'
    decl      := [elem_type ['[' [dim {',' dim}] ']']] name

`#` starts a comment running to the end of its line. Positions are 1-based (line, column) in the
text. `onnx.parser` is the conformance reference (tests/test_function_conformance.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from toolkit.model.integers import IntegerOutOfRange, read_int
from toolkit.model.spec import AttrType
from toolkit.model.types import ELEMENT_TYPE_NUMBERS

Scalar = int | float | str


@dataclass(frozen=True, slots=True)
class Pos:
    line: int
    column: int


class TextParseError(ValueError):
    """The text is not in the syntax; `pos` is where the parser stopped."""

    def __init__(self, message: str, pos: Pos) -> None:
        super().__init__(f"{pos.line}:{pos.column}: {message}")
        self.message = message
        self.pos = pos


@dataclass(frozen=True, slots=True)
class TensorLiteral:
    elem_type: int  # TensorProto.DataType number
    dims: tuple[int, ...] | None  # None: written without a shape (a scalar)
    values: tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class ValueDecl:
    """A graph input or output: a name, with a tensor type when one is written."""

    name: str
    elem_type: int | None = None
    shape: tuple[int | str, ...] | None = None  # None: no shape written


@dataclass(frozen=True, slots=True)
class GraphLiteral:
    name: str
    inputs: tuple[ValueDecl, ...]
    outputs: tuple[ValueDecl, ...]
    nodes: tuple[TextNode, ...]


AttrLiteral = Scalar | tuple[Scalar, ...] | TensorLiteral | GraphLiteral


@dataclass(frozen=True, slots=True)
class TextAttribute:
    name: str
    type: AttrType | None  # the written or inferred type; None for an untyped `@ref`
    value: AttrLiteral | None  # None for a reference
    ref: str | None  # `@name`: the calling node's attribute
    pos: Pos = field(compare=False)  # bodies that differ in layout only are equal


@dataclass(frozen=True, slots=True)
class TextNode:
    outputs: tuple[str, ...]
    op_type: str
    domain: str
    inputs: tuple[str, ...]
    attributes: tuple[TextAttribute, ...]
    pos: Pos = field(compare=False)
    overload: str = ""

    def attribute(self, name: str) -> TextAttribute | None:
        for attr in self.attributes:
            if attr.name == name:
                return attr
        return None


_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+|\#[^\n]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*")
      | (?P<number>[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)(?![A-Za-z_])
                  | [-+](?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])(?![A-Za-z0-9_]))
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
      | (?P<punct>=>|[=,()<>\[\]{}:@])
    """,
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "\r"}
_INFINITIES = {"inf": float("inf"), "infinity": float("inf"), "nan": float("nan")}


class _Tok(NamedTuple):
    kind: str  # string, number, name, punct, end
    text: str
    line: int
    column: int

    @property
    def pos(self) -> Pos:
        return Pos(self.line, self.column)


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    append = out.append
    match_at = _TOKEN.match
    line, line_start, index, size = 1, 0, 0, len(text)
    while index < size:
        match = match_at(text, index)
        if match is None:
            raise TextParseError(f"unexpected character {text[index]!r}", Pos(line, index - line_start + 1))
        kind = match.lastgroup or ""
        end = match.end()
        if kind != "space":  # only white space holds a line break (strings and comments stop at one)
            append(_Tok(kind, text[index:end], line, index - line_start + 1))
        else:
            last_break = text.rfind("\n", index, end)
            if last_break >= 0:
                line += text.count("\n", index, end)
                line_start = last_break + 1
        index = end
    append(_Tok("end", "", line, index - line_start + 1))
    return out


def _unquote(token: _Tok) -> str:
    body, out, index = token.text[1:-1], [], 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            escaped = body[index + 1]
            if escaped not in _ESCAPES:
                raise TextParseError(f"unknown escape '\\{escaped}' in a string", token.pos)
            out.append(_ESCAPES[escaped])
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


# How deep graphs (in graph attributes) and lists (in lists) may nest. The text is untrusted and
# the parser, like every walker of what it returns (checks, codec, printer, docs), recurses per
# level: the bound keeps them all far from Python's recursion limit. onnx's own bodies nest If and
# Loop graphs a few levels.
MAX_NESTING = 64


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.at = 0
        self.depth = 0

    def enter(self, what: str) -> None:
        """One level deeper (into a graph or a list), refused past MAX_NESTING; `leave` undoes it."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise TextParseError(
                f"{what} is nested more than {MAX_NESTING} levels deep (graphs in attributes, lists in lists)",
                self.tok.pos,
            )

    def leave(self) -> None:
        self.depth -= 1

    # -- token helpers ----------------------------------------------------------------------

    @property
    def tok(self) -> _Tok:
        return self.toks[self.at]

    def is_punct(self, text: str) -> bool:
        tok = self.toks[self.at]
        return tok.text == text and tok.kind == "punct"

    def take(self) -> _Tok:
        tok = self.tok
        self.at += 1
        return tok

    def expect(self, text: str, what: str = "") -> _Tok:
        if not self.is_punct(text):
            raise self.error(f"expected '{text}'" + (f" {what}" if what else ""))
        return self.take()

    def accept(self, text: str) -> bool:
        tok = self.toks[self.at]
        if tok.text == text and tok.kind == "punct":
            self.at += 1
            return True
        return False

    def error(self, message: str) -> TextParseError:
        found = "the end of the text" if self.tok.kind == "end" else f"'{self.tok.text}'"
        return TextParseError(f"{message}, found {found}", self.tok.pos)

    def name(self, what: str) -> str:
        if self.tok.kind == "name":
            return self.take().text
        if self.tok.kind == "string":
            return _unquote(self.take())
        raise self.error(f"expected {what}")

    # -- nodes ------------------------------------------------------------------------------

    def nodes(self, closing: str | None) -> tuple[TextNode, ...]:
        out = []
        while not (self.tok.kind == "end" if closing is None else self.is_punct(closing)):
            if self.tok.kind == "end":
                raise self.error(f"expected '{closing}' closing the graph")
            out.append(self.node())
        return tuple(out)

    def node(self) -> TextNode:
        pos = self.tok.pos
        outputs = [self.name("an output name")]
        while self.accept(","):
            outputs.append(self.name("an output name"))
        self.expect("=", "after the outputs of a node")
        if self.tok.kind != "name":
            raise self.error("expected an operator name")
        qualified = self.take().text
        domain, _, op_type = qualified.rpartition(".")
        overload = self.name("an overload name") if self.accept(":") else ""
        attributes = self.attributes() if self.is_punct("<") else ()
        self.expect("(", f"opening the inputs of '{op_type}'")
        inputs = self.input_list()
        if self.is_punct("<"):
            if attributes:
                raise self.error("attributes are given twice")
            attributes = self.attributes()
        return TextNode(tuple(outputs), op_type, domain, inputs, attributes, pos, overload)

    def input_list(self) -> tuple[str, ...]:
        inputs: list[str] = []
        if self.accept(")"):
            return ()
        while True:
            if self.is_punct(",") or self.is_punct(")"):
                inputs.append("")  # an omitted optional input
            else:
                inputs.append(self.name("an input name"))
            if self.accept(")"):
                return tuple(inputs)
            self.expect(",", "or ')' in the inputs")

    # -- attributes -------------------------------------------------------------------------

    def attributes(self) -> tuple[TextAttribute, ...]:
        self.expect("<")
        out = [self.attribute()]
        while self.accept(","):
            out.append(self.attribute())
        self.expect(">", "closing the attributes")
        return tuple(out)

    def attribute(self) -> TextAttribute:
        pos = self.tok.pos
        name = self.name("an attribute name")
        declared: AttrType | None = None
        if self.accept(":"):
            type_pos = self.tok.pos
            spelled = self.name("an attribute type")
            try:
                declared = AttrType(spelled)
            except ValueError:
                raise TextParseError(f"unknown attribute type '{spelled}'", type_pos) from None
        self.expect("=", f"after attribute '{name}'")
        if self.accept("@"):
            return TextAttribute(name, declared, None, self.name("the referenced attribute's name"), pos)
        value_pos = self.tok.pos
        value, inferred = self.value(declared)
        kind = declared or inferred
        return TextAttribute(name, kind, _coerce(value, kind, value_pos), None, pos)

    def value(self, declared: AttrType | None) -> tuple[AttrLiteral, AttrType]:
        tok = self.tok
        if tok.kind == "number" or (tok.kind == "name" and tok.text.lower() in _INFINITIES):
            number = self.number()
            return number, AttrType.FLOAT if isinstance(number, float) else AttrType.INT
        if tok.kind == "string" and declared is not AttrType.GRAPH:
            return _unquote(self.take()), AttrType.STRING
        if self.is_punct("["):
            self.enter("this list")
            self.take()
            items: list[Scalar] = []
            kinds: set[AttrType] = set()
            while not self.accept("]"):
                if items:
                    self.expect(",", "or ']' in the list")
                item, kind = self.value(None)
                if not isinstance(item, (int, float, str)):
                    raise TextParseError("lists hold numbers or strings only", tok.pos)
                items.append(item)
                kinds.add(kind)
            self.leave()
            if AttrType.STRING in kinds:
                if len(kinds) > 1:
                    raise TextParseError("a list mixes strings and numbers", tok.pos)
                return tuple(items), AttrType.STRINGS
            return tuple(items), AttrType.FLOATS if AttrType.FLOAT in kinds else AttrType.INTS
        if tok.kind == "name" and tok.text in ELEMENT_TYPE_NUMBERS and declared is not AttrType.GRAPH:
            return self.tensor(), AttrType.TENSOR
        if tok.kind in ("name", "string"):
            return self.graph(), AttrType.GRAPH
        raise self.error("expected an attribute value")

    def number(self) -> int | float:
        tok = self.take()
        text = tok.text.lower().lstrip("+")
        if text.lstrip("-") in _INFINITIES:
            value = _INFINITIES[text.lstrip("-")]
            return -value if text.startswith("-") else value
        if any(c in text for c in ".e"):
            return float(text)
        try:
            return read_int(text)
        except IntegerOutOfRange as exc:
            raise TextParseError(str(exc), tok.pos) from None

    def dims(self) -> tuple[int | str, ...]:
        self.expect("[")
        dims: list[int | str] = []
        while not self.accept("]"):
            if dims:
                self.expect(",", "or ']' in the shape")
            if self.tok.kind == "number":
                value = self.number()
                if not isinstance(value, int) or value < 0:
                    raise TextParseError(
                        "a dimension is a non-negative integer or a name", self.toks[self.at - 1].pos
                    )
                dims.append(value)
            else:
                dims.append(self.name("a dimension"))
        return tuple(dims)

    def tensor(self) -> TensorLiteral:
        elem = ELEMENT_TYPE_NUMBERS[self.take().text]
        dims: tuple[int, ...] | None = None
        if self.is_punct("["):
            dims_pos = self.tok.pos
            written = self.dims()
            if not all(isinstance(d, int) for d in written):
                raise TextParseError("a tensor literal's shape is made of numbers", dims_pos)
            dims = tuple(d for d in written if isinstance(d, int))
        self.expect("{", "opening the tensor's values")
        values: list[Scalar] = []
        while not self.accept("}"):
            if values:
                self.expect(",", "or '}' in the tensor's values")
            values.append(_unquote(self.take()) if self.tok.kind == "string" else self.number())
        return TensorLiteral(elem, dims, tuple(values))

    # -- graphs -----------------------------------------------------------------------------

    def graph(self) -> GraphLiteral:
        self.enter("this graph")
        name = self.name("a graph name")
        inputs = self.decls()
        self.expect("=>", "between a graph's inputs and outputs")
        outputs = self.decls()
        self.expect("{", "opening the graph's nodes")
        nodes = self.nodes("}")
        self.expect("}")
        self.leave()
        return GraphLiteral(name, inputs, outputs, nodes)

    def decls(self) -> tuple[ValueDecl, ...]:
        self.expect("(")
        out: list[ValueDecl] = []
        while not self.accept(")"):
            if out:
                self.expect(",", "or ')' in the declarations")
            elem: int | None = None
            shape: tuple[int | str, ...] | None = None
            if self.tok.kind == "name" and self.tok.text in ELEMENT_TYPE_NUMBERS:
                following = self.toks[self.at + 1]
                if following.kind in ("name", "string") or (
                    following.kind == "punct" and following.text == "["
                ):
                    elem = ELEMENT_TYPE_NUMBERS[self.take().text]
                    if self.is_punct("["):
                        shape = self.dims()
            out.append(ValueDecl(self.name("a value name"), elem, shape))
        return tuple(out)


def _coerce(value: AttrLiteral, kind: AttrType, pos: Pos) -> AttrLiteral:
    """The value as the (declared) attribute type stores it: `f: float = 3` holds 3.0."""
    if kind is AttrType.FLOAT and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is AttrType.FLOATS and isinstance(value, tuple):
        if any(isinstance(v, str) for v in value):
            raise TextParseError("a floats attribute holds numbers", pos)
        return tuple(float(v) for v in value)
    expected = {
        AttrType.INT: int,
        AttrType.FLOAT: float,
        AttrType.STRING: str,
        AttrType.TENSOR: TensorLiteral,
        AttrType.GRAPH: GraphLiteral,
    }.get(kind)
    if expected is not None and not isinstance(value, expected):
        raise TextParseError(f"the value is not of type {kind.value}", pos)
    if kind in (AttrType.INTS, AttrType.STRINGS):
        element = int if kind is AttrType.INTS else str
        if not isinstance(value, tuple) or not all(isinstance(v, element) for v in value):
            raise TextParseError(f"the value is not of type {kind.value}", pos)
    return value


def parse_nodes(text: str) -> tuple[TextNode, ...]:
    """The nodes of a function body (or graph), in order. Raises TextParseError."""
    if len(text) <= MAX_CACHED_TEXT:
        return _parse_cached(text)
    return _Parser(text).nodes(None)


# `opset generate` parses each function body twice: its check (FUNCTION-*) and then its encoding
# as a FunctionProto (the proto and backend_tests kinds, after the checks; a forked worker
# inherits what is cached). The nodes are frozen, so one parse serves both. Bounded in count and
# in text length (the onnx catalog's longest body: about 6,000 characters), so a long-lived
# process (`opset lsp`, which parses each edit) keeps at most 512 texts (8 MiB) and their nodes; a
# failed parse raises and is not kept.
MAX_CACHED_TEXT = 16 * 1024


@lru_cache(maxsize=512)
def _parse_cached(text: str) -> tuple[TextNode, ...]:
    return _Parser(text).nodes(None)


def parse_graph(text: str) -> GraphLiteral:
    """One graph, `name (inputs) => (outputs) { nodes }` (a graph attribute's default). Raises
    TextParseError."""
    parser = _Parser(text)
    graph = parser.graph()
    if parser.tok.kind != "end":
        raise parser.error("expected the end of the text after the graph")
    return graph
