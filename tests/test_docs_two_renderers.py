"""No doc string reaches a generated page as live HTML, whichever of the two renderers shows it.

The `.md` pages of the `docs` kind are published as they are: rendered by Python-Markdown with
the extensions of the repository's mkdocs.yml (plain mkdocs over `generated/docs`) or by a
CommonMark renderer (markdown-it, GitHub). The repair is built on a CommonMark reading, so what
Python-Markdown reads differently is where markup got through (the review's reproducer):

* a backslash escape of a character Python-Markdown does not escape: `\\<img ...>` is a
  backslash and a tag to it;
* block constructs only its extensions know: an admonition (`!!! note`) whose indented body is
  code to CommonMark and Markdown to it;
* code it reads as Markdown: an indented code block in a list item (its lists take a fixed four
  spaces), a fence its superfences extension refuses (less indented lines, options it rejects,
  a fence on a list item's marker line).

A spec tree made here carries those payloads and variants in every kind of doc (operator,
attribute, input, type constraint, domain; in tables, nested lists, blockquotes and admonitions
inside lists); the real `opset generate` writes its pages, and each page is rendered by both
renderers and parsed: nothing but what Markdown itself makes may be in it.
"""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from site_markdown import render_cm, render_pm, site_markdown

from toolkit.checks.markdown import ESCAPED_BY_BOTH, analyse
from toolkit.cli import main
from toolkit.generate.mdsafe import sanitize

# What Markdown itself writes (both renderers, the site's extensions): any other element, any
# event handler, any script URL in a page comes from doc text.
MARKDOWN_TAGS = {
    "p", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "hr", "br",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
    "div", "span",  # pymdownx.highlight's code wrapper and token spans
}  # fmt: skip
MARKDOWN_ATTRIBUTES = {"href", "id", "class", "title", "start", "style"}
SCRIPT_URL = re.compile(r"^\s*(?:javascript|vbscript|data)\s*:", re.I)


