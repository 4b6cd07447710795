"""The file and folder names the generators derive from spec names, one definition each, and
the names of a domain or an operator that are one path component of an output.

A name the spec tree chose becomes a file or folder name of `opset generate`: a domain's folder
(docs, proto, backend tests), its Python package, an operator's page and schema module, an
example's backend test folder. File systems refuse a component longer than NAME_MAX bytes, so
`opset validate` checks these (NAME-TOO-LONG, `toolkit.checks.output_names`) with the functions
the generators call, rather than `opset generate` failing half-way with no location.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator

from toolkit.model.examples import Example
from toolkit.model.python_names import SCHEMA_MODULE_RESERVED, domain_package, identifier, shadowed_module
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


# An import name: ASCII, since the package's folder name must read the same on every file system.
_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def package_problem(package: str) -> str | None:
    """Why `package` cannot be the import name of the generated package (a clause to follow the
    name, e.g. "is a Python keyword"), or None. The one test of the name: `opset init --package`
    and `python.package` of the project file both ask it, so init never writes a setting that
    generate refuses. It is also the folder `python/<package>/` of the output, hence here."""
    if not _PACKAGE.fullmatch(package):
        return "is not a Python identifier (ASCII letters, digits and _, not starting with a digit)"
    if keyword.iskeyword(package):  # `import class` is a syntax error; soft keywords import fine
        return "is a Python keyword, which no import statement can name"
    if package.startswith("__"):  # `__main__`, `__pycache__`: Python gives such names a meaning
        return "starts with two underscores, which Python reserves for names of its own"
    if too_long(package):
        return f"is longer than {NAME_MAX} bytes, more than a file system allows for its folder"
    shadowed = shadowed_module(package)
    if shadowed:
        return f"would shadow {shadowed} once installed"
    return None
