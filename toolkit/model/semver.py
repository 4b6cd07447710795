"""SemVer model versions packed into 64 bits, as Versioning.md serializes them.

MAJOR takes the two most significant bytes, MINOR the next two, PATCH the low four:
`1.2.345` is `0x0001000200000159`. A value whose top four bytes are zero is a *simple
number* (a plain monotonically increasing version), never SemVer, so a SemVer version must
have MAJOR or MINOR non-zero. Pre-release and build metadata are not stored in a model.

`ModelProto.model_version` is a signed int64: `to_int64` / `from_int64` move between the
unsigned packed value used here and what the protobuf field holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAJOR_MAX = 0xFFFF
MINOR_MAX = 0xFFFF
PATCH_MAX = 0xFFFF_FFFF
PACKED_MAX = 0xFFFF_FFFF_FFFF_FFFF

# SemVer 2.0.0 numeric identifiers: no leading zeros.
_NUMBER = r"(0|[1-9][0-9]*)"
_SEMVER = re.compile(rf"^{_NUMBER}\.{_NUMBER}\.{_NUMBER}$")
_SEMVER_EXTRA = re.compile(rf"^{_NUMBER}\.{_NUMBER}\.{_NUMBER}[-+].*$")


class SemVerError(ValueError):
    """A version text or number that cannot be a packed model version."""


@dataclass(frozen=True, slots=True, order=True)
class SemVer:
    major: int
    minor: int
    patch: int

    def __post_init__(self) -> None:
        _check_parts(self.major, self.minor, self.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def packed(self) -> int:
        return pack(self.major, self.minor, self.patch)


def _check_parts(major: int, minor: int, patch: int) -> None:
    for label, value, high in (
        ("MAJOR", major, MAJOR_MAX),
        ("MINOR", minor, MINOR_MAX),
        ("PATCH", patch, PATCH_MAX),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SemVerError(f"{label} must be an integer, not {type(value).__name__}")
        if not 0 <= value <= high:
            raise SemVerError(f"{label} {value} is out of range 0..{high} ({_bits(high)} bits)")
    if major == 0 and minor == 0:
        raise SemVerError(
            f"0.0.{patch} cannot be packed: SemVer needs MAJOR or MINOR non-zero "
            "(a value whose top four bytes are zero is a simple number)"
        )


def _bits(high: int) -> int:
    return high.bit_length()


def pack(major: int, minor: int, patch: int) -> int:
    """MAJOR.MINOR.PATCH -> unsigned 64-bit value; SemVerError when a part is out of range."""
    _check_parts(major, minor, patch)
    return (major << 48) | (minor << 32) | patch


def is_simple_number(value: int) -> bool:
    """True when the top four bytes are zero: the value is a plain version number, not SemVer."""
    _check_packed(value)
    return value >> 32 == 0


def is_semver(value: int) -> bool:
    return not is_simple_number(value)


def unpack(value: int) -> SemVer:
    """Unsigned 64-bit value -> SemVer; SemVerError for simple numbers and out-of-range values."""
    _check_packed(value)
    if value >> 32 == 0:
        raise SemVerError(f"{value} is a simple version number, not SemVer (its top four bytes are zero)")
    return SemVer(value >> 48, (value >> 32) & MINOR_MAX, value & PATCH_MAX)


def _check_packed(value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SemVerError(f"a packed version is an integer, not {type(value).__name__}")
    if not 0 <= value <= PACKED_MAX:
        raise SemVerError(f"{value} does not fit in 64 bits (0..0x{PACKED_MAX:016x})")


def parse(text: str) -> SemVer:
    """`"1.2.345"` -> SemVer(1, 2, 345); SemVerError with the reason otherwise."""
    stripped = text.strip()
    match = _SEMVER.match(stripped)
    if match:
        return SemVer(*(int(group) for group in match.groups()))
    if _SEMVER_EXTRA.match(stripped):
        raise SemVerError(f"'{text}': pre-release and build metadata are not stored in a model version")
    raise SemVerError(
        f"'{text}' is not MAJOR.MINOR.PATCH (three numbers without leading zeros, e.g. 1.2.345)"
    )


def parse_packed(text: str) -> int:
    """A packed value written in hex (`0x...`) or decimal -> int, range-checked."""
    stripped = text.strip().replace("_", "")
    try:
        value = int(stripped, 16) if stripped.lower().startswith("0x") else int(stripped, 10)
    except ValueError:
        raise SemVerError(
            f"'{text}' is neither MAJOR.MINOR.PATCH nor a packed number (0x... or decimal)"
        ) from None
    _check_packed(value)
    return value


def format_packed(value: int) -> str:
    """Sixteen hex digits, as Versioning.md writes them: `0x0001000200000159`."""
    _check_packed(value)
    return f"0x{value:016x}"


def to_int64(value: int) -> int:
    """Unsigned packed value -> the signed int64 stored in ModelProto.model_version."""
    _check_packed(value)
    return value - (1 << 64) if value >> 63 else value


def from_int64(value: int) -> int:
    """ModelProto.model_version (signed int64) -> unsigned packed value."""
    if not -(1 << 63) <= value < (1 << 63):
        raise SemVerError(f"{value} is not an int64")
    return value + (1 << 64) if value < 0 else value


def convert(text: str) -> str:
    """What `opset semver TEXT` prints: packed hex for a SemVer text, SemVer text for a number.

    A simple number (top four bytes zero) is reported as such rather than rejected.
    """
    if "." in text:
        return format_packed(parse(text).packed)
    value = parse_packed(text)
    if is_simple_number(value):
        return f"{value} (simple number: the top four bytes are zero, so not SemVer)"
    return str(unpack(value))
