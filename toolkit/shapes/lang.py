"""The shape language's syntax: a tokenizer and a recursive-descent parser into frozen nodes.

Spec files are untrusted, so their shape rules are only ever read by this parser (nothing is
evaluated as Python) and the parse is bounded: at most `MAX_LENGTH` characters and `MAX_DEPTH`
levels of nesting. Every node keeps `pos`, its 0-based offset in the text, for located errors.
The grammar (EBNF) is in docs/guide/shapes.md; the precedence, loosest first:
`if`, `or`, `and`, `not`, comparisons and `in`, `??`, `++`, `..`, `+ -`, `* / // %`, unary `-`,
postfix (`[i]`, `[a:b]`, `.rank`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "Attr",
    "Binary",
    "Call",
    "Comp",
    "Const",
    "If",
    "Index",
    "ListLit",
    "Name",
    "Node",
    "Rank",
    "ShapeSyntaxError",
    "Slice",
    "Unary",
    "parse",
]

MAX_LENGTH = 1000  # characters of one expression (the JSON Schema says the same)
MAX_DEPTH = 32  # nesting of brackets, calls and operators

KEYWORDS = frozenset({"if", "then", "else", "and", "or", "not", "in", "for", "true", "false"})
_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+)
      |(?P<int>[0-9]+)
      |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<attr>@[A-Za-z_][A-Za-z0-9_]*)
      |(?P<str>"[^"\\\n]*"|'[^'\\\n]*')
      |(?P<op>\+\+|\?\?|\.\.|//|==|!=|<=|>=|[-+*/%<>()\[\],:.])""",
    re.VERBOSE,
)


class ShapeSyntaxError(Exception):
    """A rule the parser cannot read; `pos` is the 0-based offset of the offending text."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


@dataclass(frozen=True, slots=True)
class Node:
    pos: int


@dataclass(frozen=True, slots=True)
class Const(Node):
    """An integer, `true`/`false` or a quoted string (compared with string attributes)."""

    value: int | bool | str


@dataclass(frozen=True, slots=True)
class Name(Node):
    """An input of the version (its shape, or the shapes of a variadic one) or a loop variable."""

    name: str


@dataclass(frozen=True, slots=True)
class Attr(Node):
    """`@name`: an attribute of the node, or the schema's default."""

    name: str


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Comp(Node):
    """`[item for var in source if cond]`; `source` is a list (`0..X.rank` is one)."""

    item: Node
    var: str
    source: Node
    cond: Node | None


@dataclass(frozen=True, slots=True)
class Unary(Node):
    op: str  # "-" or "not"
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary(Node):
    op: str  # + - * // % ++ ?? .. == != < <= > >= in notin and or
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Index(Node):
    target: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Slice(Node):
    target: Node
    start: Node | None
    stop: Node | None


@dataclass(frozen=True, slots=True)
class Rank(Node):
    target: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class If(Node):
    cond: Node
    then: Node
    other: Node


_Token = tuple[str, str, int]  # kind, text, offset
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ShapeSyntaxError(f"unexpected character {text[pos]!r}", pos)
        kind = match.lastgroup or ""
        if kind != "space":
            word = match.group()
            out.append(("kw" if kind == "name" and word in KEYWORDS else kind, word, pos))
        pos = match.end()
    out.append(("end", "", len(text)))
    return out


