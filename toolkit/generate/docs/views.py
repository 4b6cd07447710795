"""What the docs pages show, computed once per operator: the versions with their marks, in-effect
opset ranges and diffs (`toolkit.model.changes.diff_schemas`, the change model of the BC gate,
so the docs and the gate never disagree), the per-opset changelog entries, and the version
bodies (Attributes, Inputs, Outputs, Type Constraints)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from toolkit.generate.docs.markdown import (
    Row,
    anchor,
    arity_text,
    attr_option_text,
    attr_type_text,
    doc_cell,
    param_tags,
    table,
)
from toolkit.generate.mdsafe import code, escape_pipes, prose, sanitize
from toolkit.model.changes import SchemaChange, diff_schemas
from toolkit.model.resolution import in_effect
from toolkit.model.spec import Attribute, DomainSpec, FormalParameter, OperatorSpec, OpSchema, TypeConstraint
from toolkit.registry.core import Registry

# --------------------------------------------------------------------------- version bodies

ATTRIBUTE_HEADER = ["Name", "Type", "Required / default", "Description"]
PARAM_HEADER = ["Name", "Type", "Tags", "Description"]
CONSTRAINT_HEADER = ["Type parameter", "Allowed types", "Description"]


def attribute_row(attr: Attribute) -> Row:
    cell, block = doc_cell(attr.doc, attr.name)
    return Row((code(attr.name), attr_type_text(attr.type), attr_option_text(attr), cell), block, attr.name)


def param_row(param: FormalParameter) -> Row:
    cell, block = doc_cell(param.doc, param.name)
    cells = (code(param.name), escape_pipes(code(param.type_str)), ", ".join(param_tags(param)), cell)
    return Row(cells, block, param.name)


def constraint_row(constraint: TypeConstraint) -> Row:
    cell, block = doc_cell(constraint.doc, constraint.param)
    if constraint.type_sets:
        sets = ", ".join(code("@" + s) for s in constraint.type_sets)
        cell = f"*Type sets:* {sets}." + (f" {cell}" if cell else "")
    return Row((code(constraint.param), allowed_text(constraint.allowed), cell), block, constraint.param)


@lru_cache(maxsize=4096)
def allowed_text(allowed: tuple[str, ...]) -> str:
    """The allowed types as code spans. Cached: constraints of many operators allow the same
    long lists of types (all numeric tensors, say)."""
    return ", ".join(escape_pipes(code(t)) for t in allowed)


def shape_lines(schema: OpSchema) -> str:
    """The outputs' shape rules and the version's shape constraints (docs/guide/shapes.md), as
    written, in code spans; a constraint's message is made safe as a doc is."""
    lines = [
        f"**Shape of {code(p.name)}:** {code(p.shape.text)}\n\n"
        for p in schema.outputs
        if p.shape is not None
    ]
    lines += [
        f"**Value of {code(p.name)}:** {code(p.value.text)}\n\n"
        for p in schema.outputs
        if p.value is not None
    ]
    lines += [
        f"**Requires:** {code(r.text)}" + (f" ({prose(r.message)})" if r.message else "") + "\n\n"
        for r in schema.shape_requires
    ]
    return "".join(lines)


def body_parts(schema: OpSchema) -> tuple[str, ...]:
    """The version's notes (`OpSchema.notes`, such as why it is deprecated), then its Attributes,
    Inputs, Outputs and Type Constraints, split where the #s of the section headings go (so one
    build serves every heading level: `VersionView.body`). Plain Python rather than a template: it
    is built for every operator version and a template render costs more. It ends without a line
    break: the pages put a blank line after it, and a page that holds no blank-line run is not
    tidied again (`markdown.page_bytes`)."""
    parts = ["".join(f"**{label}:** {prose(text)}\n\n" for label, text in schema.notes)]
    attributes = [attribute_row(attr) for attr in sorted(schema.attributes, key=lambda a: a.name)]
    if attributes:
        parts.append(f" Attributes\n\n{table(ATTRIBUTE_HEADER, attributes)}\n\n")
    inputs = [param_row(param) for param in schema.inputs]
    parts.append(
        f" Inputs{arity_text(schema.min_input, schema.max_input)}\n\n"
        + (table(PARAM_HEADER, inputs) if inputs else "No inputs.")
        + "\n\n"
    )
    outputs = [param_row(param) for param in schema.outputs]
    parts.append(
        f" Outputs{arity_text(schema.min_output, schema.max_output)}\n\n"
        + (table(PARAM_HEADER, outputs) if outputs else "No outputs.")
        + "\n\n"
        + shape_lines(schema)
    )
    constraints = [constraint_row(constraint) for constraint in schema.type_constraints]
    parts.append(
        " Type Constraints\n\n"
        + (table(CONSTRAINT_HEADER, constraints) if constraints else "No type constraints.")
    )
    return tuple(parts)


def changes_markdown(version: VersionView) -> str:
    """The diff against the previous version as a bullet list of sentences with their kind."""
    if not version.changes:
        return "No change to the signature or the documentation: this version changes behaviour only."
    return "\n".join(f"- {prose(change.message)} ({code(change.kind)})" for change in version.changes)


# --------------------------------------------------------------------------- operator views


# The views are NamedTuples rather than frozen dataclasses: cheaper to define and to make.
class VersionView(NamedTuple):
    schema: OpSchema
    anchor: str
    marks: str  # " *(experimental)*" etc., '' for a plain stable version
    since_text: str  # "This version of the operator has been available since version 3 of x."
    opsets: str  # "opsets 3 - 4"
    changes: tuple[SchemaChange, ...]
    previous: OpSchema | None
    parts: tuple[str, ...]  # the body (`body_parts`), made once: three pages show it

    def body(self, level: int) -> str:
        """Attributes, Inputs, Outputs and Type Constraints, section headings at `level`."""
        return ("#" * level).join(self.parts)


class OperatorView(NamedTuple):
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
            ()
            if previous is None
            else tuple(diff_schemas(previous, schema, old_type_sets=type_sets, new_type_sets=type_sets))
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
                body_parts(schema),
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


def operator_views(registry: Registry, domain: str) -> list[OperatorView]:
    operators = sorted(registry.operators(domain), key=lambda o: o.name)
    return [operator_view(registry, op) for op in operators]


# --------------------------------------------------------------------------- changelog entries


class OpsetEntry(NamedTuple):
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
