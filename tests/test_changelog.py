"""`opset changelog`: release notes between two trees from the gate's own change detection.

The trees are written at test time (the shipped A/B/C domain, edited); the example on
docs/guide/changelog.md is this module's output for a git ref, regenerated here and compared."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from output_helpers import cli as run

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
PAGE = REPO / "docs" / "guide" / "changelog.md"
BEGIN, END = "<!-- example: begin (tests/test_changelog.py) -->\n", "<!-- example: end -->\n"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def release_two(tree: Path) -> None:
    """The A/B/C domain's next release: opset 5 with a new version of C and a new operator D; C:4
    loses int64 in place (breaking), B:2 gets an optional attribute in place (FC only), B's doc
    is reworded."""
    domain = tree / "org.example.abc"
    edit(
        domain / "domain.yaml",
        "(to C').\"}\n",
        '(to C\')."}\n  - {version: 5, ir_version: 3, doc: "C takes int8, D introduced."}\n',
    )
    edit(
        domain / "C.yaml",
        'T: {allowed: "@numbers"}',
        "T: {allowed: [tensor(float), tensor(double), tensor(int32)]}",
    )
    (domain / "C.yaml").write_text(
        (domain / "C.yaml").read_text(encoding="utf-8")
        + "  - since_version: 5\n    based_on: 4\n"
        + "    type_constraints:\n      T: {allowed: [tensor(float), tensor(double), tensor(int32), tensor(int8)]}\n",
        encoding="utf-8",
    )
    edit(domain / "B.yaml", "element by element", "elementwise")
    edit(
        domain / "B.yaml",
        "    outputs:",
        "    attributes:\n      scale: {type: float, default: 1.0}\n    outputs:",
    )
    (domain / "D.yaml").write_text(
        "operator: D\ndomain: org.example.abc\nversions:\n  - since_version: 5\n    doc: Negates a tensor.\n"
        "    inputs: [{name: X, type: tensor(float)}]\n    outputs: [{name: Y, type: tensor(float)}]\n",
        encoding="utf-8",
    )


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose tag v1.0 holds the shipped A/B/C domain; the work tree is the next
    release (`release_two`)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    shutil.copytree(ABC, tmp_path / "specs" / "org.example.abc")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
    git("tag", "v1.0")
    release_two(tmp_path / "specs")
    return tmp_path


def test_markdown_groups_by_domain_and_operator_breaking_first(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "changelog", "--against", "v1.0", "--specs", "specs")
    assert code == 0, err
    assert out.startswith("# Changes since v1.0\n")
    assert "1 breaking, 1 forward-incompatible, 4 non-breaking." in out
    sections = [line for line in out.splitlines() if line.startswith("#")]
    assert sections == ["# Changes since v1.0", "## org.example.abc", "### C", "### B", "### D"]
    c = out[out.index("### C") : out.index("### B")]
    assert c.index("**breaking** `TYPE-REMOVED`") < c.index("**non-breaking** `VERSION-ADDED`")
    assert "  - type `tensor(int8)` added to `T` (breaks FC)" in c and "old nodes move to it unchanged" in c


def test_json_carries_levels_flags_and_locations(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "changelog", "--against", "v1.0", "--specs", "specs", "--format", "json")
    document = json.loads(out)
    assert code == 0 and document["kind"] == "changelog" and document["against"] == "v1.0"
    assert document["summary"] == {"breaking": 1, "forward-incompatible": 1, "non-breaking": 4}
    (domain,) = document["domains"]
    assert [e["kind"] for e in domain["changes"]] == ["OPSET-ADDED"]
    entries = {(o["operator"], e["kind"]): e for o in domain["operators"] for e in o["changes"]}
    removed = entries["C", "TYPE-REMOVED"]
    assert removed["level"] == "breaking" and removed["bc"] and not removed["fc"]
    assert removed["location"]["file"] == "specs/org.example.abc/C.yaml" and removed["location"]["line"] > 0
    assert entries["B", "ATTR-ADDED"]["level"] == "forward-incompatible"
    assert entries["D", "OPERATOR-ADDED"]["level"] == "non-breaking"  # in the new opset 5
    assert entries["B", "DOC-CHANGED"]["message"] == "documentation changed (operator)"


def test_one_engine_the_gate_findings_are_the_changelog_entries(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every in-place change the gate reports is in the changelog with the same flags."""
    _, out, _ = run(capsys, "diff", "--against", "v1.0", "--specs", "specs", "--format", "json")
    findings = {(f["operator"], f["rule"], f["bc"], f["fc"]) for f in json.loads(out)["findings"]}
    _, out, _ = run(capsys, "changelog", "--against", "v1.0", "--specs", "specs", "--format", "json")
    entries = {
        (e["subject"], e["kind"], e["bc"], e["fc"])
        for d in json.loads(out)["domains"]
        for o in d["operators"]
        for e in o["changes"]
    }
    changes = {f for f in findings if f[1] in ("TYPE-REMOVED", "ATTR-ADDED")}
    assert len(changes) == 2 and changes <= entries


def test_output_file_and_nothing_else_written(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.relative_to(repo) for p in repo.rglob("*") if ".git" not in p.parts)
    code, out, _ = run(capsys, "changelog", "--against", "v1.0", "--specs", "specs", "-o", "notes.md")
    assert code == 0 and out == ""
    after = sorted(p.relative_to(repo) for p in repo.rglob("*") if ".git" not in p.parts)
    assert after == sorted([*before, Path("notes.md")])
    assert (repo / "notes.md").read_text(encoding="utf-8").startswith("# Changes since v1.0")


def test_tree_text_cannot_inject_markup(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    payload = "<script>alert(1)</script> [x](javascript:alert(1))"
    shutil.copytree(repo / "specs", repo / "before")  # D without the attribute
    edit(
        repo / "specs" / "org.example.abc" / "D.yaml",
        "    inputs:",
        f"    attributes:\n      mode: {{type: string, default: '{payload}'}}\n    inputs:",
    )
    code, out, err = run(capsys, "changelog", "--against", "before", "--specs", "specs")
    assert "Traceback" not in err
    assert code == 0 and "`mode` added" in out
    assert "<script" not in out and "](javascript:" not in out


def test_load_and_usage_errors_exit_2_with_located_messages(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = repo / "broken" / "org.example.abc"
    shutil.copytree(repo / "specs" / "org.example.abc", broken)
    edit(broken / "C.yaml", "  - since_version: 3\n", "  - since_version: three\n")
    code, out, err = run(capsys, "changelog", "--against", "broken", "--specs", "specs")
    assert code == 2 and out == "" and "broken/org.example.abc/C.yaml:5:" in err and "error[" in err
    assert "Traceback" not in err
    code, _, err = run(capsys, "changelog", "--specs", "specs")
    assert code == 2 and "--against" in err
    code, _, err = run(capsys, "changelog", "--against", "v1.0", "--format", "sarif")
    assert code == 2 and "invalid choice" in err


def test_docs_page_example_is_the_output(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "changelog", "--against", "v1.0", "--specs", "specs")
    assert code == 0
    page = PAGE.read_text(encoding="utf-8")
    shown = page[page.index(BEGIN) + len(BEGIN) : page.index(END)]
    expected = f"```markdown\n{out}```\n"
    assert shown == expected, (
        "docs/guide/changelog.md's example is stale: replace the block between the markers with\n" + expected
    )
