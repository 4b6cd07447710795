"""Tensor, sparse-tensor and graph attribute defaults (`spec.LITERAL_DEFAULT_TYPES`) as text and as
the DSL literal: the one place that says how each is shown (docs, messages, docstrings, `opset
show`) and written back (the importer, JSON). Their onnx form is `codec_functions.encode_default`.
"""

from __future__ import annotations

from typing import Any

from toolkit.model.examples import format_tensor
from toolkit.model.onnx_text import TextParseError, parse_graph
from toolkit.model.onnx_text_print import print_graph
from toolkit.model.spec import ExampleTensor, GraphValue, SparseTensorValue

LiteralDefault = ExampleTensor | SparseTensorValue | GraphValue


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
