"""The "Function body" section of an operator page (issue #16): a version's body in ONNX's
textual syntax with its opset imports, or a note that onnx builds its function per node."""

from __future__ import annotations

import re

from toolkit.generate.mdsafe import code
from toolkit.model.spec import OpSchema, display_domain

_BACKTICKS = re.compile(r"`+")


def function_section(schema: OpSchema, level: int) -> str:
    """The section (empty when the version has no function), headings at `level`."""
    heading = "#" * level + " Function body\n\n"
    if schema.function is None:
        if not schema.context_dependent_function:
            return ""
        return (
            heading + "This version is defined by a context-dependent function: onnx builds its body "
            "for each node from the node's attributes and input types, so there is no static body to show.\n\n"
        )
    body = schema.function
    imports = ", ".join(f"{code(display_domain(d))} {v}" for d, v in body.opset_imports)
    longest = max((len(m) for m in _BACKTICKS.findall(body.text)), default=0)
    fence = "`" * max(3, longest + 1)
    note = " It also has a context-dependent function." if schema.context_dependent_function else ""
    return (
        heading
        + f"This version can run as the nodes below (ONNX's textual syntax, opset imports: {imports}); "
        + "a runtime without a kernel for it can inline them (`opset convert --inline-missing`)."
        + note
        + f"\n\n{fence}text\n{body.text.rstrip()}\n{fence}\n\n"
    )
