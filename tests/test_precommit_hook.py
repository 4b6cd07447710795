"""The pre-commit hook under the real `pre-commit`, in a temporary monorepo (specs under ml/opsets).

The hook definition is read from .pre-commit-hooks.yaml at test time and run by pre-commit as a
`repo: local` hook (language `unsupported`, its `opset` entry pointed at this interpreter), so
pre-commit's own file filtering, staging, environment and exit codes are the real ones; only
the installation of the hook's Python environment (a pip install from the network) is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
SPECS = "ml/opsets/org.example.abc"

pytestmark = pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed (test extra)")


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "OPSET_TOOLKIT_NO_CACHE": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def _run(cwd: Path, env: dict[str, str], *argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True)


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    proc = _run(cwd, env, "git", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _local_config() -> dict[str, object]:
    """.pre-commit-hooks.yaml as a local hook: same id, files, arguments; `opset` -> this Python."""
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["opset"]
    hook = dict(hooks[0])
    assert hook["entry"].split()[0] == "opset" and hook["language"] == "python"
    hook["entry"] = f"{sys.executable} -m toolkit " + " ".join(hook["entry"].split()[1:])
    hook["language"] = "unsupported"
    return {"repos": [{"repo": "local", "hooks": [hook]}]}


@pytest.fixture()
def monorepo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = _env(tmp_path)
    root = tmp_path / "repo"
    shutil.copytree(ABC, root / SPECS)
    (root / "ml" / "README.md").write_text("models\n")
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(_local_config(), sort_keys=False))
    _git(root, env, "init", "-q", "-b", "main")
    _git(root, env, "add", ".")
    _git(root, env, "commit", "-q", "-m", "specs")
    return root, env


def _output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def test_a_spec_typo_is_caught_once(monorepo: tuple[Path, dict[str, str]]) -> None:
    root, env = monorepo
    b = root / SPECS / "B.yaml"
    b.write_text(b.read_text().replace("    doc:", "    dco:"))
    _git(root, env, "add", ".")
    proc = _run(root, env, PRE_COMMIT, "run")
    text = _output(proc)
    assert proc.returncode == 1, text
    located = f"{SPECS}/B.yaml:6:5: error[SCHEMA-UNKNOWN-KEY]: unknown key 'dco'"
    assert text.count(located) == 1, text
    assert text.count("SCHEMA-UNKNOWN-KEY") == 1, text


def test_a_breaking_change_stops_the_commit(monorepo: tuple[Path, dict[str, str]]) -> None:
    root, env = monorepo
    install = _run(root, env, PRE_COMMIT, "install")
    assert install.returncode == 0, _output(install)
    c = root / SPECS / "C.yaml"
    c.write_text(c.read_text().replace("tensor(double)]", "tensor(double), tensor(int8)]"))
    _git(root, env, "add", ".")
    commit = _run(root, env, "git", "commit", "-m", "edit C:3 in place")
    text = _output(commit)
    assert commit.returncode != 0, text
    assert text.count("error[TYPE-ADDED]") == 1, text
    assert f"{SPECS}/C.yaml:" in text and "tensor(int8)" in text
    assert _git(root, env, "log", "--oneline").count("\n") == 1  # nothing was committed


def test_the_range_comes_from_pre_commit(monorepo: tuple[Path, dict[str, str]]) -> None:
    """`pre-commit run --from-ref/--to-ref` (and the pre-push stage) set PRE_COMMIT_FROM_REF /
    _TO_REF: the gate compares with their merge base, with no remote named origin anywhere."""
    root, env = monorepo
    _git(root, env, "checkout", "-q", "-b", "feature")
    c = root / SPECS / "C.yaml"
    c.write_text(c.read_text().replace("tensor(double)]", "tensor(double), tensor(int8)]"))
    _git(root, env, "commit", "-q", "-am", "feature: edit C:3 in place")
    # the last commit's own check (HEAD vs the work tree) sees nothing: the change is committed
    clean = _run(root, env, PRE_COMMIT, "run", "--all-files")
    assert clean.returncode == 0, _output(clean)
    ranged = _run(root, env, PRE_COMMIT, "run", "--from-ref", "main", "--to-ref", "HEAD")
    text = _output(ranged)
    assert ranged.returncode == 1, text
    assert text.count("error[TYPE-ADDED]") == 1 and f"{SPECS}/C.yaml:" in text
    assert _git(root, env, "remote") == ""


def test_spec_roots_are_found_by_their_domain_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.cli import main
    from toolkit.compat.gitref import spec_roots

    env = _env(tmp_path)
    root = tmp_path / "repo"
    for folder in ("ml/opsets/a", "ml/opsets/b", "tools/vendor/x", "build/out/c"):
        (root / folder).mkdir(parents=True)
        (root / folder / "domain.yaml").write_text("domain: x\n")
    (root / ".gitignore").write_text("build/\n")
    _git(root, env, "init", "-q")
    assert spec_roots(root) == ["ml/opsets", "tools/vendor"]  # ignored build/ is not a spec tree
    assert spec_roots(root / "ml") == ["opsets", "../tools/vendor"]  # relative to where it runs
    empty = tmp_path / "empty"
    empty.mkdir()
    _git(empty, env, "init", "-q")
    monkeypatch.chdir(empty)
    assert main(["pre-commit"]) == 0
