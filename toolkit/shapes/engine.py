"""Evaluate an operator version's shape rules for one node: output shapes and findings.

The rules are parsed once (a per-process cache keyed by their text) and walked by a small
interpreter; nothing of the spec runs as code. Evaluation is bounded (`MAX_STEPS` nodes visited
per rule, lists of at most `MAX_LIST` items) and total: a rule that cannot be evaluated for a
node (an index past the rank, an absent input used as a shape, a budget spent) gives unknown
dimensions, never an exception and never a guess. A constraint that is false, or a built-in that
sees sizes that cannot work (dimensions that do not broadcast), gives a finding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache

from toolkit.model.attr_defaults import (
    LITERAL_DEFAULT_TYPES,
)
from toolkit.model.spec import (
    OpSchema,
    ShapeText,
)
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
    ShapeSyntaxError,
    Slice,
    Unary,
    parse,
)
from toolkit.shapes.values import (
    ABSENT,
    MAX_LIST,
    Dim,
    Num,
    Shape,
    Sym,
    Value,
    dims_equal,
    num_arith,
    order,
    same_dim,
)

__all__ = [
    "MAX_LIST",
    "MAX_STEPS",
    "Inference",
    "Reads",
    "attribute_defaults",
    "bind_inputs",
    "infer",
    "parsed",
    "reads",
]

MAX_STEPS = 100_000


@lru_cache(maxsize=4096)
def parsed(text: str) -> Node | None:
    """The rule's tree, or None when it does not parse (SHAPE-SYNTAX reports it on the spec)."""
    try:
        return parse(text)
    except ShapeSyntaxError:
        return None


@dataclass(frozen=True, slots=True)
class Inference:
    outputs: tuple[Shape, ...]  # one per formal output (see infer); None: no rule, or not known
    findings: tuple[str, ...]
    has_rule: tuple[bool, ...] = ()
    # the evaluation minted a symbol (`fresh()`): its result must not be reused for another node,
    # whose symbol has to be a new one
    minted: bool = False
    # one per entry of `outputs`: the output's contents by its `value:` rule (a flat list of
    # dimensions), kept only when they fit the inferred shape (rank 0 or 1, as many items);
    # None: no rule, or not known
    values: tuple[Shape, ...] = ()


@dataclass(frozen=True, slots=True)
class Reads:
    """What a version's rules read of a node besides its input shapes and its output count: the
    attributes they name (`@name`) and the inputs whose constant values a built-in may read (an
    input passed where the built-in takes an input's name, `value(I)`). With the version, these
    decide the result, so a walk can reuse one node's result for another with the same."""

    attributes: frozenset[str]
    values: frozenset[str]


def reads(schema: OpSchema) -> Reads:
    """What `schema`'s rules read (derived from their parsed trees, never listed by hand)."""
    texts = tuple(r.text for r in schema.shape_requires)
    texts += tuple(p.shape.text for p in schema.outputs if p.shape is not None)
    return _reads(texts + tuple(p.value.text for p in schema.outputs if p.value is not None))


@lru_cache(maxsize=4096)
def _reads(texts: tuple[str, ...]) -> Reads:
    attributes: set[str] = set()
    values: set[str] = set()
    stack: list[Node] = [tree for tree in map(parsed, texts) if tree is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, Attr):
            attributes.add(node.name)
        elif isinstance(node, Call):
            builtin = BUILTINS.get(node.name)
            for index, arg in enumerate(node.args):
                if builtin is not None and builtin.param(index) == "input" and isinstance(arg, Name):
                    values.add(arg.name)
        for field in fields(node):
            child = getattr(node, field.name)
            if isinstance(child, Node):
                stack.append(child)
            elif isinstance(child, tuple):
                stack.extend(item for item in child if isinstance(item, Node))
    return Reads(frozenset(attributes), frozenset(values))


class _Unknown(Exception):
    """The rule cannot be evaluated for this node: its result is unknown."""


def bind_inputs(schema: OpSchema, given: Sequence[Value]) -> dict[str, Value]:
    """The node's input shapes by formal name: a variadic last input takes the rest as a tuple of
    shapes; an optional input not given is ABSENT."""
    out: dict[str, Value] = {}
    for index, param in enumerate(schema.inputs):
        if param.is_variadic:
            out[param.name] = tuple(v for v in given[index:] if v is not ABSENT)
            break
        out[param.name] = given[index] if index < len(given) else ABSENT
    return out


def attribute_defaults(schema: OpSchema) -> dict[str, Value]:
    """The defaults the shape language can read: numbers, strings and their lists (a tensor,
    sparse-tensor or graph default is no value of it; such an attribute left out is unknown)."""
    return {
        a.name: a.default
        for a in schema.attributes
        if a.default is not None and a.type not in LITERAL_DEFAULT_TYPES
    }


