"""Source text of the Python generator (toolkit/generate/python/source.py): the shortcut of
`str_literal` gives the plain per-character definition's result, and every literal reads back as
the text it was made from. The other shortcuts of the kind give what their definitions give: the
docstring's (nothing to escape), str_chunks' (one test for the whole text), `identifier`'s (an
ASCII identifier needs no substitution), and the per-domain `SourceMemo`, whose hits are what
each operator version makes alone."""

from __future__ import annotations

import ast
import keyword
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.python.builders import build_method
from toolkit.generate.python.schema_classes import build_schema_class
from toolkit.generate.python.source import (
    SourceMemo,
    _docstring_plain,
    _str_literal_plain,
    docstring,
    py_literal,
    str_chunks,
    str_literal,
)
from toolkit.model.python_names import identifier
from toolkit.model.spec import Attribute, AttrType, OpSchema

# Printable text, the escapes the shortcut handles (line breaks, tabs, quotes, backslashes) and
# the characters only the plain path handles (controls, line/paragraph separators, NEL, astral).
TEXT = st.text(alphabet=st.sampled_from(list('ab é"\\\n\t\r\x00\x7f\x85\u2028\u2029\U0001f600')), max_size=20)


@settings(max_examples=500, deadline=None)
@given(TEXT | st.text(max_size=20))
def test_str_literal_equals_the_plain_definition(text: str) -> None:
    literal = str_literal(text)
    assert literal == _str_literal_plain(text)
    assert ast.literal_eval(literal) == text


@settings(max_examples=200, deadline=None)
@given(TEXT | st.text(max_size=200))
def test_chunks_read_back_as_the_text(text: str) -> None:
    chunks = str_chunks(text)
    assert ast.literal_eval("(" + " ".join(chunks) + ")") == text
    assert all("\n" not in chunk for chunk in chunks)


# --------------------------------------------------------------------------- shortcuts of the kind

# Docstring text: words, runs of spaces, long words (wrapping), and everything that needs an
# escape or the plain path (backslashes, triple quotes, tabs, carriage returns, controls, NEL,
# line separators, a non-breaking space).
DOC_TEXT = st.lists(
    st.sampled_from(
        [
            *'ab é"\\\n\t\r\x00\x7f\x85\u2028\u00a0',
            "word ",
            "   ",
            '"""',
            "x" * 30,
            "- item ",
            "\n\n",
            "y" * 101,
        ]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(DOC_TEXT, st.sampled_from([0, 4, 8, 40]))
def test_docstring_equals_the_plain_definition(text: str, indent: int) -> None:
    assert docstring(text, indent) == _docstring_plain(text, indent)
    memo = SourceMemo()  # a second docstring with the same lines reuses their wrapping
    assert docstring(text, indent, memo) == docstring(text, indent, memo) == _docstring_plain(text, indent)


def _reference_chunks(text: str, width: int = 72) -> list[str]:
    """str_chunks with `str_literal` on every piece (no shortcut for the whole text)."""
    if not text:
        return ['""']
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        while len(line) > width:
            cut = line.rfind(" ", width // 2, width)
            cut = width if cut < 0 else cut + 1
            pieces.append(line[:cut])
            line = line[cut:]
        if line:
            pieces.append(line)
    literals = []
    for piece in pieces:
        literal = str_literal(piece)
        while len(literal) > width + 24 and len(piece) > 1:
            half = len(piece) // 2
            literals.append(str_literal(piece[:half]))
            piece = piece[half:]
            literal = str_literal(piece)
        literals.append(literal)
    return literals


@settings(max_examples=400, deadline=None)
@given(DOC_TEXT | TEXT | st.text(max_size=200))
def test_chunks_equal_literals_made_piece_by_piece(text: str) -> None:
    assert str_chunks(text) == _reference_chunks(text)


def _reference_identifier(name: str, reserved: frozenset[str] = frozenset()) -> str:
    text = re.sub(r"\W", "_", name, flags=re.ASCII) or "_"
    if text[0].isdigit():
        text = f"_{text}"
    if text.startswith("__"):
        text = f"op{text}"
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in reserved:
        text = f"{text}_"
    return text


NAMES = st.lists(
    st.sampled_from(["a", "Z", "_", "0", "9", "-", ".", " ", "é", "ß", "class", "match", "get"]), max_size=6
)


@settings(max_examples=500, deadline=None)
@given(NAMES.map("".join) | st.text(max_size=8), st.sampled_from([frozenset(), frozenset({"get", "a_"})]))
def test_identifier_equals_the_substitution(name: str, reserved: frozenset[str]) -> None:
    expected = _reference_identifier(name, reserved)
    assert identifier(name, reserved) == expected
    assert identifier(name, list(reserved)) == expected  # any iterable of reserved names


def _attr_schema(since: int, default: object) -> OpSchema:
    return OpSchema(
        domain="org.example", name="Op", since_version=since, doc="An operator.",
        attributes=(Attribute("alpha", AttrType.FLOAT, doc="The alpha.", default=default),),  # type: ignore[arg-type]
    )  # fmt: skip


def test_memo_tells_equal_defaults_of_different_literals_apart() -> None:
    """1, 1.0 and True are equal (and -0.0 and 0.0): one memo must still write each as itself."""
    defaults: list[object] = [1, 1.0, True, 0.0, -0.0, (1,), (1.0,), math.inf, "1"]
    memo = SourceMemo()
    for since, default in enumerate(defaults, start=1):
        schema = _attr_schema(since, default)
        assert build_schema_class(schema, memo) == build_schema_class(schema)
        assert build_method(schema, "Op", "Op", memo) == build_method(schema, "Op", "Op")
        assert f"default={py_literal(default)}" in build_schema_class(schema, memo).attributes[0][0]


@pytest.mark.parametrize("which", ["onnx_registry", "shipped_registry"])
def test_memo_gives_what_each_version_makes_alone(which: str, request: pytest.FixtureRequest) -> None:
    registry = request.getfixturevalue(which)
    for domain in registry.domains():
        memo = SourceMemo()  # one per domain, as the generator uses it
        for op in registry.operators(domain):
            for schema in op.versions:
                assert build_schema_class(schema, memo) == build_schema_class(schema)
                assert build_method(schema, op.name, op.name, memo) == build_method(schema, op.name, op.name)
