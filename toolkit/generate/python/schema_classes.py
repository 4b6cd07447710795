"""Schema classes: one `OpSchemaInfo` subclass per operator version, as template-ready source."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from toolkit.generate.python.names import schema_class_name
from toolkit.generate.python.source import (
    Arg,
    SourceMemo,
    call_lines,
    docstring,
    needs_math,
    py_literal,
    str_literal,
)
from toolkit.model.spec import (
    Attribute,
    FormalParameter,
    OpSchema,
    ParamOption,
    TypeConstraint,
    display_domain,
)

__all__ = ["SchemaClass", "build_schema_class"]


@dataclass(frozen=True)
class SchemaClass:
    name: str
    schema: OpSchema
    docstring: str
    inputs: list[list[str]]  # each: the source lines of one ParamInfo(...)
    outputs: list[list[str]]
    attributes: list[list[str]]
    constraints: list[list[str]]
    uses_math: bool  # an attribute default is NaN or infinite (`math.nan`, `math.inf`)


def _param_lines(param: FormalParameter, memo: SourceMemo) -> list[str]:
    key = (
        "ParamInfo", param.name, param.type_str, param.option, param.min_arity, param.homogeneous,
        param.differentiability, param.doc,
    )  # fmt: skip
    return memo.lines(key, partial(_param_call, param))


def _param_call(param: FormalParameter) -> list[str]:
    args = [str_literal(param.name), str_literal(param.type_str)]
    if param.option is not ParamOption.SINGLE:
        args.append(f"option={str_literal(param.option.value)}")
    if param.min_arity != 1:
        args.append(f"min_arity={param.min_arity}")
    if not param.homogeneous:
        args.append("homogeneous=False")
    if param.differentiability.value != "unknown":
        args.append(f"differentiability={str_literal(param.differentiability.value)}")
    return call_lines("ParamInfo", args, param.doc)


def _attr_call(attr: Attribute) -> list[str]:
    args = [str_literal(attr.name), str_literal(attr.type.value)]
    if attr.required:
        args.append("required=True")
    if attr.default is not None:
        args.append(f"default={py_literal(attr.default)}")
    return call_lines("AttrInfo", args, attr.doc)


def _attr_lines(schema: OpSchema, memo: SourceMemo) -> list[list[str]]:
    # the default by its repr: 1, 1.0, True and -0.0, 0.0 are equal keys but different literals
    return [
        memo.lines(("AttrInfo", a.name, a.type, a.required, repr(a.default), a.doc), partial(_attr_call, a))
        for a in schema.attributes
    ]


def _constraint_call(constraint: TypeConstraint, memo: SourceMemo) -> list[str]:
    # a long list of types gets one type per line
    args: list[Arg] = [str_literal(constraint.param), memo.type_tuple(constraint.allowed)]
    return call_lines("TypeConstraintInfo", args, constraint.doc)


def _constraint_lines(schema: OpSchema, memo: SourceMemo) -> list[list[str]]:
    return [
        memo.lines(("TypeConstraintInfo", c.param, c.allowed, c.doc), partial(_constraint_call, c, memo))
        for c in schema.type_constraints
    ]


def build_schema_class(schema: OpSchema, memo: SourceMemo | None = None) -> SchemaClass:
    """The schema class of one operator version; `memo` shares repeated text between the
    versions of a domain (a fresh one when None)."""
    if memo is None:
        memo = SourceMemo()
    head = f"{display_domain(schema.domain)}.{schema.name}, since_version {schema.since_version}"
    flags = [s for s, on in (("EXPERIMENTAL", schema.experimental), ("DEPRECATED", schema.deprecated)) if on]
    # The class docstring gives the doc's first paragraph; the whole doc is the `doc` attribute (a
    # module constant shared by the versions whose doc is the same, so it is written once).
    text = head + (f" ({', '.join(flags)})" if flags else "") + ".\n\n" + memo.summary(schema.doc or "")
    return SchemaClass(
        name=schema_class_name(schema.name, schema.since_version),
        schema=schema,
        docstring=docstring(text, 4, memo),
        inputs=[_param_lines(p, memo) for p in schema.inputs],
        outputs=[_param_lines(p, memo) for p in schema.outputs],
        attributes=_attr_lines(schema, memo),
        constraints=_constraint_lines(schema, memo),
        uses_math=any(needs_math(a.default) for a in schema.attributes),
    )