def infer(
    schema: OpSchema,
    inputs: Mapping[str, Value],
    attributes: Mapping[str, Value],
    values: Mapping[str, Value],
    fresh: Callable[[], Sym],
    outputs: int | None = None,
) -> Inference:
    """Evaluate every rule of `schema`: `inputs` by formal name (bind_inputs), `attributes` as the
    node sets them (defaults filled in here), `values` the known contents of inputs (a list of
    dimensions; a variadic input's: one list or None per value), `outputs` the number of outputs
    the node gives (`output_count()`).

    `Inference.outputs` has one shape per formal output; when `outputs` is given and the last
    formal output is variadic, its rule gives a list of shapes and that output is expanded into
    one entry per value the node gives (unknown when the rule's list is not that long)."""
    run = _Run(inputs, {**attribute_defaults(schema), **attributes}, values, fresh, outputs)
    for require in schema.shape_requires:
        if run.evaluate(require) is False:
            run.report(require.message or f"the constraint '{require.text}' does not hold")
    shapes: list[Shape] = []
    has_rule: list[bool] = []
    contents: list[Shape] = []
    for index, param in enumerate(schema.outputs):
        result = run.evaluate(param.shape) if param.shape is not None else None
        if param.is_variadic and outputs is not None:
            count = max(outputs - index, 0)
            items = result if isinstance(result, tuple) and len(result) == count else (None,) * count
            shapes.extend(_as_shape(item) for item in items)
            has_rule.extend([param.shape is not None] * count)
            contents.extend([None] * count)  # a variadic output has no value rule
            break
        shapes.append(_as_shape(result))
        has_rule.append(param.shape is not None)
        contents.append(_contents(run, param.value, shapes[-1]) if param.value is not None else None)
    findings = tuple(dict.fromkeys(run.findings))
    return Inference(tuple(shapes), findings, tuple(has_rule), run.minted, tuple(contents))


def _contents(run: _Run, rule: ShapeText, shape: Shape) -> Shape:
    """An output's value by its rule, when it fits the output's shape: a scalar or a 1-D tensor
    of that many items (a rule's slip, or a node no runtime accepts, gives no value, never a
    wrong one). Its findings are not the node's: a value rule states no constraint."""
    if shape is None or len(shape) > 1 or (shape and not isinstance(shape[0], int)):
        return None
    findings = len(run.findings)
    result = run.evaluate(rule)
    del run.findings[findings:]
    if not isinstance(result, tuple) or len(result) != (shape[0] if shape else 1):
        return None
    if any(isinstance(dim, bool) or not (dim is None or isinstance(dim, (int, Sym))) for dim in result):
        return None
    return result


def _as_shape(value: Value) -> Shape:
    if not isinstance(value, tuple):
        return None
    dims: list[Dim] = []
    for dim in value:
        if isinstance(dim, bool) or not (dim is None or isinstance(dim, (int, Sym))):
            return None
        dims.append(dim if not isinstance(dim, int) or dim >= 0 else None)
    return tuple(dims)


