"""The function bodies of imported onnx schemas (issue #16).

A static `schema.function_body` is printed at import time (ONNX's text is never committed) and
written as the version's `function:` block; a version whose function onnx builds per node is marked
`context_dependent_function: true`, so the docs and the gate see it. The body is printed by the
toolkit's own printer from the FunctionProto's fields (`function_nodes`, `model.onnx_text_print`),
not by the installed onnx's: `onnx.printer.to_text(NodeProto)` exists only from onnx 1.22, and the
printers of different releases format the same float32 differently (#26).
"""

from __future__ import annotations

from typing import Any

from toolkit.model.diagnostics import UsageError
from toolkit.model.onnx_text_print import print_nodes
from toolkit.model.spec import display_domain
from toolkit.onnx_bridge.function_nodes import text_nodes


def function_entry(schema: Any) -> dict[str, Any]:
    """The `function` / `context_dependent_function` keys of an imported version."""
    out: dict[str, Any] = {}
    if getattr(schema, "has_function", False):
        body = schema.function_body
        out["function"] = {
            "opset_imports": {display_domain(o.domain): int(o.version) for o in body.opset_import},
            "body": _body_text(schema, body.node),
        }
    if getattr(schema, "has_context_dependent_function", False):
        out["context_dependent_function"] = True
    return out


def _body_text(schema: Any, nodes: Any) -> str:
    try:
        return print_nodes(text_nodes(nodes, strict=True))
    except ValueError as error:
        where = f"{display_domain(schema.domain)}.{schema.name}-{schema.since_version}"
        raise UsageError(f"cannot import the function body of {where}: {error}") from None
