"""YAML -> FunctionBody: the `function:` block of an operator version (issue #16).

Only the structure is read here (the JSON Schema has checked the shape); the body's syntax and
its nodes are checked by `toolkit.checks.functions`, which can see the whole spec set.
"""

from __future__ import annotations

from typing import Any

from toolkit.load.yamlsrc import MarkedDict, Source
from toolkit.model.spec import FunctionBody, canonical_domain


def function_fields(source: Source, at: tuple[str | int, ...], entry: MarkedDict) -> dict[str, Any]:
    """The `function` / `context_dependent_function` fields of the version built from `entry`."""
    fields: dict[str, Any] = {}
    if entry.get("context_dependent_function"):
        fields["context_dependent_function"] = True
    block = entry.get("function")
    if block is None:
        return fields
    text_location, literal = source.text_loc_in(block, (*at, "function"), "body")
    fields["function"] = FunctionBody(
        text=block["body"],
        opset_imports=tuple((canonical_domain(str(d)), int(v)) for d, v in block["opset_imports"].items()),
        location=source.loc(*at, "function", key=True),
        text_location=text_location,
        text_literal=literal,
    )
    return fields
