"""How spec names become Python names in the generated package (the `python` generator kind).

Below the checks so that `validate` and `generate` apply one rule: the generator names files,
modules and methods with these functions, and `toolkit.checks.python_names` reports the
collisions that no renaming can settle (two domains that map to one package).

The rule (docs/guide/authoring.md, "Names in the generated Python package"):

- every character that is not an ASCII letter, digit or `_` becomes `_`; a leading digit gets
  a leading `_`;
- a name starting with two underscores (`__init__`, `__class__`, `__x`) gets the prefix `op`
  (`op__init__`): Python gives such names a meaning of their own (special methods and module
  attributes, private name mangling inside a class, the `__pycache__` folder);
- a Python keyword (also a soft keyword) or a name the generated package uses itself in that
  place (`reserved`) gets a trailing `_` (`class_`, `get_`, `nodes_`).

Names that still collide once renamed are told apart by the generator (a `_2` suffix), except
domain packages, which `validate` reports.
"""

from __future__ import annotations

import keyword
import re
import sys
from collections.abc import Iterable

from toolkit.model.spec import display_domain

__all__ = [
    "DOMAIN_PACKAGE_RESERVED",
    "METHOD_RESERVED",
    "SCHEMA_MODULE_RESERVED",
    "domain_package",
    "identifier",
    "shadowed_module",
]

# Names of the generated package's top-level `__init__` (a domain package imported as a submodule
# becomes an attribute of that package and would replace them).
DOMAIN_PACKAGE_RESERVED = frozenset(
    {
        "annotations", "importlib", "Iterable", "Mapping", "TYPE_CHECKING", "NamedTuple", "Protocol",
        "DOMAINS", "MIN_IR_VERSION", "OPSET_IR_VERSIONS", "RELEASES", "OpsetId", "Release",
        "domain", "min_ir_version_for", "opset", "opset_ir_version", "release_for_opset", "schema",
        "ModuleType", "OpSchemaInfo", "OpsetBase",
        "KeyError", "bool", "dict", "int", "isinstance", "list", "max", "next", "property", "str",
        "tuple", "type",
    }
)  # fmt: skip
# Names of a domain's `schemas/__init__` and the builtins its code calls (an operator module
# becomes an attribute of that package, i.e. a global of its code).
SCHEMA_MODULE_RESERVED = frozenset(
    {
        "annotations", "importlib", "OpSchemaInfo", "OPERATORS", "CLASSES", "get", "versions",
        "KeyError", "dict", "getattr", "int", "sorted", "str", "tuple", "type",
    }
)  # fmt: skip
# Names an opset class inherits from OpsetBase, and names its class body evaluates (`math.inf`
# defaults) or its annotations name (type checkers resolve them in the class scope first).
METHOD_RESERVED = frozenset(
    {
        "DOMAIN", "VERSION", "IR_VERSION", "nodes", "mro", "math",
        "_one", "_many", "_node", "_output_names", "_prefix", "_count",
        "Any", "ClassVar", "Sequence", "None", "bool", "float", "int", "str", "tuple",
        "Value", "TensorValue", "SparseTensorValue", "SequenceValue", "MapValue", "OptionalValue",
    }
)  # fmt: skip


# Top-level import names a generated package must not take besides the standard library's: once
# installed it would shadow them for every program in that environment (`package = "yaml"` would
# break the toolkit itself). The toolkit, the libraries it imports, and the ones the generated
# package and the model tools import.
TAKEN_TOP_LEVEL = frozenset(
    {
        "toolkit", "yaml", "jsonschema", "fastjsonschema", "jinja2", "markupsafe", "google", "ruamel",
        "markdown_it", "mkdocs", "nh3", "tomli", "onnx", "onnxruntime", "numpy",
    }
)  # fmt: skip


def shadowed_module(package: str) -> str | None:
    """What an installed package named `package` would shadow ("" never; None: nothing)."""
    top = package.split(".", 1)[0]
    if top in sys.stdlib_module_names:
        return f"the standard library's `{top}` module"
    if top.lower() in TAKEN_TOP_LEVEL:
        return f"the `{top}` module opset-toolkit or the generated code imports"
    return None


_NOT_WORD = re.compile(r"\W", re.ASCII)


def identifier(name: str, reserved: Iterable[str] = ()) -> str:
    """A valid, non-keyword Python identifier close to `name`, out of reach of `reserved`."""
    if name.isascii() and name.isidentifier():
        text = name  # nearly every spec name: nothing for the substitution to replace
    else:
        text = _NOT_WORD.sub("_", name) or "_"
        if text[0].isdigit():
            text = f"_{text}"
    if text.startswith("__"):
        text = f"op{text}"
    taken = reserved if isinstance(reserved, (set, frozenset)) else set(reserved)
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in taken:
        text = f"{text}_"
    return text


def domain_package(domain: str) -> str:
    """Package name of a domain: the display name with dots and hyphens as underscores (`ai_onnx`)."""
    base = display_domain(domain).replace(".", "_").replace("-", "_").lower()
    return identifier(base, DOMAIN_PACKAGE_RESERVED)
