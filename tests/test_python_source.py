"""Source text of the Python generator (toolkit/generate/python/source.py), judged by Python's
own parser: every string literal and docstring reads back as the text it was made from, with
nothing unprintable left in the source; docstrings keep every character in order and stay within
the line width. Also `identifier`'s shortcut (an ASCII identifier needs no substitution) and the
per-domain `SourceMemo`, whose hits are what each operator version makes alone."""

from __future__ import annotations

import ast
import keyword
import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolkit.generate.python.builders import build_method
from toolkit.generate.python.schema_classes import build_schema_class
from toolkit.generate.python.source import (
    LINE,
    SourceMemo,
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
def test_str_literal_reads_back_and_is_printable(text: str) -> None:
    literal = str_literal(text)
    assert ast.literal_eval(literal) == text
    assert literal.isprintable()  # no control, separator or NEL reaches the source as itself


@settings(max_examples=200, deadline=None)
@given(TEXT | st.text(max_size=200))
@example("000\x1b\x1b\x1b" + "\U00012544" * 8 + "0" * 14)  # halved once, a first half still too long
def test_chunks_read_back_as_the_text(text: str) -> None:
    chunks = str_chunks(text)
    assert ast.literal_eval("(" + " ".join(chunks) + ")") == text
    assert all("\n" not in chunk and chunk.isprintable() for chunk in chunks)
    # about 72 characters of source each; escapes may add a little before a piece is halved
    assert all(len(chunk) <= 72 + 24 or len(ast.literal_eval(chunk)) == 1 for chunk in chunks)


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
def test_docstring_reads_back_as_the_text_wrapped(text: str, indent: int) -> None:
    source = docstring(text, indent)
    pad = " " * indent
    tree = ast.parse(f"def f():\n{pad}{source}\n{pad}pass" if indent else f"{source}\n")
    read = ast.get_docstring(tree.body[0] if indent else tree, clean=False)
    assert read is not None
    # every character of the text, tabs expanded and line breaks normalised, in order; only
    # whitespace moves (wrapping), and an empty text says so
    raw = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    assert "".join(read.split()) == ("".join(raw.split()) or "(nodocumentation)")
    lines = source.split("\n")
    assert all(line.isprintable() for line in lines)
    assert all(len(line) <= LINE for line in lines[1:])
    memo = SourceMemo()  # a second docstring with the same lines reuses their wrapping
    assert docstring(text, indent, memo) == docstring(text, indent, memo) == source


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


def test_str_literal_keeps_no_long_text_alive() -> None:
    """A long string (a hostile tree's doc) is quoted without being remembered; short ones are."""
    from toolkit.generate.python import source

    source._short_literal.cache_clear()
    long_text = 'a "quoted"\tline\n' * 100
    assert ast.literal_eval(source.str_literal(long_text)) == long_text
    assert source._short_literal.cache_info().currsize == 0
    assert ast.literal_eval(source.str_literal("Relu")) == "Relu"
    assert source._short_literal.cache_info().currsize == 1
