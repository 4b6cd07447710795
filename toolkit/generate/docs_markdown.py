"""The `docs` generator: Markdown operator documentation, changelogs and inventories.

Output (all under `docs/`, relative to `opset generate --out`):

* `docs/<domain>/Operators.md`  - ONNX-style: index table (every version linked), then each
  operator's latest version: marks, doc, Version, Attributes, Inputs, Outputs, Type Constraints;
* `docs/<domain>/Changelog.md`  - by opset version: what it introduced, changed, deprecated and
  removed, each new operator version in full with its diff against the previous version;
* `docs/<domain>/ops/<Op>.md`   - one page per operator: every version, newest first, with diffs;
* `docs/<domain>/inventory.md`  - the since_version table of Versioning.md;
* `docs/<domain>/index.md`, `docs/index.md`, `docs/releases.md` (when releases are declared);
* `docs/dsl.md`, `docs/cli.md`  - references generated from the JSON Schemas and the CLI parser
  (`toolkit.generate.docs_reference`);
* `docs/nav.json`               - the navigation the mkdocs hook (`docs_mkdocs_hook`) mounts.

Version diffs come from `toolkit.model.changes.diff_schemas`, the change model of the BC gate,
so the docs and the gate never disagree. Doc text goes through `toolkit.generate.mdsafe`.
Pure and deterministic: sorted iteration, no timestamps.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jinja2

from toolkit.generate.context import GenerateContext
from toolkit.generate.mdsafe import escape_pipes, inline, sanitize
from toolkit.load.cache import cache_dir
from toolkit.model.changes import SchemaChange, diff_schemas
from toolkit.model.resolution import in_effect
from toolkit.model.spec import (
    MAX_ARITY,
    Attribute,
    AttrType,
    AttrValue,
    Differentiability,
    DomainSpec,
    FormalParameter,
    OperatorSpec,
    OpSchema,
    ParamOption,
    display_domain,
)
from toolkit.registry.core import Registry
from toolkit.registry.inventory import SinceTable, since_table, since_table_markdown

KIND = "docs"
TEMPLATES = Path(__file__).resolve().parent / "templates" / "docs"
SECTION_LEVEL = 3  # heading level of Attributes/Inputs/... in Operators.md and operator pages
CHANGELOG_SECTION_LEVEL = 4


# Options that change the compiled template code: part of the bytecode cache's folder name, so
# a change here (or a new Jinja) never picks up code compiled under other options.
ENV_OPTIONS: dict[str, Any] = {
    "autoescape": False,  # Markdown out; doc text is made safe by mdsafe, not by HTML escaping
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": True,
}


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates on disk (like .pyc files): compiling the docs templates costs more than
    rendering a small catalog. Jinja checks each entry against the template source's checksum.
    A cache that cannot be written only costs time."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    stamp = hashlib.sha256(f"{jinja2.__version__}:{sorted(ENV_OPTIONS.items())}".encode()).hexdigest()
    directory = cache_dir() / f"jinja-docs-{stamp[:16]}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _BytecodeCache(str(directory))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # templates do not change during a run: no stat() per render
        bytecode_cache=_bytecode_cache(),
        **ENV_OPTIONS,
    )
    env.filters["code"] = code
    env.filters["cell"] = escape_pipes
    env.globals["doc_markdown"] = doc_markdown
    env.globals["table"] = table
    env.globals["changes"] = changes_markdown
    return env


@cache
def compiled_template(template: str) -> jinja2.Template:
    return environment().get_template(template)


def render_template(template: str, /, **values: Any) -> str:
    return compiled_template(template).render(**values)


FENCED_BLOCK = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)
BLANK_RUNS = re.compile("\n\n\n+")  # a literal prefix: ~6x faster to scan than \n{3,}


def tidy(text: str) -> str:
    """At most one blank line in a row outside code fences; exactly one newline at the end.

    mdsafe closes every fence in doc text, so fenced blocks pair up here.
    """
    if "\n\n\n" not in text:
        return text.strip("\n") + "\n"
    parts = []
    last = 0
    for block in _fenced_blocks(text):
        parts.append(BLANK_RUNS.sub("\n\n", text[last : block.start()]))
        parts.append(block.group(0))
        last = block.end()
    parts.append(BLANK_RUNS.sub("\n\n", text[last:]))
    return "".join(parts).strip("\n") + "\n"


def _fenced_blocks(text: str) -> Iterator[re.Match[str]]:
    """`FENCED_BLOCK.finditer(text)`, but the regex is only tried at the start of lines that hold
    a fence-like run (found with fast substring search) instead of at every line of the page."""
    position = 0
    ticks = text.find("```")
    tildes = text.find("~~~")
    while ticks >= 0 or tildes >= 0:
        # the next run at or after `position` (each search resumes from its own last hit)
        if 0 <= ticks < position:
            ticks = text.find("```", position)
        if 0 <= tildes < position:
            tildes = text.find("~~~", position)
        candidate = min(i for i in (ticks, tildes, len(text)) if i >= 0)
        if candidate == len(text):
            return
        block = FENCED_BLOCK.match(text, text.rfind("\n", 0, candidate) + 1)
        if block is None:
            position = candidate + 3
            continue
        yield block
        position = block.end()


# --------------------------------------------------------------------------- small formatters


def code(text: object) -> str:
    """`text` as a Markdown code span, whatever backticks it contains."""
    value = str(text)
    if "`" not in value and value.strip() == value and value:
        return f"`{value}`"
    run = 0
    longest = 0
    for char in value:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def attr_type_text(kind: AttrType) -> str:
    """ONNX's spelling: `int`, `list of ints`."""
    return f"list of {kind.value}" if kind.is_list else kind.value


