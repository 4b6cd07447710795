"""The docstring wrapping fast path (toolkit/generate/python/wrap_fast.py) gives textwrap's result
whenever it answers, and answers for ordinary doc text."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.python.source import docstring
from toolkit.generate.python.wrap_fast import wrap_simple

PIECES = st.sampled_from([*"ab cd\t\n\x0b\x0c\r\xa0\u3000\u2028é-", "  ", "word", "x" * 30, "(Tensor<T>)"])


def _textwrap(text: str, width: int, indent: str) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        subsequent_indent=indent,
        break_on_hyphens=False,
        drop_whitespace=True,
        replace_whitespace=False,
    )


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(PIECES, max_size=60).map("".join).map(lambda t: t.lstrip(" ")),
    st.integers(1, 40),
    st.sampled_from(["", "  ", "      "]),
    st.sampled_from(["", " ", "    ", "        "]),
)
def test_fast_path_equals_textwrap(text: str, width: int, indent: str, lead: str) -> None:
    text = lead + text
    fast = wrap_simple(text, width, indent)
    if fast is not None:
        assert fast == _textwrap(text, width, indent)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.text(alphabet="abcXYZ(),.<>=", min_size=1, max_size=12), min_size=1, max_size=40),
    st.integers(12, 100),
)
def test_plain_words_take_the_fast_path(words: list[str], width: int) -> None:
    text = " ".join(words)
    assert wrap_simple(text, width) == _textwrap(text, width, "")
    item = "    " + text  # an indented item of a docstring section
    fast = wrap_simple(item, width + 4, "        ")
    if max(map(len, words)) <= width - 4:  # every word fits a continuation line
        assert fast is not None
    assert fast in (None, _textwrap(item, width + 4, "        "))


def test_docstrings_of_the_onnx_catalog_are_unchanged(onnx_registry, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every schema doc of the catalog wraps the same with and without the fast path."""
    from toolkit.generate.python import source

    docs = [s.doc for s in onnx_registry.all_schemas() if s.doc]
    fast = [docstring(d, 4) for d in docs]
    monkeypatch.setattr(source, "wrap_simple", lambda *_args: None)
    assert [docstring(d, 4) for d in docs] == fast
    assert len(docs) > 600
