"""`opset diff --against REF` end to end with git: a ref's tree as the old tree, run from the
repository or a subfolder, its cache, and what a missing ref, a shallow clone, a path-like value or
no repository at all say. The rest of diff's CLI: tests/test_diff_cli.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from diff_cli_helpers import ABC
from git_helpers import git as _git
from output_helpers import cli as run


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    root = tmp_path / "repo"
    (root / "opsets").mkdir(parents=True)
    shutil.copytree(ABC, root / "opsets" / "org.example.abc")
    (root / "sub" / "dir").mkdir(parents=True)
    (root / "sub" / "dir" / "keep").write_text("")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "abc")
    c = root / "opsets" / "org.example.abc" / "C.yaml"
    c.write_text(c.read_text().replace("tensor(double)]", "tensor(double), tensor(float16)]"))
    _git(root, "commit", "-q", "-am", "edit C:3 in place")
    return root


def test_git_ref_diff(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "diff", "--against", "HEAD~1")
    assert code == 1
    assert "opsets/org.example.abc/C.yaml:" in out and "error[TYPE-ADDED]: org.example.abc.C:3" in out
    assert "was: opsets/org.example.abc/C.yaml:" in out and "(HEAD~1)" in out
    assert "/tmp" not in out  # repository paths, not the temp dir the blobs went through
    assert run(capsys, "diff", "--against", "HEAD")[0] == 0


def test_git_ref_from_a_subfolder(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "sub" / "dir")
    code, out, _ = run(capsys, "diff", "--against", "main~1")
    assert code == 1 and "../../opsets/org.example.abc/C.yaml:" in out


def test_git_ref_cache_is_used(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(repo)
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE")
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    first = run(capsys, "diff", "--against", "HEAD~1", "--format", "json")
    assert any(p.name.startswith("git-") for p in (tmp_path / "cache").iterdir())
    assert run(capsys, "diff", "--against", "HEAD~1", "--format", "json") == first


def test_missing_ref_message(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    # The fetch is suggested only where there is a remote to fetch from (tests/test_newcomer_loop.py:
    # without one, the message says so).
    _git(repo, "remote", "add", "origin", "https://example.invalid/specs.git")
    code, _, err = run(capsys, "diff", "--against", "origin/release-1")
    assert code == 2
    assert "no such git ref" in err and "git fetch origin release-1" in err
    assert "Traceback" not in err


def test_shallow_clone_message(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)],
        check=True,
        capture_output=True,
    )
    monkeypatch.chdir(shallow)
    code, _, err = run(capsys, "diff", "--against", "HEAD~1")
    assert code == 2
    assert "shallow" in err and "git fetch --unshallow" in err and "fetch-depth: 0" in err
    assert "`git fetch --deepen=1`" in err and "git fetch origin HEAD~1" not in err  # not a fetchable ref
    code, _, err = run(capsys, "diff", "--against", "HEAD~2^2")
    assert code == 2 and "3 commit(s) back" in err and "--deepen=3" in err


def test_path_like_against_says_no_such_directory(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    for value in (
        str(tmp_path / "nonexistent"),
        "./old-specs",
        "sub/nothing",
    ):  # sub/ is a folder of the repo
        code, _, err = run(capsys, "diff", "--against", value)
        assert code == 2 and f"--against {value}: no such directory" in err, err
        assert "git fetch" not in err
    monkeypatch.chdir(tmp_path)  # outside any git work tree: still a directory problem, not a git one
    code, _, err = run(capsys, "diff", "--against", "/nonexistent", "--specs", str(repo / "opsets"))
    assert code == 2 and "--against /nonexistent: no such directory" in err
    code, _, err = run(capsys, "diff", "--against", "HEAD~99", "--specs", str(repo / "opsets"))
    assert code == 2 and "not inside a git work tree" in err


def test_not_a_git_repo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ABC, tmp_path / "opsets" / "org.example.abc")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    code, _, err = run(capsys, "diff", "--against", "main")
    assert code == 2 and "not inside a git work tree" in err


def test_deep_folder_in_an_old_git_tree_is_located(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tree far deeper than discovery enters, only in the ref: FILE-DEPTH, never a crash."""
    from toolkit.load.discovery import MAX_FOLDER_DEPTH

    monkeypatch.chdir(repo)
    deep = repo / "opsets" / "/".join(["d"] * (MAX_FOLDER_DEPTH + 5))
    deep.mkdir(parents=True)
    (deep / "X.yaml").write_text("operator: X\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "deep")
    shutil.rmtree(repo / "opsets" / "d")
    code, _, err = run(capsys, "diff", "--against", "HEAD")
    assert code == 2, err
    first = "opsets/" + "/".join(["d"] * (MAX_FOLDER_DEPTH + 1))
    assert f"{first}:1:1: error[FILE-DEPTH]:" in err and "the old tree (HEAD)" in err
