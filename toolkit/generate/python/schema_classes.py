"""Schema classes: one `OpSchemaInfo` subclass per operator version, as template-ready source."""

from __future__ import annotations

from typing import NamedTuple

from toolkit.generate.python.names import schema_class_name
from toolkit.generate.python.source import (
    Arg,
    SourceMemo,
    docstring,
    needs_math,
    py_literal,
    spec_default_text,
    str_literal,
)
from toolkit.model.attr_defaults import (
    LITERAL_DEFAULT_TYPES,
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


class SchemaClass(NamedTuple):  # not a frozen dataclass: one per operator version, cheaper to make
    name: str
    schema: OpSchema
    docstring: str
    inputs: list[list[str]]  # each: the source lines of one ParamInfo(...)
    outputs: list[list[str]]
    attributes: list[list[str]]
    constraints: list[list[str]]
    uses_math: bool  # an attribute default is NaN or infinite (`math.nan`, `math.inf`)


# The `_args` functions are the one place that says which fields of a model object its record
# shows; the memo keys on the arguments they give (with the doc), never on a list of fields of
# its own, so a field that starts to show in the text cannot be left out of the key.


def _param_args(param: FormalParameter) -> list[Arg]:
    args: list[Arg] = [str_literal(param.name), str_literal(param.type_str)]
    if param.option is not ParamOption.SINGLE:
        args.append(f"option={str_literal(param.option.value)}")
    if param.min_arity != 1:
        args.append(f"min_arity={param.min_arity}")
    if not param.homogeneous:
        args.append("homogeneous=False")
    if param.differentiability.value != "unknown":
        args.append(f"differentiability={str_literal(param.differentiability.value)}")
    return args


def _attr_args(attr: Attribute) -> list[Arg]:
    args: list[Arg] = [str_literal(attr.name), str_literal(attr.type.value)]
    if attr.required:
        args.append("required=True")
    if attr.default is not None and attr.type not in LITERAL_DEFAULT_TYPES:
        args.append(f"default={py_literal(attr.default)}")
    return args


def _attr_doc(attr: Attribute) -> str:
    """The attribute's doc; a tensor, sparse-tensor or graph default is named in it (as text: its
    Python literal would be unwieldy, and the generated package holds no tensor class)."""
    if attr.default is None or attr.type not in LITERAL_DEFAULT_TYPES:
        return attr.doc
    return f"{attr.doc} (default {spec_default_text(attr)})".strip()


def _constraint_args(constraint: TypeConstraint, memo: SourceMemo) -> list[Arg]:
    # a long list of types gets one type per line (a Bracket)
    return [str_literal(constraint.param), memo.type_tuple(constraint.allowed)]


def build_schema_class(schema: OpSchema, memo: SourceMemo | None = None) -> SchemaClass:
    """The schema class of one operator version; `memo` shares repeated text between the
    versions of a domain (a fresh one when None)."""
    if memo is None:
        memo = SourceMemo()
    head = f"{display_domain(schema.domain)}.{schema.name}, since_version {schema.since_version}"
    flags = [s for s, on in (("EXPERIMENTAL", schema.experimental), ("DEPRECATED", schema.deprecated)) if on]
    # The class docstring gives the doc's first paragraph; the whole doc is the `doc` attribute (a
    # module constant shared by the versions whose doc is the same, so it is written once).
    text = head + (f" ({', '.join(flags)})" if flags else "") + ".\n\n"
    text += "".join(f"{label}: {note}\n\n" for label, note in schema.notes)
    text += memo.summary(schema.doc or "")
    return SchemaClass(
        name=schema_class_name(schema.name, schema.since_version),
        schema=schema,
        docstring=docstring(text, 4, memo),
        inputs=[memo.call_lines("ParamInfo", _param_args(p), p.doc) for p in schema.inputs],
        outputs=[memo.call_lines("ParamInfo", _param_args(p), p.doc) for p in schema.outputs],
        attributes=[memo.call_lines("AttrInfo", _attr_args(a), _attr_doc(a)) for a in schema.attributes],
        constraints=[
            memo.call_lines("TypeConstraintInfo", _constraint_args(c, memo), c.doc)
            for c in schema.type_constraints
        ],
        uses_math=any(
            needs_math(a.default) for a in schema.attributes if a.type not in LITERAL_DEFAULT_TYPES
        ),
    )
