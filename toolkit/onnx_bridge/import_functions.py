"""The function bodies of imported onnx schemas (issue #16).

A static `schema.function_body` is printed with onnx.printer at import time (ONNX's text is
never committed) and written as the version's `function:` block; a version whose function onnx
builds per node is marked `context_dependent_function: true`, so the docs and the gate see it.
"""

from __future__ import annotations

import textwrap
from typing import Any

from toolkit.model.spec import display_domain


def function_entry(schema: Any) -> dict[str, Any]:
    """The `function` / `context_dependent_function` keys of an imported version."""
    out: dict[str, Any] = {}
    if getattr(schema, "has_function", False):
        body = schema.function_body
        out["function"] = {
            "opset_imports": {display_domain(o.domain): int(o.version) for o in body.opset_import},
            "body": nodes_text(body.node),
        }
    if getattr(schema, "has_context_dependent_function", False):
        out["context_dependent_function"] = True
    return out


def nodes_text(nodes: Any) -> str:
    """NodeProtos in ONNX's textual syntax, one node per line (nested graphs span lines)."""
    import onnx.printer

    text = "\n".join(onnx.printer.to_text(node).rstrip() for node in nodes)
    return textwrap.dedent(text).strip("\n") + "\n"
