"""Static checks of a parsed shape rule against its operator version: every name is an input, a
loop variable or a built-in, every `@name` an attribute, every call has the arguments its
built-in takes, and every operator gets values of the kind it works on.

Kinds: "num" (an int or a dimension), "list" (a shape or an int list), "shapes" (a variadic
input, its values, or a list of shapes), "bool", "str", "float" (a number that may not be whole: a
float attribute, a quotient `a / b`, arithmetic with one; `floor()`/`ceil()` make it a "num", and
only a "num" is a dimension, an index or a list item), and "any" (an attribute whose kind the
language does not compute with; nothing is said about it). A constant's items read by `value(I)`
are "num" here: a float tensor's are floats only when the node is evaluated, where a float that
reaches a dimension makes it unknown.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from toolkit.model.spec import AttrType, OpSchema
from toolkit.model.suggest import QUOTED, close_names, did_you_mean
from toolkit.shapes.builtins import BUILTINS
from toolkit.shapes.lang import (
    Attr,
    Binary,
    Call,
    Comp,
    Const,
    If,
    Index,
    ListLit,
    Name,
    Node,
    Rank,
    Slice,
    Unary,
)

__all__ = ["Problem", "Scope", "check_rule", "names_in", "scope_of"]

_ATTR_KINDS = {AttrType.INT: "num", AttrType.INTS: "list", AttrType.STRING: "str", AttrType.FLOAT: "float"}
_ARITH = frozenset({"+", "-", "*", "/", "//", "%"})
_REAL = frozenset({"num", "float"})  # what + - * / and comparisons take
_ORDER = frozenset({"<", "<=", ">", ">="})


@dataclass(frozen=True, slots=True)
class Problem:
    rule: str  # SHAPE-UNKNOWN-NAME, SHAPE-ARITY or SHAPE-TYPE
    message: str
    pos: int
    hint: str


@dataclass(frozen=True, slots=True)
class Scope:
    """What a rule of one operator version may name: inputs (their kind) and attributes."""

    inputs: Mapping[str, str]
    attributes: Mapping[str, str]


def scope_of(schema: OpSchema) -> Scope:
    return Scope(
        {p.name: "shapes" if p.is_variadic else "list" for p in schema.inputs},
        {a.name: _ATTR_KINDS.get(a.type, "any") for a in schema.attributes},
    )


def check_rule(node: Node, scope: Scope, want: str) -> list[Problem]:
    """The problems of one rule; `want` is the kind it must give ("list" for a shape, "shapes" for
    a variadic output, "bool" for a constraint)."""
    checker = _Checker(scope)
    kind = checker.kind(node, {})
    if not checker.problems and not _fits(kind, want):
        what = {
            "list": "a shape (a list of dimensions)",
            "shapes": "a list of shapes, one per value of the variadic output",
        }.get(want, "a condition (true or false)")
        checker.fail("SHAPE-TYPE", f"the rule gives {_say(kind)}; it must give {what}", node.pos, _HINT_TYPE)
    return checker.problems


_HINT_TYPE = "see docs/guide/shapes.md for the kind of value each operator and built-in takes"


_HINT_FLOAT = "a float is no size or index: round it with floor(x) or ceil(x) (docs/guide/shapes.md)"


def _say(kind: str) -> str:
    return {
        "num": "a number",
        "list": "a list",
        "shapes": "a list of shapes",
        "bool": "a condition",
        "str": "a string",
        "float": "a float",
        "nums": "numbers or one list",
        "real": "a number or a float",
    }.get(kind, "a value")


def _fits(kind: str, want: str) -> bool:
    return (
        kind == want
        or "any" in (kind, want)
        or (want == "many" and kind in ("list", "shapes"))
        or (want == "nums" and kind in ("num", "list"))
        or (want == "real" and kind in _REAL)
    )


def _join(a: str, b: str) -> str:
    if {a, b} == _REAL:
        return "float"  # either branch: it may be a float
    return b if a == "any" else a


class _Checker:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.problems: list[Problem] = []

    def fail(self, rule: str, message: str, pos: int, hint: str) -> None:
        self.problems.append(Problem(rule, message, pos, hint))

    def expect(self, node: Node, want: str, locals_: dict[str, str], what: str) -> str:
        kind = self.kind(node, locals_)
        if not _fits(kind, want):
            hint = _HINT_FLOAT if kind == "float" and want == "num" else _HINT_TYPE
            self.fail("SHAPE-TYPE", f"{what} takes {_say(want)}, not {_say(kind)}", node.pos, hint)
        return kind

    def unknown(self, word: str, pos: int, known: list[str], what: str) -> None:
        hint = did_you_mean(close_names(word, known, 1), QUOTED) or (
            f"the {what} names: {', '.join(sorted(known)) or 'none'}"
        )
        self.fail("SHAPE-UNKNOWN-NAME", f"'{word}' is not {what}", pos, hint)

    def kind(self, node: Node, locals_: dict[str, str]) -> str:
        if isinstance(node, Const):
            return "bool" if isinstance(node.value, bool) else "str" if isinstance(node.value, str) else "num"
        if isinstance(node, Name):
            if node.name in locals_:
                return locals_[node.name]
            if node.name in self.scope.inputs:
                return self.scope.inputs[node.name]
            self.unknown(node.name, node.pos, [*self.scope.inputs, *locals_], "an input of this version")
            return "any"
        if isinstance(node, Attr):
            if node.name in self.scope.attributes:
                return self.scope.attributes[node.name]
            self.unknown(node.name, node.pos, list(self.scope.attributes), "an attribute of this version")
            return "any"
        if isinstance(node, ListLit):
            kinds = [self.kind(item, locals_) for item in node.items]
            return "shapes" if kinds and all(k == "list" for k in kinds) else self._items(node, kinds)
        if isinstance(node, Comp):
            source = self.expect(node.source, "many", locals_, "'for ... in'")  # items, or shapes
            inner = {**locals_, node.var: "num" if source != "shapes" else "list"}
            if node.cond is not None:
                self.expect(node.cond, "bool", inner, "the 'if' of a comprehension")
            item = self.kind(node.item, inner)
            return "shapes" if item == "list" else self._items(node, [item])
        if isinstance(node, Unary):
            if node.op == "not":
                self.expect(node.operand, "bool", locals_, "'not'")
                return "bool"
            operand = self.expect(node.operand, "real", locals_, "'-'")
            return "float" if operand == "float" else "num"
        if isinstance(node, Binary):
            return self.binary(node, locals_)
        if isinstance(node, Index):
            target = self.expect(node.target, "many", locals_, "indexing")
            self.expect(node.index, "num", locals_, "an index")
            return "list" if target == "shapes" else "num" if target == "list" else "any"
        if isinstance(node, Slice):
            target = self.expect(node.target, "many", locals_, "slicing")
            for bound in (node.start, node.stop):
                if bound is not None:
                    self.expect(bound, "num", locals_, "a slice bound")
            return target
        if isinstance(node, Rank):
            self.expect(node.target, "many", locals_, "'.rank'")
            return "num"
        if isinstance(node, If):
            self.expect(node.cond, "bool", locals_, "'if'")
            return _join(self.kind(node.then, locals_), self.kind(node.other, locals_))
        if isinstance(node, Call):
            return self.call(node, locals_)
        return "any"

    def _items(self, node: Node, kinds: list[str]) -> str:
        for kind in kinds:
            if not _fits(kind, "num"):
                hint = _HINT_FLOAT if kind == "float" else _HINT_TYPE
                self.fail("SHAPE-TYPE", f"a list holds numbers or shapes, not {_say(kind)}", node.pos, hint)
        return "list"

    def binary(self, node: Binary, locals_: dict[str, str]) -> str:
        op = node.op
        if op in _ARITH or op in _ORDER:
            # floats compute with + - * / and compare; // and % are of whole numbers
            want = "num" if op in ("//", "%") else "real"
            what = f"'{op}'"
            kinds = {
                self.expect(node.left, want, locals_, what),
                self.expect(node.right, want, locals_, what),
            }
            if op in _ORDER:
                return "bool"
            return "float" if op == "/" or "float" in kinds else "num"
        if op == "..":
            self.expect(node.left, "num", locals_, "'..'")
            self.expect(node.right, "num", locals_, "'..'")
            return "list"
        if op == "++":
            left = self.expect(node.left, "many", locals_, "'++'")
            right = self.expect(node.right, "many", locals_, "'++'")
            return _join(left, right)
        if op in ("and", "or"):
            self.expect(node.left, "bool", locals_, f"'{op}'")
            self.expect(node.right, "bool", locals_, f"'{op}'")
            return "bool"
        if op in ("in", "notin"):
            self.expect(node.left, "num", locals_, "'in'")
            self.expect(node.right, "list", locals_, "'in'")
            return "bool"
        left, right = self.kind(node.left, locals_), self.kind(node.right, locals_)
        if op == "??":
            return _join(left, right)
        if not (_fits(left, right) or {left, right} <= {"num", "float"}):  # == and !=
            self.fail("SHAPE-TYPE", f"'{op}' compares {_say(left)} with {_say(right)}", node.pos, _HINT_TYPE)
        return "bool"

    def _variadic(self, arg: Node) -> bool:
        return isinstance(arg, Name) and self.scope.inputs.get(arg.name) == "shapes"

    def call(self, node: Call, locals_: dict[str, str]) -> str:
        builtin = BUILTINS.get(node.name)
        if builtin is None:
            self.unknown(node.name, node.pos, list(BUILTINS), "a built-in function")
            for arg in node.args:
                self.kind(arg, locals_)
            return "any"
        if not builtin.accepts(len(node.args)):
            self.fail(
                "SHAPE-ARITY",
                f"{node.name}() takes {builtin.arity()} argument(s), {len(node.args)} given",
                node.pos,
                f"{node.name}({', '.join(p.rstrip('*') for p in builtin.params)}): {builtin.summary}",
            )
        for index, arg in enumerate(node.args):
            want = builtin.param(index)
            if want == "input":
                if not isinstance(arg, Name) or arg.name not in self.scope.inputs:
                    self.fail(
                        "SHAPE-TYPE",
                        f"{node.name}() takes the name of an input",
                        arg.pos,
                        f"write {node.name}(NAME) with NAME one of: {', '.join(self.scope.inputs) or 'none'}",
                    )
                continue
            self.expect(arg, want, locals_, f"argument {index + 1} of {node.name}()")
        if node.name == "value" and node.args and self._variadic(node.args[0]):
            return "shapes"  # a variadic input's values: one list per value
        return builtin.result


def names_in(node: Node) -> Iterator[Node]:
    """Every node of the tree (for the cheap constant-constraint check)."""
    yield node
    for value in node.__class__.__dict__.get("__slots__", ()):
        child = getattr(node, value, None)
        if isinstance(child, Node):
            yield from names_in(child)
        elif isinstance(child, tuple):
            for item in child:
                if isinstance(item, Node):
                    yield from names_in(item)
