"""Python names for spec names: identifiers, package names, names unique on any file system."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Sequence

from toolkit.model.spec import display_domain

__all__ = [
    "EXTRA_KWARGS",
    "PACKAGE",
    "RESERVED_METHODS",
    "RESERVED_PARAMS",
    "ROOT",
    "domain_package",
    "identifier",
    "schema_class_name",
    "unique",
]

PACKAGE = "opset_toolkit_generated"
ROOT = f"python/{PACKAGE}"

# Names a builder method or parameter must not take (OpsetBase members, extras).
RESERVED_METHODS = frozenset({"DOMAIN", "VERSION", "IR_VERSION", "nodes", "mro"})
EXTRA_KWARGS = ("_outputs", "_name")
# Parameter names Python or ruff reject (E741 ambiguous names); they get a trailing "_".
RESERVED_PARAMS = frozenset({"self", "l", "I", "O", *EXTRA_KWARGS})


def identifier(name: str, reserved: Iterable[str] = ()) -> str:
    """A valid, non-keyword Python identifier close to `name`."""
    text = re.sub(r"\W", "_", name, flags=re.ASCII) or "_"
    if text[0].isdigit():
        text = f"_{text}"
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in set(reserved):
        text = f"{text}_"
    return text


def domain_package(domain: str) -> str:
    """Package name of a domain: the display name with dots as underscores (`ai_onnx`)."""
    return identifier(display_domain(domain).replace(".", "_").replace("-", "_").lower())


def schema_class_name(op: str, since_version: int) -> str:
    """The schema class of one operator version (`Conv_22`)."""
    return f"{identifier(op)}_{since_version}"


def unique(names: Sequence[str]) -> list[str]:
    """Make names unique case-insensitively (file systems), suffixing `_2`, `_3`, ..."""
    seen: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 1
        while candidate.casefold() in seen:
            n += 1
            candidate = f"{name}_{n}"
        seen.add(candidate.casefold())
        out.append(candidate)
    return out
