"""Untrusted input the readers must bound: a committed `domain.yaml` symlink that pre-commit
would follow out of the repository, a ref pasted into a hint's shell command, integer literals
too long to convert, an `opset.toml` of any size, and spec names too long for a file name.

Every hostile input is built at test time; the CLI runs in-process (`toolkit.cli.main`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
SECRET = "API_TOKEN=hunter2"


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in out + err, out + err
    return code, out + err


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """outer/repo, a git repository holding the shipped abc specs (committed), the current folder."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    root = tmp_path / "outer" / "repo"
    shutil.copytree(ABC, root / "opsets" / "org.example.abc")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "abc")
    monkeypatch.chdir(root)
    return root


# --------------------------------------------------------------------------- pre-commit's spec roots


def test_precommit_never_follows_a_committed_domain_yaml_symlink(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A committed `evil/link.x/domain.yaml -> <outside>/private.x/domain.yaml` made the target's
    grandparent (outside the repository) a `--specs` root: its files were read and the secret
    in them printed. A link to a domain file inside the repository is skipped too."""
    from toolkit.compat.gitref import spec_roots

    victim = repo.parent / "victim" / "private.x"
    victim.mkdir(parents=True)
    (victim / "domain.yaml").write_text("domain: private.x\nopset_versions: [{version: 1, ir_version: 9}]\n")
    (victim / "Secret.yaml").write_text(
        f'operator: Secret\ndomain: private.x\nversions:\n  - since_version: "{SECRET}"\n'
    )
    (repo / "evil" / "link.x").mkdir(parents=True)
    (repo / "evil" / "link.x" / "domain.yaml").symlink_to(victim / "domain.yaml")
    (repo / "inner" / "alias.x").mkdir(parents=True)
    (repo / "inner" / "alias.x" / "domain.yaml").symlink_to(
        repo / "opsets" / "org.example.abc" / "domain.yaml"
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "links")

    assert spec_roots(repo) == ["opsets"]
    code, text = _run(capsys, "pre-commit", "--no-gate")
    assert code == 0, text
    assert SECRET not in text and "victim" not in text and "private.x" not in text


# --------------------------------------------------------------------------- refs in hints


def test_a_ref_in_a_fetch_hint_is_shell_quoted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`git fetch origin $(...)` pasted unquoted would run the ref's command substitution when
    the user copies the hint into a shell; quoted, the shell reads it as one word."""
    ref = "x$(touch${IFS}pwned)"
    code, text = _run(capsys, "diff", f"--against={ref}")
    assert code == 2
    command = text.split("fetch it with `", 1)[1].split("`", 1)[0]
    assert shlex.split(command) == ["git", "fetch", "origin", f"{ref}:{ref}"]
    code, text = _run(capsys, "diff", "--against=^x;id")
    assert code == 2 and "--against 'x;id'" in text, text


def test_a_ref_starting_with_a_dash_gets_no_fetch_hint(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`git fetch origin --upload-pack=...` would be an option, not a ref: git refuses such names."""
    code, text = _run(capsys, "diff", "--against=--upload-pack=touch")
    assert code == 2 and "no such commit" in text
    assert "git fetch" not in text
