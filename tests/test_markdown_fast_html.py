"""The parser-free analysis of simple docs (`toolkit.checks.markdown_fast.simple_analysis`) gives
exactly the analysis of the CommonMark parser (`toolkit.checks.markdown.analyse`).

Random text rich in `<`, tag fragments, code spans, escapes and block markers checks every text the
fast path claims; the onnx catalog checks that `opset validate` reports the same DOC-* diagnostics
with and without it (the switch: `toolkit.checks.docs.simple_analysis` replaced by one that
declines every text).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit.checks.docs as docs_checks
from toolkit.checks.docs import check_docs
from toolkit.checks.markdown import analyse
from toolkit.checks.markdown_fast import simple_analysis

# Run with OPSET_HYPOTHESIS_EXAMPLES=20000 for a long run.
EXAMPLES = int(os.environ.get("OPSET_HYPOTHESIS_EXAMPLES", "600"))

FRAGMENTS = st.sampled_from(
    [
        "<T>",
        "<br>",
        "<br/>",
        "<br />",
        "</b>",
        "<float>",
        "<a href='x'>",
        '<a href="x\ny">',
        "<a\nb=c>",
        "<x y=z/>",
        "< b>",
        "<b =c>",
        "<a b='>'>",
        "<!-- c -->",
        "<!-->",
        "<!--->",
        "<!---->",
        "<!-- a -- b -->",
        "<!-- a --->",
        "<a b=\x01>",
        "<?php x ?>",
        "<!DOCTYPE html>",
        "<!x>",
        "<![CDATA[ x ]]>",
        "<https://onnx.ai>",
        "<a@b.c>",
        "<xx:y/onfocus=a//>",
        "<a:b c=d>",
        "[x](javascript:a)",
        "[r]: javascript:a",
        "{onclick=a}",
        "`x`{a}",
        "a_{n}",
        "<Scalar Tensor [3]>",
        "Tensor<T>",
        "`<b>`",
        "``a`b``",
        "`",
        "``",
        "\\<b>",
        "\\`",
        "\\",
        "&lt;",
        "&amp;",
        "&#60;",
        "*",
        "_",
        "**x**",
        "[x]",
        "[x](<b>)",
        "![i](u)",
        "a < b",
        "x <= y",
        "<",
        ">",
        "</",
        "<a",
        "a>",
        "\n",
        "\n\n",
        "    ",
        "   ",
        " ",
        "# ",
        "## h",
        "> q",
        "- ",
        "* ",
        "+ ",
        "1. ",
        "2) ",
        "===",
        "---",
        "```",
        "~~~",
        "<div>",
        "<pre>",
        "<script>",
        "<T>\n",
        "\t",
        "\x0c",
        "\u00a0",
        "x",
    ]
)
CHARS = st.text(alphabet="<>/ab=C1'\" \n-!?:`\\&[]()*_#.", min_size=1, max_size=6)
TEXTS = st.lists(st.one_of(FRAGMENTS, CHARS), max_size=14).map("".join)


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXTS)
def test_simple_analysis_equals_the_parser(text: str) -> None:
    fast = simple_analysis(text)
    if fast is not None:
        assert fast == analyse(text), text


def test_simple_analysis_examples() -> None:
    analysis = simple_analysis("Tensor<T> and <br/>\n  a <Scalar Tensor [3]> `<b>` <!-- c\nd -->")
    assert analysis is not None and analysis == analyse(
        "Tensor<T> and <br/>\n  a <Scalar Tensor [3]> `<b>` <!-- c\nd -->"
    )
    assert [(h.line, h.column, h.text) for h in analysis.html] == [
        (0, 6, "<T>"),
        (0, 14, "<br/>"),
        (1, 30, "<!-- c\nd -->"),
    ]
    assert analysis.tag_like == ((1, 4),)
    for text in ("- <b>", "<div>", "    <b>"):  # a list item, an HTML block, indented code
        fast = simple_analysis(text)
        assert fast is not None and fast == analyse(text), text
    for text in ("a\n===", "[a](<b>)", "<https://onnx.ai>", "a\x0cb"):
        assert simple_analysis(text) is None, text


@pytest.fixture(scope="module")
def onnx_specs(onnx_catalog_dir: Path) -> Any:
    from toolkit.load.loader import read_specs

    return read_specs([onnx_catalog_dir], jobs=1).specs


def test_onnx_catalog_docs_same_diagnostics_without_fast_path(
    onnx_specs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts: list[str] = []
    plain = docs_checks.doc_diagnostics

    def recording(text: str, *args: Any) -> Any:
        texts.append(text)
        return plain(text, *args)

    with monkeypatch.context() as patch:
        patch.setattr(docs_checks, "doc_diagnostics", recording)
        fast = check_docs(onnx_specs)
    with monkeypatch.context() as patch:
        patch.setattr(docs_checks, "simple_analysis", lambda text: None)
        slow = check_docs(onnx_specs)
    assert fast == slow
    assert any(d.rule == "DOC-HTML" for d in fast)
    simple = [text for text in set(texts) if text and simple_analysis(text) is not None]
    assert len(simple) > 50  # the fast path is what the catalog exercises
    for text in simple:
        assert simple_analysis(text) == analyse(text), text
