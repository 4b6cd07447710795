"""Doc text read by the CommonMark parser: what the analysis finds, how the docs repair acts on
it, and the DOC-* rules `opset validate` reports for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolkit.checks.docs import check_docs
from toolkit.checks.markdown import analyse
from toolkit.checks.run import load_specs
from toolkit.generate.mdsafe import inline, sanitize
from toolkit.model.rules import CATALOG

REPO = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- analysis and repair


def test_setext_headings_are_found_and_demoted() -> None:
    text = "Title\n=====\n\nSome text.\n\nPart\n----\n\nMore."
    headings = analyse(text).headings
    assert [(h.line, h.level, h.setext) for h in headings] == [(0, 1, True), (5, 2, True)]
    safe = sanitize(text, min_heading=4)
    assert safe.text == "#### Title\n\nSome text.\n\n#### Part\n\nMore."
    assert [(i.rule, i.line) for i in safe.issues] == [("DOC-HEADING", 1), ("DOC-HEADING", 6)]
    # a setext heading over two lines, inside a quote, becomes one ATX line
    assert sanitize("> A long\n> title\n> ===", 5).text == "> ##### A long title"


def test_thematic_break_and_list_dash_are_not_headings() -> None:
    assert not analyse("Text\n\n---\n\nMore").headings
    assert not analyse("- a\n- b").headings


def test_fence_in_a_list_item_is_code_not_escaped() -> None:
    text = "Steps:\n\n1. Run\n\n   ```\n   <b>x</b> # not a heading\n   ```\n\n2. Done"
    safe = sanitize(text, 3)
    assert safe.text == text and not safe.issues
    assert not analyse(text).html and not analyse(text).headings


def test_unclosed_fence_in_a_list_item_is_closed_inside_the_item() -> None:
    text = "- item\n\n  ```\n  code\n\nAfter the list."
    (fence,) = analyse(text).open_fences
    assert (fence.line, fence.marker) == (2, "```")
    safe = sanitize(text)
    assert safe.text == "- item\n\n  ```\n  code\n\n  ```\nAfter the list."
    assert [(i.rule, i.line) for i in safe.issues] == [("DOC-FENCE", 3)]


def test_html_inside_code_is_not_flagged() -> None:
    text = "Use `<b>` or ``a <i> b``.\n\n```html\n<div>kept</div>\n```\n\n    <pre>indented code</pre>"
    analysis = analyse(text)
    assert not analysis.html and not analysis.tag_like
    # no finding; the indented code is written as a fence, which Python-Markdown reads as code
    # too (inside a list item it would not read indented code so), CommonMark as before
    safe = sanitize(text)
    assert safe.text == text.replace("    <pre>indented code</pre>", "```\n<pre>indented code</pre>\n```")
    assert not safe.issues


def test_html_blocks_and_inline_html_are_escaped_autolinks_kept() -> None:
    text = "<div>\n<b>x</b>\n</div>\n\nSee <https://onnx.ai>, a <i>b</i> and 1 < 2."
    analysis = analyse(text)
    assert [(h.line, h.block, h.text) for h in analysis.html] == [
        (0, True, "<div>"),
        (4, False, "<i>"),
        (4, False, "</i>"),
    ]
    safe = sanitize(text)
    assert safe.text == (
        "&lt;div>\n&lt;b>x&lt;/b>\n&lt;/div>\n\nSee <https://onnx.ai>, a &lt;i>b&lt;/i> and 1 < 2."
    )
    assert [i.line for i in safe.issues] == [1, 2, 3, 5]


def test_text_a_lenient_renderer_takes_for_a_tag_is_written_as_an_entity() -> None:
    safe = sanitize("Shape <Scalar Tensor [3]> and a\\<b>")
    assert safe.text == "Shape &lt;Scalar Tensor [3]> and a&lt;b>"
    # CommonMark shows both as text already; `\<b>` is a backslash and a tag to Python-Markdown
    assert [(i.rule, i.line) for i in safe.issues] == [("DOC-HTML", 1)]
    assert not analyse("Shape <Scalar Tensor [3]>").html


def test_inline_cells_refuse_setext_headings() -> None:
    assert inline("Title\n===") is None
    assert inline("a <b>c</b>") == "a &lt;b>c&lt;/b>"


# --------------------------------------------------------------------------- validate

DOMAIN = """\
domain: com.test.docs
doc: |
  Domain
  ======
opset_versions:
  - {version: 1, ir_version: 9, doc: "first <br> opset"}
"""

OPERATOR = """\
operator: Op
domain: com.test.docs
versions:
  - since_version: 1
    doc: |
      Intro with <b>bold</b>.

      ## Usage

      ```python
      x = 1
    inputs:
      - {name: X, type: T, doc: "`<b>` is code"}
    outputs:
      - {name: Y, type: T, doc: "a <i>b</i>"}
    attributes:
      mode:
        type: string
        default: a
        doc: |
          Mode
          ----
    type_constraints:
      T: {allowed: [tensor(float)]}
"""


def _write(root: Path, operator: str = OPERATOR) -> Path:
    folder = root / "com.test.docs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    (folder / "Op.yaml").write_text(operator, encoding="utf-8")
    return root


def test_validate_reports_every_doc_rule_located(tmp_path: Path) -> None:
    root = _write(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "validate", str(root)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # warnings only
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if "warning[DOC-" in line]
    # A literal block doc (`|`) is located at the finding's own line and column; a quoted or
    # plain doc where its value starts (its lines may be folded or escaped).
    assert lines == [
        "com.test.docs/Op.yaml:6:18: warning[DOC-HTML]: com.test.docs.Op:1: raw HTML '<b>' (and 1 more)",
        "com.test.docs/Op.yaml:8:7: warning[DOC-HEADING]: com.test.docs.Op:1: ATX heading of level 2",
        "com.test.docs/Op.yaml:10:7: warning[DOC-FENCE]: com.test.docs.Op:1: code fence ``` is never closed",
        "com.test.docs/Op.yaml:15:33: warning[DOC-HTML]: com.test.docs.Op:1 output 'Y': "
        "raw HTML '<i>' (and 1 more)",
        "com.test.docs/Op.yaml:21:11: warning[DOC-HEADING]: com.test.docs.Op:1 attribute 'mode': "
        "setext heading of level 2",
        "com.test.docs/domain.yaml:3:3: warning[DOC-HEADING]: domain 'com.test.docs': setext heading of level 1",
        "com.test.docs/domain.yaml:6:38: warning[DOC-HTML]: opset version 1 of 'com.test.docs': raw HTML '<br>'",
    ], proc.stdout


