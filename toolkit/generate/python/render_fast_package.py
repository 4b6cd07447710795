"""The fast path of the package-level templates of the `python` kind (`package_init.py.j2`,
`pyproject.toml.j2`, `README.md.j2`): rendered once per run, but without them a run needs no
Jinja2 at all. See `render_fast`; the static text below is the templates' own, block by block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolkit.generate.python.source import str_literal

if TYPE_CHECKING:
    from toolkit.generate.python.names import Distribution

__all__ = ["render_package_init", "render_pyproject", "render_readme"]

_PACKAGE_DOC = (
    "    op = Opset<N>()\n"
    "    y = op.<Operator>(x, ..., attribute=value)   # y.node is the onnx.NodeProto\n"
    "\n"
    "Domain packages are imported on first use; see README.md next to this package.\n"
    "\n"
    "The release table of the specs and its lookups (like onnx.helper's VERSION_TABLE and\n"
    "find_min_ir_version_for) need no domain package: RELEASES, OPSET_IR_VERSIONS,\n"
    "release_for_opset(), opset_ir_version(), min_ir_version_for(). Domains are named as in\n"
    "DOMAINS; \"\" also names the default domain \"ai.onnx\".\n"
    "\"\"\"\n"
    "\n"
    "from __future__ import annotations\n"
    "\n"
    "import importlib\n"
    "from collections.abc import Mapping\n"
    "\n"
    "# typing.TYPE_CHECKING without importing typing, a large module: type checkers take any name\n"
    "# TYPE_CHECKING as true. At run time NamedTuple is the runtime's stand-in, which makes the\n"
    "# namedtuple class typing would make, and OpsetId (for annotations only) is a plain class.\n"
    "TYPE_CHECKING = False\n"
    "if TYPE_CHECKING:\n"
    "    from collections.abc import Iterable\n"
    "    from types import ModuleType\n"
    "    from typing import NamedTuple, Protocol\n"
    "\n"
    "    from ._runtime import OpSchemaInfo, OpsetBase\n"
    "else:\n"
    "    from ._runtime import NamedTuple\n"
    "\n"
    "    Protocol = object\n"
    "\n"
    "__all__ = [\n"
    "    \"DOMAINS\",\n"
    "    \"MIN_IR_VERSION\",\n"
    "    \"OPSET_IR_VERSIONS\",\n"
    "    \"RELEASES\",\n"
    "    \"OpsetId\",\n"
    "    \"Release\",\n"
    "    \"domain\",\n"
    "    \"min_ir_version_for\",\n"
    "    \"opset\",\n"
    "    \"opset_ir_version\",\n"
    "    \"release_for_opset\",\n"
    "    \"schema\",\n"
    "]\n"
    "\n"
    "# display domain name -> subpackage\n"
    "DOMAINS: dict[str, str] = {\n"
)
_PACKAGE_LOOKUPS = (
    "}\n"
    "\n"
    "\n"
    "def _package(name: str) -> str:\n"
    "    key = \"ai.onnx\" if name == \"\" else name\n"
    "    if key not in DOMAINS:\n"
    "        raise KeyError(f\"unknown domain {key!r} (known: {', '.join(DOMAINS)})\")\n"
    "    return DOMAINS[key]\n"
    "\n"
    "\n"
    "def domain(name: str) -> ModuleType:\n"
    "    \"\"\"The package of a domain (`\"\"` and `\"ai.onnx\"` both name the default domain).\"\"\"\n"
    "    return importlib.import_module(f\"{__name__}.{_package(name)}\")\n"
    "\n"
    "\n"
    "def opset(name: str, version: int) -> type[OpsetBase]:\n"
    "    \"\"\"The builder class of opset `version` of domain `name`.\"\"\"\n"
    "    found: type[OpsetBase] = domain(name).opset(version)\n"
    "    return found\n"
    "\n"
    "\n"
    "def schema(name: str, op: str, since_version: int) -> type[OpSchemaInfo]:\n"
    "    \"\"\"The schema class of operator version (`name`, `op`, `since_version`).\"\"\"\n"
    "    module = importlib.import_module(f\"{__name__}.{_package(name)}.schemas\")\n"
    "    found: type[OpSchemaInfo] = module.get(op, since_version)\n"
    "    return found\n"
    "\n"
    "\n"
    "# --------------------------------------------------------------------------------------------\n"
    "# the release table\n"
    "# --------------------------------------------------------------------------------------------\n"
    "\n"
    "\n"
    "class Release(NamedTuple):\n"
    "    \"\"\"One release: its name, the IR version it writes, the opset version it ships per domain.\"\"\"\n"
    "\n"
    "    name: str\n"
    "    ir_version: int\n"
    "    opsets: Mapping[str, int]  # domain (as in DOMAINS) -> opset version\n"
    "\n"
    "\n"
    "class OpsetId(Protocol):\n"
    "    \"\"\"An opset import such as `onnx.OperatorSetIdProto` (an item of `model.opset_import`).\"\"\"\n"
    "\n"
    "    @property\n"
    "    def domain(self) -> str: ...\n"
    "\n"
    "    @property\n"
    "    def version(self) -> int: ...\n"
    "\n"
    "\n"
    "# The specs' release table, oldest release first.\n"
    "RELEASES: tuple[Release, ...] = (\n"
)
_PACKAGE_IR_HEAD = (
    ")\n"
    "\n"
    "# (domain, opset version) -> the IR version the opset needs: what the domain's domain.yaml\n"
    "# declares, or for a domain not generated here the IR version of the first release shipping it.\n"
    "OPSET_IR_VERSIONS: dict[tuple[str, int], int] = {\n"
)
_PACKAGE_IR_TAIL = (
    "}\n"
    "\n"
    "# What min_ir_version_for answers when no opset is known: the IR version of the oldest release\n"
    "# (3, the first IR version with opset imports, when the specs have no release table).\n"
)
_PACKAGE_FUNCTIONS = (
    "\n"
    "\n"
    "def _display(name: str) -> str:\n"
    "    return \"ai.onnx\" if name == \"\" else name\n"
    "\n"
    "\n"
    "def release_for_opset(name: str, version: int) -> str | None:\n"
    "    \"\"\"The first (oldest) release that ships opset `version` of domain `name`, or None.\"\"\"\n"
    "    key = _display(name)\n"
    "    for release in RELEASES:\n"
    "        if release.opsets.get(key) == version:\n"
    "            return release.name\n"
    "    return None\n"
    "\n"
    "\n"
    "def opset_ir_version(name: str, version: int) -> int:\n"
    "    \"\"\"The IR version opset `version` of domain `name` needs (KeyError if it is unknown).\"\"\"\n"
    "    key = (_display(name), version)\n"
    "    if key not in OPSET_IR_VERSIONS:\n"
    "        raise KeyError(f\"unknown opset {key[0]} {version}: no domain or release here defines it\")\n"
    "    return OPSET_IR_VERSIONS[key]\n"
    "\n"
    "\n"
    "def min_ir_version_for(\n"
    "    opsets: Mapping[str, int] | Iterable[tuple[str, int] | OpsetId], *, ignore_unknown: bool = False\n"
    ") -> int:\n"
    "    \"\"\"The least IR version a model importing `opsets` needs (onnx's find_min_ir_version_for).\n"
    "\n"
    "    `opsets` is a mapping domain -> version, (domain, version) pairs or opset imports such as\n"
    "    `model.opset_import`. The answer is the largest IR version the opsets need, or\n"
    "    MIN_IR_VERSION when there are none. An opset that OPSET_IR_VERSIONS does not know raises\n"
    "    KeyError, unless `ignore_unknown`: then it is skipped.\n"
    "    \"\"\"\n"
    "    pairs = opsets.items() if isinstance(opsets, Mapping) else opsets\n"
    "    needed: list[int] = []\n"
    "    for item in pairs:\n"
    "        name, version = item if isinstance(item, tuple) else (item.domain, item.version)\n"
    "        key = (_display(name), version)\n"
    "        if key in OPSET_IR_VERSIONS:\n"
    "            needed.append(OPSET_IR_VERSIONS[key])\n"
    "        elif not ignore_unknown:\n"
    "            raise KeyError(f\"unknown opset {key[0]} {version}: no domain or release here defines it\")\n"
    "    return max(needed, default=MIN_IR_VERSION)\n"
)
_README_BUILDERS = (
    "```\n"
    "\n"
    "Each builder method is named after its operator. Inputs are positional value names (`str`);\n"
    "trailing optional inputs default to `None`; a variadic input is `*args`. Attributes are\n"
    "keyword-only with their defaults. `_outputs=` (a count or a list of names) and `_name=` (the\n"
    "node name) are optional. A call validates the arity, required attributes and attribute value\n"
    "types (raising `BuildError`, which names the operator and the attribute), builds the node and\n"
    "returns the output value: a `Value` (a `str` subclass: `TensorValue`, `SequenceValue`, ... after\n"
    "the output's type) whose `.node` is the `onnx.NodeProto` (a `LightNode` with the same fields\n"
    "when onnx is not installed). Operators with several outputs return a tuple; an omitted optional\n"
    "output is `Value(\"\")`. Every node built is also appended to `op.nodes`.\n"
    "\n"
    "Schema metadata (domain, name, since_version, status, deprecated, doc, inputs, outputs,\n"
    "attributes with defaults, type constraints) is on the classes `<domain_pkg>.schemas.<Op>.<Op>_<since>`,\n"
)
_README_RELEASES = (
    "\n"
    "## Releases and IR versions\n"
    "\n"
    "Each opset class carries `DOMAIN`, `VERSION` and `IR_VERSION` (the IR version the opset needs, as\n"
    "its `domain.yaml` declares). The package itself holds the release table of the specs\n"
    "(`releases.yaml`) and lookups like onnx's `helper.VERSION_TABLE` and\n"
    "`helper.find_min_ir_version_for`; they import no domain package:\n"
    "\n"
    "- `RELEASES`: `Release(name, ir_version, opsets)` rows, oldest first; `opsets` maps a domain to\n"
    "  the opset version the release ships.\n"
    "- `release_for_opset(domain, version)`: the name of the first release shipping that opset, or\n"
    "  `None`.\n"
    "- `opset_ir_version(domain, version)`: the IR version the opset needs (`OPSET_IR_VERSIONS`):\n"
    "  its domain's declaration, or, for a domain only the release table names, the IR version of\n"
    "  the first release shipping it. `KeyError` for an opset neither defines.\n"
    "- `min_ir_version_for(opsets, ignore_unknown=False)`: the least IR version of a model importing\n"
    "  `opsets` (a mapping domain -> version, `(domain, version)` pairs or `model.opset_import`): the\n"
    "  largest `opset_ir_version` among them. An unknown opset raises `KeyError`; with\n"
    "  `ignore_unknown=True` it is skipped. With no (known) opsets the answer is `MIN_IR_VERSION`:\n"
)
_README_DOMAINS = (
    "\n"
    "## Domains\n"
    "\n"
    "| domain | package | opset versions |\n"
    "| --- | --- | --- |\n"
)


def render_package_init(
    *,
    header: str,
    package: str,
    domains: Sequence[tuple[str, str, str]],
    releases: Sequence[Sequence[str]],
    opset_irs: Sequence[tuple[tuple[str, int], int]],
    min_ir: int,
) -> str:
    out = [
        f"{header}\n"
        '"""Typed operator schemas and opset builders, generated by opset-toolkit.\n'
        "\n"
        f"    from {package}.<domain_pkg>.opset<N> import Opset<N>\n",
        _PACKAGE_DOC,
    ]
    out.extend(f"    {str_literal(display)}: {str_literal(pkg)},\n" for display, pkg, _canonical in domains)
    out.append(_PACKAGE_LOOKUPS)
    out.extend("    " + "\n    ".join(lines) + ",\n" for lines in releases)
    out.append(_PACKAGE_IR_HEAD)
    out.extend(f"    ({str_literal(d)}, {v}): {ir},\n" for (d, v), ir in opset_irs)
    out.append(_PACKAGE_IR_TAIL)
    out.append(f"MIN_IR_VERSION = {min_ir}\n")
    out.append(_PACKAGE_FUNCTIONS)
    return "".join(out)