class Markup(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img" and _markdown_image(attrs):
            return
        if tag not in MARKDOWN_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = re.sub(r"[\t\r\n]", "", value or "")
            if name not in MARKDOWN_ATTRIBUTES or name.startswith("on"):
                self.found.append(f"<{tag} {name}=>")
            elif name == "href" and SCRIPT_URL.match(value):
                self.found.append(f"<{tag} href={value[:30]}>")
            elif name == "style" and not re.fullmatch(r"text-align: ?(?:left|right|center);?", value):
                self.found.append(f"<{tag} style={value[:30]}>")


def _markdown_image(attrs: list[tuple[str, str | None]]) -> bool:
    """What Markdown makes of `![alt](src "title")`: a `src` that runs no script, an `alt`, maybe
    a `title`, nothing else (an `<img>` in doc text has an event handler or no `alt`)."""
    names = [name for name, _ in attrs]
    src = re.sub(r"[\t\r\n]", "", dict(attrs).get("src") or "")
    return (
        set(names) <= {"src", "alt", "title"}
        and len(names) == len(set(names))
        and {"src", "alt"} <= set(names)
        and not SCRIPT_URL.match(src)
    )


def live(rendered: str) -> list[str]:
    parser = Markup()
    parser.feed(rendered)
    parser.close()
    return parser.found


def assert_pages_safe(pages: list[Path], root: Path) -> None:
    """No live markup in any of the generated `pages` under either renderer."""
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for name, render in (("Python-Markdown", render_pm), ("markdown-it", render_cm)):
            found = live(render(text))
            assert not found, f"{page.relative_to(root)} in {name}: {found}"


def assert_safe_in_both(text: str) -> None:
    for name, render in (("Python-Markdown", render_pm), ("markdown-it", render_cm)):
        found = live(render(text))
        assert not found, f"{name}: {found} in\n{text}"


IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>window.__pwned=1</script>"
# The review's payloads and variants: each is Markdown CommonMark reads as safe (text or code)
# and Python-Markdown, with the site's extensions, read as live markup before this fix.
PAYLOADS = [
    "\\" + IMG,
    "Escaped \\<b onmouseover=alert(1)>x</b> inline",
    "!!! note\n\n    " + SCRIPT,
    '!!! note "t"\n\n    ' + IMG,
    "- a\n\n      " + IMG,
    "1. a\n\n        " + IMG,
    "- a\n  - b\n\n        " + IMG,  # a nested list
    "- a\n\n  !!! note\n\n      " + IMG,  # an admonition inside a list
    "> - a\n>\n>       " + IMG,  # a list in a blockquote
    "-     " + IMG,  # a list item opening with indented code
    "- ```\n  " + IMG + "\n- b",  # a fence on a list item's marker line
    "   ~~~\n " + IMG + "\n   ~~~",  # fence lines indented less than its opening
    "  ```\n" + IMG + "\n  ```",
    '```py onclick="x"\n' + IMG + "\n```",  # options superfences refuses
    "```\n" + IMG + "\n````",  # closed by a longer run: CommonMark closes, superfences does not
    "  ```\n  " + IMG,  # never closed, indented: closed where superfences takes it
    "a\n!!! note\n\n    " + IMG,
]


@pytest.mark.parametrize("doc", PAYLOADS)
def test_a_payload_is_safe_in_both_renderers_and_commonmark_shows_the_same(doc: str) -> None:
    safe = sanitize(doc)
    assert_safe_in_both(safe.text)
    # text and code stay text and code: CommonMark renders the repaired doc as it rendered the
    # doc, but where the repair is noted (`\<` is HTML, a fence is closed, a doc shown as code)
    if not safe.issues:
        assert render_cm(safe.text) == render_cm(doc), safe.text


def test_an_escaped_tag_is_raw_html_and_is_written_as_an_entity() -> None:
    safe = sanitize("A \\" + IMG + " and \\<b>.")
    assert safe.text == "A &lt;img src=x onerror=alert(1)> and &lt;b>."
    assert [(issue.rule, issue.line) for issue in safe.issues] == [("DOC-HTML", 1)]
    # `<` in both renderers, as the author meant it; an escape both make stays as it is
    assert "&lt;img" in render_pm(safe.text) and "&lt;img" in render_cm(safe.text)
    assert sanitize("\\< not a tag, \\[x], \\{y}, \\!!! z").text == "\\< not a tag, \\[x], \\{y}, \\!!! z"
    assert analyse("\\\\<b>").html  # an escaped backslash, then a tag: raw HTML in both, as before


@pytest.mark.parametrize(
    "doc",
    [
        "| a | b |\n|---|---|\n```" + IMG + "|```",  # found by the property below
        "| a | b |\n|---|---|\n`x|" + IMG + "` | y",
        "a | b\n-- | --\n[x](<a|" + IMG + ">) | z",
        "> | a | b |\n> | - | - |\n> | `x|" + IMG + "` |",  # in a blockquote
    ],
)
def test_a_table_cell_cut_inside_a_span_is_safe_in_both_renderers(doc: str) -> None:
    """A table cuts its rows at every `|` not escaped before it reads spans (GFM), so a code span
    or a link holding one protects nothing there; Python-Markdown keeps a code span whole."""
    assert_safe_in_both(sanitize(doc).text)
    assert live(render_cm(doc))  # (without the repair, markdown-it makes the payload live)


@pytest.mark.parametrize(
    "doc",
    [
        "``````py x=1```" + IMG + "```",
        "````a```" + IMG + "```",
        "x `` y `" + IMG + "`",
    ],  # the first found by the property below
)
def test_code_spans_paired_otherwise_by_python_markdown_protect_nothing(doc: str) -> None:
    """A backtick run CommonMark finds no closer for is literal there; Python-Markdown tries its
    shorter prefixes as openers, pairs other backticks, and the payload CommonMark reads as code
    is live there."""
    assert_safe_in_both(sanitize(doc).text)
    assert live(render_pm(doc))  # (without the repair, Python-Markdown makes the payload live)


def test_escapes_the_analysis_trusts_are_the_ones_python_markdown_makes() -> None:
    md = site_markdown()
    assert set(md.ESCAPED_CHARS) == ESCAPED_BY_BOTH
    punctuation = {chr(c) for c in range(33, 127) if not chr(c).isalnum()}
    assert punctuation > ESCAPED_BY_BOTH  # CommonMark escapes all of these


def test_code_is_rewritten_as_a_fence_only_where_it_could_hold_markup() -> None:
    # an indented code block of plain text is harmless read either way: left as it is
    assert sanitize("- a\n\n      x = 1\n\n# b").text == "- a\n\n      x = 1\n\n##### b"
    # a fence superfences reads as CommonMark does is left too
    plain = "- a\n\n  ```py\n  <b>x</b>\n  ```"
    assert sanitize(plain).text == plain
    # one that could hold markup becomes a fence at its container's prefix, longer than its runs
    assert sanitize("- a\n\n      `` <b> ```").text == "- a\n\n  ````\n  `` <b> ```\n  ````"
    # never closed: closed once, by the rewrite, and noted
    safe = sanitize("> ~~~ py\n> <b>")
    assert safe.text == "> ```py\n> <b>\n> ```"
    assert [(issue.rule, issue.line) for issue in safe.issues] == [("DOC-FENCE", 1)]


def test_an_admonition_opener_is_escaped_wherever_a_line_starts_with_one() -> None:
    assert sanitize("a\n!!! note\nb").text == "a\n\\!!! note\nb"
    assert sanitize("- !!!warning x").text == "- \\!!!warning x"
    assert sanitize("Wow!!! really").text == "Wow!!! really"  # not at a line start
    assert_safe_in_both(sanitize("| a | b |\n|---|---|\n| c | d |\n!!! note\n\n    " + IMG).text)


# --------------------------------------------------------------------------- through the CLI

DOMAIN = """\
domain: com.evil.two
doc: {doc}
opset_versions:
  - {{version: 1, ir_version: 9}}
"""

OPERATOR = """\
operator: {name}
domain: com.evil.two
versions:
  - since_version: 1
    doc: {doc}
    inputs:
      - {{name: X, type: T, doc: {doc}}}
    outputs:
      - {{name: Y, type: T}}
    attributes:
      a: {{type: int, default: 1, doc: {doc}}}
    type_constraints:
      T: {{allowed: [tensor(float)], doc: {doc}}}
"""

# One-line docs (table cells) and block docs, every payload in every kind of doc.
CELL_PAYLOADS = ["cell \\" + IMG, "!!! note", "x | \\<svg onload=alert(1)> | y"]


def write_domain(root: Path, docs: list[str]) -> Path:
    """`root/specs/com.evil.two`: the domain's doc is `docs[0]`, and operator `Op<i>` carries
    `docs[i]` in every kind of doc it has (its own, an input's, an attribute's, a constraint's)."""
    domain = root / "specs" / "com.evil.two"
    domain.mkdir(parents=True)
    (domain / "domain.yaml").write_text(DOMAIN.format(doc=json.dumps(docs[0])), encoding="utf-8")
    for index, doc in enumerate(docs):
        text = OPERATOR.format(name=f"Op{index}", doc=json.dumps(doc))
        (domain / f"Op{index}.yaml").write_text(text, encoding="utf-8")
    return domain


def make_tree(root: Path) -> Path:
    specs = root / "specs"
    domain = write_domain(root, PAYLOADS + CELL_PAYLOADS)
    literal = "operator: Lit\ndomain: com.evil.two\nversions:\n  - since_version: 1\n    doc: |\n"
    literal += "      Fine text.\n      Then \\" + IMG + "\n"
    literal += "    inputs: [{name: X, type: tensor(float)}]\n    outputs: [{name: Y, type: tensor(float)}]\n"
    (domain / "Lit.yaml").write_text(literal, encoding="utf-8")
    return specs


@pytest.fixture()
def hostile_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`make_tree` in tmp_path, which is the working folder; no cache."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    make_tree(tmp_path)
    return tmp_path


def test_generated_pages_hold_no_live_markup_in_either_renderer(hostile_tree: Path) -> None:
    assert main(["generate", "--specs", "specs", "--out", "out", "--only", "docs", "-q"]) == 0
    pages = sorted((hostile_tree / "out" / "docs").rglob("*.md"))
    assert len(pages) >= len(PAYLOADS) + len(CELL_PAYLOADS) + 3
    assert_pages_safe(pages, hostile_tree)
    assert sorted(p.name for p in hostile_tree.iterdir()) == ["out", "specs"]  # nothing written elsewhere


def test_validate_reports_an_escaped_tag_at_its_line_and_column(
    hostile_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["validate", "--specs", "specs"])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err  # warnings
    lines = (out.out + out.err).splitlines()
    assert (
        "specs/com.evil.two/Lit.yaml:7:12: warning[DOC-HTML]: com.evil.two.Lit:1: raw HTML "
        "'\\<img src=x onerror=alert(1)>'" in lines
    ), "\n".join(lines)
    assert any(line.startswith("specs/com.evil.two/domain.yaml:2:6: warning[DOC-HTML]") for line in lines)
    assert "Traceback" not in out.out + out.err


SHAPES = st.sampled_from(
    [
        "\n", "\n\n", "  ", "    ", "      ", "- ", "1. ", "> ", "```", "~~~", "```py x=1", "!!! note",
        "\\", "<img src=x onerror=alert(1)>", "<b onclick=x>", "text", "|", "| a | b |\n|---|---|\n",
        "[", "]:", "{", ":|:", "`", "](", "{onclick=x}",
        # lines that interrupt a paragraph in one renderer and continue it in the other
        # (tests/test_docs_grouping.py): list items, `1)`, a `#` without a space, wide breaks
        "\n* ", "\n+ ", "\n1) ", "\n2. ", "\n#", "\n # ", "\n-   -   -\n", "\n===\n",
        "\n```\nc\n```\n", "\n    ", "\n> ",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(SHAPES, max_size=14).map("".join))
def test_any_arrangement_of_the_shapes_is_safe_in_both_renderers(doc: str) -> None:
    assert_safe_in_both(sanitize(doc).text)