# Versions inherit their rules (`based_on`), so the same text is checked and evaluated many times
# (the onnx catalog: 467 rules, 48 distinct texts); the tree is frozen, so one parse serves all.
@lru_cache(maxsize=4096)
def parse(text: str) -> Node:
    """The rule `text` as a tree of nodes; ShapeSyntaxError when it is not one expression."""
    if len(text) > MAX_LENGTH:
        raise ShapeSyntaxError(f"the rule is {len(text)} characters long, more than {MAX_LENGTH}", MAX_LENGTH)
    if not text.strip():
        raise ShapeSyntaxError("the rule is empty", 0)
    parser = _Parser(_tokens(text))
    node = parser.expr()
    kind, word, pos = parser.peek()
    if kind != "end":
        raise ShapeSyntaxError(f"unexpected {word!r} after a complete expression", pos)
    return node


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.at = 0
        self.depth = 0

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def accept(self, word: str) -> bool:
        kind, text, _ = self.tokens[self.at]
        if kind in ("op", "kw") and text == word:
            self.at += 1
            return True
        return False

    def expect(self, word: str, what: str) -> int:
        kind, text, pos = self.peek()
        if kind in ("op", "kw") and text == word:
            self.at += 1
            return pos
        found = "the end of the rule" if kind == "end" else repr(text)
        raise ShapeSyntaxError(f"expected '{word}' {what}, found {found}", pos)

    def nested(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShapeSyntaxError(f"the rule nests more than {MAX_DEPTH} levels deep", pos)

    def expr(self) -> Node:
        pos = self.peek()[2]
        self.nested(pos)
        try:
            if self.accept("if"):
                cond = self.expr()
                self.expect("then", "after the condition of 'if'")
                then = self.expr()
                self.expect("else", "after the 'then' branch (every 'if' has an 'else')")
                return If(pos, cond, then, self.expr())
            return self.logic_or()
        finally:
            self.depth -= 1

    def logic_or(self) -> Node:
        left = self.logic_and()
        while (token := self.peek())[1] == "or" and token[0] == "kw":
            self.take()
            left = Binary(token[2], "or", left, self.logic_and())
        return left

    def logic_and(self) -> Node:
        left = self.logic_not()
        while (token := self.peek())[1] == "and" and token[0] == "kw":
            self.take()
            left = Binary(token[2], "and", left, self.logic_not())
        return left

    def logic_not(self) -> Node:
        kind, word, pos = self.peek()
        if kind == "kw" and word == "not":
            self.take()
            self.nested(pos)
            try:
                return Unary(pos, "not", self.logic_not())
            finally:
                self.depth -= 1
        return self.compare()

    def compare(self) -> Node:
        left = self.fallback()
        kind, word, pos = self.peek()
        if kind == "op" and word in _COMPARE:
            self.take()
            return Binary(pos, word, left, self.fallback())
        if kind == "kw" and word == "in":
            self.take()
            return Binary(pos, "in", left, self.fallback())
        if kind == "kw" and word == "not" and self.tokens[self.at + 1][1] == "in":
            self.at += 2
            return Binary(pos, "notin", left, self.fallback())
        return left

    def fallback(self) -> Node:
        left = self.concat()
        while (token := self.peek())[1] == "??":
            self.take()
            left = Binary(token[2], "??", left, self.concat())
        return left

    def concat(self) -> Node:
        left = self.span()
        while (token := self.peek())[1] == "++":
            self.take()
            left = Binary(token[2], "++", left, self.span())
        return left

    def span(self) -> Node:
        left = self.additive()
        token = self.peek()
        if token[1] == "..":
            self.take()
            return Binary(token[2], "..", left, self.additive())
        return left

    def additive(self) -> Node:
        left = self.term()
        while (token := self.peek())[0] == "op" and token[1] in ("+", "-"):
            self.take()
            left = Binary(token[2], token[1], left, self.term())
        return left

    def term(self) -> Node:
        left = self.unary()
        while (token := self.peek())[0] == "op" and token[1] in ("*", "/", "//", "%"):
            self.take()
            left = Binary(token[2], token[1], left, self.unary())
        return left

    def unary(self) -> Node:
        kind, word, pos = self.peek()
        if kind == "op" and word == "-":
            self.take()
            self.nested(pos)
            try:
                return Unary(pos, "-", self.unary())
            finally:
                self.depth -= 1
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while True:
            kind, word, pos = self.peek()
            if kind == "op" and word == "[":
                self.take()
                node = self.subscript(node, pos)
            elif kind == "op" and word == ".":
                self.take()
                kind, word, at = self.take()
                if word != "rank":
                    raise ShapeSyntaxError(f"expected 'rank' after '.', found {word!r}", at)
                node = Rank(pos, node)
            else:
                return node

    def subscript(self, target: Node, pos: int) -> Node:
        start = None if self.peek()[1] == ":" else self.expr()
        if self.accept(":"):
            stop = None if self.peek()[1] == "]" else self.expr()
            self.expect("]", "to close the slice")
            return Slice(pos, target, start, stop)
        self.expect("]", "to close the index")
        assert start is not None
        return Index(pos, target, start)

    def primary(self) -> Node:
        kind, word, pos = self.take()
        if kind == "int":
            return Const(pos, int(word[:20]) if len(word) <= 19 else 10**19)
        if kind == "str":
            return Const(pos, word[1:-1])
        if kind == "kw" and word in ("true", "false"):
            return Const(pos, word == "true")
        if kind == "attr":
            return Attr(pos, word[1:])
        if kind == "name":
            if self.peek()[1] == "(":
                self.take()
                return Call(pos, word, self.arguments(pos))
            return Name(pos, word)
        if kind == "op" and word == "(":
            node = self.expr()
            self.expect(")", "to close '('")
            return node
        if kind == "op" and word == "[":
            return self.list_literal(pos)
        found = "the end of the rule" if kind == "end" else repr(word)
        raise ShapeSyntaxError(f"expected a value, found {found}", pos)

    def arguments(self, pos: int) -> tuple[Node, ...]:
        self.nested(pos)
        try:
            args: list[Node] = []
            if not self.accept(")"):
                args.append(self.expr())
                while self.accept(","):
                    args.append(self.expr())
                self.expect(")", "to close the call")
            return tuple(args)
        finally:
            self.depth -= 1

    def list_literal(self, pos: int) -> Node:
        self.nested(pos)
        try:
            if self.accept("]"):
                return ListLit(pos, ())
            first = self.expr()
            if self.accept("for"):
                kind, var, at = self.take()
                if kind != "name":
                    raise ShapeSyntaxError(f"expected a variable name after 'for', found {var!r}", at)
                self.expect("in", "after the loop variable")
                source = self.fallback()
                cond = self.expr() if self.accept("if") else None
                self.expect("]", "to close the comprehension")
                return Comp(pos, first, var, source, cond)
            items = [first]
            while self.accept(","):
                items.append(self.expr())
            self.expect("]", "to close the list")
            return ListLit(pos, tuple(items))
        finally:
            self.depth -= 1
