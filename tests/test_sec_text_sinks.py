"""Tree- and model-controlled text reaches no text output raw (issue: text sinks).

A spec tree, its opset.toml and an ONNX model may come from a stranger's pull request, and the
workflow `opset init` writes runs `opset validate` on pull requests: a line break followed by
`::` in a printed name would be a GitHub workflow command in the CI log, and so would a line
that starts with `::` after white space (the runner trims it) or holds `##[` anywhere (its older
syntax). Each test builds its hostile input here, runs the real CLI in this process, and checks
every line of stdout and stderr, in every `--format`: no workflow command but opset's own, no raw
control or bidi character, JUnit well-formed (ElementTree), and the text still shown (escaped).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from output_helpers import cli

from toolkit.model.spec import Location

# The payload: a forged command on a line of its own, an indented one, the older syntax inside a
# line, a terminal escape, a right-to-left override and a NUL.
FORGED = "\n::warning file=FORGED.md::forged\n  ::error::FORGED\x1b[2K ##[error]FORGED \u202e\x00"
FOLDER = FORGED.replace("\x00", "")  # what a folder name can hold
# What a text output never holds raw (the C0 controls but the line feed, ESC, the separators, bidi).
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# A line GitHub's runner reads as a workflow command (actions/runner ActionCommand.TryParseV2):
# `::name props::data` after any white space; props are `key=value` pairs split at commas.
COMMAND = re.compile(r"\s*::([A-Za-z-]+)(?: ([^:]*))?::(.*)")


def forged(text: str) -> list[str]:
    """The lines of `text` a CI runner would read as a workflow command the input wrote: one
    whose command, property or data is the payload's (opset's own `--format github` lines
    carry the input's text escaped inside their properties and data, which the runner does not
    read again), and, in a line that is no such command, any `##[` (the runner's older syntax,
    read anywhere in a line: ActionCommand.TryParse)."""
    bad = []
    for line in re.split(r"\r\n|\r|\n", text):
        command = COMMAND.match(line)
        if command is None:
            if "##[" in line:
                bad.append(line)
            continue
        name, props, data = command.groups()
        values = [pair.partition("=")[2] for pair in (props or "").split(",")]
        if any(v.strip().startswith(("FORGED", "forged")) for v in (name, data, *values)):
            bad.append(line)
    return bad


def assert_inert(text: str, what: str) -> None:
    assert not forged(text), (what, forged(text))
    assert not RAW.search(text), (what, sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)}))


def _tree(
    root: Path,
    folder: str = "specs",
    *,
    input_name: str = "X",
    replaced_by: str = "",
    doc: str = "Returns X.",
    example: str = "ex1",
) -> Path:
    """A one-operator domain under `root/folder`, its opset.toml naming it; `input_name` may be any
    text (the version suppresses NAME-NOT-IDENTIFIER)."""
    specs = root / folder
    domain = specs / "com.evil.x"
    domain.mkdir(parents=True)
    (root / "opset.toml").write_text(f"spec_root = {json.dumps(folder)}\n")  # JSON's escapes are TOML's
    (domain / "domain.yaml").write_text(
        "domain: com.evil.x\ndoc: D.\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
    )
    extra = f"replaced_by: {json.dumps(replaced_by)}\n" if replaced_by else ""
    (domain / "Evil.yaml").write_text(
        f"""operator: Evil
domain: com.evil.x
{extra}versions:
  - since_version: 1
    suppress: [NAME-NOT-IDENTIFIER]
    deprecated: true
    deprecated_reason: {json.dumps(doc)}
    doc: {json.dumps(doc)}
    inputs:
      - {{name: {json.dumps(input_name)}, type: T, doc: {json.dumps(doc)}}}
    outputs:
      - {{name: Y, type: T, doc: out}}
    attributes:
      mode: {{type: string, default: {json.dumps(doc)}, doc: mode}}
    type_constraints:
      T: {{allowed: [tensor(float)], doc: tc}}
    examples:
      - name: {json.dumps(example)}
        inputs:
          - {{dtype: float, shape: [1], data: [1]}}
        outputs:
          - {{dtype: float, shape: [1], data: [2]}}
