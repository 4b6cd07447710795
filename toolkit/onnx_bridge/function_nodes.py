"""onnx NodeProtos as the parsed nodes of `toolkit.model.onnx_text`, so a FunctionProto of a model
can be checked by the same body checker as a spec's function text (issue #16).

Only what the checker reads is carried over: names, attribute names, types and references, Cast's
`to`, Constant's value types and subgraphs. A node's position is its index (line = index + 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit.model.onnx_text import GraphLiteral, Pos, TensorLiteral, TextAttribute, TextNode, ValueDecl
from toolkit.model.spec import AttrType

_TYPES = {t.proto_number: t for t in AttrType}


def text_nodes(nodes: Iterable[Any]) -> tuple[TextNode, ...]:
    return tuple(_node(node, index) for index, node in enumerate(nodes))


def _node(node: Any, index: int) -> TextNode:
    pos = Pos(index + 1, 1)
    attrs = tuple(_attribute(a, pos) for a in node.attribute)
    return TextNode(
        tuple(node.output), node.op_type, node.domain, tuple(node.input), attrs, pos, node.overload
    )


def _attribute(attr: Any, pos: Pos) -> TextAttribute:
    kind = _TYPES.get(attr.type)
    if attr.ref_attr_name:
        return TextAttribute(attr.name, kind, None, attr.ref_attr_name, pos)
    value: Any = None
    if kind is AttrType.INT:
        value = attr.i
    elif kind is AttrType.TENSOR:
        value = TensorLiteral(attr.t.data_type, tuple(attr.t.dims), ())
    elif kind is AttrType.GRAPH:
        value = GraphLiteral(
            attr.g.name,
            tuple(ValueDecl(v.name) for v in attr.g.input),
            tuple(ValueDecl(v.name) for v in attr.g.output),
            text_nodes(attr.g.node),
        )
    return TextAttribute(attr.name, kind, value, None, pos)
