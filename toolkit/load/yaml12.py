"""Plain-scalar resolution by YAML 1.2's core schema, and the YAML 1.1 spellings it reads differently.

Editors (yaml-language-server) and schema checkers (check-jsonschema) read YAML 1.2: `off`, `yes`
and `on` are strings, `0o17` is octal, `017` is the decimal 17, `1_000` is a string. PyYAML resolves
by YAML 1.1, where `off` is false and `017` is 15. Spec files are read the 1.2 way so the tool and
the editor agree on every file; a value whose spelling means something else in YAML 1.1 is the
YAML-AMBIGUOUS error (`ONE_ONE_ONLY`), because a 1.1 reader of the same file (a script using
`yaml.safe_load`) would silently see another value.

`resolve(value)` gives the tag of a plain (unquoted, untagged) scalar; `construct(tag, value)` its
Python value. The regular expressions are the core schema's (YAML 1.2.2, section 10.3.2).
"""

from __future__ import annotations

import math
import re
from typing import Any

from toolkit.model.integers import read_int, shorten

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
# Not a YAML tag: marks a plain scalar that is a string in YAML 1.2 but not in YAML 1.1.
ONE_ONE_ONLY = "tag:opset-toolkit,2026:yaml-1.1-spelling"

_WORDS = {
    **dict.fromkeys(("true", "True", "TRUE", "false", "False", "FALSE"), BOOL),
    **dict.fromkeys(("null", "Null", "NULL", "~", ""), NULL),
    # YAML 1.1 booleans (as PyYAML resolves them); YAML 1.2 strings.
    **dict.fromkeys(
        ("yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"), ONE_ONE_ONLY
    ),
}
_NUMBER_START = frozenset("-+.0123456789")

_INT_DECIMAL = re.compile(r"[-+]?[0-9]+")
_INT_OCTAL = re.compile(r"0o[0-7]+")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
# YAML 1.1 numbers that YAML 1.2 reads as strings (or as another number): binary, underscores,
# sexagesimal (base 60), signed hex, leading-zero octal.
_ONE_ONE_NUMBER = re.compile(
    r"[-+]?0b[01_]+"
    r"|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+][0-9]+)?"
)


def resolve(value: str) -> str:
    """The tag of a plain scalar spelled `value`: bool, null, int, float or str (YAML 1.2 core
    schema), or ONE_ONE_ONLY when YAML 1.1 gives the same spelling another value."""
    word = _WORDS.get(value)
    if word is not None:
        return word
    if value[:1] not in _NUMBER_START:
        return STR
    if _INT_DECIMAL.fullmatch(value):
        digits = value.lstrip("+-")
        return ONE_ONE_ONLY if len(digits) > 1 and digits[0] == "0" else INT  # 1.1: octal
    if _INT_OCTAL.fullmatch(value) or _INT_HEX.fullmatch(value):
        return INT
    if _FLOAT.fullmatch(value) or _INF.fullmatch(value) or _NAN.fullmatch(value):
        return FLOAT
    maybe_one_one = "_" in value or ":" in value or value[1:3] in ("0b", "0x") or value[:2] == "0b"
    if maybe_one_one and _ONE_ONE_NUMBER.fullmatch(value) and any(c.isdigit() for c in value):
        return ONE_ONE_ONLY
    return STR


def construct(tag: str, value: str) -> Any:
    """The Python value of a plain scalar that `resolve` tagged `tag` (not ONE_ONE_ONLY)."""
    # IntegerOutOfRange past what a double holds (an integer may stand for one, `default: 100` of
    # a float attribute): the caller reports it at the value.
    if tag == INT:
        if value[:2] == "0o":
            return read_int(value[2:], 8, wide=True)
        if value[:2] == "0x":
            return read_int(value[2:], 16, wide=True)
        return read_int(value, wide=True)
    if tag == FLOAT:
        lowered = value.lower()
        if lowered.endswith(".inf"):
            return -math.inf if value[0] == "-" else math.inf
        if lowered == ".nan":
            return math.nan
        return float(value)
    if tag == BOOL:
        return value in ("true", "True", "TRUE")
    if tag == NULL:
        return None
    return value


def one_two_reading(value: str) -> str:
    """What YAML 1.2 (this tool, editors) makes of a ONE_ONE_ONLY `value`, for the message."""
    if _INT_DECIMAL.fullmatch(value):
        digits = value.lstrip("+-").lstrip("0") or "0"  # int(value)'s spelling, of any length
        return f"the number {'-' if value[0] == '-' and digits != '0' else ''}{shorten(digits)}"
    return f"the string '{value}'"


def one_one_reading(value: str) -> str:
    """What a YAML 1.1 reader (PyYAML) makes of `value`, for the YAML-AMBIGUOUS message."""
    if value in _WORDS:
        return "the boolean " + ("true" if value.lower() in ("yes", "on") else "false")
    if ":" in value:
        return "a base-60 number"
    if "0b" in value[:3]:
        return "a binary number"
    if "_" in value:
        return "a number (YAML 1.1 ignores `_` in numbers)"
    if "0x" in value[:3]:
        return "a hexadecimal number"
    return "an octal number" if all(c in "+-01234567" for c in value) else "a string"


def suggestion(value: str) -> str:
    """The YAML 1.2 spelling of what a YAML 1.1 reader sees in `value`, for the hint."""
    if value in _WORDS:
        return "true" if value.lower() in ("yes", "on") else "false"
    if all(c in "+-01234567" for c in value):
        sign = value[0] if value[0] in "+-" else ""
        return f"{sign}0o{value.lstrip('+-').lstrip('0') or '0'} (octal) or {sign}{value.lstrip('+-').lstrip('0') or '0'} (decimal)"
    return "the number without `_` or `:`" if ("_" in value or ":" in value) else "the number in decimal"
