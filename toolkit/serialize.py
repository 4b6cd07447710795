"""Plain-data (JSON-ready) views of model objects, for `--format json` outputs."""

from __future__ import annotations

from typing import Any

from toolkit.model import Attribute, FormalParameter, OpSchema, TypeConstraint, display_domain


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
    default = list(attr.default) if isinstance(attr.default, tuple) else attr.default
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
