"""Issue #11, classes 4 and 5: names are checked with full-match semantics, quoted names and values
can never forge a diagnostic line, and numbers the model cannot hold are rejected by `validate`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from toolkit.checks.run import load_specs
from toolkit.load import schema_fast
from toolkit.load.schema import end_anchored, explain, schema_diagnostics
from toolkit.load.yamlsrc import Source
from toolkit.model.diagnostics import Diagnostic, escape
from toolkit.model.spec import Location

CORPUS = Path(__file__).parent / "bad_inputs"
LINE = re.compile(r"^\S.*:\d+:\d+: (error|warning|info)\[[A-Z][A-Z0-9-]*\]: ")


@given(st.text(), st.text())
def test_a_diagnostic_is_one_line_plus_indented_hint_lines(message: str, hint: str) -> None:
    diag = Diagnostic("SCHEMA-VALUE", message, Location("spec\n.yaml", 3, 4), hint)
    lines = diag.format().split("\n")
    assert LINE.match(lines[0]) or lines[0].startswith("spec\\n.yaml:3:4: ")
    assert all(line.startswith("  ") for line in lines[1:])
    assert "\r" not in diag.format() and "\x1b" not in diag.format() and "\u2028" not in diag.format()
    assert "\n" not in diag.message


def test_escape_keeps_ordinary_text_and_spells_out_controls() -> None:
    assert escape("plain 'name' ü") == "plain 'name' ü"
    assert escape("a\nb\tc\x1b[31m\u2028\u202e") == "a\\nb\\tc\\x1b[31m\\u2028\\u202e"
    multi = Diagnostic("SCHEMA-VALUE", "m", Location("f", 1, 1), "first\nsecond")
    assert multi.format().split("\n") == ["f:1:1: error[SCHEMA-VALUE]: m", "  hint: first", "        second"]


def test_cli_output_cannot_be_forged_by_a_name() -> None:
    case = CORPUS / "h10-trailing-newline-names"
    text = subprocess.run(
        [sys.executable, "-m", "toolkit", "validate", str(case)], capture_output=True, text=True, check=False
    )
    assert text.returncode == 1
    diag_lines = [line for line in text.stderr.splitlines() if LINE.match(line)]
    assert len(diag_lines) == 4
    assert not any("[FAKE]" in line.split(": ", 2)[1] for line in diag_lines)
    for line in text.stderr.splitlines():
        assert LINE.match(line) or line.startswith("  hint: ") or " error(s), " in line, line
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "validate", "--format", "json", str(case)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "\\n/x.yaml:1:1: error[FAKE]" in proc.stdout + proc.stderr  # escaped inside the message
    payload = json.loads(proc.stdout)
    assert "\n" not in json.dumps(payload, ensure_ascii=False).replace("\\n", "")


def test_patterns_end_at_the_end_of_the_string() -> None:
    identifier = end_anchored("^[A-Za-z_][A-Za-z0-9_]*$")
    assert identifier.search("name") and not identifier.search("name\n")
    assert end_anchored(r"^a\$$").search("a$") and not end_anchored(r"^a\$$").search("a$\n")
    assert not schema_fast.is_identifier("name\n")


@given(st.sampled_from(["X", "X\n", "X\n\n", "\nX", "X Y", "_1"]))
def test_both_validators_reject_a_trailing_line_break(name: str) -> None:
    doc = {
        "operator": "Op",
        "domain": "com.test.x",
        "versions": [
            {
                "since_version": 1,
                "inputs": [{"name": name, "type": "T"}],
                "type_constraints": {name: {"allowed": ["tensor(float)"]}},
            }
        ],
    }
    source = Source(Path("Op.yaml"), "Op.yaml", doc)
    valid = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None
    assert schema_fast.is_valid("operator", doc) is valid
    assert schema_diagnostics(source, "operator") == explain(source, "operator")
    assert bool(explain(source, "operator")) is not valid


def _tree(tmp_path: Path, operator: str, domain_extra: str = "") -> Path:
    folder = tmp_path / "com.test.h"
    folder.mkdir(exist_ok=True)
    (folder / "domain.yaml").write_text(
        "domain: com.test.h\nopset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 9}]\n"
        + domain_extra
    )
    (folder / "Op.yaml").write_text(operator)
    return tmp_path


OPERATOR = """\
operator: Op
domain: com.test.h
versions:
  - since_version: {since}
    inputs: [{{name: X, type: T}}]
    outputs: [{{name: Y, type: T}}]
    attributes:
      n: {{type: {attr_type}, default: {default}}}
    type_constraints:
      T: {{allowed: [tensor(float)]}}
"""


@given(
    st.sampled_from(
        [
            ("int", str(2**63), "ATTR-DEFAULT-TYPE"),
            ("int", str(-(2**63) - 1), "ATTR-DEFAULT-TYPE"),
            ("ints", f"[0, {2**64}]", "ATTR-DEFAULT-TYPE"),
            ("int", "2.0", "ATTR-DEFAULT-TYPE"),
            ("float", "1" + "0" * 400, "SCHEMA-VALUE"),  # past any double: refused as it is read
            ("int", str(2**63 - 1), None),
            ("int", str(-(2**63)), None),
            ("float", "1" + "0" * 300, None),
        ]
    )
)
def test_defaults_beyond_their_protobuf_field_are_rejected(case: tuple[str, str, str | None]) -> None:
    import tempfile

    attr_type, default, rule = case
    with tempfile.TemporaryDirectory() as folder:
        root = _tree(Path(folder), OPERATOR.format(since=1, attr_type=attr_type, default=default))
        result = load_specs([root], jobs=1)
        rules = [(d.rule, d.location.line) for d in result.errors]
        assert rules == ([(rule, 8)] if rule else []), [d.format() for d in result.errors]


def test_explicit_min_arity_on_optional_input_can_be_suppressed(tmp_path: Path) -> None:
    operator = """\
operator: Op
domain: com.test.h
versions:
  - since_version: 1
    inputs: [{name: X, type: T, option: optional, min_arity: 1, homogeneous: true}]
    outputs: [{name: Y, type: T}]
    type_constraints:
      T: {allowed: [tensor(float)]}
{suppress}"""
    root = _tree(tmp_path, operator.replace("{suppress}", ""))
    assert sorted(d.rule for d in load_specs([root], jobs=1).errors) == [
        "PARAM-HOMOGENEOUS",
        "PARAM-MIN-ARITY",
    ]
    (root / "com.test.h" / "Op.yaml").write_text(
        operator.replace("{suppress}", "    suppress: [PARAM-MIN-ARITY, PARAM-HOMOGENEOUS]\n")
    )
    assert not load_specs([root], jobs=1).errors
