"""`--against BRANCH` (two dots) when the branch moved on after HEAD forked from it.

A real temporary git repository: main adds opset 5 of org.example.abc (with a new version of
C) after `feature` forked; `feature` changes a doc. Comparing the feature tip with main's tip
would report main's newer work as removed by the feature (VERSION-REMOVED, OPSET-REMOVED):
for a branch the gate takes the merge base, as `main...` does, and says so; tags and commits
are taken exactly.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from git_helpers import git as _git

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    root = tmp_path / "repo"
    shutil.copytree(ABC, root / "opsets" / "org.example.abc")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "abc")
    _git(root, "branch", "feature")
    # main moves on: opset 5 with a new version of C
    folder = root / "opsets" / "org.example.abc"
    domain = folder / "domain.yaml"
    text = domain.read_text()
    marker = '  - {version: 4, ir_version: 3, doc: "A removed, C updated (to C\')."}\n'
    assert marker in text
    domain.write_text(text.replace(marker, marker + "  - {version: 5, ir_version: 3, doc: C again.}\n"))
    c = folder / "C.yaml"
    c.write_text(c.read_text() + "  - since_version: 5\n    based_on: 4\n    doc: Sums tensors, again.\n")
    _git(root, "commit", "-q", "-am", "main: opset 5")
    _git(root, "tag", "v5")
    # the feature branch: a doc edit only
    _git(root, "checkout", "-q", "feature")
    b = folder / "B.yaml"
    b.write_text(b.read_text().replace("same type", "one type"))
    _git(root, "commit", "-q", "-am", "feature: doc")
    monkeypatch.chdir(root)
    return root


def _diff(capsys: pytest.CaptureFixture[str], against: str) -> tuple[int, set[str], str, str]:
    code = main(["diff", "--against", against, "--format", "json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    return code, {f["rule"] for f in report["findings"]}, report.get("against", ""), err


def test_two_dot_branch_compares_with_the_merge_base(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _git(repo, "merge-base", "main", "HEAD").strip()
    code, rules, against, err = _diff(capsys, "main")
    assert code == 0, (rules, err)
    assert rules == {"DOC-CHANGED"}  # the feature's own change, nothing of main's opset 5
    assert f"merge base {base[:12]}" in against
    assert "note: --against main: the branch has moved on" in err and "`main...`" in err
    # three dots: the same comparison, without a note
    code3, rules3, _, err3 = _diff(capsys, "main...")
    assert (code3, rules3) == (0, {"DOC-CHANGED"}) and "note:" not in err3


def test_tags_and_commits_are_taken_exactly(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tip = _git(repo, "rev-parse", "main").strip()
    for ref in ("v5", tip):
        code, rules, against, err = _diff(capsys, ref)
        assert code == 1 and {"VERSION-REMOVED", "OPSET-REMOVED"} <= rules, (ref, rules)
        assert against == ref and "note:" not in err


def test_an_ancestor_branch_is_taken_as_is(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _git(repo, "branch", "start", "HEAD~1")  # an ancestor of HEAD: no merge base needed
    code, rules, against, err = _diff(capsys, "start")
    assert (code, rules, against) == (0, {"DOC-CHANGED"}, "start") and "note:" not in err
