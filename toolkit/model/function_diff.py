"""Two function bodies compared as structure, not as text (#26).

What a body computes is its nodes (op_type, domain, overload, inputs, outputs), each node's
attributes by name with their typed values, the graphs of graph attributes (inputs, outputs,
nodes; not their names) and the opset imports. Layout, comments, attribute order, the order of
nodes that do not depend on each other, the names of intermediate values and the spelling of a
number do not count: bodies are compared in a canonical form (`canonical`: nodes in topological
order, ties broken by what a node is, intermediate values renamed in that order; the graph's
inputs and outputs and attribute references keep their names), and a float attribute or float tensor element is compared as the
float32 it stores (`6.2831855` and `6.283185482025146` are one float32; `6.28319` is another), a
double as a double, bit for bit (so NaN equals NaN, and -0.0 differs from 0.0).

`difference` names the first difference: the node's index and op, and the field.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import replace

from toolkit.model.onnx_text import GraphLiteral, Scalar, TensorLiteral, TextAttribute, TextNode, ValueDecl
from toolkit.model.onnx_text_print import attribute_text, float32
from toolkit.model.spec import AttrType
from toolkit.model.types import ELEMENT_TYPE_NUMBERS

__all__ = ["body_difference", "canonical"]

_DOUBLE = ELEMENT_TYPE_NUMBERS["double"]
_FLOAT32_ELEMENTS = frozenset(ELEMENT_TYPE_NUMBERS[t] for t in ("float", "float16", "bfloat16"))


def _bits32(value: float) -> bytes:
    return struct.pack("<f", float32(value))  # float32 saturates out-of-range values to inf


def _scalar_key(value: Scalar, elem_type: int | None, kind: AttrType | None) -> object:
    if isinstance(value, str):
        return value
    if elem_type == _DOUBLE:
        return struct.pack("<d", float(value))
    if kind is AttrType.FLOAT or elem_type in _FLOAT32_ELEMENTS:
        return _bits32(float(value))
    return int(value)


def _value_key(attr: TextAttribute) -> object:
    value = attr.value
    if isinstance(value, TensorLiteral):
        values = tuple(_scalar_key(v, value.elem_type, None) for v in value.values)
        return ("tensor", value.elem_type, value.dims or (), values)
    if isinstance(value, GraphLiteral):
        return ("graph", _decls_key(value.inputs), _decls_key(value.outputs), _nodes_key(value.nodes))
    element = attr.type.element if attr.type is not None else None
    if isinstance(value, tuple):
        return tuple(_scalar_key(v, None, element) for v in value)
    return None if value is None else _scalar_key(value, None, element)


def _decls_key(decls: Sequence[ValueDecl]) -> object:
    return tuple((d.name, d.elem_type, d.shape) for d in decls)


def _attr_key(attr: TextAttribute) -> object:
    return (attr.type, attr.ref, _value_key(attr))


def _nodes_key(nodes: Sequence[TextNode]) -> object:
    return tuple(_node_key(n) for n in nodes)


def _node_key(node: TextNode) -> object:
    attrs = tuple(sorted((a.name, _attr_key(a)) for a in node.attributes))
    return (node.op_type, node.domain, node.overload, node.inputs, node.outputs, attrs)


def _node_difference(old: TextNode, new: TextNode) -> str | None:
    """The first field in which two nodes differ, or None."""
    if (old.domain, old.op_type, old.overload) != (new.domain, new.op_type, new.overload):
        return f"operator {_op(old)} -> {_op(new)}"
    if old.inputs != new.inputs:
        return f"inputs ({', '.join(old.inputs)}) -> ({', '.join(new.inputs)})"
    if old.outputs != new.outputs:
        return f"outputs ({', '.join(old.outputs)}) -> ({', '.join(new.outputs)})"
    before = {a.name: a for a in old.attributes}
    after = {a.name: a for a in new.attributes}
    for name in sorted(before.keys() | after.keys()):
        was, now = before.get(name), after.get(name)
        if was is None and now is not None:
            return f"attribute `{name}` added: {attribute_text(now)}"
        if now is None and was is not None:
            return f"attribute `{name}` removed: {attribute_text(was)}"
        if was is not None and now is not None and _attr_key(was) != _attr_key(now):
            inner = _graph_difference(was, now)
            if inner is not None:
                return f"attribute `{name}`: {inner}"
            return f"attribute `{name}`: {_short(attribute_text(was))} -> {_short(attribute_text(now))}"
    return None


def _graph_difference(old: TextAttribute, new: TextAttribute) -> str | None:
    """Where two graph values differ, inside the graph (None when they are not both graphs)."""
    if not (isinstance(old.value, GraphLiteral) and isinstance(new.value, GraphLiteral)):
        return None
    if _decls_key(old.value.inputs) != _decls_key(new.value.inputs):
        return "the graph's inputs differ"
    if _decls_key(old.value.outputs) != _decls_key(new.value.outputs):
        return "the graph's outputs differ"
    return nodes_difference(old.value.nodes, new.value.nodes)


def _op(node: TextNode) -> str:
    op = f"{node.domain}.{node.op_type}" if node.domain else node.op_type
    return f"{op}:{node.overload}" if node.overload else op


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def nodes_difference(old: Sequence[TextNode], new: Sequence[TextNode]) -> str | None:
    """The first difference between two node lists ("node 6 (Constant): attribute ..."), or None."""
    for index, (was, now) in enumerate(zip(old, new)):
        if _node_key(was) != _node_key(now):
            return f"node {index} ({_op(was)}): {_node_difference(was, now) or 'differs'}"
    if len(new) > len(old):
        return f"node {len(old)} ({_op(new[len(old)])}) added ({len(old)} -> {len(new)} nodes)"
    if len(old) > len(new):
        return f"node {len(new)} ({_op(old[len(new)])}) removed ({len(old)} -> {len(new)} nodes)"
    return None


def canonical(nodes: Sequence[TextNode], kept: frozenset[str]) -> tuple[TextNode, ...]:
    """`nodes` in one order that depends only on what they compute: topological, the ready node
    that sorts first (op, attributes, inputs as renamed so far) placed next, and every value a
    node produces renamed `%0`, `%1`, ... in that order, except the names in `kept` (the
    version's inputs and outputs) and those a graph attribute reads from the enclosing scope.
    A body that is not in single-assignment form, or has a cycle, is returned as it is."""
    produced = [name for node in nodes for name in node.outputs if name]
    if len(produced) != len(set(produced)):
        return tuple(nodes)
    kept = kept | _outer_reads(nodes)
    names: dict[str, str] = {}
    pending = list(nodes)
    placed: list[TextNode] = []
    while pending:
        ready = [n for n in pending if all(i not in produced or i in names for i in n.inputs if i)]
        if not ready:
            return tuple(nodes)  # a cycle, or a value read before the node producing it runs
        chosen = min(ready, key=lambda n: repr(_node_key(_renamed(n, names, rename_outputs=False))))
        pending.remove(chosen)
        for name in chosen.outputs:
            if name and name not in kept:
                names[name] = f"%{len(names)}"
            elif name:
                names[name] = name
        placed.append(_renamed(chosen, names, rename_outputs=True))
    return tuple(placed)


def _renamed(node: TextNode, names: dict[str, str], *, rename_outputs: bool) -> TextNode:
    inputs = tuple(names.get(i, i) for i in node.inputs)
    outputs = tuple(names.get(o, o) for o in node.outputs) if rename_outputs else ()
    return replace(node, inputs=inputs, outputs=outputs)


def _outer_reads(nodes: Sequence[TextNode]) -> frozenset[str]:
    """The names graph attributes (If/Loop bodies) read: their meaning depends on the name."""
    out: set[str] = set()
    for node in nodes:
        for attr in node.attributes:
            if isinstance(attr.value, GraphLiteral):
                inner = attr.value.nodes
                out.update(i for n in inner for i in n.inputs)
                out.update(_outer_reads(inner))
    return frozenset(out)


def body_difference(
    old_nodes: Sequence[TextNode],
    old_imports: Sequence[tuple[str, int]],
    new_nodes: Sequence[TextNode],
    new_imports: Sequence[tuple[str, int]],
    kept: frozenset[str] = frozenset(),
) -> str | None:
    """The first difference between two parsed bodies with their opset imports, or None. Bodies
    equal in canonical form (`canonical`; `kept`: the version's input and output names) are
    equal; otherwise the first difference of the nodes as written is named."""
    if _nodes_key(canonical(old_nodes, kept)) != _nodes_key(canonical(new_nodes, kept)):
        return nodes_difference(old_nodes, new_nodes) or "the nodes differ"
    if sorted(old_imports) != sorted(new_imports):
        return f"opset imports {_imports(old_imports)} -> {_imports(new_imports)}"
    return None


def _imports(imports: Sequence[tuple[str, int]]) -> str:
    return "{" + ", ".join(f"{d or 'ai.onnx'}: {v}" for d, v in sorted(imports)) + "}"