"""
    )
    return specs


# --------------------------------------------------------------------------- 1: usage errors


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_a_spec_root_that_is_no_folder_is_a_located_setting_error(
    here: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """spec_root naming no folder: a PROJECT-SETTING error at the key (exit 2), the value shown
    escaped, in every format of validate; the JUnit report parses."""
    (here / "opset.toml").write_text(f"\nspec_root = {json.dumps('nope' + FORGED)}\n")
    code, out, err = cli(capsys, "validate", "--format", fmt)
    assert code == 2, out + err
    assert_inert(out + err, fmt)
    assert "opset.toml:2:1: error[PROJECT-SETTING]: `spec_root` = 'nope\\n::warning" in err, err
    assert "hint: create it, or fix `spec_root`" in err
    if fmt == "junit":
        ET.fromstring(out)


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_a_usage_error_quoting_tree_text_is_escaped_line_by_line(
    here: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """A usage error that quotes the tree's text (a gate plugin the tree's configuration names,
    with the invoker's --allow-plugins, that is no module name): its own lines stay lines
    (`hint:`), what it quotes is escaped; nothing is imported."""
    _tree(here, "base")
    with (here / "opset.toml").open("a") as config:
        config.write(f"plugins = [{json.dumps('nope' + FORGED)}]\n")
    code, out, err = cli(capsys, "diff", "--against", "base", "--allow-plugins", "--format", fmt)
    assert code == 2, out + err
    assert_inert(out + err, fmt)
    if fmt == "text":
        assert "'nope\n  \\x3a:warning file=FORGED.md::forged\n  \\x3a:error::FORGED" in err, err
        assert "\n  hint: " in err  # the message's own second line
        assert all(line.startswith("  ") for line in err.splitlines()[1:]), err  # nothing at column 0
    if fmt == "junit":
        ET.fromstring(out)


# --------------------------------------------------------------------------- 2: the gate, the changelog


def _gate_trees(here: Path) -> None:
    """The old tree at `base/`; the new one in a folder named by the payload, with the input
    renamed to it (a breaking change the gate reports, quoting the name) and a replacement named."""
    _tree(here, "base")
    (here / "opset.toml").unlink()
    _tree(here, FOLDER, input_name="X" + FORGED, replaced_by="NewEvil" + FORGED)


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_gate_findings_print_locations_and_messages_escaped(
    here: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    _gate_trees(here)
    code, out, err = cli(capsys, "diff", "--against", "base", "--format", fmt)
    assert code == 1, out + err
    assert_inert(out + err, fmt)
    if fmt == "text":
        located = [line for line in out.splitlines() if "error[" in line]
        assert located and all(line.startswith("\\n::warning file=FORGED.md") for line in located), out
        assert "X\\n::warning file=FORGED.md::forged\\n  ::error::FORGED\\x1b[2K ##\\x5berror]" in out
    if fmt == "junit":
        ET.fromstring(out)


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_changelog_entries_are_escaped(here: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    _gate_trees(here)
    code, out, err = cli(capsys, "changelog", "--against", "base", "--format", fmt)
    assert code == 0, out + err
    assert_inert(out + err, fmt)
    assert "NewEvil" in out


# --------------------------------------------------------------------------- 3: opset show


def test_show_escapes_each_line_and_keeps_the_doc_lines(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(here, input_name="X" + FORGED, doc="First line.\n\n    indented" + FORGED)
    code, out, err = cli(capsys, "show", "com.evil.x.Evil")
    assert code == 0, out + err
    assert_inert(out + err, "show")
    lines = out.splitlines()
    assert all(not line or line.startswith(" ") for line in lines[1:]), out  # nothing of the tree at column 0
    assert "      indented" in lines  # the doc's own indentation, under the block's
    assert "    \\x3a:warning file=FORGED.md::forged" in lines, out  # a doc line is a line, inert


# --------------------------------------------------------------------------- 4: pages


def test_pages_show_control_characters_visibly_and_validate_warns(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Docs, replaced_by and deprecated_reason holding ESC, NUL, U+2028 and U+202E: every page
    shows them as `\\uXXXX` with a note where a doc was repaired, and `opset validate` warns
    DOC-CONTROL-CHAR at the doc."""
    doc = "Returns \x1b[31mX\x1b[0m.\u2028Then\u202e\x00 done."
    specs = _tree(here, doc=doc, replaced_by="NewEvil\x1b[2K\u202e")
    code, out, err = cli(capsys, "validate")
    assert code == 0, out + err
    assert (
        "specs/com.evil.x/Evil.yaml:9:10: warning[DOC-CONTROL-CHAR]: com.evil.x.Evil:1: control character"
        in (out + err)
    ), out + err
    assert_inert(out + err, "validate")
    code, out, err = cli(capsys, "generate", "--no-cache", "--only", "docs")
    assert code == 0, out + err
    pages = list((here / "generated" / "docs").rglob("*.md"))
    assert len(pages) >= 4
    for page in pages:
        text = page.read_text()
        assert not RAW.search(text.replace("\t", "")), (page.name, RAW.findall(text))
    evil = (here / "generated/docs/com.evil.x/ops/Evil.md").read_text()
    assert "Returns \\u001b[31mX\\u001b[0m.\\u2028Then\\u202e\\u0000 done." in evil
    assert "control character U+001B shown as \\u001b (and 4 more)" in evil  # the repair's note
    assert "NewEvil\\u001b[2K\\u202e" in evil
    assert specs.exists() and sorted(p.name for p in here.iterdir()) == ["generated", "opset.toml", "specs"]


