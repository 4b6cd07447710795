"""Plain-data (JSON-ready) views of model objects, for `--format json` outputs."""

from __future__ import annotations

from typing import Any

from toolkit.model.attr_defaults import (
    LiteralDefault,
    describe_value,
    literal_json,
)
from toolkit.model.diagnostics import Diagnostic, escape
from toolkit.model.spec import (
    MAX_ARITY,
    Attribute,
    FormalParameter,
    OpSchema,
    TypeConstraint,
    display_domain,
)


def param_dict(param: FormalParameter) -> dict[str, Any]:
    return {
        "name": param.name,
        "type": param.type_str,
        "option": param.option.value,
        "homogeneous": param.homogeneous,
        "min_arity": param.min_arity,
        "differentiability": param.differentiability.value,
        "doc": param.doc,
    }


def attribute_dict(attr: Attribute) -> dict[str, Any]:
    default: Any = attr.default
    if isinstance(default, LiteralDefault):
        default = literal_json(default)
    elif isinstance(default, tuple):
        default = list(default)
    return {"type": attr.type.value, "required": attr.required, "default": default, "doc": attr.doc}


def constraint_dict(constraint: TypeConstraint) -> dict[str, Any]:
    return {
        "allowed": list(constraint.allowed),
        "type_sets": list(constraint.type_sets),
        "doc": constraint.doc,
    }


def schema_dict(schema: OpSchema, *, docs: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": schema.id,
        "domain": display_domain(schema.domain),
        "name": schema.name,
        "since_version": schema.since_version,
        "status": schema.status.value,
        "deprecated": schema.deprecated,
        "notes": [{"label": label, "text": text} for label, text in schema.notes],
        "inputs": [param_dict(p) for p in schema.inputs],
        "outputs": [param_dict(p) for p in schema.outputs],
        "attributes": {a.name: attribute_dict(a) for a in schema.attributes},
        "type_constraints": {c.param: constraint_dict(c) for c in schema.type_constraints},
        "min_input": schema.min_input,
        "max_input": schema.max_input,
        "min_output": schema.min_output,
        "max_output": schema.max_output,
        "location": str(schema.location),
    }
    if docs:
        out["doc"] = schema.doc
    else:
        for section in ("inputs", "outputs"):
            for item in out[section]:
                item.pop("doc")
        for table in ("attributes", "type_constraints"):
            for item in out[table].values():
                item.pop("doc")
    return out


def diagnostic_dict(diag: Diagnostic, repo_path: str | None = None) -> dict[str, Any]:
    """`repo_path`: the file's path from the repository root, when the caller knows it."""
    out = {
        "rule": diag.rule,
        "severity": diag.severity.value,
        "message": diag.message,
        "hint": diag.hint,
        "file": diag.location.file,
        "line": diag.location.line,
        "column": diag.location.column,
    }
    if repo_path is not None:
        out["path"] = repo_path
    return out


def schema_text(schema: OpSchema) -> str:
    """A terminal-friendly summary of one resolved operator version (`opset show`). Names, notes
    and docs are the tree's text: each line is escaped (`escape`) after the text is split into
    lines, so a doc keeps its lines and indentation and nothing from the tree starts a line."""
    flags = [schema.status.value] + (["deprecated"] if schema.deprecated else [])
    lines = [f"{schema.id}  ({', '.join(flags)})  {schema.location}"]
    if schema.based_on is not None:
        lines.append(f"  based on version {schema.based_on}")
    for label, text in schema.notes:
        first, *rest = text.strip().split("\n")
        lines += [f"  {label}: {first}", *("    " + line if line else "" for line in rest)]
    for title, params, low, high in (
        ("inputs", schema.inputs, schema.min_input, schema.max_input),
        ("outputs", schema.outputs, schema.min_output, schema.max_output),
    ):
        lines.append(f"  {title} ({low} - {_count(high)}):")
        lines += [f"    {p.name}: {p.type_str} [{p.option.value}]" for p in params] or ["    (none)"]
    lines.append("  attributes:")
    for attr in schema.attributes:
        extra = (
            "required"
            if attr.required
            else (f"default {describe_value(attr.default)}" if attr.default is not None else "optional")
        )
        lines.append(f"    {attr.name}: {attr.type.value} ({extra})")
    if not schema.attributes:
        lines.append("    (none)")
    lines.append("  type constraints:")
    lines += [f"    {c.param}: {', '.join(c.allowed)}" for c in schema.type_constraints] or ["    (none)"]
    if schema.doc:
        lines.append("")
        lines += ["  " + line if line else "" for line in schema.doc.strip().split("\n")]
    return "\n".join(escape(line) for line in lines)


def _count(value: int) -> str:
    return "∞" if value == MAX_ARITY else str(value)
