"""Block structure the two renderers read differently cannot make a doc's markup live.

CommonMark lets a list item, a `1)` item, a thematic break with wide gaps or a fence interrupt a
paragraph; Python-Markdown (mkdocs) cuts a doc into blocks at blank lines and reads those lines
as a lazy continuation of the paragraph, while it cuts a paragraph at a `#` line CommonMark keeps.
Inline content is then grouped otherwise, and a code span or link that CommonMark reads in one
block pairs with backticks or brackets of the neighbouring line in the other reading:

    x `a
    * `<img src=x onerror=alert(1)>`

is a lone backtick and a list item holding code to CommonMark, and a code span `a\\n* ` followed
by a live tag to Python-Markdown. `toolkit.checks.markdown_grouping` finds such ambiguous content;
what protects a `<` or `{` there must protect in every grouping (else it is escaped). Each doc
below makes its payload live in Python-Markdown as written, and is safe in both once sanitized.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from site_markdown import render_cm, render_pm
from test_docs_bypasses import BUDGET, SIZE, _fresh_sanitize
from test_docs_two_renderers import IMG, assert_pages_safe, assert_safe_in_both, live, write_domain

from toolkit.cli import main
from toolkit.generate.mdsafe import sanitize

ATTRIBUTES = "{onclick=alert(1)}"
BLOCK_SPLITS = [
    "x `a\n* `" + IMG + "`",  # the review's: a bullet item, a lazy line to Python-Markdown
    "x `a\n+ `b` `" + IMG + "`",  # the tag in the second code span of the item
    "x ``a\n1. ``" + IMG + "``",  # an ordered item
    "x `a\n1) `" + IMG + "`",  # an item Python-Markdown does not know at all
    "x `a\n  * `" + ATTRIBUTES + "`",  # an attribute list, code to CommonMark
    "x `a\n-   -   -\n`" + IMG + "`",  # a thematic break to CommonMark only (gaps over two)
    "x `a\n- a\n  `" + IMG + "`",  # a lazy line of a list item, two-space continuation
    "x `a\n- a\n    `" + IMG + "`",  # and four-space (Python-Markdown's fixed list indent)
    "x `a\n```\ncode\n```\n`" + IMG + "`",  # superfences stashes the fence: the lines around join
    "x `\n> `a\n* `" + IMG + "`",  # a quote's lazy line: joined in neither reading of its own
    "x [a\n#](" + IMG + ")",
    "x `a\n* [b`](" + IMG + ")",  # a link with a backtick in its text: cut by the code span
    "x `a\n* ![b`](" + IMG + ")",  # a `#` line cuts the paragraph (and the link) to Python-Markdown
    "> x `a\n> * `" + IMG + "`",  # in a blockquote
    "- y\n\n  x `a\n  * `" + IMG + "`",  # in a list item
    # found by the two-renderer property: a run that opens as indented code gets its fences
    # back as text from superfences, the one the repair wrote for the second block included
    "    >\n-   -   -\n    - " + IMG,
    "> x\n>\n>     code\n> -   -   -\n>     - " + IMG,  # in a blockquote: after a `>` line
]


@pytest.mark.parametrize("doc", BLOCK_SPLITS)
def test_a_span_in_content_grouped_otherwise_protects_nothing(doc: str) -> None:
    assert live(render_pm(doc))  # as written, Python-Markdown makes the payload live
    safe = sanitize(doc)
    assert_safe_in_both(safe.text)
    # the tag escaped; a `{` in code that is text in the other reading: the doc shown as code
    # (a backslash there is code too), as for any code span Python-Markdown pairs otherwise
    assert "&lt;img" in safe.text or safe.text == "```\n" + doc + "\n```"


@pytest.mark.parametrize("doc", ["x `` y [b`](" + IMG + ")", "x `` y ![b`](" + IMG + ")"])
def test_a_link_holding_a_backtick_protects_nothing_where_backticks_pair_otherwise(doc: str) -> None:
    """In one paragraph too: a backtick run CommonMark leaves unpaired makes Python-Markdown pair
    others (tests/test_docs_two_renderers.py); a code span there may cut a link, not only code."""
    assert live(render_pm(doc))
    safe = sanitize(doc).text
    assert "&lt;img" in safe
    assert_safe_in_both(safe)


CLEAN = [
    "- `Tensor<bool>` for masks\n- `Tensor<float>` otherwise",  # a tight list: both cut its items
    "A mask (`Tensor<bool>`) and\nthe rest:\n```\nout = x * mask\n```\nwhere `T<x>` is kept.",
    "# Title `<b>`\nText `<i>` under it.",
    "x `<b>` y\n* `<i>` z",  # backticks paired on every line: any grouping pairs them alike
]


@pytest.mark.parametrize("doc", CLEAN)
def test_code_spans_every_grouping_pairs_alike_still_protect(doc: str) -> None:
    """Adjacent blocks are common (a paragraph over a fence, tight lists): where each line of the
    run pairs its own backticks, the grouping cannot change a code span, and nothing is escaped
    (the pages of the onnx catalog keep their bytes, tests/test_docs_fold.py)."""
    safe = sanitize(doc, min_heading=1)
    assert safe.text == doc
    assert_safe_in_both(safe.text)
    assert render_cm(safe.text) == render_cm(doc)


def test_a_long_run_of_ambiguous_blocks_is_repaired_in_bounded_time() -> None:
    # one run of non-blank lines, an ambiguous item per line: each run's lines read once
    unit = "x `a\n* `<b>`\n"
    doc = unit * (SIZE // len(unit))
    elapsed, safe = _fresh_sanitize(doc)
    assert elapsed < BUDGET, f"{elapsed:.2f} s"
    assert "<b" not in safe.text


def test_generated_pages_hold_no_live_markup_from_block_splits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    write_domain(tmp_path, list(BLOCK_SPLITS))
    started = time.process_time()
    assert main(["generate", "--specs", "specs", "--out", "out", "--only", "docs", "-q"]) == 0
    assert time.process_time() - started < 30
    pages = sorted((tmp_path / "out" / "docs").rglob("*.md"))
    assert len(pages) >= len(BLOCK_SPLITS) + 3
    assert_pages_safe(pages, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "specs"]  # nothing written elsewhere
