"""Docstring wrapping (toolkit/generate/python/wrap.py) judged by what it promises, not against
another wrapper: no line longer than the width, every character kept in order, words that fit a
line never split, the spaces inside a line as they were, lines filled greedily; and the generated
docstrings compile to the docs' text."""

from __future__ import annotations

import ast
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.python.source import docstring
from toolkit.generate.python.wrap import wrap_line

PIECES = st.sampled_from([*"ab cd\t\x0b\x0c\xa0\u3000\u2028é-", "  ", "word", "x" * 30, "(Tensor<T>)"])


def _check(text: str, width: int, indent: str) -> list[str]:
    lines = wrap_line(text, width, indent)
    body = text.rstrip(" ")
    assert lines
    assert all(len(line) <= width for line in lines), lines
    # every character but the spaces, in order
    assert "".join("".join(line.split(" ")) for line in lines) == "".join(body.split(" "))
    room = width - len(indent) if len(indent) < width else width
    tokens = [t for line in lines for t in line.split(" ") if t]
    words = iter(tokens)
    for word in (w for w in body.split(" ") if w and len(w) <= room):
        assert word in words, (word, lines)  # whole, and in order
    continuation = indent if len(indent) < width else ""
    for number, line in enumerate(lines):
        content = line.lstrip(" ")
        assert content in body  # the spaces inside a line are the text's own
        if number:
            assert line.startswith(continuation) and not line[len(continuation) :].startswith(" ")
        else:
            assert line in body or content == line  # the first line: the text's lead or none
    plain = "  " not in body.lstrip(" ") and all(len(w) <= room for w in body.split(" "))
    if plain:  # single spaces, no word cut: greedy means the next line's first word did not fit
        for line, following in itertools.pairwise(lines):
            first = following.lstrip(" ").split(" ")[0]
            if line.strip(" "):
                assert len(line) + 1 + len(first) > width, (line, following)
    return lines


@settings(max_examples=800, deadline=None)
@given(
    st.lists(PIECES, max_size=60).map("".join),
    st.integers(1, 40),
    st.sampled_from(["", "  ", "      "]),
    st.sampled_from(["", " ", "    ", "        "]),
)
def test_wrapped_lines_keep_their_promises(text: str, width: int, indent: str, lead: str) -> None:
    _check(lead + text, width, indent)


def test_examples() -> None:
    assert wrap_line("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]
    assert wrap_line("aaa  bbb ccc  ddd", 8) == ["aaa  bbb", "ccc  ddd"]  # inner runs kept
    assert wrap_line("  - item text here", 10, "      ") == ["  - item", "      text", "      here"]
    assert wrap_line("see https://example.com/a/long/path now", 12) == [
        "see",
        "https://exam",
        "ple.com/a/lo",
        "ng/path now",
    ]
    assert wrap_line("      word", 5) == ["word"]  # the lead leaves no room: dropped
    assert wrap_line("   ", 2) == [""]


def _value(source: str) -> str:
    """The value of a generated docstring, as Python reads it."""
    tree = ast.parse(f"def f():\n    {source}\n")
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    value = ast.get_docstring(function, clean=False)
    assert value is not None
    return value


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab \n\t\\\"'é\u2028\x00", '"""', "x" * 40, "  ", "word"]), max_size=80))
def test_docstrings_compile_to_the_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    source = docstring(text, 4)
    assert all(len(line) <= 100 for line in source.splitlines())
    if text.strip():
        assert "".join(_value(source).split()) == "".join(text.split())


def test_docstrings_of_the_onnx_catalog_compile_to_their_docs(onnx_registry) -> None:  # type: ignore[no-untyped-def]
    docs = [s.doc for s in onnx_registry.all_schemas() if s.doc.strip()]
    for doc in docs:
        source = docstring(doc, 4)
        assert all(len(line) <= 100 for line in source.splitlines()), doc[:60]
        assert "".join(_value(source).split()) == "".join(doc.split()), doc[:60]
    assert len(docs) > 600
