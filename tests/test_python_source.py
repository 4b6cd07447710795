"""String literals of the Python generator (toolkit/generate/python/source.py): the shortcut of
`str_literal` gives the plain per-character definition's result, and every literal reads back as
the text it was made from."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.python.source import _str_literal_plain, str_chunks, str_literal

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
