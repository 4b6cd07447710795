"""The shortcuts the docs keep give the results of the straightforward code they stand in for.

Each is checked against a reference kept here: the dedent without textwrap, the fence search of
the page tidy-up (`markdown.page_bytes`, over UTF-8), the prefilter that lets plain doc text skip
the parser (`toolkit.checks.markdown_fast.may_need_repair`), and the level and one-line shortcuts
of `sanitize`. Random Markdown-like text also checks that the repair leaves nothing for the
analysis to report.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.checks.markdown import analyse, analyse_lines
from toolkit.checks.markdown_fast import may_need_repair
from toolkit.checks.markdown_text import control_chars
from toolkit.generate.docs import render_docs
from toolkit.generate.docs.markdown import fenced_blocks, page_bytes
from toolkit.generate.docs.views import operator_views
from toolkit.generate.mdsafe import SafeMarkdown, demote, normalize, normalized, repaired, sanitize
from toolkit.model.diagnostics import UNPRINTABLE_IN_TEXT, unicode_escaped

# --------------------------------------------------------------------------- references


def reference_normalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    lines = [line.rstrip() for line in textwrap.dedent(text).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


REFERENCE_FENCE = re.compile(
    r"^ {0,3}(?:(`{3,})[^`\n]*|(~{3,})[^\n]*)\n.*?^ {0,3}(?:\1`*|\2~*)[ \t]*$", re.M | re.S
)


def reference_tidy(text: str) -> str:
    text = unicode_escaped(text, UNPRINTABLE_IN_TEXT)  # a page shows control characters visibly
    parts = []
    last = 0
    for block in REFERENCE_FENCE.finditer(text):
        parts.append(re.sub(r"\n{3,}", "\n\n", text[last : block.start()]))
        parts.append(block.group(0))
        last = block.end()
    parts.append(re.sub(r"\n{3,}", "\n\n", text[last:]))
    return "".join(parts).strip("\n") + "\n"


def reference_sanitize(text: str, min_heading: int) -> SafeMarkdown:
    """`sanitize` without its shortcuts: always parsed, always demoted (the control characters
    written visibly first; their DOC-CONTROL-CHAR issue is left out)."""
    return demote(repaired(unicode_escaped(text, UNPRINTABLE_IN_TEXT)), min_heading)


def without_control_issue(safe: SafeMarkdown) -> SafeMarkdown:
    return SafeMarkdown(safe.text, tuple(i for i in safe.issues if i.rule != "DOC-CONTROL-CHAR"))


PIECES = st.sampled_from(
    [
        "\n", "\n\n\n", "    ", "  ", "\t", "\r\n", "\r", "\x0c", "# ", "## ", "### ", "####### ",
        "```", "~~~", "````py", "```a`b", "`", "``", "<b>", "</i>", "<https://x.y>", "<!-- c -->", "- ",
        "1. ", "> ", "|", "text", " word ", "x<y", "===", "---", "\\<", "<div>", "[a](<b c>)",
        "<Scalar T [3]>", "&lt;",
        # link targets and lenient-renderer constructs (issue #23: no script in the docs site)
        "[x](javascript:a)", "[x](https://ok)", "](", "]:", "[r]: vbscript:a", "<xx:y/onfocus=a>",
        "<mailto:a@b>", "&#x09;", "{onclick=a}", "`x`{a}", "a_{n}", "<a:b c>", "![i](data:x)",
        # what Python-Markdown reads differently (tests/test_docs_two_renderers.py): escapes it
        # does not make, admonitions, code it may read as Markdown (list indents, fences it refuses)
        "\\<img src=x onerror=a>", "\\<b>", "!!! note", "!!!x", "      ", "        ", "- a\n\n      ",
        "1. ", "```py onclick=x", "~~~ {.a}", "````", "\n  ```\n", "\n> ```\n",
    ]
)  # fmt: skip
MARKDOWNISH = st.lists(PIECES, max_size=30).map("".join)


# --------------------------------------------------------------------------- properties


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH)
def test_normalize_equals_textwrap_dedent(text: str) -> None:
    assert normalize(text) == reference_normalize(text)


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH)
def test_tidy_equals_the_regex_fence_scan(text: str) -> None:
    assert page_bytes([text]) == reference_tidy(text).encode("utf-8")


@pytest.mark.parametrize(
    "text",
    [
        "a\n\n\n\nb\n```\nx\n\n\n\ny\n```\n\n\n\nc\n",  # runs before, in and after a block
        "```\nx\n\n\ny\n```\n\n\nz",  # a block at the very start
        "a\n````\nx\n\n\n```\ny\n````\n\n\nb",  # a shorter run inside does not close it
        "a\n```py\nx\n\n\n\n",  # never closed: the runs are outside any block
        "\n\n\n~~~\n\n\n\n~~~~\n\n\n\n```\n\n\n",
    ],
)
def test_tidy_keeps_the_blank_runs_of_fenced_blocks_only(text: str) -> None:
    assert page_bytes([text]) == reference_tidy(text).encode("utf-8")


@settings(max_examples=500, deadline=None)
@given(MARKDOWNISH)
def test_text_the_prefilter_skips_needs_no_repair(text: str) -> None:
    if not may_need_repair(text):
        assert analyse(text).clean
        if control_chars(text) is None:  # else written visibly, with a note (DOC-CONTROL-CHAR)
            assert sanitize(text, 1) == SafeMarkdown(normalize(text), ())


@settings(max_examples=500, deadline=None)
@given(MARKDOWNISH, st.integers(min_value=1, max_value=7))
def test_sanitize_equals_the_unshortened_repair(text: str, level: int) -> None:
    shown = unicode_escaped(text, UNPRINTABLE_IN_TEXT)
    expected = reference_sanitize(text, level) if shown.strip() else SafeMarkdown("", ())
    assert without_control_issue(sanitize(text, level)) == expected


@settings(max_examples=500, deadline=None)
@given(MARKDOWNISH, st.integers(min_value=1, max_value=6))
def test_repaired_text_leaves_nothing_to_report(text: str, level: int) -> None:
    safe = sanitize(text, level)
    after = analyse_lines(tuple(safe.text.split("\n")) if safe.text else ())
    assert not after.html and not after.open_fences and not after.tag_like
    assert not after.extension_marks and not after.code_blocks  # Python-Markdown reads it alike
    assert all(h.level >= level for h in after.headings)


def test_sanitize_demotes_headings_per_level_and_reports_each() -> None:
    text = "## Title\n\n<b>x</b>\n\n#### Small\n\n```\n# not a heading\n```"
    at_3 = sanitize(text, 3)
    at_5 = sanitize(text, 5)
    assert at_3.text.splitlines()[0] == "### Title" and "#### Small" in at_3.text
    assert at_5.text.splitlines()[0] == "##### Title" and "##### Small" in at_5.text
    assert "# not a heading" in at_5.text.splitlines()
    assert [(i.rule, i.line) for i in at_3.issues] == [("DOC-HEADING", 1), ("DOC-HTML", 3)]
    assert [(i.rule, i.line) for i in at_5.issues] == [
        ("DOC-HEADING", 1),
        ("DOC-HTML", 3),
        ("DOC-HEADING", 5),
    ]


# --------------------------------------------------------------------------- generator


def test_version_body_is_one_build_for_every_level(onnx_registry: Any) -> None:
    views = [view for name in onnx_registry.domains() for view in operator_views(onnx_registry, name)]
    for version in [version for view in views for version in view.versions][:120]:
        assert len(version.parts) == (5 if version.schema.attributes else 4)
        for level in (3, 4):
            headings = [line for line in version.body(level).split("\n") if line.startswith("#")]
            assert all(h.startswith("#" * level + " ") for h in headings)
            assert [h.split(" ", 1)[1].split(" (")[0] for h in headings][-3:] == [
                "Inputs",
                "Outputs",
                "Type Constraints",
            ]


WIDE = st.sampled_from(["∞", "é", "\u2028", "\x85", "😀", "\u3000"])  # not ASCII; line breaks elsewhere
PARTS = st.lists(
    st.one_of(
        MARKDOWNISH,
        st.sampled_from(["", "\n", "\n\n", "```\n", "x"]),
        st.lists(st.one_of(PIECES, WIDE)).map("".join),
    ),
    max_size=8,
)


@settings(max_examples=500, deadline=None)
@given(PARTS)
def test_a_page_tidied_from_its_parts_equals_the_joined_page_tidied(parts: list[str]) -> None:
    assert page_bytes(parts) == reference_tidy("".join(parts)).encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH)
def test_fenced_blocks_equal_the_regex_scan(text: str) -> None:
    data = text.encode("utf-8")
    spans = [b.span() for b in fenced_blocks(data)]
    assert [data[start:end].decode("utf-8") for start, end in spans] == [
        b.group(0) for b in REFERENCE_FENCE.finditer(text)
    ]


@settings(max_examples=400, deadline=None)
@given(st.one_of(MARKDOWNISH, st.text(max_size=20)))
def test_one_line_shortcut_of_normalize(text: str) -> None:
    assert normalized(text) == normalize(text)


def test_the_docs_generator_writes_nothing_to_the_cache_folder(
    shipped_registry: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No compiled templates or anything else on disk: the pages are plain Python."""
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    first = render_docs(shipped_registry, "opsets")
    assert first == render_docs(shipped_registry, "opsets")
    assert not list(tmp_path.rglob("*"))


def test_a_backtick_in_a_backtick_fences_info_string_opens_no_block() -> None:
    # CommonMark (and markdown-it, which renders the site) reads "```a`b" as text, not a fence:
    # the blank-line run after it is outside every block and collapses; the real block keeps its
    # own
    from markdown_it import MarkdownIt

    text = "```a`b\n\n\n\nx\n\n```py\ny\n\n\nz\n```\n"
    fences = [t for t in MarkdownIt("commonmark").parse(text) if t.type == "fence"]
    assert [t.info for t in fences] == ["py"]
    assert page_bytes([text]) == b"```a`b\n\nx\n\n```py\ny\n\n\nz\n```\n"
