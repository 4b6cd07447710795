"""The file and folder names the generators derive from spec names, one definition each, and
the names of a domain or an operator that are one path component of an output.

A name the spec tree chose becomes a file or folder name of `opset generate`: a domain's folder
(docs, proto, backend tests), its Python package, an operator's page and schema module, an
example's backend test folder. File systems refuse a component longer than NAME_MAX bytes, so
`opset validate` checks these (NAME-TOO-LONG, `toolkit.checks.output_names`) with the functions
the generators call, rather than `opset generate` failing half-way with no location.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.model.examples import Example
from toolkit.model.python_names import SCHEMA_MODULE_RESERVED, domain_package, identifier
from toolkit.model.spec import OperatorSpec, OpSchema, canonical_domain, display_domain

NAME_MAX = 255  # bytes of one path component (Linux, macOS, Windows' 255 UTF-16 units hold less)


def domain_folder(domain: str) -> str:
    """A domain's folder under docs/, proto/ and backend_tests/ (`ai.onnx` for the default)."""
    return display_domain(canonical_domain(domain))


def operator_page_file(op: str) -> str:
    """An operator's docs page, in its domain's `ops/` folder."""
    return f"{op}.md"


def schema_module(op: str) -> str:
    """An operator's schema module in the generated Python package (before `unique` suffixes a
    name that only differs in case from another's)."""
    return identifier(op, SCHEMA_MODULE_RESERVED)


def case_folder(schema: OpSchema, example: Example) -> str:
    """An example's backend test folder: `test_<op>_<example>` in lower case, as onnx names its
    node tests."""
    return re.sub(r"[^a-z0-9_]", "_", f"test_{schema.name}_{example.name}".lower())


def domain_components(domain: str) -> Iterator[str]:
    """The path components `opset generate` names after `domain`."""
    yield domain_folder(domain)
    yield domain_package(domain)


def operator_components(op: OperatorSpec) -> Iterator[str]:
    """The path components `opset generate` names after `op` (its examples' are apart: they are
    reported at the example)."""
    yield operator_page_file(op.name)
    yield f"{schema_module(op.name)}.py"


def example_components(op: OperatorSpec) -> Iterator[tuple[Example, str]]:
    """Each example of `op` with the backend test folder named after it."""
    for schema in op.versions:
        for example in schema.examples:
            yield example, case_folder(schema, example)


def too_long(component: str) -> bool:
    """Whether a file system refuses `component` as one file or folder name (UTF-8 bytes)."""
    return len(component) > NAME_MAX // 4 and len(component.encode("utf-8", "surrogateescape")) > NAME_MAX