def test_suppress_and_inheritance(tmp_path: Path) -> None:
    operator = OPERATOR.replace(
        "  - since_version: 1\n", "  - since_version: 1\n    suppress: [DOC-HTML, DOC-FENCE]\n"
    )
    operator += "  - since_version: 2\n    based_on: 1\n"
    domain = DOMAIN.replace("ir_version: 9, doc", "ir_version: 9}\n  - {version: 2, ir_version: 9, doc")
    root = _write(tmp_path, operator)
    (root / "com.test.docs" / "domain.yaml").write_text(domain, encoding="utf-8")
    result = load_specs([root], jobs=1)
    assert not result.errors, [d.format() for d in result.errors]
    found = sorted(
        (d.rule, d.message.split(":")[0] + ":" + d.message.split(":")[1])
        for d in check_docs(result.specs)
        if "Op" in d.message
    )
    # version 1 silences DOC-HTML and DOC-FENCE for its own docs; version 2 inherits them all
    # and reports nothing twice.
    assert found == [
        ("DOC-HEADING", "com.test.docs.Op:1"),
        ("DOC-HEADING", "com.test.docs.Op:1 attribute 'mode'"),
    ]


def test_doc_rules_are_in_the_catalog() -> None:
    for rule_id in ("DOC-HTML", "DOC-FENCE", "DOC-HEADING"):
        rule = CATALOG.get(rule_id)
        assert rule is not None and rule.family == "docs"
        assert rule.summary and rule.hint and "**Why:**" in rule.doc


# --------------------------------------------------------------------------- where DOC-* point

LOCATED = """\
operator: Op
domain: com.test.docs
versions:
  - since_version: 1
    doc: |2

      First line.
      Second line.
      Third line with <b>bold</b>.
    attributes:
      mode:
        type: string
        default: a
        doc: Modes <i>a</i> and b.
      axis:
        type: int
        doc: "first line\\nsecond <u>line</u>"
"""


DOMAIN_3 = DOMAIN + "  - {version: 2, ir_version: 9}\n  - {version: 3, ir_version: 9}\n"


def _doc_findings(root: Path, operator: str) -> list[str]:
    _write(root, operator)
    (root / "com.test.docs" / "domain.yaml").write_text(DOMAIN_3, encoding="utf-8")
    result = load_specs([root], jobs=1)
    assert not result.errors, [d.format() for d in result.errors]
    return [f"{d.location.line}:{d.location.column} {d.rule} {d.message}" for d in check_docs(result.specs)]


def test_block_doc_finding_is_located_at_its_line(tmp_path: Path) -> None:
    # `|2` with a leading empty line (as the onnx importer writes docs): the text starts on the
    # line after the header, the HTML is on the third line of the doc, at `<b>`.
    found = _doc_findings(tmp_path, LOCATED)
    assert "9:23 DOC-HTML com.test.docs.Op:1: raw HTML '<b>' (and 1 more)" in found, found


def test_attribute_doc_finding_is_located_at_the_doc_value(tmp_path: Path) -> None:
    found = _doc_findings(tmp_path, LOCATED)
    # a plain doc: at its value; a quoted doc whose finding is on a later doc line: at its
    # value, the message naming the doc line (escapes and folding hide the source column).
    assert "14:20 DOC-HTML com.test.docs.Op:1 attribute 'mode': raw HTML '<i>' (and 1 more)" in found
    assert (
        "17:14 DOC-HTML com.test.docs.Op:1 attribute 'axis': doc line 2: raw HTML '<u>' (and 1 more)" in found
    ), found


def test_inherited_doc_keeps_the_location_of_the_doc_it_inherits(tmp_path: Path) -> None:
    operator = LOCATED + "  - since_version: 2\n    based_on: 1\n  - since_version: 3\n    based_on: 1\n"
    operator += "    doc: |\n      Own doc.\n      <p>block</p>\n"
    _doc_findings(tmp_path, operator)
    specs = load_specs([tmp_path], jobs=1).specs
    v1, v2, v3 = specs.operators[0].versions
    assert (v2.doc_location, v2.doc_literal) == (v1.doc_location, v1.doc_literal) == (v1.doc_location, True)
    assert v1.doc_location.line == 6 and v3.doc_location.line == 23
    assert v2.attribute("mode") == v1.attribute("mode")
    assert v2.attribute("mode").doc_location == v1.attribute("mode").doc_location  # type: ignore[union-attr]
    found = [
        f
        for f in _doc_findings(tmp_path, operator)
        if "DOC-HTML" in f and "Op:" in f and "attribute" not in f
    ]
    # the inherited doc is reported once, at the version that wrote it; version 3's own doc at
    # its HTML block.
    assert found == [
        "9:23 DOC-HTML com.test.docs.Op:1: raw HTML '<b>' (and 1 more)",
        "24:7 DOC-HTML com.test.docs.Op:3: an HTML block '<p>block</p>'",
    ], found
