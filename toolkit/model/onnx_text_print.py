"""The printer of ONNX's textual syntax of nodes, the inverse of `toolkit.model.onnx_text`'s parser.

The importer writes function bodies with it instead of the installed onnx's printer
(`onnx.printer.to_text(NodeProto)` exists only from onnx 1.22 on, and its float formatting changed
between releases: 1.22 kept 6 digits, so `6.2831855` printed as `6.28319`, a different float32).
Floats are written as the shortest decimal that reads back as the same float32 (doubles as the
shortest that reads back as the same double), so `parse_nodes(print_nodes(nodes))` gives the same
values. Pure functions; no onnx import.
"""

from __future__ import annotations

import math
import re
import struct

from toolkit.model.onnx_text import GraphLiteral, Scalar, TensorLiteral, TextAttribute, TextNode, ValueDecl
from toolkit.model.spec import AttrType
from toolkit.model.types import ELEMENT_TYPE_NUMBERS, ELEMENT_TYPES

__all__ = ["attribute_text", "float32", "float32_text", "print_nodes"]

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_DOUBLE = ELEMENT_TYPE_NUMBERS["double"]
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def float32(value: float) -> float:
    """The float32 nearest to `value` (as a Python float); out of range saturates to infinity."""
    try:
        result: float = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:  # beyond float32's range: what a float32 store of it holds
        return math.copysign(math.inf, value)
    return result


def float32_text(value: float) -> str:
    """The shortest decimal that reads back as the same float32 (`6.2831855`, `1e-05`, `-0.0`)."""
    if math.isnan(value) or math.isinf(value):
        return _special(value)
    target = float32(value)
    if math.isinf(target):
        return _special(target)
    text = repr(target)
    for digits in range(1, 10):  # 9 significant digits always identify a float32
        text = f"{target:.{digits}g}"
        if float32(float(text)) == target:
            break
    return text if any(c in text for c in ".e") else text + ".0"


def _double_text(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        return _special(value)
    return repr(value)  # Python's repr is the shortest round-trip decimal of a double


def _special(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


def _name(name: str) -> str:
    """A name token when the parser reads it as one, else a quoted string (`""` for a missing input)."""
    if _PLAIN_NAME.match(name) and name.lower() not in ("inf", "infinity", "nan"):
        return name
    return _quote(name)


def _quote(text: str) -> str:
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def _scalar(value: Scalar, kind: AttrType) -> str:
    if isinstance(value, str):
        return _quote(value)
    if kind.element is AttrType.FLOAT:
        return float32_text(float(value))
    return str(int(value))


def _tensor(tensor: TensorLiteral) -> str:
    elem = ELEMENT_TYPES[tensor.elem_type - 1]
    shape = "" if tensor.dims is None else "[" + ", ".join(str(d) for d in tensor.dims) + "]"
    values = ", ".join(_tensor_value(v, tensor.elem_type) for v in tensor.values)
    return f"{elem}{shape} {{{values}}}"


def _tensor_value(value: Scalar, elem_type: int) -> str:
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, float) or elem_type in _FLOAT_TYPES:
        return _double_text(float(value)) if elem_type == _DOUBLE else float32_text(float(value))
    return str(int(value))


_FLOAT_TYPES = frozenset(ELEMENT_TYPE_NUMBERS[t] for t in ("float", "double", "float16", "bfloat16"))


def _decl(decl: ValueDecl) -> str:
    if decl.elem_type is None:
        return _name(decl.name)
    shape = "" if decl.shape is None else "[" + ", ".join(str(d) for d in decl.shape) + "]"
    return f"{ELEMENT_TYPES[decl.elem_type - 1]}{shape} {_name(decl.name)}"


def _graph(graph: GraphLiteral, indent: str) -> str:
    inputs = ", ".join(_decl(d) for d in graph.inputs)
    outputs = ", ".join(_decl(d) for d in graph.outputs)
    inner = indent + "  "
    body = "".join(f"{inner}{_node(n, inner)}\n" for n in graph.nodes)
    return f"{_name(graph.name)} ({inputs}) => ({outputs}) {{\n{body}{indent}}}"


def attribute_text(attr: TextAttribute, indent: str = "") -> str:
    """`name: type = value` (or `= @ref`), as in a node's attribute list."""
    typed = f"{_name(attr.name)}: {attr.type.value}" if attr.type is not None else _name(attr.name)
    if attr.ref is not None:
        return f"{typed} = @{_name(attr.ref)}"
    value = attr.value
    if attr.type is None or value is None:
        raise ValueError(f"attribute '{attr.name}' has neither a typed value nor a reference")
    if isinstance(value, TensorLiteral):
        text = _tensor(value)
    elif isinstance(value, GraphLiteral):
        text = _graph(value, indent)
    elif isinstance(value, tuple):
        text = "[" + ", ".join(_scalar(v, attr.type) for v in value) + "]"
    else:
        text = _scalar(value, attr.type)
    return f"{typed} = {text}"


def _node(node: TextNode, indent: str) -> str:
    outputs = ", ".join(_name(o) for o in node.outputs)
    op = f"{node.domain}.{node.op_type}" if node.domain else node.op_type
    if node.overload:
        op += f":{_name(node.overload)}"
    attrs = ""
    if node.attributes:
        attrs = " <" + ", ".join(attribute_text(a, indent) for a in node.attributes) + ">"
    inputs = ", ".join(_name(i) for i in node.inputs)
    if any(isinstance(a.value, GraphLiteral) for a in node.attributes):
        return f"{outputs} = {op} ({inputs}){attrs}"  # a graph spans lines: after the inputs, as onnx's printer does
    return f"{outputs} = {op}{attrs} ({inputs})"


def print_nodes(nodes: tuple[TextNode, ...]) -> str:
    """The nodes in the text syntax, one per line (a graph attribute spans lines); ends with a newline."""
    return "".join(_node(node, "") + "\n" for node in nodes)


def print_graph(graph: GraphLiteral) -> str:
    """One graph in the text syntax (what `onnx_text.parse_graph` reads); ends with a newline."""
    return _graph(graph, "") + "\n"