def value_text(value: AttrValue) -> str:
    """A default value: strings JSON-quoted, floats in their shortest round-trip form."""
    if isinstance(value, tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return str(int(value))
    return repr(value)


def attr_option_text(attr: Attribute) -> str:
    if attr.required:
        return "required"
    if attr.default is not None:
        return "default is " + code(value_text(attr.default))
    return "optional"


def param_tags(param: FormalParameter) -> list[str]:
    """The tags of gen_doc: optional / variadic[, heterogeneous], then differentiability."""
    tags: list[str] = []
    if param.option is ParamOption.OPTIONAL:
        tags.append("optional")
    elif param.option is ParamOption.VARIADIC:
        tags.append("variadic")
        if not param.homogeneous:
            tags.append("heterogeneous")
        if param.min_arity != 1:
            tags.append(f"at least {param.min_arity}")
    if param.differentiability is Differentiability.DIFFERENTIABLE:
        tags.append("differentiable")
    elif param.differentiability is Differentiability.NON_DIFFERENTIABLE:
        tags.append("non-differentiable")
    return tags


def arity_text(low: int, high: int) -> str:
    if low == high:
        return ""
    return f" ({low} - {'∞' if high >= MAX_ARITY else high})"


def anchor(op: str, since: int) -> str:
    return f"{op}-{since}"


def table(header: list[str], rows: list[Row]) -> str:
    """A Markdown table; docs too rich for a cell follow it as titled blocks."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells) + " |" for row in rows]
    for row in rows:
        if row.block:
            lines += ["", f"**{code(row.block_title)}**", "", row.block]
    return "\n".join(lines)


def changes_markdown(version: VersionView) -> str:
    """The diff against the previous version as a bullet list of sentences with their kind."""
    if not version.changes:
        return "No change to the signature or the documentation: this version changes behaviour only."
    return "\n".join(f"- {change.message} ({code(change.kind)})" for change in version.changes)


# --------------------------------------------------------------------------- view models


@dataclass(frozen=True)
class Row:
    """One table row: cells are Markdown; `block` holds a doc too rich for a cell."""

    cells: tuple[str, ...]
    block: str = ""
    block_title: str = ""


def _doc_cell(doc: str, title: str) -> tuple[str, str]:
    """(cell, block): the doc inline when it fits in a cell, otherwise a pointer plus a block."""
    cell = inline(doc)
    if cell is not None:
        return cell, ""
    safe = sanitize(doc, min_heading=6)
    block = safe.text + ("\n\n" + safe.note if safe.note else "")
    return f"see *{title}* below", block


def attribute_rows(schema: OpSchema) -> list[Row]:
    rows = []
    for attr in sorted(schema.attributes, key=lambda a: a.name):
        cell, block = _doc_cell(attr.doc, attr.name)
        cells = (code(attr.name), attr_type_text(attr.type), attr_option_text(attr), cell)
        rows.append(Row(cells, block, attr.name))
    return rows


def param_rows(params: Iterable[FormalParameter]) -> list[Row]:
    rows = []
    for param in params:
        cell, block = _doc_cell(param.doc, param.name)
        cells = (code(param.name), escape_pipes(code(param.type_str)), ", ".join(param_tags(param)), cell)
        rows.append(Row(cells, block, param.name))
    return rows


def constraint_rows(schema: OpSchema) -> list[Row]:
    rows = []
    for constraint in schema.type_constraints:
        cell, block = _doc_cell(constraint.doc, constraint.param)
        if constraint.type_sets:
            sets = ", ".join(code("@" + s) for s in constraint.type_sets)
            cell = f"*Type sets:* {sets}." + (f" {cell}" if cell else "")
        allowed = ", ".join(escape_pipes(code(t)) for t in constraint.allowed)
        rows.append(Row((code(constraint.param), allowed, cell), block, constraint.param))
    return rows


class Bodies:
    """Version bodies built once per schema within one run: Operators.md, Changelog.md and the
    operator pages share them, at heading levels 3 and 4."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[OpSchema, list[str]]] = {}

    def __call__(self, schema: OpSchema, level: int) -> str:
        hit = self._cache.get(id(schema))
        if hit is None:
            hit = self._cache[id(schema)] = (schema, body_parts(schema))  # keeps id() valid
        return ("#" * level).join(hit[1])


ATTRIBUTE_HEADER = ["Name", "Type", "Required / default", "Description"]
PARAM_HEADER = ["Name", "Type", "Tags", "Description"]
CONSTRAINT_HEADER = ["Type parameter", "Allowed types", "Description"]


def body_parts(schema: OpSchema) -> list[str]:
    """Attributes, Inputs, Outputs and Type Constraints of one version, split where the #s of the
    section headings go (so one build serves every heading level). Plain Python rather than a
    template: it is built for every operator version and a template render costs more."""
    parts = [""]
    attributes = attribute_rows(schema)
    if attributes:
        parts.append(f" Attributes\n\n{table(ATTRIBUTE_HEADER, attributes)}\n\n")
    inputs = param_rows(schema.inputs)
    parts.append(
        f" Inputs{arity_text(schema.min_input, schema.max_input)}\n\n"
        + (table(PARAM_HEADER, inputs) if inputs else "No inputs.")
        + "\n\n"
    )
    outputs = param_rows(schema.outputs)
    parts.append(
        f" Outputs{arity_text(schema.min_output, schema.max_output)}\n\n"
        + (table(PARAM_HEADER, outputs) if outputs else "No outputs.")
        + "\n\n"
    )
    constraints = constraint_rows(schema)
    parts.append(
        " Type Constraints\n\n"
        + (table(CONSTRAINT_HEADER, constraints) if constraints else "No type constraints.")
        + "\n"
    )
    return parts


def version_body(schema: OpSchema, level: int) -> str:
    """Attributes, Inputs, Outputs and Type Constraints of one version."""
    return ("#" * level).join(body_parts(schema))


def doc_markdown(text: str, level: int) -> str:
    """Doc text made safe to sit under a heading of `level`, with a note about repairs."""
    safe = sanitize(text, min_heading=level + 1)
    return safe.text + ("\n\n" + safe.note if safe.note else "")


@dataclass(frozen=True)
class VersionView:
    schema: OpSchema
    anchor: str
    marks: str  # " *(experimental)*" etc., '' for a plain stable version
    since_text: str  # "This version of the operator has been available since version 3 of x."
    opsets: str  # "opsets 3 - 4"
    changes: tuple[SchemaChange, ...]
    previous: OpSchema | None


@dataclass(frozen=True)
class OperatorView:
    spec: OperatorSpec
    domain: str  # display name
    latest: VersionView
    versions: tuple[VersionView, ...]  # newest first
    marks: str
    status: str  # index-table status words


def _marks(schema: OpSchema) -> str:
    marks = []
    if schema.experimental:
        marks.append("experimental")
    if schema.deprecated:
        marks.append("deprecated")
    return "".join(f" *({m})*" for m in marks)


def _since_text(schema: OpSchema, domain: str) -> str:
    state = "deprecated" if schema.deprecated else "available"
    text = f"This version of the operator has been {state} since version {schema.since_version} of {code(domain)}."
    if schema.experimental:
        text += " It is experimental: it may change without a new version."
    return text


def _opsets_text(spec: OperatorSpec, index: int, domain: DomainSpec) -> str:
    first, until = in_effect(spec, spec.versions[index].since_version)
    last = domain.max_version if until is None else until - 1
    if last < first:
        return "no opset version"
    if last == first:
        return f"opset version {first}"
    if until is None:
        return f"opset versions {first} and later (latest: {last})"
    return f"opset versions {first} - {last}"


def operator_view(registry: Registry, spec: OperatorSpec) -> OperatorView:
    domain = registry.domain(spec.domain)
    type_sets = dict(domain.type_sets)
    views = []
    previous: OpSchema | None = None
    for index, schema in enumerate(spec.versions):
        changes = (
            tuple(diff_schemas(previous, schema, old_type_sets=type_sets, new_type_sets=type_sets))
            if previous is not None
            else ()
        )
        views.append(
            VersionView(
                schema,
                anchor(spec.name, schema.since_version),
                _marks(schema),
                _since_text(schema, domain.display_name),
                _opsets_text(spec, index, domain),
                changes,
                previous,
            )
        )
        previous = schema
    latest = views[-1]
    status = []
    if latest.schema.experimental:
        status.append("experimental")
    if latest.schema.deprecated:
        status.append("deprecated")
    if spec.removed_in is not None:
        status.append(f"removed in {spec.removed_in}")
    return OperatorView(
        spec, domain.display_name, latest, tuple(reversed(views)), latest.marks, ", ".join(status)
    )


def _operator_views(registry: Registry, domain: str) -> list[OperatorView]:
    return [operator_view(registry, op) for op in sorted(registry.operators(domain), key=lambda o: o.name)]


# --------------------------------------------------------------------------- pages


def header(source: str) -> str:
    return f"<!-- generated by opset-toolkit from {source}; do not edit -->\n"


def operators_page(domain: DomainSpec, views: list[OperatorView], source: str, bodies: Bodies) -> str:
    return render_template(
        "operators.md.j2",
        header=header(source),
        domain=domain,
        name=domain.display_name,
        ops=views,
        body=lambda schema: bodies(schema, SECTION_LEVEL),
    )


@dataclass(frozen=True)
class OpsetEntry:
    version: int
    ir_version: int | None
    doc: str
    introduced: tuple[VersionView, ...]
    changed: tuple[VersionView, ...]
    deprecated: tuple[VersionView, ...]
    removed: tuple[OperatorSpec, ...]

    @property
    def new_versions(self) -> tuple[VersionView, ...]:
        return tuple(sorted((*self.introduced, *self.changed), key=lambda v: v.schema.name))


def opset_entries(domain: DomainSpec, views: list[OperatorView]) -> list[OpsetEntry]:
    by_version: dict[int, dict[str, list[Any]]] = {}

    def slot(version: int) -> dict[str, list[Any]]:
        return by_version.setdefault(
            version, {"introduced": [], "changed": [], "deprecated": [], "removed": []}
        )

    for view in views:
        for item in view.versions:
            entry = slot(item.schema.since_version)
            entry["changed" if item.previous is not None else "introduced"].append(item)
            if item.schema.deprecated and not (item.previous and item.previous.deprecated):
                entry["deprecated"].append(item)
        if view.spec.removed_in is not None:
            slot(view.spec.removed_in)["removed"].append(view.spec)
    for opset in domain.opset_versions:
        slot(opset.version)
    out = []
    for number in sorted(by_version):
        groups = by_version[number]
        declared = domain.opset(number)
        out.append(
            OpsetEntry(
                number,
                declared.ir_version if declared else None,
                sanitize(declared.doc, min_heading=4).text if declared else "",
                *(
                    tuple(sorted(groups[k], key=_name))
                    for k in ("introduced", "changed", "deprecated", "removed")
                ),
            )
        )
    return out


def _name(item: VersionView | OperatorSpec) -> str:
    return item.schema.name if isinstance(item, VersionView) else item.name


def changelog_page(domain: DomainSpec, views: list[OperatorView], source: str, bodies: Bodies) -> str:
    return render_template(
        "changelog.md.j2",
        header=header(source),
        name=domain.display_name,
        entries=list(reversed(opset_entries(domain, views))),
        body=lambda schema: bodies(schema, CHANGELOG_SECTION_LEVEL),
    )


def operator_page(view: OperatorView, source: str, bodies: Bodies) -> str:
    doc = sanitize(view.latest.schema.doc, min_heading=3)
    return render_template(
        "operator.md.j2",
        header=header(source),
        op=view,
        summary=_first_sentence(doc.text),
        body=lambda schema: bodies(schema, SECTION_LEVEL),
    )


def _first_sentence(text: str) -> str:
    first = inline(text.split("\n\n", 1)[0]) or ""
    return first if len(first) <= 300 else first[:297].rsplit(" ", 1)[0] + " ..."


def opset_inventories(table: SinceTable) -> dict[int, list[tuple[str, int]]]:
    """Opset version -> (operator, since_version) of every operator in it, by name: the columns
    of the since_version table (which resolves like `Registry.inventory`)."""
    return {
        version: [
            (name, since) for name, cells in table.rows if (since := cells[index].since_version) is not None
        ]
        for index, version in enumerate(table.opset_versions)
    }


def inventory_page(domain: DomainSpec, table: SinceTable, source: str) -> str:
    inventories = opset_inventories(table)
    return render_template(
        "inventory.md.j2",
        header=header(source),
        name=domain.display_name,
        table=since_table_markdown(table),
        opsets=[(opset, _inventory_links(inventories[opset.version])) for opset in domain.opset_versions],
    )


def _inventory_links(names: list[tuple[str, int]]) -> str:
    """'3 operators: [A](ops/A.md#A-1), ...' or 'No operators.' (built here: thousands of links)."""
    if not names:
        return "No operators."
    links = ", ".join(f"[{n}](ops/{n}.md#{n}-{since})" for n, since in names)
    return f"{len(names)} operator{'s' if len(names) != 1 else ''}: {links}."


def domain_page(domain: DomainSpec, views: list[OperatorView], table: SinceTable, source: str) -> str:
    doc = sanitize(domain.doc, min_heading=3)
    inventories = opset_inventories(table)
    return render_template(
        "domain.md.j2",
        header=header(source),
        domain=domain,
        name=domain.display_name,
        doc=doc.text,
        doc_note=doc.note,
        ops=views,
        summaries={v.spec.name: _first_sentence(sanitize(v.latest.schema.doc).text) for v in views},
        counts={o.version: len(inventories[o.version]) for o in domain.opset_versions},
        opset_docs={o.version: inline(o.doc) or "" for o in domain.opset_versions},
    )


def release_rows(registry: Registry) -> tuple[list[str], list[list[str]]]:
    """Header (domain display names, sorted) and one row per release: name, IR version, opsets."""
    domains = sorted({d for release in registry.releases for d, _ in release.opsets})
    rows = []
    for release in registry.releases:
        versions = dict(release.opsets)
        rows.append(
            [escape_pipes(release.name), str(release.ir_version)]
            + [str(versions[d]) if d in versions else "-" for d in domains]
        )
    return [display_domain(d) for d in domains], rows


def index_page(registry: Registry, source: str) -> str:
    domains = [registry.domain(name) for name in registry.domains()]
    return render_template(
        "index.md.j2",
        header=header(source),
        domains=domains,
        counts={d.name: len(registry.operators(d.name)) for d in domains},
        releases=bool(registry.releases),
    )


def releases_page(registry: Registry, source: str) -> str:
    columns, rows = release_rows(registry)
    return render_template("releases.md.j2", header=header(source), columns=columns, rows=rows)


# --------------------------------------------------------------------------- navigation


def navigation(registry: Registry, views: Mapping[str, list[OperatorView]], with_cli: bool = True) -> list[Any]:
    """mkdocs nav entries (paths relative to the generated docs folder)."""
    nav: list[Any] = [{"Overview": "index.md"}]
    if registry.releases:
        nav.append({"Releases": "releases.md"})
    nav.append({"DSL reference": "dsl.md"})
    if with_cli:
        nav.append({"CLI reference": "cli.md"})
    for name in registry.domains():
        folder = display_domain(name)
        entries: list[Any] = [
            {"Overview": f"{folder}/index.md"},
            {"Operators.md": f"{folder}/Operators.md"},
            {"Changelog": f"{folder}/Changelog.md"},
            {"Inventory": f"{folder}/inventory.md"},
        ]
        ops = [{view.spec.name: f"{folder}/ops/{view.spec.name}.md"} for view in views[name]]
        if ops:
            entries.append({"Operator pages": ops})
        nav.append({folder: entries})
    return nav


# --------------------------------------------------------------------------- entry points


def render_docs(
    registry: Registry, source: str = "opsets", cli_parser: Callable[[], argparse.ArgumentParser] | None = None
) -> dict[str, str]:
    """Every docs page as text, keyed by path relative to the docs kind folder (`cli.md` when the
    caller passes the command's parser factory)."""
    from toolkit.generate.docs_reference import cli_page, dsl_page

    pages: dict[str, str] = {
        "index.md": index_page(registry, source),
        "dsl.md": dsl_page(header(source)),
    }
    if cli_parser is not None:
        pages["cli.md"] = cli_page(header(source), cli_parser())
    if registry.releases:
        pages["releases.md"] = releases_page(registry, source)
    views: dict[str, list[OperatorView]] = {}
    bodies = Bodies()
    for name in registry.domains():
        domain = registry.domain(name)
        folder = domain.display_name
        views[name] = domain_views = _operator_views(registry, name)
        table = since_table(registry, name)
        pages[f"{folder}/index.md"] = domain_page(domain, domain_views, table, source)
        pages[f"{folder}/Operators.md"] = operators_page(domain, domain_views, source, bodies)
        pages[f"{folder}/Changelog.md"] = changelog_page(domain, domain_views, source, bodies)
        pages[f"{folder}/inventory.md"] = inventory_page(domain, table, source)
        for view in domain_views:
            pages[f"{folder}/ops/{view.spec.name}.md"] = operator_page(view, source, bodies)
    pages["nav.json"] = json.dumps(navigation(registry, views, "cli.md" in pages), indent=1) + "\n"
    return {path: tidy(text) if path.endswith(".md") else text for path, text in sorted(pages.items())}


def generate(registry: Registry, context: GenerateContext) -> dict[str, bytes]:
    """The registered `docs` generator: files under `docs/`."""
    with gc_paused():
        return {
            f"{KIND}/{path}": text.encode("utf-8")
            for path, text in render_docs(registry, context.source, context.cli_parser).items()
        }


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while the pages are built.

    The docs of a catalog allocate about a million short-lived objects that hold no cycles
    (strings, rows, views), and each allocation burst made the collector walk the registry's
    objects again: ~10% of the generator's time (onnx catalog), with a few hundred objects to
    free at the end. The previous state comes back on exit, also on errors."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
