"""onnxruntime's operator schemas, seen through the attribute names of onnx's schema objects.

onnxruntime's pybind `OpSchema` objects are not onnx's: a formal parameter has `typeStr` and
`isHomogeneous` (onnx: `type_str`, `is_homogeneous`) and neither `min_arity` nor
`differentiation_category`; an attribute's default is only the serialized `AttributeProto` in
`_default_value`; the attribute-type enum has no name for TYPE_PROTO. The views here give the
importer one shape for both packages:

- `min_arity` of a variadic parameter follows from the schema's counts, the way onnx computes
  them (`min_input` = number of parameters before the variadic one + its min arity);
- `differentiation_category` is "Unknown": onnxruntime does not expose it;
- the default is decoded with onnx's `AttributeProto` at run time (onnx is needed for that).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolkit.model.diagnostics import UsageError
from toolkit.onnx_bridge.missing import not_installed

# AttributeProto.AttributeType numbers (onnx.proto facts) -> the enum names onnx's pybind uses.
_ATTR_TYPE_NAMES = {
    0: "UNDEFINED",
    1: "FLOAT",
    2: "INT",
    3: "STRING",
    4: "TENSOR",
    5: "GRAPH",
    6: "FLOATS",
    7: "INTS",
    8: "STRINGS",
    9: "TENSORS",
    10: "GRAPHS",
    11: "SPARSE_TENSOR",
    12: "SPARSE_TENSORS",
    13: "TYPE_PROTO",
    14: "TYPE_PROTOS",
}


@dataclass(frozen=True)
class ParamView:
    name: str
    type_str: str
    description: str
    option: str  # "FormalParameterOption.Single" / ".Optional" / ".Variadic", as str(onnx's enum)
    is_homogeneous: bool
    min_arity: int
    differentiation_category: str = "DifferentiationCategory.Unknown"


@dataclass(frozen=True)
class AttributeView:
    name: str
    type: str  # "AttrType.INT", as str(onnx's enum)
    required: bool
    default_value: Any  # onnx.AttributeProto, or None
    description: str


@dataclass(frozen=True)
class ConstraintView:
    type_param_str: str
    allowed_type_strs: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class SchemaView:
    name: str
    domain: str
    since_version: int
    support_level: str
    deprecated: bool
    doc: str
    inputs: tuple[ParamView, ...]
    outputs: tuple[ParamView, ...]
    attributes: dict[str, AttributeView]
    type_constraints: tuple[ConstraintView, ...]


def ort_schemas(check_release: Callable[[str, str], None] | None = None) -> list[SchemaView]:
    """Every operator schema the installed onnxruntime registers, all domains. `check_release`
    is given onnxruntime's version first (the importer refuses releases it does not support).
    onnxruntime before 1.22 is built without operator docs: every doc is empty, and the views
    carry it empty (the gate reads an empty doc as unknown, never as a change)."""
    try:
        import onnxruntime  # type: ignore[import-untyped,import-not-found,unused-ignore]
        from onnxruntime.capi import onnxruntime_pybind11_state as ort_state  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise not_installed("onnxruntime", "reading onnxruntime's operator table") from None
    if check_release is not None:
        check_release("onnxruntime", str(onnxruntime.__version__))
    getter = getattr(ort_state, "get_all_operator_schema", None)
    if getter is None:
        raise UsageError("this onnxruntime build does not expose its operator schemas")
    try:
        import onnx
    except ImportError:
        raise not_installed("onnx", "reading onnxruntime's attribute defaults") from None
    return [_schema(s, onnx.AttributeProto) for s in getter()]


def _schema(schema: Any, attribute_proto: Any) -> SchemaView:
    return SchemaView(
        name=schema.name,
        domain=schema.domain,
        since_version=int(schema.since_version),
        support_level=str(schema.support_level),
        deprecated=bool(schema.deprecated),
        doc=schema.doc or "",
        inputs=_params(schema.inputs, int(schema.min_input)),
        outputs=_params(schema.outputs, int(schema.min_output)),
        attributes={name: _attribute(name, a, attribute_proto) for name, a in schema.attributes.items()},
        type_constraints=tuple(
            ConstraintView(tc.type_param_str, tuple(tc.allowed_type_strs), tc.description or "")
            for tc in schema.type_constraints
        ),
    )


def _params(params: Any, minimum: int) -> tuple[ParamView, ...]:
    out = []
    for index, param in enumerate(params):
        option = str(param.option)
        variadic = option.endswith("Variadic")
        out.append(
            ParamView(
                name=param.name,
                type_str=param.typeStr,
                description=param.description or "",
                option=option,
                is_homogeneous=bool(param.isHomogeneous),
                min_arity=max(0, minimum - index) if variadic else 1,
            )
        )
    return tuple(out)


def _attribute(name: str, attr: Any, attribute_proto: Any) -> AttributeView:
    default = None
    if attr._default_value:  # the serialized AttributeProto; empty when there is no default
        default = attribute_proto()
        default.ParseFromString(attr._default_value)
    return AttributeView(
        name=name,
        type=f"AttrType.{_ATTR_TYPE_NAMES.get(int(attr.type), 'UNDEFINED')}",
        required=bool(attr.required),
        default_value=default,
        description=attr.description or "",
    )