class _Run:
    def __init__(
        self,
        inputs: Mapping[str, Value],
        attributes: Mapping[str, Value],
        values: Mapping[str, Value],
        fresh: Callable[[], Sym],
        outputs: int | None = None,
    ) -> None:
        self.inputs = inputs
        self.attributes = attributes
        self.values = values
        self.mint = fresh
        self.minted = False
        self.outputs = outputs
        self.findings: list[str] = []
        self.steps = 0

    # -- the Context of the built-ins
    def report(self, message: str) -> None:
        self.findings.append(message)

    def value(self, name: str) -> Value:
        if self.inputs.get(name, ABSENT) is ABSENT:
            return ABSENT
        return self.values.get(name)

    def fresh(self) -> Sym:
        self.minted = True
        return self.mint()

    def present(self, name: str) -> bool:
        return self.inputs.get(name, ABSENT) is not ABSENT

    def output_count(self) -> int | None:
        return self.outputs

    # -- evaluation
    def evaluate(self, text: ShapeText) -> Value:
        node = parsed(text.text)
        if node is None:
            return None
        self.steps = 0
        try:
            return self.eval(node, {})
        except (_Unknown, RecursionError):
            return None

    def eval(self, node: Node, scope: dict[str, Value]) -> Value:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Unknown
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Name):
            if node.name in scope:
                return scope[node.name]
            return self.inputs.get(node.name, ABSENT)
        if isinstance(node, Attr):
            value = self.attributes.get(node.name, ABSENT)
            return tuple(value) if isinstance(value, list) else value
        if isinstance(node, ListLit):
            return tuple(self.eval(item, scope) for item in node.items)
        if isinstance(node, Comp):
            return self.comprehension(node, scope)
        if isinstance(node, Unary):
            operand = self.eval(node.operand, scope)
            if node.op == "not":
                return None if operand is None else not _bool(operand)
            return num_arith("-", 0, _real(operand))
        if isinstance(node, Binary):
            return self.binary(node, scope)
        if isinstance(node, Index):
            return self.index(node, scope)
        if isinstance(node, Slice):
            return self.slice(node, scope)
        if isinstance(node, Rank):
            target = self.eval(node.target, scope)
            return len(target) if isinstance(target, tuple) else _absent_or(target, None)
        if isinstance(node, If):
            cond = self.eval(node.cond, scope)
            if cond is None:
                return _merge(self.eval(node.then, scope), self.eval(node.other, scope))
            return self.eval(node.then if _bool(cond) else node.other, scope)
        if isinstance(node, Call):
            return self.call(node, scope)
        raise _Unknown

    def call(self, node: Call, scope: dict[str, Value]) -> Value:
        builtin = BUILTINS.get(node.name)
        if builtin is None or not builtin.accepts(len(node.args)):
            raise _Unknown
        args: list[Value] = []
        for index, arg in enumerate(node.args):
            if builtin.param(index) == "input":
                args.append(arg.name if isinstance(arg, Name) else None)
            else:
                value = self.eval(arg, scope)
                if value is ABSENT and node.name not in ("broadcast", "reduce", "given"):
                    raise _Unknown  # an absent value where a built-in needs one
                args.append(value)
        return builtin.run(self, args)

    def comprehension(self, node: Comp, scope: dict[str, Value]) -> Value:
        source = self.eval(node.source, scope)
        if not isinstance(source, tuple):
            return _absent_or(source, None)
        out: list[Value] = []
        for item in source:
            inner = {**scope, node.var: item}
            if node.cond is not None:
                keep = self.eval(node.cond, inner)
                if keep is None:
                    return None  # which items are kept is not known, so neither is the length
                if not _bool(keep):
                    continue
            out.append(self.eval(node.item, inner))
        return tuple(out)

    def binary(self, node: Binary, scope: dict[str, Value]) -> Value:
        op = node.op
        left = self.eval(node.left, scope)
        if op == "??":
            return self.eval(node.right, scope) if left is ABSENT else left
        if op in ("and", "or"):
            if left is not None and _bool(left) is (op == "or"):
                return op == "or"  # short-circuit
            right = self.eval(node.right, scope)
            if right is not None and _bool(right) is (op == "or"):
                return op == "or"
            return None if left is None or right is None else op == "and"
        right = self.eval(node.right, scope)
        if op in ("+", "-", "*", "/", "//", "%"):
            return num_arith(op, _real(left), _real(right))
        if op == "..":
            low, high = _num(left), _num(right)
            if not isinstance(low, int) or not isinstance(high, int):
                return None
            if high - low > MAX_LIST:
                raise _Unknown
            return tuple(range(low, high))
        if op == "++":
            if not isinstance(left, tuple) or not isinstance(right, tuple):
                return None if left is None or right is None else _absent_or(left, _absent_or(right, None))
            if len(left) + len(right) > MAX_LIST:
                raise _Unknown
            return left + right
        if op in ("in", "notin"):
            found = _member(_num(left), right)
            return found if found is None or op == "in" else not found
        if op in ("==", "!="):
            same = _equal(left, right)
            return same if same is None or op == "==" else not same
        return order(op, _real(left), _real(right))

    def index(self, node: Index, scope: dict[str, Value]) -> Value:
        target, at = self.eval(node.target, scope), _num(self.eval(node.index, scope))
        if not isinstance(target, tuple) or not isinstance(at, int):
            return _absent_or(target, None)
        if not -len(target) <= at < len(target):
            raise _Unknown  # past the rank: this rule does not apply to this node
        return target[at]

    def slice(self, node: Slice, scope: dict[str, Value]) -> Value:
        target = self.eval(node.target, scope)
        start = _num(self.eval(node.start, scope)) if node.start is not None else 0
        stop = _num(self.eval(node.stop, scope)) if node.stop is not None else None
        if not isinstance(target, tuple) or not isinstance(start, int):
            return _absent_or(target, None)
        if node.stop is None:
            return target[start:]
        return target[start:stop] if isinstance(stop, int) else None


def _absent_or(value: Value, otherwise: Value) -> Value:
    if value is ABSENT:
        raise _Unknown
    return otherwise


def _num(value: Value) -> Dim:
    if isinstance(value, bool) or not (value is None or isinstance(value, (int, Sym))):
        raise _Unknown
    return value


def _real(value: Value) -> Num:
    """A number, a float included (arithmetic and comparisons take them)."""
    return value if isinstance(value, float) else _num(value)


def _bool(value: Value) -> bool:
    if not isinstance(value, bool):
        raise _Unknown
    return value


def _member(item: Dim, items: Value) -> bool | None:
    if not isinstance(items, tuple):
        return None
    answers = {same_dim(item, other) for other in items}
    return True if True in answers else None if None in answers else False


def _equal(left: Value, right: Value) -> bool | None:
    if isinstance(left, tuple) and isinstance(right, tuple):
        return dims_equal(left, right)
    if (isinstance(left, float) or isinstance(right, float)) and (
        isinstance(left, Sym) or isinstance(right, Sym)
    ):
        return None  # a size and a float: equal only when the float is that size
    if isinstance(left, (str, float, bool)) or isinstance(right, (str, float, bool)):
        return left == right if left is not None and right is not None else None
    if left is ABSENT or right is ABSENT:
        return left is right
    return same_dim(_num(left), _num(right))


def _merge(a: Value, b: Value) -> Value:
    """What both branches of an unknown condition agree on."""
    if a == b:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(x if x == y and not isinstance(x, tuple) else None for x, y in zip(a, b))
    return None
