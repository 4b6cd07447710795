"""SemVer packing per Versioning.md: round trips, range errors, the CLI."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.cli import main
from toolkit.model.semver import (
    MAJOR_MAX,
    MINOR_MAX,
    PATCH_MAX,
    SemVer,
    SemVerError,
    convert,
    format_packed,
    from_int64,
    is_semver,
    is_simple_number,
    pack,
    parse,
    parse_packed,
    to_int64,
    unpack,
)

majors = st.integers(0, MAJOR_MAX)
minors = st.integers(0, MINOR_MAX)
patches = st.integers(0, PATCH_MAX)


def test_versioning_md_example() -> None:
    assert pack(1, 2, 345) == 0x0001000200000159
    assert unpack(0x0001000200000159) == SemVer(1, 2, 345)
    assert format_packed(pack(1, 2, 345)) == "0x0001000200000159"
    assert convert("1.2.345") == "0x0001000200000159"
    assert convert("0x0001000200000159") == "1.2.345"


@given(majors, minors, patches)
def test_pack_unpack_round_trip(major: int, minor: int, patch: int) -> None:
    if major == 0 and minor == 0:
        with pytest.raises(SemVerError, match="simple number"):
            pack(major, minor, patch)
        return
    value = pack(major, minor, patch)
    assert 0 <= value < 2**64
    assert is_semver(value) and not is_simple_number(value)
    assert unpack(value) == SemVer(major, minor, patch)
    text = f"{major}.{minor}.{patch}"
    assert str(parse(text)) == text
    assert convert(convert(text)) == text
    assert from_int64(to_int64(value)) == value
    assert -(2**63) <= to_int64(value) < 2**63


@given(st.integers(0, 2**64 - 1))
def test_every_64_bit_value_is_simple_or_round_trips(value: int) -> None:
    if value >> 32 == 0:
        assert is_simple_number(value)
        with pytest.raises(SemVerError, match="simple version number"):
            unpack(value)
    else:
        assert unpack(value).packed == value
        assert parse_packed(format_packed(value)) == value


@given(
    st.one_of(
        st.tuples(st.integers(MAJOR_MAX + 1, 2**40), minors, patches),
        st.tuples(majors, st.integers(MINOR_MAX + 1, 2**40), patches),
        st.tuples(majors, minors, st.integers(PATCH_MAX + 1, 2**70)),
        st.tuples(st.integers(max_value=-1), minors, patches),
        st.tuples(majors, minors, st.integers(max_value=-1)),
    )
)
def test_out_of_range_parts_are_rejected(parts: tuple[int, int, int]) -> None:
    with pytest.raises(SemVerError, match="out of range"):
        pack(*parts)
    with pytest.raises(SemVerError):
        parse(".".join(str(p) for p in parts))


@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=2**64)))
def test_values_outside_64_bits_are_rejected(value: int) -> None:
    with pytest.raises(SemVerError, match="64 bits"):
        unpack(value)
    with pytest.raises(SemVerError):
        parse_packed(hex(value) if value >= 0 else str(value))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1.2", "not MAJOR.MINOR.PATCH"),
        ("01.2.3", "not MAJOR.MINOR.PATCH"),
        ("1.2.3-rc1", "pre-release"),
        ("1.2.3+build", "pre-release"),
        ("a.b.c", "not MAJOR.MINOR.PATCH"),
        ("0.0.7", "simple number"),
        ("65536.0.0", "MAJOR 65536 is out of range"),
        ("zz", "neither"),
    ],
)
def test_bad_text(text: str, reason: str) -> None:
    with pytest.raises(SemVerError, match=reason):
        convert(text)


def test_simple_number_is_told_apart() -> None:
    assert convert("0x0000000000000159") == "345 (simple number: the top four bytes are zero, so not SemVer)"
    assert convert("42").startswith("42 (simple number")


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["semver", "1.2.345"]) == 0
    assert capsys.readouterr().out == "0x0001000200000159\n"
    assert main(["semver", "0x0001000200000159"]) == 0
    assert capsys.readouterr().out == "1.2.345\n"
    assert main(["semver", "1.2.99999999999"]) == 2
    err = capsys.readouterr().err
    assert "PATCH 99999999999 is out of range 0..4294967295" in err
    assert "Traceback" not in err
    assert main(["semver", "0x1_0000_0000_0000_0000"]) == 2
    assert "does not fit in 64 bits" in capsys.readouterr().err
