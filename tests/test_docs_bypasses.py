"""Doc text a stranger wrote can neither stall the docs repair nor reach a page as live markup.

The review's findings after the two-renderer repair (tests/test_docs_two_renderers.py):

* time: the repair re-analysed the doc once per `<` it uncovered (`<b<b<b...>`: 4 kB took a
  minute), looked each offset up in every protected span (`<b>` repeated), found each line by a
  linear walk (`!!! a` lines) and let the attribute-list pattern scan to the line end from every
  `{` (`a_{` repeated). Each review payload, 100 kB long, is repaired here within a bound that
  holds on a loaded machine (they take well under a second alone);
* tables: a delimiter row in another block than the span it cuts (an ATX heading over `--|--` is a
  table header to markdown-it), or one without a `-` (`:|:`, a table to Python-Markdown), let a
  code span or link holding a `|` protect a payload a cell then shows live;
* link reference definitions: Python-Markdown reads as a paragraph what its narrower pattern
  does not take for a definition (a space in a `<...>` target, an escaped `]`, a title over two
  lines, U+2028), and a table cell reads none: their lines are literal text, a tag there escaped;
* attribute lists: attr_list applies a `{...}` in a table cell or before a trailing inline element,
  and its matches overlap (`{a{b}`): every `{` its pattern matches at is escaped, wherever it is;
* table cells: a doc's paragraphs joined into one cell may pair backticks across the break, and a
  code span holding a `|` is cut by the table: a cell is analysed again as the row it is, and a doc
  that is not clean there is shown below the table instead;
* and all of it through the real `opset generate`, every payload in every kind of doc.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from site_markdown import render_cm, render_pm
from test_docs_two_renderers import IMG, assert_pages_safe, assert_safe_in_both, write_domain

from toolkit.cli import main
from toolkit.generate import mdsafe
from toolkit.generate.mdsafe import AS_CODE_MESSAGE, inline, sanitize

SIZE = 100_000
BUDGET = 2.0  # seconds per 100 kB doc (each takes < 0.7 s alone; main took 4 s to several minutes)

# (unit, tail): the doc is the unit repeated to SIZE characters, then the tail.
HOSTILE = [
    ("<b", ">"),  # each escape of a `<` uncovered the one before it
    ("<b>", ""),  # spans x tags
    ("!!! a\n", ""),  # lines x offsets
    ("a_{", ""),  # attribute-list pattern backtracking to the line end per `{`
    ("{a}", ""),  # the rest of the text copied per attribute list
    ("<a", ""),
    ("*<b*", ""),
]


def _fresh_sanitize(doc: str) -> tuple[float, mdsafe.SafeMarkdown]:
    for cached in (mdsafe.sanitize, mdsafe._prepared, mdsafe.repaired):
        cached.cache_clear()
    started = time.process_time()  # CPU time: less noisy than the clock on a shared machine
    safe = sanitize(doc)
    return time.process_time() - started, safe


@pytest.mark.parametrize(("unit", "tail"), HOSTILE)
def test_a_hostile_100_kb_doc_is_repaired_in_bounded_time(unit: str, tail: str) -> None:
    doc = unit * (SIZE // len(unit)) + tail
    elapsed, safe = _fresh_sanitize(doc)
    assert elapsed < BUDGET, f"{unit!r} x {SIZE // len(unit)}: {elapsed:.2f} s"
    assert AS_CODE_MESSAGE not in {issue.message for issue in safe.issues}  # repaired, not given up
    assert "<b" not in safe.text and "<a" not in safe.text


def test_a_chain_of_tag_starts_is_escaped_in_one_round() -> None:
    doc = "<b" * 2000 + ">"  # 4 kB: over a minute before (one analysis per `<`)
    elapsed, safe = _fresh_sanitize(doc)
    assert elapsed < BUDGET
    assert safe.text == "&lt;b" * 2000 + ">"
    assert_safe_in_both(safe.text)


# --------------------------------------------------------------------------- table delimiter rows

TABLE_CUTS = [
    "# `x|" + IMG + "` |\n--|--",  # markdown-it: a table, not a heading
    "a | b\n:|:\n![|" + IMG + "](y)",  # Python-Markdown: no `-` needed
    "a | b\n|\n![|" + IMG + "](y)",
    "a | b\n:|\n![|" + IMG + "](y)",
    'a | b\n:|:\n[x](y "|' + IMG + '")',
    "# a | b\n:|:\n![|" + IMG + "](y)",
    "- a | b\n  :|:\n  ![|" + IMG + "](y)",
    "> a | b\n> :|:\n> ![|" + IMG + "](y)",
    "| a | b |\n|---|---|\n`\n" + IMG + "`",  # a table reads a row per line: no span spans two
    "| a | b |\n|---|---|\n`\n`  `" + IMG + "`",  # and pairs backticks in each row on its own
]


@pytest.mark.parametrize("doc", TABLE_CUTS)
def test_a_span_cut_by_any_delimiter_row_of_the_doc_protects_nothing(doc: str) -> None:
    safe = sanitize(doc).text
    assert "&lt;img" in safe
    assert_safe_in_both(safe)


# --------------------------------------------------------------------------- link reference definitions

DEFINITIONS = [
    "[r]: <img src=x onerror=alert(1)>",
    "[a\\]" + IMG + "]: /u",  # an escaped `]` in the label
    '[r]: /u\n"a\n' + IMG + '"',  # a title over two lines
    "[r]: /u 'a\n" + IMG + "'",
    "[r]: /u (a\n" + IMG + ")",
    "[" + IMG + "]:\u2028#",  # Python's \\s takes U+2028 for a space, CommonMark does not
    "- [r]: <img src=x onerror=alert(1)>",
    "> [r]: <img src=x onerror=alert(1)>",
]


@pytest.mark.parametrize("doc", DEFINITIONS)
def test_a_link_reference_definition_is_literal_text_for_tags(doc: str) -> None:
    safe = sanitize(doc).text
    assert "<img" not in safe
    assert_safe_in_both(safe)
    assert_safe_in_both(inline(doc) or "")  # a table cell reads no definition: text, escaped


def test_a_definition_both_renderers_read_keeps_its_angle_bracket_target() -> None:
    doc = '[r]: <https://onnx.ai/x> "t"\n\nSee [r].'
    assert sanitize(doc).text == doc  # `&lt;` there would break the link
    for render in (render_pm, render_cm):
        assert 'href="https://onnx.ai/x"' in render(doc)


def test_a_definition_target_is_inline_html_in_a_table_cell() -> None:
    # a definition to both renderers (its target a URL) but a tag in a cell, read inline
    doc = "[r]: <img/src/onerror=alert(1)>"
    assert_safe_in_both(sanitize(doc).text)
    assert inline(doc) is None


# --------------------------------------------------------------------------- attribute lists

ATTRIBUTE_LISTS = [
    "| a |\n|---|\n| b {onclick=alert(1)} |",  # a cell's text ends with it
    "a {onclick=x} | b\n--|--",
    "a|b\n--|--\nc {onclick=x}| d",
    "Text `{`{onclick=alert(1)}",  # overlapping: the first `{` is code, the list starts there
    "{<https://a>{onclick=alert(1)}",
    "\\\n{t}`y`",  # before a trailing inline element
    "-\n{x}<http://>",
]


@pytest.mark.parametrize("doc", ATTRIBUTE_LISTS)
def test_every_attribute_list_is_escaped_wherever_it_stands(doc: str) -> None:
    safe = sanitize(doc).text
    assert_safe_in_both(safe)
    assert safe.count("\\{") >= 1


def test_an_escaped_brace_renders_as_the_brace_in_both_renderers() -> None:
    doc = "A subscript a_{n-1} and a set {0, 1} in the middle of a line."
    safe = sanitize(doc).text
    assert safe == "A subscript a_\\{n-1} and a set \\{0, 1} in the middle of a line."
    for render in (render_pm, render_cm):
        assert render(safe) == render(doc)


# --------------------------------------------------------------------------- table cells

CELLS = [
    "a `x\n\n`" + IMG + "` b",  # the joined paragraphs pair `x<br><br>` as code: the tag is text
    "`x|" + IMG + "`",  # markdown-it cuts the code span at the `|`
]


def table_with(cell: str) -> str:
    return "| a | b |\n|---|---|\n| x | " + cell + " |\n"


@pytest.mark.parametrize("doc", CELLS)
def test_a_cell_that_is_not_clean_as_a_table_row_is_not_inlined(doc: str) -> None:
    assert inline(doc) is None  # the pages show the doc below the table (sanitized as a block)
    assert_safe_in_both(sanitize(doc, min_heading=6).text)


def test_a_clean_cell_keeps_its_paragraph_breaks() -> None:
    cell = inline("First `a`.\n\nSecond <b>bold</b> and [x](javascript:alert(1)).")
    assert cell is not None and cell.startswith("First `a`.<br><br>Second &lt;b>bold&lt;/b>")
    assert_safe_in_both(table_with(cell))


# --------------------------------------------------------------------------- a real generate

PAYLOADS = (
    TABLE_CUTS
    + DEFINITIONS
    + ATTRIBUTE_LISTS
    + CELLS
    + ["<b" * 300 + ">", "a_{" * 300]  # the time payloads, small: pages are rendered below
)


def test_generated_pages_hold_no_live_markup_from_any_payload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    write_domain(tmp_path, list(PAYLOADS))
    assert main(["generate", "--specs", "specs", "--out", "out", "--only", "docs", "-q"]) == 0
    pages = sorted((tmp_path / "out" / "docs").rglob("*.md"))
    assert len(pages) >= len(PAYLOADS) + 3
    assert_pages_safe(pages, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "specs"]  # nothing written elsewhere
