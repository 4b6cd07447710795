"""Examples of an operator version: a node, its input tensors and the outputs it must produce.

An example is plain data (no numpy): a tensor is its element type, its shape and its elements
flattened in row-major order as Python values (`float` for the floating types, `int` for the
integer types, `bool`, `str`). The loader reads literals and `.npy` / TensorProto `.pb` files into
this form (`toolkit.load.build_examples`), so every later layer (codec, docs, backend test data,
`opset test-runtime`) works on the same values whatever the source was.

The records are here (`Example`, `ExampleAttribute`, `ExampleTensor`, and the sparse-tensor and
graph values that attribute defaults share with tensors, `spec.AttrDefault`), below
`toolkit.model.spec`, whose operator versions hold them.
"""

from __future__ import annotations

import functools
import math
import struct
import sys
from array import array
from dataclasses import dataclass, field

from toolkit.model.record import Record
from toolkit.model.spec_base import NOWHERE, AttrType, Location

# onnx's backend test runner compares with numpy.testing.assert_allclose(rtol=1e-3, atol=1e-7);
# an example without `tolerance` is held to the same.
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7
Element = float | int | bool | str


@dataclass(frozen=True, slots=True)
class ExampleTensor(Record):
    """A tensor value: element type (`float`, `int64`, ...), shape and row-major elements."""

    dtype: str
    shape: tuple[int, ...]
    data: tuple[Element, ...]
    file: str = ""  # the file the value was read from, relative to the spec ("" for a literal)
    location: Location = field(default=NOWHERE, compare=False)

    @property
    def type_str(self) -> str:
        return f"tensor({self.dtype})"

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True, slots=True)
class SparseTensorValue(Record):
    """A sparse tensor default, as onnx's SparseTensorProto (`toolkit.model.attr_defaults`)."""

    values: ExampleTensor  # the non-zero elements, rank 1
    indices: ExampleTensor  # int64: [NNZ] linear indices or [NNZ, rank] coordinates, ascending
    dims: tuple[int, ...]  # the dense shape


@dataclass(frozen=True, slots=True)
class GraphValue(Record):
    """A graph default in ONNX's textual syntax, as written (`onnx_text.parse_graph` reads it)."""

    text: str


@dataclass(frozen=True, slots=True)
class ExampleAttribute(Record):
    """A node attribute of an example, typed by the operator version's declaration."""

    name: str
    type: AttrType
    value: float | int | str | tuple[float, ...] | tuple[int, ...] | tuple[str, ...] | ExampleTensor
    location: Location = field(default=NOWHERE, compare=False)


@dataclass(frozen=True, slots=True)
class Example(Record):
    """One example of an operator version. `inputs` are positional; None is an omitted optional."""

    name: str
    doc: str = ""
    attributes: tuple[ExampleAttribute, ...] = ()
    inputs: tuple[ExampleTensor | None, ...] = ()
    outputs: tuple[ExampleTensor, ...] = ()
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    location: Location = field(default=NOWHERE, compare=False)


# The element types an example tensor may have, with the Python kind of their values.
FLOAT_TYPES = ("float", "double", "float16", "bfloat16")
INT_RANGES: dict[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}
EXAMPLE_DTYPES: tuple[str, ...] = (*FLOAT_TYPES, *INT_RANGES, "bool", "string")


def unpack_elements(code: str, order: str, body: bytes) -> tuple[Element, ...]:
    """The elements of `body`, packed with the struct code `code` in byte order `order` ('<' or
    '>'), as a tuple. An element is a pointer plus its object; the elements of 1- and 2-byte types
    (int8, uint16, float16, ...) are taken from a table of every value the type has, so they cost
    the pointer only (see the memory figures in `toolkit.load.example_files`)."""
    fmt = order + code
    width = struct.calcsize(fmt)
    if width > 2 or code == "?":  # bools are singletons already
        return tuple(v for (v,) in struct.iter_unpack(fmt, body))
    table = _every_value(fmt)
    if width == 1:
        return tuple(map(table.__getitem__, body))
    bits = array("H")
    bits.frombytes(body)
    if (order == ">") != (sys.byteorder == "big"):
        bits.byteswap()
    return tuple(map(table.__getitem__, bits))


@functools.cache
def _every_value(fmt: str) -> tuple[Element, ...]:
    """Every value of a 1- or 2-byte struct format, indexed by its bit pattern."""
    width = struct.calcsize(fmt)
    pattern = fmt[0] + ("B" if width == 1 else "H")
    return tuple(struct.unpack(fmt, struct.pack(pattern, bits))[0] for bits in range(1 << (8 * width)))


def element_problem(dtype: str, value: object) -> str:
    """Why `value` is not an element of `dtype` ("" when it is)."""
    if dtype in FLOAT_TYPES:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{value!r} is not a number"
        return ""
    if dtype in INT_RANGES:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{value!r} is not an integer"
        low, high = INT_RANGES[dtype]
        if not low <= value <= high:
            return f"{value} is outside the range of {dtype} [{low}, {high}]"
        return ""
    if dtype == "bool":
        return "" if isinstance(value, bool) else f"{value!r} is not true or false"
    if dtype == "string":
        return "" if isinstance(value, str) else f"{value!r} is not a string"
    return f"element type '{dtype}' is not supported in examples"


def normalise(dtype: str, value: Element) -> Element:
    """The canonical Python value of an element (floats as float, so 1 and 1.0 encode alike)."""
    return float(value) if dtype in FLOAT_TYPES else value


def format_tensor(tensor: ExampleTensor, limit: int = 24) -> str:
    """A short, deterministic rendering for docs and reports: `float[2, 2] = [1.0, 2.0, ...]`."""
    shown = ", ".join(_format_element(v) for v in tensor.data[:limit])
    more = ", ..." if tensor.size > limit else ""
    shape = ", ".join(str(d) for d in tensor.shape)
    return f"{tensor.dtype}[{shape}] = [{shown}{more}]"


def _format_element(value: Element) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    return repr(value)


__all__ = [
    "DEFAULT_ATOL",
    "DEFAULT_RTOL",
    "EXAMPLE_DTYPES",
    "Element",
    "Example",
    "ExampleAttribute",
    "ExampleTensor",
    "GraphValue",
    "SparseTensorValue",
    "element_problem",
    "format_tensor",
    "normalise",
]
