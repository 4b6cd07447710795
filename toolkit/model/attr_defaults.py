"""Attribute defaults: which types have one (a scalar or list; a tensor, sparse-tensor or graph
literal: `spec.AttrDefault`), and how each is shown (docs, messages, docstrings, `opset show`) and
written back as the DSL literal (the importer, JSON). Their onnx form is
`codec_functions.encode_default`; the loader reads them in `load.build_values` and
`load.build_defaults`.
"""

from __future__ import annotations

from typing import Any

from toolkit.model.examples import ExampleTensor, GraphValue, SparseTensorValue, format_tensor
from toolkit.model.onnx_text import TextParseError, parse_graph
from toolkit.model.onnx_text_print import print_graph
from toolkit.model.spec import AttrType

# Attribute types whose default is a scalar or a list of them, written as YAML scalars or lists.
DEFAULTABLE_ATTR_TYPES = frozenset(
    {AttrType.FLOAT, AttrType.INT, AttrType.STRING, AttrType.FLOATS, AttrType.INTS, AttrType.STRINGS}
)
# Attribute types whose default is a literal: a tensor, a sparse tensor or a graph.
LITERAL_DEFAULT_TYPES = frozenset({AttrType.TENSOR, AttrType.SPARSE_TENSOR, AttrType.GRAPH})
LiteralDefault = ExampleTensor | SparseTensorValue | GraphValue


def describe_value(value: object) -> str:
    """A default value as prose: strings quoted, lists bracketed, floats as written."""
    if isinstance(value, LiteralDefault):
        return literal_text(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(describe_value(v) for v in value) + "]"
    return repr(value)


def literal_text(value: LiteralDefault) -> str:
    """One line: `float[2] = [1.5, -2.0]`; `sparse int64[2, 2]: values ..., indices ...`; a graph
    printed on one line (long tensors are cut after 24 elements, as examples are shown)."""
    if isinstance(value, ExampleTensor):
        return format_tensor(value)
    if isinstance(value, SparseTensorValue):
        dims = ", ".join(str(d) for d in value.dims)
        return (
            f"sparse {value.values.dtype}[{dims}]: values {format_tensor(value.values)}, "
            f"indices {format_tensor(value.indices)}"
        )
    try:  # printed again: comments dropped, so the lines can be joined
        text = print_graph(parse_graph(value.text))
    except TextParseError:
        text = value.text
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def literal_json(value: LiteralDefault) -> Any:
    """The DSL literal (what `default:` holds in a spec file) as JSON-able data."""
    if isinstance(value, ExampleTensor):
        return {"dtype": value.dtype, "shape": list(value.shape), "data": list(value.data)}
    if isinstance(value, SparseTensorValue):
        return {
            "values": literal_json(value.values),
            "indices": literal_json(value.indices),
            "dims": list(value.dims),
        }
    return value.text
