"""A small protobuf wire-format codec for the ONNX messages example test data needs.

Writes TensorProto and ModelProto bytes (field numbers are facts of onnx.proto) and reads
TensorProto bytes back, without the onnx package: test data must be writable where only the core
dependencies are installed. Output is deterministic: fields in field-number order, numeric
tensor data as little-endian `raw_data`, repeated scalars unpacked (what a proto2 parser expects;
every parser accepts both forms on input). Its field writers serve the operator set documents'
fragments too (`toolkit.generate.proto_fragments`).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence

from toolkit.model.examples import Element, ExampleTensor, unpack_elements
from toolkit.model.types import ELEMENT_TYPE_NUMBERS

ELEMENT_TYPE_NAMES = {number: name for name, number in ELEMENT_TYPE_NUMBERS.items()}
# struct formats of the element types stored as plain little-endian values in raw_data.
_RAW_FORMATS = {
    "float": "f",
    "double": "d",
    "float16": "e",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "bool": "?",
}
_FLOAT16_MAX = 65504.0


class WireError(ValueError):
    """Bytes that are not the protobuf message they were read as."""


# -- writing ---------------------------------------------------------------------------------


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 values are written as their two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def field_bytes(number: int, value: bytes | str) -> bytes:
    data = value.encode("utf-8") if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def field_float(number: int, value: float) -> bytes:
    return varint(number << 3 | 5) + struct.pack("<f", _float32(value))


def _float32(value: float) -> float:
    try:
        struct.pack("<f", value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")
    return value


def _bfloat16_bits(value: float) -> int:
    bits: int = struct.unpack("<I", struct.pack("<f", _float32(value)))[0]
    if value != value:  # NaN: keep it a quiet NaN
        return 0x7FC0
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even


def _raw_element(dtype: str, value: Element) -> bytes:
    if dtype == "bfloat16":
        return struct.pack("<H", _bfloat16_bits(float(value)))
    if dtype == "float16":
        number = float(value)
        if abs(number) > _FLOAT16_MAX and number == number and abs(number) != float("inf"):
            number = float("inf") if number > 0 else float("-inf")
        return struct.pack("<e", number)
    if dtype == "float":
        return struct.pack("<f", _float32(float(value)))
    return struct.pack("<" + _RAW_FORMATS[dtype], value)


def tensor_proto(tensor: ExampleTensor, name: str = "") -> bytes:
    """TensorProto bytes of an example tensor (strings in string_data, the rest as raw_data)."""
    out = b"".join(field_varint(1, dim) for dim in tensor.shape)
    out += field_varint(2, ELEMENT_TYPE_NUMBERS[tensor.dtype])
    if tensor.dtype == "string":
        out += b"".join(field_bytes(6, str(v)) for v in tensor.data)
    if name:
        out += field_bytes(8, name)
    if tensor.dtype != "string":
        out += field_bytes(9, b"".join(_raw_element(tensor.dtype, v) for v in tensor.data))
    return out


# -- reading ---------------------------------------------------------------------------------


def fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of every field of a message, in order."""
    pos = 0
    end = len(data)
    while pos < end:
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
            yield number, wire, value
        elif wire == 1:
            yield number, wire, data[pos : pos + 8]
            pos += 8
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            if pos + length > end:
                raise WireError("a length-delimited field runs past the end of the message")
            yield number, wire, data[pos : pos + length]
            pos += length
        elif wire == 5:
            yield number, wire, data[pos : pos + 4]
            pos += 4
        else:
            raise WireError(f"unsupported wire type {wire}")
        if pos > end:
            raise WireError("the message ends inside a field")


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise WireError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _varints(wire: int, value: int | bytes) -> list[int]:
    """The values of a repeated varint field, packed (wire type 2) or not."""
    if wire == 0:
        assert isinstance(value, int)
        return [value]
    assert isinstance(value, bytes)
    out = []
    pos = 0
    while pos < len(value):
        item, pos = _read_varint(value, pos)
        out.append(item)
    return out


