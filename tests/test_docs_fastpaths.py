"""The docs generator's fast paths give the bytes of the straightforward code they replace.

Each optimisation is checked against a plain reference implementation (kept here, not in the
toolkit): the compiled-template cache, the level-independent sanitising scan, the dedent without
textwrap, the fence search in `tidy`, and the Python-built version bodies.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate import docs_markdown
from toolkit.generate.docs_markdown import body_parts, render_docs, tidy, version_body
from toolkit.generate.mdsafe import (
    FENCE_OPEN,
    HEADING,
    LIST_ITEM,
    Issue,
    SafeMarkdown,
    _closes,
    _escape_html,
    normalize,
    sanitize,
)

# --------------------------------------------------------------------------- references


def reference_normalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    lines = [line.rstrip() for line in textwrap.dedent(text).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


REFERENCE_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)


def reference_tidy(text: str) -> str:
    parts = []
    last = 0
    for block in REFERENCE_FENCE.finditer(text):
        parts.append(re.sub(r"\n{3,}", "\n\n", text[last : block.start()]))
        parts.append(block.group(0))
        last = block.end()
    parts.append(re.sub(r"\n{3,}", "\n\n", text[last:]))
    return "".join(parts).strip("\n") + "\n"


def reference_sanitize(text: str, min_heading: int) -> SafeMarkdown:
    """The one-pass sanitiser the level-independent scan replaced (headings demoted inline)."""
    lines = reference_normalize(text).split("\n") if text.strip() else []
    out: list[str] = []
    issues: list[Issue] = []
    fence: tuple[str, int, int] | None = None
    code_block = False
    previous_blank = True
    in_list = False
    for number, line in enumerate(lines, start=1):
        if fence is not None:
            out.append(line)
            if _closes(line, fence):
                fence = None
            continue
        opening = FENCE_OPEN.match(line)
        if opening and not (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            fence = (opening.group(2)[0], len(opening.group(2)), number)
            out.append(line)
            previous_blank = False
            continue
        blank = not line.strip()
        indented = line.startswith("    ")
        code_block = indented and (code_block or (previous_blank and not in_list)) and not blank
        if code_block:
            out.append(line)
            previous_blank = False
            continue
        if not blank and not indented:
            in_list = bool(LIST_ITEM.match(line)) or (in_list and not previous_blank)
        heading = HEADING.match(line)
        if heading and len(heading.group(2)) < min_heading:
            issues.append(Issue("DOC-HEADING", number, f"heading demoted to level {min_heading}"))
            line = f"{heading.group(1)}{'#' * min_heading}{heading.group(3)}"
        escaped, count = _escape_html(line)
        if count:
            issues.append(Issue("DOC-HTML", number, "raw HTML escaped"))
        out.append(escaped)
        previous_blank = blank
    if fence is not None:
        char, length, opened = fence
        out.append(char * length)
        issues.append(
            Issue("DOC-FENCE", opened, "code fence opened here was never closed; closed at the end")
        )
    return SafeMarkdown("\n".join(out), tuple(issues))


PIECES = st.sampled_from(
    [
        "\n", "\n\n\n", "    ", "  ", "\t", "\r\n", "\r", "\x0c", "# ", "## ", "### ", "####### ",
        "```", "~~~", "````py", "`", "``", "<b>", "</i>", "<https://x.y>", "<!-- c -->", "- ",
        "1. ", "> ", "|", "text", " word ", "x<y",
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
    assert tidy(text) == reference_tidy(text)


@settings(max_examples=500, deadline=None)
@given(MARKDOWNISH, st.integers(min_value=1, max_value=7))
def test_sanitize_equals_the_one_pass_sanitiser(text: str, level: int) -> None:
    assert sanitize(text, level) == reference_sanitize(text, level)


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
    for schema in onnx_registry.all_schemas()[:120]:
        parts = body_parts(schema)
        assert len(parts) == (5 if schema.attributes else 4)
        for level in (3, 4):
            body = version_body(schema, level)
            headings = [line for line in body.split("\n") if line.startswith("#")]
            assert all(h.startswith("#" * level + " ") for h in headings)
            assert [h.split(" ", 1)[1].split(" (")[0] for h in headings][-3:] == [
                "Inputs",
                "Outputs",
                "Type Constraints",
            ]


def test_template_cache_gives_the_same_pages(
    shipped_registry: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiled from source, loaded from the bytecode cache, or with an unusable cache folder:
    the same pages."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    runs = []
    for cache in (tmp_path / "cache", tmp_path / "cache", blocked):
        monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(cache))
        docs_markdown.environment.cache_clear()
        docs_markdown.compiled_template.cache_clear()
        runs.append(render_docs(shipped_registry, "opsets"))
    docs_markdown.environment.cache_clear()
    docs_markdown.compiled_template.cache_clear()
    assert runs[0] == runs[1] == runs[2]
    assert any(p.name.startswith("__jinja2_") for p in (tmp_path / "cache").rglob("*"))


def test_gc_pause_restores_the_collector_state() -> None:
    import gc

    assert gc.isenabled()
    with docs_markdown.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), docs_markdown.gc_paused():
        raise RuntimeError("generator failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with docs_markdown.gc_paused():
            pass
        assert not gc.isenabled()  # a caller's own pause is left alone
    finally:
        gc.enable()