# --------------------------------------------------------------------------- 5: test-runtime, check-model


@pytest.mark.parametrize("fmt", ["text", "json", "github", "junit"])
def test_test_runtime_results_are_escaped(here: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    pytest.importorskip("onnxruntime")
    _tree(here, example="ex1" + FORGED)
    code, out, err = cli(capsys, "test-runtime", "--format", fmt)
    assert code == 1, out + err  # the example's outputs are wrong (or it cannot run): reported
    assert_inert(out + err, fmt)
    if fmt == "junit":
        ET.fromstring(out)


@pytest.mark.parametrize("fmt", ["text", "json", "github", "junit"])
def test_check_model_findings_are_escaped(here: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    onnx = pytest.importorskip("onnx")
    helper, tensor = onnx.helper, onnx.TensorProto
    x = helper.make_tensor_value_info("X", tensor.FLOAT, [1])
    y = helper.make_tensor_value_info("Y", tensor.FLOAT, [1])
    nodes = [
        helper.make_node("Relu", ["X"], ["Y"], name="n" + FOLDER),
        helper.make_node("Relu", ["missing" + FOLDER], ["Z"], name="n2"),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(here / "m.onnx"))
    code, out, err = cli(capsys, "check-model", "m.onnx", "--format", fmt)
    assert code == 1, out + err
    assert_inert(out + err, fmt)
    if fmt == "junit":
        ET.fromstring(out)


# --------------------------------------------------------------------------- 6: the one escaper


def test_the_escaper_neutralizes_workflow_commands_and_is_idempotent() -> None:
    from toolkit.model.diagnostics import escape, escape_lines, unicode_escaped

    cases = {
        "::error::x": "\\x3a:error::x",
        " \u00a0\t::x::": " \u00a0\\t\\x3a:x::",
        "a ##[error]b": "a ##\\x5berror]b",
        "a::b": "a::b",
        "a\nb\x1b": "a\\nb\\x1b",
    }
    for text, shown in cases.items():
        assert escape(text) == shown and escape(shown) == shown
    assert escape_lines("m\n  hint: x\n  ::error::y") == "m\n  hint: x\n  \\x3a:error::y"
    assert str(Location("sp\n::warning::x/F.yaml", 3, 4)) == "sp\\n::warning::x/F.yaml:3:4"
    assert str(Location("::warning::x/F.yaml", 3, 4)) == "\\x3a:warning::x/F.yaml:3:4"
    assert unicode_escaped("a\x1b\u202eb") == "a\\u001b\\u202eb"


def test_junit_writes_code_points_xml_cannot_carry_visibly() -> None:
    from toolkit.reporting.junit import xml_attr, xml_text

    for raw in ("\x00", "\x08", "\x0b", "\x1f", "\ufffe"):
        ET.fromstring(f"<a b={xml_attr('x' + raw)}>{xml_text(raw + '<')}</a>")


def test_textproto_writes_control_characters_as_octal_and_reads_back_the_same(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """protobuf's printer keeps bidi controls and separators raw; the text documents write every
    control character as the octal escapes of its UTF-8 bytes, which text_format reads back as the
    same string (the binary document holds it)."""
    from google.protobuf import text_format

    from toolkit.proto import opset_toolkit_pb2 as pb

    doc = "Returns \x1b[31mX\x1b[0m.\u2028Then\u202e\x85\x00 done."
    _tree(here, doc=doc)
    code, out, err = cli(capsys, "generate", "--no-cache", "--only", "proto")
    assert code == 0, out + err
    documents = list((here / "generated" / "proto").rglob("*.textproto"))
    assert documents
    for document in documents:
        text = document.read_text()
        assert not RAW.search(text.replace("\t", "")) and "\x85" not in text, document.name
        binary = document.with_suffix(".pb").read_bytes()
        assert text_format.Parse(text, pb.OperatorSetProto()) == pb.OperatorSetProto.FromString(binary)
    assert any(doc.encode() in document.with_suffix(".pb").read_bytes() for document in documents)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2100)) | st.text())
def test_the_fast_test_answers_as_the_regular_expression(text: str) -> None:
    """`find_unprintable` (bytes stripped of printable ASCII first) agrees with the one set's
    regular expression on any text, lone surrogates included."""
    from toolkit.model.diagnostics import UNPRINTABLE, UNPRINTABLE_IN_TEXT, find_unprintable

    for pattern in (UNPRINTABLE, UNPRINTABLE_IN_TEXT):
        found, expected = find_unprintable(text, pattern), pattern.search(text)
        assert (found and found.span()) == (expected and expected.span())
