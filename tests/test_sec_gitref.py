"""`opset diff --against REF` on hostile commits, and every git call run without the repository's commands.

The commits are built at test time with git plumbing (`git mktree -z`, `git commit-tree`), which
makes trees no checkout could hold: entries named `..`, names with backslashes, control
characters or bytes that are not UTF-8, spec-named symlinks and submodules, blobs far larger
than a spec file. The old tree was written out blob by blob to `tmp/<path>`: a `..` entry wrote
a file anywhere. Each test snapshots everything around the repository (the temporary folder
included) and checks that it is byte for byte the same afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
SENTINEL = b"repos:\n  - repo: local\n"


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def _mktree(repo: Path, entries: list[tuple[str, str, str, bytes]]) -> str:
    """A tree object of (mode, kind, object id, name) entries; names may hold any byte but `/`."""
    record = b"".join(f"{mode} {kind} {oid}\t".encode() + name + b"\0" for mode, kind, oid, name in entries)
    return _git(repo, "mktree", "-z", "--missing", stdin=record)


def _nested(repo: Path, names: list[bytes], leaf: tuple[str, str, str]) -> tuple[str, str, str, bytes]:
    """The entry `names[0]/names[1]/.../names[-1]` (one folder per name) holding `leaf` last."""
    entry = (*leaf, names[-1])
    for name in reversed(names[:-1]):
        entry = ("040000", "tree", _mktree(repo, [entry]), name)
    return entry


def _blob(repo: Path, data: bytes) -> str:
    return _git(repo, "hash-object", "-w", "--stdin", stdin=data)


def _commit_with(repo: Path, *extra: tuple[str, str, str, bytes]) -> str:
    """A commit on top of HEAD whose tree is HEAD's plus `extra` entries: at the top level, or in
    `opsets/org.example.abc` for entries whose name starts `abc/`."""
    top = _ls(repo, "HEAD")
    opsets = _ls(repo, "HEAD:opsets")
    abc = _ls(repo, "HEAD:opsets/org.example.abc")
    for mode, kind, oid, name in extra:
        if name.startswith(b"abc/"):
            abc.append((mode, kind, oid, name[4:]))
        elif name.startswith(b"opsets/"):
            opsets.append((mode, kind, oid, name[7:]))
        else:
            top.append((mode, kind, oid, name))
    opsets = [e for e in opsets if e[3] != b"org.example.abc"] + [
        ("040000", "tree", _mktree(repo, abc), b"org.example.abc")
    ]
    top = [e for e in top if e[3] != b"opsets"] + [("040000", "tree", _mktree(repo, opsets), b"opsets")]
    tree = _mktree(repo, top)
    return _git(repo, "commit-tree", tree, "-p", "HEAD", "-m", "hostile")


def _ls(repo: Path, treeish: str) -> list[tuple[str, str, str, bytes]]:
    out = subprocess.run(["git", "ls-tree", "-z", treeish], cwd=repo, capture_output=True, check=True).stdout
    entries = []
    for record in out.split(b"\0"):
        if record:
            meta, _, name = record.partition(b"\t")
            mode, kind, oid = meta.decode().split()
            entries.append((mode, kind, oid, name))
    return entries


def _snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every file, folder and link under `root` with its bytes (link: its target)."""
    seen: dict[str, tuple[str, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            info = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(info.st_mode):
                seen[rel] = ("link", os.readlink(path).encode())
            elif stat.S_ISDIR(info.st_mode):
                seen[rel] = ("dir", b"")
            else:
                seen[rel] = ("file", path.read_bytes())
    return seen


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """outer/repo (the shipped abc specs, committed) beside outer/tmp, the temporary folder: the
    old extraction went to outer/tmp/opset-ref-*, so `opsets/../../../repo/X` named outer/repo/X."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    outer = tmp_path / "outer"
    root = outer / "repo"
    shutil.copytree(ABC, root / "opsets" / "org.example.abc")
    (root / ".pre-commit-config.yaml").write_bytes(SENTINEL)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "abc")
    (outer / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(outer / "tmp"))
    monkeypatch.chdir(root)
    return root


def _diff(against: str, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str, str]:
    code = main(["diff", "--against", against, *more])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _escape_commit(repo: Path, path: list[bytes]) -> str:
    """HEAD plus a spec-named blob at opsets/<path...> (in the abc folder when path starts there)."""
    blob = _blob(repo, b"operator: Evil\n")
    where, path = (b"abc/", path[1:]) if path[0] == b"org.example.abc" else (b"opsets/", path)
    mode, kind, oid, name = _nested(repo, path, ("100644", "blob", blob))
    return _commit_with(repo, (mode, kind, oid, where + name))


def test_dotdot_entries_write_nothing_and_are_reported(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # opsets/../../../repo/.pre-commit-config.yaml: from outer/tmp/opset-ref-X/, the sentinel
    commit = _escape_commit(repo, [b"..", b"..", b"..", b"repo", b".pre-commit-config.yaml"])
    before = _snapshot(repo.parent)
    code, _, err = _diff(commit, capsys)
    assert _snapshot(repo.parent) == before
    assert (repo / ".pre-commit-config.yaml").read_bytes() == SENTINEL
    assert code == 2
    # located at the folder holding the `..` entry: a path tool would make `opsets/../x` another file
    assert (
        "opsets:1:1: error[FILE-GIT-PATH]: the tree at the ref holds an "
        "entry 'opsets/../../../repo/.pre-commit-config.yaml' that cannot be a spec file's path (it has a `..` "
        "component)" in err
    )
    assert "hint: " in err


@pytest.mark.parametrize(
    ("path", "shown", "why"),
    [
        ([b".", b"Dot.yaml"], "opsets", "a `.` component"),
        ([b".git", b"config.yaml"], "opsets/.git/config.yaml", "a `.git` component"),
        ([b".GIT", b"x.yaml"], "opsets/.GIT/x.yaml", "a `.git` component"),
        (
            [b"org.example.abc", b"..\\..\\Evil.yaml"],
            "opsets/org.example.abc/..\\..\\Evil.yaml",
            "a backslash",
        ),
        ([b"org.example.abc", b"Red\x1b[31m.yaml"], "opsets/org.example.abc/Red\\u001b[31m.yaml", "U+001B"),
        ([b"org.example.abc", b"Two\nlines.yaml"], "opsets/org.example.abc/Two\\u000alines.yaml", "U+000A"),
        (
            [b"org.example.abc", b"Rtl\xe2\x80\xaelmy.yaml"],
            "opsets/org.example.abc/Rtl\\u202elmy.yaml",
            "U+202E",
        ),
        ([b"org.example.abc", b"Latin\xff.yaml"], "opsets/org.example.abc/Latin\\xff.yaml", "not UTF-8"),
    ],
)
def test_names_no_checkout_could_hold_are_located_findings(
    repo: Path, capsys: pytest.CaptureFixture[str], path: list[bytes], shown: str, why: str
) -> None:
    commit = _escape_commit(repo, path)
    before = _snapshot(repo.parent)
    code, _, err = _diff(commit, capsys)
    assert _snapshot(repo.parent) == before
    assert code == 2
    lines = [line for line in err.splitlines() if "FILE-GIT-PATH" in line]
    assert (
        len(lines) == 1 and lines[0].startswith(f"{shown}:1:1: error[FILE-GIT-PATH]: ") and why in lines[0]
    ), err
    assert all(ch == "\t" or ch >= " " for ch in err.replace("\n", "")), "a control character reached the log"


def test_machine_reports_locate_the_folder_not_a_normalised_file(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `opsets/../.pre-commit-config.yaml` normalised would put the annotation on a real file
    commit = _escape_commit(repo, [b"..", b".pre-commit-config.yaml"])
    code, out, _ = _diff(commit, capsys, "--format", "json")
    assert code == 2
    [diag] = json.loads(out)["diagnostics"]
    assert (diag["rule"], diag["file"], diag["path"]) == ("FILE-GIT-PATH", "opsets", "opsets")
    assert "'opsets/../.pre-commit-config.yaml'" in diag["message"]
    code, out, _ = _diff(commit, capsys, "--format", "sarif")
    assert code == 2
    [result] = json.loads(out)["runs"][0]["results"]
    assert result["ruleId"] == "FILE-GIT-PATH"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "opsets"


def test_a_tree_git_cannot_list_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit = _escape_commit(repo, [b"org.example.abc", b"", b"Empty.yaml"])  # git refuses empty names
    before = _snapshot(repo.parent)
    code, _, err = _diff(commit, capsys)
    assert _snapshot(repo.parent) == before
    assert code == 2
    assert f"--against {commit}: git could not list the files of commit {commit[:12]}: fatal: " in err
    assert "hint: " in err


def test_symlink_and_submodule_entries_are_reported_not_followed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = _blob(repo, b"../../../repo/.pre-commit-config.yaml")
    absolute = _blob(repo, b"/etc/passwd")
    head = _git(repo, "rev-parse", "HEAD")
    commit = _commit_with(
        repo,
        ("120000", "blob", outside, b"abc/Up.yaml"),
        ("120000", "blob", absolute, b"abc/Passwd.yaml"),
        ("160000", "commit", head, b"abc/Module.yaml"),
    )
    before = _snapshot(repo.parent)
    code, _, err = _diff(commit, capsys)
    assert _snapshot(repo.parent) == before
    assert code == 2
    base = "opsets/org.example.abc"
    assert f"{base}/Up.yaml:1:1: error[FILE-READ]: cannot read file: a symbolic link (git mode 120000)" in err
    assert f"{base}/Passwd.yaml:1:1: error[FILE-READ]: cannot read file: a symbolic link" in err
    assert f"{base}/Module.yaml:1:1: error[FILE-READ]: cannot read file: a submodule (git mode 160000)" in err
    assert "root:" not in err  # /etc/passwd was not read


def test_a_blob_over_the_file_limit_is_refused_before_it_is_read(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.load import gittree

    big = repo.parent / "big"
    with open(big, "wb") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: zeros compress to almost nothing in git
    oid = _git(repo, "hash-object", "-w", str(big))
    big.unlink()
    commit = _commit_with(repo, ("100644", "blob", oid, b"abc/Big.yaml"))
    asked: list[bytes] = []
    original = gittree.run_git

    def spy(args, cwd, *, stdin=None, limit=gittree.MAX_LISTING_BYTES):  # type: ignore[no-untyped-def]
        if "--batch" in args:
            asked.append(stdin or b"")
        return original(args, cwd, stdin=stdin, limit=limit)

    monkeypatch.setattr(gittree, "run_git", spy)
    code, _, err = _diff(commit, capsys)
    assert code == 2
    assert "opsets/org.example.abc/Big.yaml:1:1: error[FILE-TOO-LARGE]:" in err
    assert asked and all(oid.encode() not in request for request in asked)  # the blob's bytes never read


def test_the_whole_read_is_bounded(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 65 names for one 4 MiB blob: git stores it once, the loader would parse 260 MiB
    oid = _blob(repo, b"#" * (4 * 1024 * 1024))
    entries = [("100644", "blob", oid, f"abc/Copy{i}.yaml".encode()) for i in range(65)]
    commit = _commit_with(repo, *entries)
    code, _, err = _diff(commit, capsys)
    assert code == 2
    assert f"--against {commit}: the spec files at commit {commit[:12]} hold more than 256 MiB" in err
    assert "hint: " in err


def test_a_normal_ref_still_loads_from_memory(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = repo / "opsets" / "org.example.abc" / "B.yaml"
    b.write_text(b.read_text().replace("same type", "one type"))
    before = _snapshot(repo.parent)
    code, out, _ = _diff("HEAD", capsys, "--format", "json")
    assert code == 0
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"DOC-CHANGED"}
    assert _snapshot(repo.parent) == before


@pytest.mark.parametrize(
    ("ref", "says", "hint"),
    [
        ("^HEAD", "`^REF` excludes REF's history", "--against HEAD"),
        ("HEAD~1..HEAD", "ranges of commits", "--against HEAD~1"),
        ("main...HEAD", "ranges of commits", "`main...`"),
        ("HEAD:opsets", "names a file or folder in a commit", "--specs chooses the spec folder"),
        ("HEAD^{tree}", "name other objects than a commit", "drop the `^{...}`"),
        ("HEAD^!", "name sets of commits", "REF~2"),
        ("@{-1}", "no such commit", "`git log --oneline`"),
    ],
)
def test_revision_notation_that_names_no_commit(
    repo: Path, capsys: pytest.CaptureFixture[str], ref: str, says: str, hint: str
) -> None:
    code, _, err = _diff(ref, capsys)
    assert code == 2
    assert err.startswith(f"opset: error: --against {ref}: ") and says in err, err
    assert "hint: " in err and hint in err
    assert "fatal:" not in err and "git fetch" not in err


# --------------------------------------------------------------------------- the repository's commands


FSMONITOR = """#!/bin/sh
touch "{marker}"
exit 1
"""


def test_no_command_of_the_repository_config_runs(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "fsmonitor-ran"
    script = tmp_path / "fsmonitor.sh"
    script.write_text(FSMONITOR.format(marker=marker))
    script.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "post-checkout", "reference-transaction"):
        (hooks / hook).write_text(FSMONITOR.format(marker=marker))
        (hooks / hook).chmod(0o755)
    _git(repo, "config", "core.fsmonitor", str(script))
    _git(repo, "config", "core.hooksPath", str(hooks))
    # the hazard is real: plain git runs the repository's fsmonitor command
    subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, check=False)
    assert marker.exists()
    marker.unlink()
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPSET_TOOLKIT_NO_CACHE": "1"}
    for args in (
        ["validate"],
        ["validate", "--format", "github"],
        ["pre-commit"],
        ["diff", "--against", "HEAD"],
        ["diff", "--against", "HEAD", "--format", "sarif"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "toolkit", *args],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert not marker.exists(), f"opset {' '.join(args)} ran the repository's fsmonitor or a hook"
