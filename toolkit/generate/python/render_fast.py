"""The fast path of the `python` kind's templates: each template of `templates/` as plain Python.

The Jinja2 templates stay the definition of the generated files (`jinja_render` renders them);
these functions build the same text with string joins, so that generating imports neither
Jinja2 nor compiles the templates, and skips its per-node overhead on the thousands of schema
classes and builders. Each function takes the template's variables as keyword arguments and
follows it line by line (the templates use trim_blocks and lstrip_blocks: a line holding only a
block tag writes nothing). tests/test_python_render_fast.py renders both on random values and on
whole registries and asserts equal text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.generate.python.render_fast_package import render_package_init, render_pyproject, render_readme
from toolkit.generate.python.source import doc_escape_line, str_literal

if TYPE_CHECKING:
    from toolkit.generate.python.builders import OpsetClass
    from toolkit.generate.python.schema_classes import SchemaClass
    from toolkit.model.spec import OperatorSpec

__all__ = ["RENDERERS", "render"]


def render_opset_module(*, header: str, doc: str, version: int, ir_version: int) -> str:
    return (
        f"{header}\n{doc}\n\nfrom __future__ import annotations\n\nfrom ._opsets import Opset{version}\n\n"
        f'__all__ = ["IR_VERSION", "Opset{version}"]\n\nIR_VERSION = {ir_version}\n'
    )


def render_opsets_module(
    *,
    header: str,
    doc: str,
    domain: str,
    canonical: str,
    opsets: Sequence[OpsetClass],
    runtime_names: Sequence[str],
    any_methods: bool,
    needs_math: bool,
    needs_any: bool,
) -> str:
    out = [f"{header}\n{doc}\n\nfrom __future__ import annotations\n\n"]
    if needs_math:
        out.append("import math\n\n")
    out.append(
        f"from .._runtime import {', '.join(runtime_names)}\n"
        "\n"
        "# Names used only in annotations (strings under `from __future__ import annotations`) are imported\n"
        "# for type checkers only, which take any name TYPE_CHECKING as true: importing stays cheap.\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
    )
    if any_methods:
        out.append("    from collections.abc import Sequence\n")
    out.append(f"    from typing import {'Any, ' if needs_any else ''}ClassVar\n\n__all__ = [\n")
    out.extend(f'    "Opset{opset.version}",\n' for opset in opsets)
    out.append("]\n")
    if any_methods:
        out.append('\n_schema = schema_loader(__name__.rpartition(".")[0] + ".schemas")\n')
    canonical_literal = str_literal(canonical)
    for opset in opsets:
        if opset.parent is None:
            out.append(
                f"\n\nclass Opset{opset.version}(OpsetBase):\n"
                f'    """Builders of {domain} opset {opset.version} (one method per operator)."""\n'
            )
        else:
            out.append(
                f"\n\nclass Opset{opset.version}(Opset{opset.parent}):\n"
                f'    """Builders of {domain} opset {opset.version}: opset {opset.parent}\'s, with those that changed."""\n'
            )
        out.append(
            f"\n    DOMAIN: ClassVar[str] = {canonical_literal}\n"
            f"    VERSION: ClassVar[int] = {opset.version}\n"
            f"    IR_VERSION: ClassVar[int] = {opset.ir_version}\n"
        )
        for method, signature, call in opset.methods:
            out.append("\n")
            out.append("\n".join(signature))
            out.append("\n        ")
            out.append(method.docstring)
            out.append("\n")
            out.append("\n".join(call))
            out.append("\n")
    return "".join(out)


# The `for field, items, info in ...` loop of schema_module.py.j2: attribute and record class.
_FIELDS = (
    ("inputs", "ParamInfo"),
    ("outputs", "ParamInfo"),
    ("attributes", "AttrInfo"),
    ("type_constraints", "TypeConstraintInfo"),
)


def render_schema_module(
    *,
    header: str,
    op: OperatorSpec,
    domain: str,
    classes: Sequence[SchemaClass],
    doc_constants: Sequence[tuple[str, Sequence[str]]],
    doc_of: Mapping[str, str],
    same_as: Mapping[tuple[str, str], str],
    removed_in: int | None,
    replaced_by: str | None,
) -> str:
    out = [f'{header}\n"""Schema classes of {domain}.{op.name}: one per operator version.\n']
    if removed_in is not None:
        out.append(f"\nRemoved in opset {removed_in}")
        if replaced_by:
            out.append(f"; replaced by {doc_escape_line(replaced_by)}")
        out.append(".\n")
    out.append('"""\n\nfrom __future__ import annotations\n\n')
    if any(cls.uses_math for cls in classes):
        out.append("import math\n\n")
    out.append(
        "from ..._runtime import AttrInfo, OpSchemaInfo, ParamInfo, TypeConstraintInfo\n"
        "\n"
        "TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers take it as true)\n"
        "if TYPE_CHECKING:\n"
        "    from typing import ClassVar\n"
        "\n"
        "__all__ = [\n"
    )
    out.extend(f'    "{cls.name}",\n' for cls in classes)
    out.append("]\n")
    for name, chunks in doc_constants:
        out.append(f"\n{name} = (\n")
        out.extend(f"    {chunk}\n" for chunk in chunks)
        out.append(")\n")
    for cls in classes:
        s = cls.schema
        out.append(
            f"\n\nclass {cls.name}(OpSchemaInfo):\n"
            f"    {cls.docstring}\n"
            "\n"
            f"    domain: ClassVar[str] = {str_literal(s.domain)}\n"
            f"    name: ClassVar[str] = {str_literal(s.name)}\n"
            f"    since_version: ClassVar[int] = {s.since_version}\n"
            f"    status: ClassVar[str] = {str_literal(s.status.value)}\n"
            f"    deprecated: ClassVar[bool] = {s.deprecated}\n"
            f"    doc: ClassVar[str] = {doc_of[cls.name]}\n"
        )
        for (field, info), items in zip(_FIELDS, (cls.inputs, cls.outputs, cls.attributes, cls.constraints)):
            earlier = same_as.get((cls.name, field))
            if earlier:
                out.append(f"    {field}: ClassVar[tuple[{info}, ...]] = {earlier}.{field}\n")
            elif items:
                out.append(f"    {field}: ClassVar[tuple[{info}, ...]] = (\n")
                out.extend("        " + "\n        ".join(lines) + ",\n" for lines in items)
                out.append("    )\n")
            else:
                out.append(f"    {field}: ClassVar[tuple[{info}, ...]] = ()\n")
        out.append(
            f"    min_input: ClassVar[int] = {s.min_input}\n"
            f"    max_input: ClassVar[int] = {s.max_input}\n"
            f"    min_output: ClassVar[int] = {s.min_output}\n"
            f"    max_output: ClassVar[int] = {s.max_output}\n"
        )
    return "".join(out)


