"""The `default:` of a tensor, sparse-tensor or graph attribute -> its model value, with located
ATTR-DEFAULT-TYPE errors (`toolkit.model.attr_defaults.LITERAL_DEFAULT_TYPES`).

- tensor: a tensor literal, the form examples use (`{dtype: float, shape: [2], data: [1.0, 2.0]}`),
  read by the one reader of that form (`toolkit.load.tensor_literal`); a default is inline, so
  `file:` is refused;
- sparse tensor: `{values: <literal>, indices: <literal>, dims: [..]}`, as onnx's
  SparseTensorProto: rank-1 values, int64 indices of shape [NNZ] (linear) or [NNZ, rank], in
  range and ascending, and the dense shape;
- graph: a string in ONNX's textual syntax, `name (inputs) => (outputs) { nodes }`, parsed by the
  toolkit's own parser (`toolkit.model.onnx_text.parse_graph`) as function bodies are.

The spec file is untrusted: a literal's elements are bounded by the file's size, the dense tensor
a sparse default stands for by `MAX_SPARSE_ELEMENTS`, so that nothing that reads it whole (onnx's
checker, a runtime handed `register_onnx`'s default) is handed a bomb, and a graph's nesting by
its parser (`toolkit.model.onnx_text.MAX_NESTING`).
"""

from __future__ import annotations

import math
from typing import Any

from toolkit.load.tensor_literal import TensorLiteralReader
from toolkit.load.yamlsrc import Source
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.examples import ExampleTensor, GraphValue, SparseTensorValue
from toolkit.model.integers import bounded_size, is_size
from toolkit.model.onnx_text import TextParseError, parse_graph
from toolkit.model.spec import AttrDefault, AttrType, Location

Path_ = tuple[str | int, ...]

RULE = "ATTR-DEFAULT-TYPE"
TENSOR_HINT = "write the default as `{dtype: float, shape: [2], data: [1.0, 2.0]}`"
SPARSE_HINT = "write `{values: {dtype: float, data: [5.0]}, indices: {dtype: int64, data: [3]}, dims: [4]}`"
GRAPH_HINT = "write the graph as `name (float[N] X) => (float[N] Y) { Y = Relu (X) }`"
# The most elements the dense tensor of a sparse default may have: 2**20, 8 MiB dense in the widest
# element types. A dense default is written out in the spec file, whose 4 MiB cap (2 bytes or more
# an element, `1,`) holds under 2 Mi elements, so a sparse default stands for no more than a dense
# one could spell out; onnx's own tensor defaults have a handful of elements.
MAX_SPARSE_ELEMENTS = 2**20


def literal_default(
    source: Source, at: Path_, attr_type: AttrType, value: Any, diags: list[Diagnostic]
) -> AttrDefault | None:
    """The default at `at` of an attribute of one of the LITERAL_DEFAULT_TYPES, or None (reported)."""
    reader = _DefaultReader(source, diags)
    if attr_type is AttrType.TENSOR:
        return reader.tensor(at, value, TENSOR_HINT)
    if attr_type is AttrType.SPARSE_TENSOR:
        return reader.sparse(at, value)
    return reader.graph(at, value)


class _DefaultReader:
    def __init__(self, source: Source, diags: list[Diagnostic]) -> None:
        self.source = source
        self.diags = diags

    def error(self, message: str, at: Path_ | Location, hint: str) -> None:
        where = at if isinstance(at, Location) else self.source.loc(*at)
        self.diags.append(Diagnostic(RULE, message, where, hint))

    def tensor(self, at: Path_, value: Any, hint: str) -> ExampleTensor | None:
        if not isinstance(value, dict):
            self.error(f"default {value!r} is not a tensor literal", at, hint)
            return None
        if "file" in value:
            self.error("a default tensor is written inline, not read from a file", (*at, "file"), hint)
            return None
        reader = TensorLiteralReader(
            self.source, self.diags, RULE, hint, what="a default tensor", files=False
        )
        return reader.literal(at, value)

    def sparse(self, at: Path_, value: Any) -> SparseTensorValue | None:
        keys = {"values", "indices", "dims"}
        if not isinstance(value, dict) or set(value) != keys:
            self.error("a sparse tensor default has exactly `values`, `indices` and `dims`", at, SPARSE_HINT)
            return None
        dims = value["dims"]
        if not isinstance(dims, list) or not all(is_size(d) for d in dims):
            self.error("`dims` is a list of sizes (whole numbers >= 0)", (*at, "dims"), SPARSE_HINT)
            return None
        values = self.tensor((*at, "values"), value["values"], SPARSE_HINT)
        indices = self.tensor((*at, "indices"), value["indices"], SPARSE_HINT)
        if values is None or indices is None:
            return None
        if bounded_size(tuple(dims), MAX_SPARSE_ELEMENTS) is None:
            self.error(
                f"the dense tensor of `dims` {dims} has more than {MAX_SPARSE_ELEMENTS} elements",
                (*at, "dims"),
                "use a smaller default; a larger one belongs in the operator's doc",
            )
            return None
        if len(values.shape) != 1:
            self.error("`values` is a list (rank 1): the non-zero elements", (*at, "values"), SPARSE_HINT)
            return None
        problem = _indices_problem(indices, values.shape[0], tuple(dims))
        if problem:
            self.error(problem, (*at, "indices"), "give each non-zero element's position once, in order")
            return None
        return SparseTensorValue(values, indices, tuple(dims))

    def graph(self, at: Path_, value: Any) -> GraphValue | None:
        if not isinstance(value, str):
            self.error(f"default {value!r} is not a graph in ONNX's textual syntax", at, GRAPH_HINT)
            return None
        try:
            parse_graph(value)
        except TextParseError as error:
            start, literal = self.source.text_loc(*at)
            where = (
                Location(start.file, start.line + error.pos.line - 1, start.column + error.pos.column - 1)
                if literal  # the text's lines and columns are the source's (as for function bodies)
                else start
            )
            self.error(
                f"the graph default is not in ONNX's textual syntax: {error.message}", where, GRAPH_HINT
            )
            return None
        return GraphValue(value)


def _indices_problem(indices: ExampleTensor, count: int, dims: tuple[int, ...]) -> str:
    """Why `indices` are not the positions of `count` values in a tensor of shape `dims` ("" when
    they are): onnx's rules for SparseTensorProto (int64; [NNZ] linear or [NNZ, rank]; in range;
    strictly ascending)."""
    if indices.dtype != "int64":
        return f"`indices` are int64, not {indices.dtype}"
    rank = len(dims)
    if indices.shape not in ((count,), (count, rank)):
        return f"`indices` have shape {list(indices.shape)}, not [{count}] or [{count}, {rank}]"
    linear: list[int] = []
    if len(indices.shape) == 1:
        linear = [int(v) for v in indices.data]
    else:
        for row in range(count):
            point = indices.data[row * rank : (row + 1) * rank]
            if any(not 0 <= int(v) < d for v, d in zip(point, dims, strict=True)):
                return f"index {list(point)} is outside dims {list(dims)}"
            flat = 0
            for v, d in zip(point, dims, strict=True):
                flat = flat * d + int(v)
            linear.append(flat)
    size = math.prod(dims)
    for before, index in zip([-1, *linear], linear, strict=False):
        if not 0 <= index < size:
            return f"index {index} is outside the {size} elements of dims {list(dims)}"
        if index <= before:
            return "`indices` are not strictly ascending"
    return ""
