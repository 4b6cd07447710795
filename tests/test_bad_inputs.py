"""The bad-input corpus: every case is a spec tree with exactly the diagnostics it must raise.

Expected diagnostics are written next to the defect, as a trailing comment on the line:
`# expect: RULE-ID at 'token'` (column = where `token` starts on that line), or, for files
that cannot hold comments (bad encoding, broken YAML), in the case's `expected.txt` as
`path:line:col RULE-ID` (`*` matches any line or column).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.checks.run import load_specs

CORPUS = Path(__file__).parent / "bad_inputs"
CASES = sorted(p for p in CORPUS.iterdir() if p.is_dir())
MARKER = re.compile(r"#\s*expect:\s*([A-Z][A-Z0-9-]+)\s+at\s+'([^']+)'")


def expected_for(case: Path) -> set[tuple[str, str, str, str]]:
    expected: set[tuple[str, str, str, str]] = set()
    for path in sorted(case.rglob("*.y*ml")):
        rel = path.relative_to(case).as_posix()
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(lines, start=1):
            for match in MARKER.finditer(line):
                rule, token = match.groups()
                code = line[: match.start()]
                assert token in code, f"{rel}:{number}: marker token {token!r} not on the line"
                expected.add((rel, str(number), str(code.index(token) + 1), rule))
    listing = case / "expected.txt"
    if listing.exists():
        for entry in listing.read_text(encoding="utf-8").split("\n"):
            if entry.strip():
                where, rule = entry.split()
                rel, line, col = where.rsplit(":", 2)
                expected.add((rel, line, col, rule))
    return expected


def _matches(expected: set[tuple[str, str, str, str]], actual: set[tuple[str, str, str, str]]) -> bool:
    def fits(pattern: tuple[str, str, str, str], item: tuple[str, str, str, str]) -> bool:
        return all(p == "*" or p == a for p, a in zip(pattern, item))

    return all(any(fits(e, a) for a in actual) for e in expected) and all(
        any(fits(e, a) for e in expected) for a in actual
    )


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 40
    rules = {rule for case in CASES for (*_, rule) in expected_for(case)}
    assert len(rules) >= 30, sorted(rules)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_reports_rule_and_position(case: Path) -> None:
    expected = expected_for(case)
    assert expected, f"case {case.name} declares no expected diagnostic"
    result = load_specs([case], display=lambda p: p.relative_to(case).as_posix(), jobs=1)
    actual = {
        (d.location.file, str(d.location.line), str(d.location.column), d.rule) for d in result.diagnostics
    }
    assert _matches(expected, actual), (
        f"expected {sorted(expected)}\n     got {sorted(actual)}\n"
        + "\n".join(d.format() for d in result.diagnostics)
    )
    for diag in result.diagnostics:
        assert diag.hint, f"{diag.rule} has no hint"


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "com.test.big"
    folder.mkdir()
    (folder / "domain.yaml").write_text(
        "domain: com.test.big\nopset_versions: [{version: 1, ir_version: 9}]\n"
    )
    (folder / "Big.yaml").write_text(
        "operator: Big\ndomain: com.test.big\ndoc: '" + "x" * (5 * 1024 * 1024) + "'\n"
    )
    result = load_specs([tmp_path], jobs=1)
    assert [(d.rule, d.location.line, d.location.column) for d in result.errors] == [("FILE-TOO-LARGE", 1, 1)]


def test_unreadable_spec_file_is_reported(tmp_path: Path) -> None:
    """A spec path that cannot be read (here a dangling symlink) is a located FILE-READ error."""
    folder = tmp_path / "com.test.gone"
    folder.mkdir()
    (folder / "domain.yaml").write_text(
        "domain: com.test.gone\nopset_versions: [{version: 1, ir_version: 9}]\n"
    )
    (folder / "Gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    result = load_specs([tmp_path], jobs=1)
    assert [(d.rule, Path(d.location.file).name) for d in result.errors] == [("FILE-READ", "Gone.yaml")]
    assert result.errors[0].hint


def test_cli_reports_every_problem_without_traceback() -> None:
    case = CORPUS / "many-errors-in-one-file"
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "validate", str(case)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if ": error[" in line]
    assert len(lines) == 3
    assert all(re.match(r"^\S+:\d+:\d+: error\[[A-Z-]+\]: ", line) for line in lines)
    assert proc.stderr.count("  hint: ") >= 3


def test_cli_usage_problem_exits_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "validate", "/no/such/folder"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "no such file or directory" in proc.stderr and "Traceback" not in proc.stderr