def render_schemas_init(
    *, header: str, domain: str, modules: Sequence[tuple[str, str]], classes: Sequence[tuple[str, int, str, str]]
) -> str:
    out = [
        f"{header}\n"
        f'"""Schema classes of {domain}, one module per operator, imported on first use."""\n'
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "import importlib\n"
        "\n"
        "from ..._runtime import OpSchemaInfo\n"
        "\n"
        '__all__ = ["CLASSES", "OPERATORS", "get", "versions"]\n'
        "\n"
        "# operator -> module name in this package\n"
        "OPERATORS: dict[str, str] = {\n"
    ]
    out.extend(f"    {str_literal(op)}: {str_literal(module)},\n" for op, module in modules)
    out.append("}\n# (operator, since_version) -> class name in the operator's module\nCLASSES: dict[tuple[str, int], str] = {\n")
    out.extend(f"    ({str_literal(op)}, {since}): {str_literal(cls)},\n" for op, since, _module, cls in classes)
    out.append(
        "}\n"
        "\n"
        "\n"
        "def versions(op: str) -> tuple[int, ...]:\n"
        '    """Every since_version of `op`, oldest first."""\n'
        "    return tuple(sorted(v for (name, v) in CLASSES if name == op))\n"
        "\n"
        "\n"
        "def get(op: str, since_version: int) -> type[OpSchemaInfo]:\n"
        '    """The schema class of `op` version `since_version` (KeyError if there is none)."""\n'
        "    key = (op, since_version)\n"
        "    if key not in CLASSES:\n"
        f'        raise KeyError(f"no schema {{op}}-{{since_version}} in domain {domain}")\n'
        '    module = importlib.import_module(f"{__name__}.{OPERATORS[op]}")\n'
        "    found: type[OpSchemaInfo] = getattr(module, CLASSES[key])\n"
        "    return found\n"
    )
    return "".join(out)


def render_domain_init(*, header: str, doc: str, domain: str, canonical: str, versions: Sequence[int]) -> str:
    return (
        f"{header}\n"
        f"{doc}\n"
        "\n"
        "from __future__ import annotations\n"
        "\n"
        "import importlib\n"
        "\n"
        "TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers take it as true)\n"
        "if TYPE_CHECKING:\n"
        "    from types import ModuleType\n"
        "\n"
        "    from .._runtime import OpsetBase\n"
        "\n"
        '__all__ = ["DOMAIN", "OPSET_VERSIONS", "opset"]\n'
        "\n"
        f"DOMAIN = {str_literal(canonical)}\n"
        f"DISPLAY_NAME = {str_literal(domain)}\n"
        f"OPSET_VERSIONS: tuple[int, ...] = ({''.join(f'{v}, ' for v in versions)})\n"
        "\n"
        "\n"
        "def opset(version: int) -> type[OpsetBase]:\n"
        '    """The builder class of opset `version` (its module is imported on first use)."""\n'
        "    if version not in OPSET_VERSIONS:\n"
        '        raise KeyError(f"domain {DISPLAY_NAME} has no opset version {version} (known: {OPSET_VERSIONS})")\n'
        '    module = importlib.import_module(f"{__name__}.opset{version}")\n'
        '    found: type[OpsetBase] = getattr(module, f"Opset{version}")\n'
        "    return found\n"
        "\n"
        "\n"
        "def __getattr__(name: str) -> ModuleType:\n"
        "    # `package.opsetN` works after a bare `import package`, without importing every opset.\n"
        '    if name.startswith("opset") and name[5:].isdigit() and int(name[5:]) in OPSET_VERSIONS:\n'
        '        return importlib.import_module(f"{__name__}.{name}")\n'
        '    if name == "schemas":\n'
        '        return importlib.import_module(f"{__name__}.schemas")\n'
        '    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")\n'
    )


# template file name -> its fast renderer (the same keyword arguments as the template's variables)
RENDERERS: dict[str, Callable[..., str]] = {
    "opset_module.py.j2": render_opset_module,
    "opsets_module.py.j2": render_opsets_module,
    "schema_module.py.j2": render_schema_module,
    "schemas_init.py.j2": render_schemas_init,
    "domain_init.py.j2": render_domain_init,
    "package_init.py.j2": render_package_init,
    "pyproject.toml.j2": render_pyproject,
    "README.md.j2": render_readme,
}


def render(template: str, values: Mapping[str, Any]) -> str:
    """The text `template` renders with `values`, without Jinja2."""
    return RENDERERS[template](**values)
