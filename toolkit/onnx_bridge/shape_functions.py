"""Shapes and element types through calls of model-local functions (#27).

A node whose (domain, op_type, overload) names a FunctionProto of `model.functions` is a call:
its outputs are what the function's body gives when its inputs have the call's shapes, types and
constant values. The body is walked by the same walk as a graph (`shape_infer._Walk`, which gives
both its element types and its shapes; this module does not import it: the walk hands itself in,
and the hook is its own), with:

- the call's values bound to the function's inputs (an input the call leaves out is left out of
  the body's nodes too, as inlining does), and the values the body computes for its outputs
  (value rules: a shape computed inside a function and fed to a Reshape outside) handed back;
- every `ref_attr_name` attribute of the body bound to the call's attribute, else the function's
  default (`attribute_proto`), else dropped (`local_functions.bind_references`, the converter's
  one resolver);
- the body's operators resolved at the function's own opset_import, the model's filling the gaps
  (`graph.function_imports`);
- the function's declared `value_info` (IR 10) as a graph's value_info.

A constraint a body node breaks is reported at the call: `<call's path>/function:domain.Name`
followed by the body node (graph.node_path), as a subgraph continues its node's path. Nothing is
written into the functions: onnx 1.23's `infer_shapes` leaves `FunctionProto.value_info` empty
too (a function called with two shapes has no one shape per value).

Bounded: a function that calls itself, directly or through others (not legal ONNX), and calls
nested deeper than `MAX_DEPTH` give their outputs no shape; the body nodes (their subgraphs'
included) walked over one model are at most `MAX_CALL_NODES` (a call past it gives nothing),
and a call whose walk found nothing to report is answered again from a memo for the same
shapes, attributes and constants.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolkit.onnx_bridge.check.types import declarations
from toolkit.onnx_bridge.graph import function_imports, function_path, node_path, walk_nodes
from toolkit.onnx_bridge.inline_plan import MAX_DEPTH
from toolkit.onnx_bridge.local_functions import bind_references
from toolkit.shapes.values import ABSENT, Dim, Shape, Sym

__all__ = [
    "MAX_CALL_NODES",
    "MAX_DEPTH",
    "Calls",
    "FunctionKey",
    "bound_body",
    "call_path",
    "function_map",
]

MAX_CALL_NODES = 200_000  # body nodes walked through calls, over one model
FunctionKey = tuple[str, str, str]  # (domain, name, overload) exactly as written, as onnx keys them
Content = tuple[Dim, ...]  # a small integer tensor's values (shape_infer's value(I))
# a call's outputs: the shape of each, the values of each the body computes, and the element type
# of each (None: unknown)
Outputs = tuple[list[Shape], list[Content | None], list[str | None]]
Called = tuple[list[Shape], list[str | None]]  # the shapes and element types of a call's outputs


def function_map(functions: Iterable[Any]) -> dict[FunctionKey, Any]:
    """A model's local functions by what a node names (the first of a repeated key: the graph
    checks report the others)."""
    found: dict[FunctionKey, Any] = {}
    for function in functions:
        found.setdefault((function.domain, function.name, function.overload), function)
    return found


def call_key(node: Any) -> FunctionKey:
    return (node.domain, node.op_type, node.overload)


def call_path(node_at: str, function: Any) -> str:
    """The path of a called function's body: the call's path, then the function (with its
    overload, when it has one)."""
    overload = f":{function.overload}" if function.overload else ""
    return f"{node_at}/{function_path(function)}{overload}"


def _has_reference(nodes: Sequence[Any]) -> bool:
    for node in nodes:
        for attr in node.attribute:
            if attr.ref_attr_name:
                return True
            if (attr.HasField("g") and _has_reference(attr.g.node)) or any(
                _has_reference(g.node) for g in attr.graphs
            ):
                return True
    return False


def bound_body(function: Any, call: Any) -> list[Any]:
    """The function's nodes as the call runs them: attribute references bound (copies), and the
    formal inputs the call leaves out renamed to "" (an omitted optional input)."""
    omitted = {
        formal for at, formal in enumerate(function.input) if at >= len(call.input) or not call.input[at]
    }
    if not omitted and not _has_reference(function.node):
        return list(function.node)
    given = {a.name: a for a in call.attribute}
    defaults = {a.name: a for a in function.attribute_proto}
    nodes = []
    for node in function.node:
        node = copy.deepcopy(node)
        bind_references(node, given, defaults)
        if omitted:
            node.input[:] = ["" if name in omitted else name for name in node.input]
        nodes.append(node)
    return nodes


@dataclass
class _Bounds:
    """What every walk through calls shares: the functions called now (a call of one of them is
    recursion), and the body nodes walked so far."""

    active: list[FunctionKey] = field(default_factory=list)
    walked: int = 0
    sizes: dict[FunctionKey, int] = field(default_factory=dict)  # a body's nodes, subgraphs' too

    def enter(self, key: FunctionKey, function: Any) -> bool:
        """Whether a call of `function` may be walked (then it is active until `leave`)."""
        if key in self.active or len(self.active) >= MAX_DEPTH:
            return False  # recursion (not legal ONNX) or nesting past the bound: not followed
        size = self.sizes.get(key)
        if size is None:
            size = self.sizes[key] = sum(1 for _ in walk_nodes(function))
        if self.walked + size > MAX_CALL_NODES:
            return False
        self.walked += size
        self.active.append(key)
        return True

    def leave(self) -> None:
        self.active.pop()


@dataclass(kw_only=True)
class Calls(_Bounds):
    """The calls of one shape walk: the model's functions, the walks of their bodies (one per
    function: its imports), and the bounds."""

    functions: dict[FunctionKey, Any]
    imports: dict[str, int]  # the model's
    fresh: Callable[[], Sym]
    walks: dict[FunctionKey, Any] = field(default_factory=dict)  # shape_infer._Walk per function
    memo: dict[tuple[object, ...], Outputs] = field(default_factory=dict)
    minted: bool = False  # a symbol was made since the flag was cleared

    def mint(self) -> Sym:
        self.minted = True
        return self.fresh()

    def call(self, walk: Any, node: Any, scope: Any, index: int) -> Called | None:
        """The shapes and element types of the outputs of `node`, the `index`-th of the graph of
        `scope` walked by `walk` (a shape_infer._Walk and its scope), when it calls a local
        function (empty when nothing is known; the values the body computes for its outputs go
        into the scope's values); None when it calls none."""
        key = call_key(node)
        function = self.functions.get(key)
        if function is None:
            return None
        node_at = node_path(scope.path, node, index)
        shapes, values, types = scope.shapes, scope.values, scope.types
        given = tuple(shapes.get(name) if name else ABSENT for name in node.input)
        constants = tuple(values.get(name) if name else None for name in node.input)
        typed = tuple(types.get(name) if name else None for name in node.input)
        attributes = tuple(a.SerializeToString() for a in node.attribute)
        memo_key = (key, given, constants, typed, attributes, scope.shaped)
        out = self.memo.get(memo_key)
        if out is None:
            out = self.walk_body(
                walk, function, node, (given, constants, typed), scope.shaped, node_at, memo_key
            )
        if out is None:
            return [], []
        for name, content in zip(node.output, out[1]):
            if name and content is not None:
                values[name] = content
        return out[0], out[2]

    def walk_body(
        self,
        walk: Any,
        function: Any,
        node: Any,
        bound: tuple[tuple[object, ...], tuple[Content | None, ...], tuple[str | None, ...]],
        shaped: bool,
        node_at: str,
        memo_key: tuple[object, ...],
    ) -> Outputs | None:
        """Walk the function's body with the call's shapes, constant values and types `bound`
        (only its types when `shaped` is False, as in the graph holding the call)."""
        key = call_key(node)
        if not self.enter(key, function):
            return None
        result = walk.result
        inner = self.walks.get(key)
        if inner is None:
            inner = self.walks[key] = walk.nested(function_imports(function, self.imports), self.mint)
        marks = (len(result.findings), len(result.conflicts), len(result.subgraphs))
        minted, self.minted = self.minted, False
        given, constants, typed = bound
        shapes: dict[str, Shape] = {}
        body_values: dict[str, Content] = {}
        for formal, shape, constant in zip(function.input, given, constants):
            if shape is not ABSENT:
                shapes[formal] = shape  # type: ignore[assignment]
            if constant is not None:
                body_values[formal] = constant
        value_info = getattr(function, "value_info", ())  # FunctionProto.value_info: IR 10
        found = declarations(_FunctionBody(value_info), inner.declared_types)  # each read once
        for name, declared in found.shapes.items():  # (of the entry each name's type is read from)
            if declared is not None and shapes.get(name) is None:
                shapes[name] = declared
        declared_types = found.types
        types = dict(declared_types)
        types.update(
            (formal, known)
            for formal, known in zip(function.input, typed)
            if known is not None and declared_types.get(formal) is None
        )
        path = call_path(node_at, function)
        scope = inner.scope(path, shapes, body_values, types, declared_types, shaped)
        try:
            nodes = bound_body(function, node)
            result.nodes += len(nodes)
            inner.nodes(nodes, scope)
        finally:
            self.leave()
        # a subgraph of a body belongs to every call of it: its shapes are not written anywhere
        del result.subgraphs[marks[2] :]
        out = (
            [shapes.get(name) for name in function.output],
            [body_values.get(n) for n in function.output],
            [types.get(name) for name in function.output],
        )
        clean = (len(result.findings), len(result.conflicts)) == marks[:2]
        if clean and not self.minted:
            self.memo[memo_key] = out
        self.minted = self.minted or minted
        return out


class _FunctionBody:
    """A function's declared value_info in the shape of a GraphProto, for `declarations`:
    inputs, outputs and initializers it has none of."""

    initializer = input = output = ()

    def __init__(self, value_info: Any) -> None:
        self.value_info = value_info