def _fixed(wire: int, value: int | bytes, fmt: str) -> list[float]:
    assert isinstance(value, bytes)
    size = struct.calcsize("<" + fmt)
    if len(value) % size:
        raise WireError("packed data of the wrong length")
    return [float(v) for (v,) in struct.iter_unpack("<" + fmt, value)]


def read_tensor(data: bytes) -> ExampleTensor:
    """An ExampleTensor from TensorProto bytes (raw_data or the typed fields); WireError when the
    bytes are not a tensor of a supported element type."""
    dims: list[int] = []
    data_type = 0
    raw: bytes | None = None
    ints: list[int] = []
    floats: list[float] = []
    strings: list[str] = []  # decoded as they come: a list of bytes objects would double the peak
    bad_utf8 = False  # an error only for a string tensor (other tensors ignore string_data)
    for number, wire, value in fields(data):
        if number == 1:
            dims.extend(_signed(v) for v in _varints(wire, value))
        elif number == 2 and isinstance(value, int):
            data_type = value
        elif number == 4:
            floats.extend(_fixed(wire, value, "f"))
        elif number in (5, 7, 11):
            ints.extend(_varints(wire, value))
        elif number == 6 and isinstance(value, bytes):
            text = value.decode("utf-8", "replace")
            bad_utf8 = bad_utf8 or ("\ufffd" in text and text.encode("utf-8") != value)
            strings.append(text)
        elif number == 9 and isinstance(value, bytes):
            raw = value
        elif number == 10:
            floats.extend(_fixed(wire, value, "d"))
        elif number == 14 and value == 1:
            raise WireError("the tensor keeps its data in an external file, which is not supported")
    dtype = ELEMENT_TYPE_NAMES.get(data_type, "")
    if dtype not in _RAW_FORMATS and dtype not in ("bfloat16", "string"):
        raise WireError(f"element type {dtype or data_type} is not supported in examples")
    if any(d < 0 for d in dims):
        raise WireError("a dimension is negative")
    if dtype == "string" and bad_utf8:
        raise WireError("a string element is not UTF-8")
    values = _values(dtype, raw, ints, floats, strings)
    size = 1
    for d in dims:
        size *= d
    if len(values) != size:
        raise WireError(f"the tensor has {len(values)} elements but its shape {dims} holds {size}")
    return ExampleTensor(dtype, tuple(dims), values if isinstance(values, tuple) else tuple(values))


def _values(
    dtype: str, raw: bytes | None, ints: list[int], floats: list[float], strings: list[str]
) -> Sequence[Element]:
    if dtype == "string":
        return strings
    if raw is not None:
        if dtype == "bfloat16":
            bits = [b for (b,) in struct.iter_unpack("<H", _whole(raw, 2))]
            return [_from_bfloat16(b) for b in bits]
        code = _RAW_FORMATS[dtype]
        return unpack_elements(code, "<", _whole(raw, struct.calcsize("<" + code)))
    if dtype in ("float", "double"):
        return list(floats)
    if dtype in ("float16", "bfloat16"):  # the bit patterns, in int32_data
        if dtype == "float16":
            return [struct.unpack("<e", struct.pack("<H", b & 0xFFFF))[0] for b in ints]
        return [_from_bfloat16(b) for b in ints]
    if dtype == "bool":
        return [bool(v) for v in ints]
    if dtype in ("uint32", "uint64"):
        return list(ints)
    return [_wrap(v, 64 if dtype == "int64" else 32) for v in ints]


def _wrap(value: int, width: int) -> int:
    value &= (1 << 64) - 1
    value = _signed(value)
    if width == 32:
        value &= 0xFFFFFFFF
        value = value - (1 << 32) if value >= 1 << 31 else value
    return value


def _whole(raw: bytes, size: int) -> bytes:
    if len(raw) % size:
        raise WireError("raw_data is not a whole number of elements")
    return raw


def _from_bfloat16(bits: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0])