def render_pyproject(*, spec: str, dist: Distribution) -> str:
    return (
        f"# generated by opset-toolkit from {spec}; do not edit\n"
        f"# `pip install .` here installs the generated operator package `{dist.package}`.\n"
        "[build-system]\n"
        'requires = ["setuptools>=61"]\n'
        'build-backend = "setuptools.build_meta"\n'
        "\n"
        "[project]\n"
        f'name = "{dist.name}"\n'
        f'version = "{dist.version}"\n'
        f'description = "Typed operator schemas and opset builders generated by opset-toolkit from {spec}."\n'
        'readme = "README.md"\n'
        'requires-python = ">=3.10"\n'
        "dependencies = []\n"
        "\n"
        "[project.optional-dependencies]\n"
        'onnx = ["onnx"]\n'
        "\n"
        "[tool.setuptools]\n"
        f'packages = {{ find = {{ include = ["{dist.package}", "{dist.package}.*"] }} }}\n'
        "\n"
        "[tool.setuptools.package-data]\n"
        f'"{dist.package}" = ["py.typed"]\n'
    )


def render_readme(
    *,
    spec: str,
    package: str,
    dist: Distribution,
    releases: Sequence[tuple[str, int, Sequence[tuple[str, int]]]],
    min_ir: int,
    domains: Sequence[tuple[str, str, Sequence[int]]],
) -> str:
    # `domains[0][2][-1]` of an empty version list is an error in the template too
    first_pkg, newest = (domains[0][1], str(domains[0][2][-1])) if domains else ("<domain_pkg>", "<N>")
    out = [
        f"<!-- generated by opset-toolkit from {spec}; do not edit -->\n"
        f"# `{package}`: typed operator schemas and opset builders\n"
        "\n"
        f"Generated by `opset generate` from `{spec}`. This folder is a Python project: install it\n"
        f"with `pip install ./generated/python` (distribution `{dist.name}` {dist.version}, import\n"
        f"name `{package}`; typed, with `py.typed`). It needs nothing else; with `onnx` installed\n"
        "the builders return real `onnx.NodeProto`s. Every import inside the package is relative, so it\n"
        "can also be vendored as it is.\n"
        "\n"
        "```python\n"
        f"from {package}.{first_pkg}.opset{newest} import Opset{newest}\n"
        "\n"
        f"op = Opset{newest}()\n",
        _README_BUILDERS,
        f"also reachable as `{package}.schema(domain, op, since_version)`.\n",
        _README_RELEASES,
    ]
    if releases:
        out.append(f"  {min_ir}, the IR version of the oldest release.\n")
    else:
        out.append(f"  {min_ir}, the first IR version with opset imports (the specs have no release table).\n")
    out.append('\n`""` and `"ai.onnx"` both name the default domain.\n')
    if releases:
        out.append("\n| release | IR version | opsets |\n| --- | --- | --- |\n")
        out.extend(
            f"| {name} | {ir} | {', '.join(f'`{d}` {v}' for d, v in opsets)} |\n" for name, ir, opsets in releases
        )
    out.append(_README_DOMAINS)
    out.extend(
        f"| `{display}` | `{package}.{pkg}` | {', '.join(map(str, versions))} |\n" for display, pkg, versions in domains
    )
    return "".join(out)
