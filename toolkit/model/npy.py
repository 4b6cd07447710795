"""Reading `.npy` files (NumPy's array format, version 1.0 to 3.0) without numpy.

numpy is not a core dependency, and an example file is small: the header is a Python literal
(`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}`) and the data follows it in row-major
order, so the standard library reads it. Only the element types examples support are accepted.
"""

from __future__ import annotations

import ast
import struct

from toolkit.model.examples import ExampleTensor, unpack_elements
from toolkit.model.integers import MAX_DIMENSION, bounded_size, is_size

MAGIC = b"\x93NUMPY"
# numpy's type codes (without byte order) -> (element type, struct format).
_CODES = {
    "f2": ("float16", "e"),
    "f4": ("float", "f"),
    "f8": ("double", "d"),
    "i1": ("int8", "b"),
    "i2": ("int16", "h"),
    "i4": ("int32", "i"),
    "i8": ("int64", "q"),
    "u1": ("uint8", "B"),
    "u2": ("uint16", "H"),
    "u4": ("uint32", "I"),
    "u8": ("uint64", "Q"),
    "b1": ("bool", "?"),
}


# numpy refuses to read a longer header unless told to (`max_header_size`, numpy >= 1.24)
MAX_HEADER = 10_000


class NpyError(ValueError):
    """Bytes that are not a supported `.npy` array."""


def read_npy(data: bytes) -> ExampleTensor:
    if not data.startswith(MAGIC) or len(data) < 10:
        raise NpyError("not a .npy file (no \\x93NUMPY magic)")
    major = data[6]
    if major == 1:
        (length,) = struct.unpack("<H", data[8:10])
        start = 10
    elif major in (2, 3):
        (length,) = struct.unpack("<I", data[8:12])
        start = 12
    else:
        raise NpyError(f".npy format version {major} is not supported")
    if length > MAX_HEADER:  # the header is parsed as a Python literal: bound what is parsed
        raise NpyError(f"the .npy header is {length} bytes (at most {MAX_HEADER}; numpy writes about 128)")
    try:
        header = ast.literal_eval(data[start : start + length].decode("latin-1" if major < 3 else "utf-8"))
    except (ValueError, SyntaxError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
        raise NpyError("the .npy header is not a Python literal") from exc
    if not isinstance(header, dict) or not {"descr", "fortran_order", "shape"} <= header.keys():
        raise NpyError("the .npy header lacks descr, fortran_order or shape")
    descr, shape = header["descr"], header["shape"]
    if header["fortran_order"]:
        raise NpyError("Fortran-ordered arrays are not supported; save the array in C order")
    if not isinstance(shape, tuple) or not all(is_size(d) for d in shape):
        raise NpyError(f"the .npy shape is not a tuple of sizes (each 0 to {MAX_DIMENSION})")
    if not isinstance(descr, str) or descr[1:] not in _CODES or descr[0] not in "<>|=":
        raise NpyError(f"array type {descr!r} is not supported (numbers and booleans only)")
    dtype, code = _CODES[descr[1:]]
    order = ">" if descr[0] == ">" else "<"
    body = data[start + length :]
    width = struct.calcsize(order + code)
    # Multiplied out only as far as 2**64 elements: a product of thousands of digits costs time,
    # and a message could not even print it.
    size = bounded_size(tuple(shape), 2**64)
    if size is None or len(body) != size * width:
        promised = f"{size * width}" if size is not None else "more than 2**64 elements"
        raise NpyError(f"the data holds {len(body)} bytes, the header promises {promised}")
    return ExampleTensor(dtype, tuple(shape), unpack_elements(code, order, body))
