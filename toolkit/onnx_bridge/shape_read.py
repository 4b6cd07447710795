"""How the model walk (`shape_infer`) and the inference functions `register_onnx` gives onnx read
onnx values: a TypeProto's shape, a constant tensor held in the model, an attribute's value as a
rule sees it. One reading of each for both.
"""

from __future__ import annotations

import math
from typing import Any

from toolkit.model.types import ELEMENT_TYPE_NUMBERS
from toolkit.shapes.engine import MAX_LIST
from toolkit.shapes.values import ABSENT, Shape, Sym, Value

__all__ = ["MAX_CONSTANT", "Constant", "attribute_value", "constant_node", "shape_of", "tensor_constant"]

MAX_CONSTANT = MAX_LIST  # elements of a constant read for value(I)
# a bool's items are 0 and 1 (Where's condition, as Equal's value rule gives it)
_INT_TYPES = {
    ELEMENT_TYPE_NUMBERS[t] for t in ("int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "bool")
}
# Resize's and Upsample's scales, a float Range's bounds: their items are floats (docs/guide/shapes.md,
# "Values"); one that is not finite makes the constant unknown (no runtime sizes by a NaN)
_FLOAT_TYPES = {ELEMENT_TYPE_NUMBERS[t] for t in ("float", "double", "float16")}
Constant = tuple[int | float, ...]


def shape_of(type_proto: Any) -> Shape:
    """A tensor's shape; an optional tensor's is the shape of the tensor it holds (only
    OptionalGetElement's rule reads it: a value is written only where its type is a tensor)."""
    if type_proto.WhichOneof("value") == "optional_type":
        type_proto = type_proto.optional_type.elem_type
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    dims: list[int | Sym | None] = []
    for dim in type_proto.tensor_type.shape.dim:
        kind = dim.WhichOneof("value")
        dims.append(
            (dim.dim_value if dim.dim_value >= 0 else None)
            if kind == "dim_value"
            else Sym(dim.dim_param)
            if kind == "dim_param"
            else None
        )
    return tuple(dims)


_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def tensor_constant(tensor: Any) -> tuple[Shape, Constant | None]:
    """A tensor's shape, and its values when it is a small integer or float tensor of rank 0 or 1
    held in the model (at most `MAX_CONSTANT` items).

    Never external data: reading it would open a file the model names (relative to the working
    directory). A tensor whose stored values do not match its dims has no values, never an error."""
    shape = tuple(int(d) if d >= 0 else None for d in tensor.dims)
    kind = tensor.data_type
    floats = kind in _FLOAT_TYPES
    if not (floats or kind in _INT_TYPES) or len(shape) > 1 or tensor.data_location == _EXTERNAL:
        return shape, None
    count = shape[0] if shape else 1
    if count is None or count > MAX_CONSTANT:
        return shape, None
    from onnx import numpy_helper

    try:
        values = numpy_helper.to_array(tensor).reshape(-1).tolist()
    except (ValueError, TypeError, OverflowError):
        return shape, None
    return shape, _floats(values) if floats else tuple(int(v) for v in values)


def _floats(values: Any) -> Constant | None:
    items = tuple(float(v) for v in values)
    return items if all(map(math.isfinite, items)) else None


# Constant's other ways to give its tensor (AttributeProto.type of each): a scalar or a list of
# ints, floats or strings, as onnxscript writes `Constant <value_float = @alpha>`
_SCALAR_FIELDS = {"value_int": (2, "i"), "value_float": (1, "f"), "value_string": (3, "")}
_LIST_FIELDS = {"value_ints": (7, "ints"), "value_floats": (6, "floats"), "value_strings": (8, "strings")}


def constant_node(attrs: Any) -> tuple[Shape, Constant | None] | None:
    """The shape and values of ai.onnx's Constant node with these attributes (as `tensor_constant`
    reads a tensor), or None when it sets none of the ways (or a reference only a caller binds)."""
    for attr in attrs:
        name = attr.name
        if attr.ref_attr_name:
            continue
        if name == "value" and attr.type == _TENSOR and attr.HasField("t"):
            return tensor_constant(attr.t)
        if name == "sparse_value" and attr.type == 11:
            return tuple(int(d) if d >= 0 else None for d in attr.sparse_tensor.dims), None
        scalar = _SCALAR_FIELDS.get(name)
        if scalar is not None and attr.type == scalar[0]:
            if scalar[1] == "i":
                return (), (attr.i,)
            return (), (_floats((attr.f,)) if scalar[1] == "f" else None)
        listed = _LIST_FIELDS.get(name)
        if listed is not None and attr.type == listed[0]:
            items = getattr(attr, listed[1])
            count = len(items)
            if count > MAX_CONSTANT or listed[1] == "strings":
                return (count,), None
            return (count,), tuple(items) if listed[1] == "ints" else _floats(items)
    return None


# AttributeProto.type -> how a rule sees the attribute's value (onnx.helper.get_attribute_value's
# fields, read directly: this runs for every node whose rules name an attribute)
_SCALARS = {1: "f", 2: "i"}
_LISTS = {6: "floats", 7: "ints", 9: "tensors", 10: "graphs", 12: "sparse_tensors", 14: "type_protos"}
_STRING, _STRINGS, _TENSOR = 3, 8, 4
_MESSAGES = frozenset({0, 5, 11, 13})  # undefined, or one message: not a value a rule reads


def attribute_value(attr: Any) -> Value:
    if attr.ref_attr_name:
        return None  # a function body's reference: set, to a value only the caller knows
    kind = attr.type
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        return getattr(attr, scalar)
    listed = _LISTS.get(kind)
    if listed is not None:
        return tuple(getattr(attr, listed))
    if kind == _STRING:
        return attr.s.decode("utf-8", "replace")
    if kind == _STRINGS:
        return tuple(v.decode("utf-8", "replace") for v in attr.strings)
    if kind == _TENSOR:  # a small tensor's items, as value(I) reads one (ConstantOfShape's value)
        return tensor_constant(attr.t)[1]
    return ABSENT if kind in _MESSAGES else None  # a type onnx does not define: not known
