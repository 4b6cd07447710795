"""Python names for spec names: identifiers, package names, names unique on any file system."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.model.python_names import (
    DOMAIN_PACKAGE_RESERVED,
    METHOD_RESERVED,
    SCHEMA_MODULE_RESERVED,
    domain_package,
    identifier,
)

__all__ = [
    "DOMAIN_PACKAGE_RESERVED",
    "EXTRA_KWARGS",
    "KIND",
    "PACKAGE",
    "RESERVED_METHODS",
    "RESERVED_PARAMS",
    "ROOT",
    "SCHEMA_MODULE_RESERVED",
    "Distribution",
    "domain_package",
    "identifier",
    "schema_class_name",
    "unique",
]

KIND = "python"  # the generator kind, its folder of the output
PACKAGE = "opset_toolkit_generated"
ROOT = f"{KIND}/{PACKAGE}"  # the default package's folder; `Distribution` names another


@dataclass(frozen=True)
class Distribution:
    """What the generated package is called: its import name, its pip (distribution) name and
    version (`[python]` in opset.toml, `toolkit.load.project`)."""

    package: str = PACKAGE
    name: str = PACKAGE.replace("_", "-")
    version: str = "0.1.0"


# Names a builder method must not take (OpsetBase members, what its class body evaluates).
RESERVED_METHODS = METHOD_RESERVED
EXTRA_KWARGS = ("_outputs", "_name")
# Names a method body reads besides its parameters (a parameter of that name would shadow it).
BODY_NAMES = (
    "_schema",
    "Value",
    "TensorValue",
    "SparseTensorValue",
    "SequenceValue",
    "MapValue",
    "OptionalValue",
)
# Parameter names Python or ruff reject (E741 ambiguous names) or the body reads; they get a
# trailing "_".
RESERVED_PARAMS = frozenset({"self", "l", "I", "O", *EXTRA_KWARGS, *BODY_NAMES})


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
