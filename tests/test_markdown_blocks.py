"""The parser-free analysis of structured docs (`toolkit.checks.markdown_fast.simple_analysis`,
whose block structure comes from `toolkit.checks.markdown_blocks.read_blocks`) gives exactly the
analysis of the CommonMark parser (`toolkit.checks.markdown.analyse`).

Random documents are built line by line from indentation, list markers, fences, HTML block
starts, headings, underlines, quotes and inline fragments, so that lists nest, paragraphs
continue lazily and code and HTML blocks start and end in every container. Every text the fast
path answers must equal the parser's analysis; the onnx catalog docs must all be answered.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.checks import markdown_blocks
from toolkit.checks.markdown import Heading, OpenFence, RawHtml, analyse, normalize
from toolkit.checks.markdown_blocks import Paragraph, read_blocks
from toolkit.checks.markdown_fast import may_need_repair, simple_analysis

# Run with OPSET_HYPOTHESIS_EXAMPLES=20000 for a long run.
EXAMPLES = int(os.environ.get("OPSET_HYPOTHESIS_EXAMPLES", "1500"))

INDENTS = st.sampled_from(["", "", "", " ", "  ", "   ", "    ", "     ", "      ", "        ", "         "])
MARKERS = st.sampled_from(
    ["- ", "* ", "+ ", "1. ", "1) ", "2. ", "10) ", "-  ", "1.   ", "-     ", "- - ", "1. - ", "-", "2.", "*"]
)
# Line starts the fast path reads, and (less often) ones it leaves to the parser.
READ = st.sampled_from(
    [
        "```", "````", "~~~", "```py", "``` `x`", "~~~ `x`", "``", "<div>", "</div>", "<br>", "<br/>",
        "<span>", "<b> x", "<p class='a'>", "<T>", "#x", "####### ", "[a]", "**b**", "1.5", "2)x", "-x",
        "x ==", "- x -", "-->",
    ]
)  # fmt: skip
LEFT = st.sampled_from(
    ["<!-- c", "<script>", "<pre>", "<?x", "<!X", "<![CDATA[", "# ", "## h", "===", "---", "- - -", "***",
     "___", "> ", "[a]: b"]
)  # fmt: skip
WORDS = st.sampled_from(
    [
        "text", "a", "Tensor<T>", "<br>", "</b>", "<T>", "a < b", "<Scalar Tensor [3]>", "`<b>`", "``a`b``",
        "`", "\\<b>", "\\", "&lt;", "[x](y)", "[x](<b>)", "[<b>]", "]", "<https://x.y>", "<a@b.c>",
        "<!-- c -->", "<!-- a --->", "<a href='x'>", '<a href="x', 'y">', "<a", "b=c>", "*", "_", "#",
        "```", "~~~", "---", "===", "[x](javascript:a)", "<xx:y/a=b>", "{onclick=a}", "`x`{a}", "a_{n}",
        "[r]: data:x",
    ]
)  # fmt: skip
PREFIX = st.tuples(INDENTS, st.lists(MARKERS, max_size=2).map("".join), st.sampled_from(["", "", " ", "   "]))
CONTENT = st.one_of(READ, st.lists(WORDS, min_size=1, max_size=4).map(" ".join), READ, LEFT)
LINE = st.one_of(
    st.just(""),
    st.tuples(PREFIX, CONTENT).map(lambda p: "".join(p[0]) + p[1]),
    st.tuples(INDENTS, CONTENT).map("".join),
)
# A fence with its body and a closing line (which closes it only if long and indented enough).
FENCES = st.sampled_from(
    [("```", "```"), ("````", "`````"), ("~~~", "~~~"), ("```py", "```"), ("````", "```")]
)
FENCED = st.tuples(PREFIX, FENCES, st.lists(LINE, max_size=4), INDENTS).map(
    lambda p: "\n".join(["".join(p[0]) + p[1][0], *p[2], p[3] + p[1][1]])
)
DOCS = st.lists(st.one_of(LINE, LINE, FENCED), max_size=12).map("\n".join)


@settings(max_examples=EXAMPLES, deadline=None)
@given(DOCS)
def test_structured_analysis_equals_the_parser(text: str) -> None:
    fast = simple_analysis(text)
    if fast is not None:
        assert fast == analyse(text), text


def test_the_random_documents_reach_the_fast_path() -> None:
    """The generator is useful only if the fast path answers for many of its texts."""
    answered = 0

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(DOCS)
    def count(text: str) -> None:
        nonlocal answered
        answered += simple_analysis(text) is not None

    count()
    assert answered > 100


EDGES = [
    "- <!-- c\n\n  <b>\n  -->\n<i>",  # an outdented blank line does not end a comment block
    "- a\n\n      code <b>\n- b <i>",
    "1. a\n2. b\n\n   c <b>\n\n  d <i>",
    "- a\n  - b\n    - c <T>\nlazy <x>",
    "-    a\n    - b <i>",  # too deep for a list item: a continuation line
    "a\n2. b <i>\n1. c <b>",  # only an ordered list starting at 1 interrupts a paragraph
    "<div>\n- a\n\nb <i>",
    "- ```\n  x\n- y <b>",  # a fence left open by its list item
    "  - a\n <b>\n\n<p>\n- x\n\n***\n* y\n* * *\n1) z\n1. w <i>",
    "<pre>\n<b>\n</pre> x\n<i>",
    "## a ##\n# b\n####### c <i>",
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases_are_answered_as_the_parser(text: str) -> None:
    fast = simple_analysis(text)
    assert fast is not None and fast == analyse(text)
    assert not fast.clean


def test_read_blocks_examples() -> None:
    lines = tuple(
        normalize(
            "Intro <b>\n\n* item one\n  lazy <T>\ncontinued\n* item two\n\n      code <b>\n"
            "1. x\n   ```\n   # not a heading\n   ```\n<br>\nstill html\n\nend"
        ).split("\n")
    )
    assert read_blocks(lines) == (
        Paragraph(0, (0,)),
        Paragraph(2, (2, 2, 0)),
        Paragraph(5, (2,)),
        Paragraph(8, (3,)),
        RawHtml(12, 0, "<br>", True),
        Paragraph(15, (0,)),
    )
    lines = ("- a", "  ```x", "  code", "b", "", "## h ##", "***", "<!-- c", "", "-->", "<b> x", "````")
    assert read_blocks(lines) == (
        Paragraph(0, (2,)),
        OpenFence(1, 2, "```", 3, "  "),
        Paragraph(3, (0,)),
        Heading(5, 6, 2, False, 0),
        RawHtml(7, 0, "<!-- c", True),
        Paragraph(10, (0,)),
        OpenFence(11, 0, "````", 12, ""),
    )
    for text in ("a\n===", "> q", "# <h>", "-\n  x", "[a]: b", "a\n---"):
        assert read_blocks(tuple(text.split("\n"))) is None, text


def test_structured_analysis_examples() -> None:
    text = (
        "Intro:\n\n- `x` <b>y</b>\n  - nested Tensor<T>\n\n    ```\n    <b>\n    ```\n<br>\n    indented <b>"
    )
    analysis = simple_analysis(text)
    assert analysis is not None and analysis == analyse(text)
    assert [(h.line, h.column, h.text, h.block) for h in analysis.html] == [
        (2, 6, "<b>", False),
        (2, 10, "</b>", False),
        (3, 17, "<T>", False),
        (8, 0, "<br>", True),
    ]
    # markdown-it's comment syntax and attribute values are the definition of raw HTML
    for text in ("x <!-- a ---> y", "x <a b=\x01> y", "x <!-- a -- b --> y"):
        fast = simple_analysis(text)
        assert fast is not None and fast == analyse(text), text
    for text in ("[a](<b>)", "<https://onnx.ai>", "a\x0cb", "<a@b.c>", "a\n===", "# <b>"):
        assert simple_analysis(text) is None, text


def test_the_html_definitions_are_markdown_its() -> None:
    from markdown_it.common import html_blocks, html_re
    from markdown_it.rules_block.html_block import HTML_SEQUENCES

    assert html_re.HTML_TAG_RE.pattern == markdown_blocks.HTML_TAG
    assert markdown_blocks.OPEN_CLOSE_TAG == html_re.HTML_OPEN_CLOSE_TAG_STR
    assert "|".join(html_blocks.block_names) == markdown_blocks.HTML_BLOCK_NAMES
    assert [(p.pattern, p.flags) for p in markdown_blocks.HTML_BLOCK_STARTS] == [
        (start.pattern, start.flags) for start, _, _ in HTML_SEQUENCES
    ]


# --------------------------------------------------------------------------- the catalog


@pytest.fixture(scope="module")
def onnx_docs(onnx_catalog_dir: Path) -> list[str]:
    from toolkit.load.loader import read_specs

    specs = read_specs([onnx_catalog_dir], jobs=1).specs
    docs: set[str] = set()
    for op in specs.operators:
        for schema in op.versions:
            docs.add(schema.doc)
            docs |= {p.doc for p in (*schema.inputs, *schema.outputs, *schema.attributes)}
            docs |= {c.doc for c in schema.type_constraints}
    for domain in specs.domains:
        docs.add(domain.doc)
        docs |= {opset.doc for opset in domain.opset_versions}
    return sorted(text for text in docs if text and may_need_repair(text))


def test_every_catalog_doc_is_answered_without_the_parser(onnx_docs: list[str]) -> None:
    assert len(onnx_docs) > 100
    for text in onnx_docs:
        fast = simple_analysis(text)
        assert fast is not None, text[:200]
        assert fast == analyse(text), text[:200]


def test_validate_of_the_catalog_does_not_import_the_parser(onnx_catalog_dir: Path, tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from toolkit.cli import main\n"
        "code = main(['validate', sys.argv[1]])\n"
        "assert 'markdown_it' not in sys.modules, 'markdown_it was imported'\n"
        "print('no parser', code)\n"
    )
    # one process, so that every doc is checked where `sys.modules` is looked at
    env = {
        **os.environ,
        "OPSET_TOOLKIT_NO_CACHE": "1",
        "OPSET_TOOLKIT_JOBS": "1",
        "OPSET_TOOLKIT_CACHE": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "-c", script, str(onnx_catalog_dir)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "no parser" in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]
