"""Operators named in a function body (`function: body:`): hover shows the operator version in
effect at the body's opset import, go to definition opens its spec file at that version.

An operator of a domain the spec tree defines is resolved in the tree as last checked
(`model.resolution.version_at`, the versioning rule); one of ai.onnx (or another onnx domain the
tree does not hold) in the installed onnx's catalog (`onnx_bridge.catalog.onnx_registry`), which
`onnx_catalog.OnnxCatalog` loads once, in the checking thread, the first time a hover needs it: until it is
loaded (or when onnx is not installed) the hover says so.

The name under the cursor counts as an operator only where a node names one: after the `=` of a
node and before its attributes or inputs, and spelled as one of the body's nodes (nested graphs
included) names its operator; so an output, an attribute or a tensor's element type never is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lsprotocol import types as lsp

from toolkit.lsp.context import Context
from toolkit.model.onnx_text import GraphLiteral, TextNode, TextParseError, parse_nodes
from toolkit.model.resolution import version_at
from toolkit.model.spec import OpSchema, canonical_domain, display_domain

# `= [domain.]Op[:overload] <` or `(`: the operator of a node (group "op").
_NODE_OP = re.compile(r"=\s*(?P<op>[A-Za-z_][\w.]*)(?:\s*:\s*[A-Za-z_][\w.]*)?\s*[<(]")


@dataclass(frozen=True)
class BodyOp:
    """An operator named in a body: canonical domain, name, the body's opset import of the
    domain (None: the body imports none), and where the name is (0-based, characters)."""

    domain: str
    name: str
    opset: int | None
    line: int
    start: int
    end: int

    @property
    def qualified(self) -> str:
        return f"{display_domain(self.domain)}.{self.name}"


def _ops(nodes: tuple[TextNode, ...]) -> Iterator[str]:
    for node in nodes:
        yield f"{node.domain}.{node.op_type}" if node.domain else node.op_type
        for attr in node.attributes:
            if isinstance(attr.value, GraphLiteral):
                yield from _ops(attr.value.nodes)


def body_op_at(ctx: Context, pos: lsp.Position) -> BodyOp | None:
    hit = ctx.hit(pos)
    schema = ctx.version_at(hit.path) if hit is not None else None
    if hit is None or hit.is_key or hit.path[2:] != ("function", "body") or schema is None:
        return None
    body = schema.function
    if body is None:
        return None
    try:
        names = set(_ops(parse_nodes(str(hit.node.value))))
    except TextParseError:
        return None
    server_pos = ctx.server.workspace.position_codec.position_from_client_units(ctx.doc.lines, pos)
    line = ctx.doc.lines[server_pos.line] if server_pos.line < len(ctx.doc.lines) else ""
    for found in _NODE_OP.finditer(line):
        start, end = found.span("op")
        if start <= server_pos.character <= end and found["op"] in names:
            domain, _, name = found["op"].rpartition(".")
            domain = canonical_domain(domain)
            return BodyOp(domain, name, body.opset(domain), server_pos.line, start, end)
    return None


def resolve(ctx: Context, op: BodyOp) -> OpSchema | str:
    """The operator version the body's node runs, else why there is none (words for a hover)."""
    if op.opset is None:
        return f"the body imports no opset of {display_domain(op.domain)}"
    if ctx.tree.domain(op.domain) is not None:
        spec = next((o for o in ctx.tree.operators_of(op.domain) if o.name == op.name), None)
        found = version_at(spec, op.opset) if spec is not None else None
        return found or f"no version of {op.qualified} at opset {op.opset} in the spec tree"
    catalog = ctx.server.onnx.get()
    if catalog is None:
        return ctx.server.onnx.status()
    if not catalog.has_domain(op.domain):
        return f"the domain {display_domain(op.domain)} is neither in the spec tree nor in the onnx catalog"
    return catalog.find_schema(op.name, op.opset, op.domain) or (
        f"no version of {op.qualified} at opset {op.opset} in the onnx catalog"
    )


def definition(ctx: Context, pos: lsp.Position) -> lsp.Location | None:
    """The version's entry in its spec file, when the operator is in the tree."""
    op = body_op_at(ctx, pos)
    if op is None or ctx.tree.domain(op.domain) is None:
        return None
    found = resolve(ctx, op)
    return ctx.location(found.location) if isinstance(found, OpSchema) else None
