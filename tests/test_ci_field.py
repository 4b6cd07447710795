"""What a CI user hit after #14 landed, each in a temporary git repository with the monorepo
layout (specs under ml/opsets, commands run from ml/tools) and real git:

- a single-branch shallow clone (what `git clone --depth 1 --branch X` and actions/checkout
  make): the hint of `opset diff --against origin/main` is run as printed and must make the
  gate work; `git fetch origin main` alone only fills FETCH_HEAD;
- a spec tree whose domain file is misnamed `domain.yml`: one clear error, and the pre-commit
  hook does not skip the tree;
- `opset generate --check` gives the same verdict whichever folder it runs in;
- `--output` / `--report` always gets the report, text included, also for load, usage and
  internal errors; exit codes stay 0/1/2.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from output_helpers import cli as run

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
VISION = REPO / "opsets" / "com.acme.vision"
ABC = REPO / "opsets" / "org.example.abc"
RELEASES = REPO / "opsets" / "releases.yaml"
# A required attribute added to the released Blur:1 (ATTR-ADDED).
BLUR_OLD = "      size: {type: int, default: 3, doc: Window width and height in pixels.}\n"
BLUR_NEW = BLUR_OLD + "      border: {type: int, doc: Border mode.}\n"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user git config
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def monorepo(root: Path) -> Path:
    """A repository with ml/opsets (the shipped vision + abc domains), ml/tools; one commit."""
    specs = root / "ml" / "opsets"
    shutil.copytree(VISION, specs / VISION.name)
    shutil.copytree(ABC, specs / ABC.name)
    shutil.copy(RELEASES, specs / RELEASES.name)
    (root / "ml" / "tools").mkdir()
    (root / "ml" / "tools" / "README").write_text("tools\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "specs")
    return root


def break_blur(repo: Path) -> None:
    blur = repo / "ml" / "opsets" / "com.acme.vision" / "Blur.yaml"
    text = blur.read_text(encoding="utf-8")
    assert BLUR_OLD in text
    blur.write_text(text.replace(BLUR_OLD, BLUR_NEW), encoding="utf-8")


def hint_command(err: str) -> list[str]:
    """The first `git ...` command the hint quotes in backticks."""
    match = re.search(r"`(git fetch [^`]+)`", err)
    assert match, err
    return shlex.split(match.group(1))


# --------------------------------------------------------------------------- shallow clones


@pytest.mark.parametrize("depth", [["--depth", "1"], []], ids=["shallow", "single-branch"])
def test_the_fetch_hint_makes_the_gate_work_in_a_single_branch_clone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, depth: list[str]
) -> None:
    upstream = monorepo(tmp_path / "upstream")
    git(upstream, "checkout", "-qb", "feature")
    break_blur(upstream)
    git(upstream, "commit", "-qam", "break Blur:1")
    git(upstream, "checkout", "-q", "main")
    abc_b = upstream / "ml" / "opsets" / "org.example.abc" / "B.yaml"
    abc_b.write_text(abc_b.read_text(encoding="utf-8") + "# main moved on\n", encoding="utf-8")
    git(upstream, "commit", "-qam", "main moves on")
    clone = tmp_path / "clone"
    # What actions/checkout and `git clone --branch X` make: only the branch under test.
    git(
        tmp_path,
        "clone",
        "-q",
        *depth,
        "--single-branch",
        "--branch",
        "feature",
        upstream.as_uri(),
        str(clone),
    )
    monkeypatch.chdir(clone / "ml" / "tools")
    code, out, err = run(
        capsys, "diff", "--against", "origin/main", "--specs", "../opsets", "--format", "github"
    )
    assert code == 2
    assert "title=opset diff%3A usage error" in out  # the error reaches the pull request too
    command = hint_command(err)
    assert "refs/remotes/origin/main" in " ".join(command)
    git(clone / "ml" / "tools", *command[1:])  # exactly as printed
    code, out, err = run(
        capsys, "diff", "--against", "origin/main", "--specs", "../opsets", "--format", "github"
    )
    assert code == 1, err
    annotations = [line for line in out.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 1
    broken = (clone / "ml" / "opsets" / "com.acme.vision" / "Blur.yaml").read_text(encoding="utf-8")
    line = broken.splitlines().index(BLUR_NEW.splitlines()[1]) + 1
    assert f"file=ml/opsets/com.acme.vision/Blur.yaml,line={line},col=7," in annotations[0]
    assert "title=ATTR-ADDED" in annotations[0]
    assert "merge base" in err  # main moved on: compared at the merge base, B.yaml not reported


# --------------------------------------------------------------------------- domain.yml


def misnamed_tree(repo: Path) -> Path:
    """other/specs/org.y: the abc domain with its domain file named domain.yml and a typo."""
    folder = repo / "other" / "specs" / "org.y"
    folder.mkdir(parents=True)
    for source in ABC.iterdir():
        text = source.read_text(encoding="utf-8").replace("org.example.abc", "org.y")
        name = "domain.yml" if source.name == "domain.yaml" else source.name
        (folder / name).write_text(text, encoding="utf-8")
    a = folder / "A.yaml"
    a.write_text(a.read_text(encoding="utf-8").replace("    inputs:", "    inptus:", 1), encoding="utf-8")
    return folder


def test_a_misnamed_domain_yml_is_one_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = monorepo(tmp_path / "repo")
    misnamed_tree(repo)
    monkeypatch.chdir(repo / "other")
    code, out, _ = run(capsys, "validate", "specs", "--format", "json")
    assert code == 1
    diagnostics = json.loads(out)["diagnostics"]
    found = [(d["rule"], d["path"], d["line"]) for d in diagnostics]
    assert found == [
        ("SCHEMA-UNKNOWN-KEY", "other/specs/org.y/A.yaml", 9),
        ("FILE-NAME", "other/specs/org.y/domain.yml", 1),
    ]
    assert "git mv 'domain.yml' 'domain.yaml'" in diagnostics[1]["hint"]


def test_pre_commit_checks_trees_outside_ml_opsets_and_with_domain_yml(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = monorepo(tmp_path / "repo")
    monkeypatch.chdir(repo / "ml" / "tools")
    code, out, err = run(capsys, "pre-commit")
    assert code == 0 and (out + err).count(" 0 error(s)") == 2, out + err  # validate + gate of ml/opsets
    folder = misnamed_tree(repo)  # not staged, not committed: `git ls-files --others` finds it
    code, out, err = run(capsys, "pre-commit")
    err += out
    assert code == 1
    assert "../../other/specs/org.y/domain.yml:1:1: error[FILE-NAME]" in err
    assert "../../other/specs/org.y/A.yaml:9:5: error[SCHEMA-UNKNOWN-KEY]" in err
    assert err.count("SCHEMA-UNKNOWN-KEY") == 1  # printed once
    (folder / "domain.yml").rename(folder / "domain.yaml")
    a = folder / "A.yaml"
    a.write_text(a.read_text(encoding="utf-8").replace("    inptus:", "    inputs:"), encoding="utf-8")
    code, out, err = run(capsys, "pre-commit")
    assert code == 0, out + err


# --------------------------------------------------------------------------- generate --check


def test_generate_check_does_not_depend_on_the_working_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = monorepo(tmp_path / "repo")
    monkeypatch.chdir(repo / "ml")
    assert run(capsys, "generate", "-q", "--only", "proto", "--specs", "opsets", "--out", "generated")[0] == 0
    schemas = (repo / "ml" / "generated" / "proto" / "org.example.abc" / "schemas.pb").read_bytes()
    assert b"ml/opsets/org.example.abc/A.yaml" in schemas  # named from the repository root
    for cwd, specs, out in [
        (repo, "ml/opsets", "ml/generated"),
        (repo / "ml" / "tools", "../opsets", "../generated"),
    ]:
        monkeypatch.chdir(cwd)
        code, out_text, err = run(
            capsys, "generate", "--check", "--only", "proto", "--specs", specs, "--out", out
        )
        assert code == 0, (cwd, out_text[:2000], err)
    break_blur(repo)
    code, out_text, _ = run(
        capsys,
        "generate",
        "--check",
        "--only",
        "proto",
        "--specs",
        "../opsets",
        "--out",
        "../generated",
        "--format",
        "github",
    )
    assert code == 1
    assert "file=ml/generated/proto/com.acme.vision/schemas.pb," in out_text
    assert "::ml/generated/proto/com.acme.vision/schemas.pb is stale" in out_text  # not ../generated


# --------------------------------------------------------------------------- --output


def test_the_report_file_is_written_in_text_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = monorepo(tmp_path / "repo")
    monkeypatch.chdir(repo / "ml" / "tools")
    blur = repo / "ml" / "opsets" / "com.acme.vision" / "Blur.yaml"
    text = blur.read_text(encoding="utf-8")
    # the version's own `inputs:` key (examples hold deeper-indented ones), wherever it is
    line = text[: text.index("\n    inputs:")].count("\n") + 2
    blur.write_text(text.replace("\n    inputs:", "\n    inptus:", 1), encoding="utf-8")
    report = tmp_path / "report.txt"
    typo = f"../opsets/com.acme.vision/Blur.yaml:{line}:5: error[SCHEMA-UNKNOWN-KEY]"
    for argv, want in [
        (["validate", "../opsets"], 1),
        (["diff", "--against", "HEAD", "--specs", "../opsets"], 2),
        (["generate", "--check", "--specs", "../opsets", "--out", "../generated"], 1),
    ]:
        report.unlink(missing_ok=True)
        code, out, err = run(capsys, *argv, "--output", str(report))
        assert code == want and out == "", argv
        assert typo in report.read_text(encoding="utf-8"), argv
        assert typo in err, argv  # the log still shows it
    report.unlink()
    code, out, _ = run(capsys, "diff", "--specs", "../opsets", "--output", str(report))  # no --against
    assert code == 2 and out == ""
    assert "the following arguments are required: --against" in report.read_text(encoding="utf-8")


def test_an_internal_error_exits_2_and_reaches_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    repo = monorepo(tmp_path / "repo")
    monkeypatch.chdir(repo / "ml" / "tools")
    monkeypatch.setattr("toolkit.checks.run.load_specs", boom)  # what `opset validate` calls
    report = tmp_path / "report.sarif"
    # `main` itself: the one case that wants an internal error (output_helpers.cli refuses one)
    code = main(["validate", "../opsets", "--format", "sarif", "--output", str(report)])
    err = capsys.readouterr().err
    assert code == 2
    assert "internal error: RuntimeError: boom" in err
    invocation = json.loads(report.read_text(encoding="utf-8"))["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert (
        "internal error: RuntimeError: boom" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    )


def test_a_load_error_in_sarif_describes_its_rule(tmp_path: Path) -> None:
    """With the load cache warm, `opset diff` stops at the spec typo without importing the spec
    checks (and their rules); the SARIF run must still carry SCHEMA-UNKNOWN-KEY's rule."""
    import os
    import sys

    from ci_consumers import github_upload_problems

    repo = monorepo(tmp_path / "repo")
    blur = repo / "ml" / "opsets" / "com.acme.vision" / "Blur.yaml"
    blur.write_text(
        blur.read_text(encoding="utf-8").replace("    inputs:", "    inptus:", 1), encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPSET_TOOLKIT_CACHE": str(tmp_path / "cache")}
    del env["OPSET_TOOLKIT_NO_CACHE"]
    for argv in (["diff", "--against", "HEAD"], ["generate", "--check", "--out", "../generated"]):
        for _ in range(2):  # the second run is answered from the cache
            proc = subprocess.run(
                [sys.executable, "-m", "toolkit", *argv, "--specs", "../opsets", "--format", "sarif"],
                cwd=repo / "ml" / "tools",
                env=env,
                capture_output=True,
                text=True,
            )
        assert proc.returncode == (2 if argv[0] == "diff" else 1), proc.stderr
        assert "Traceback" not in proc.stderr
        log = json.loads(proc.stdout)
        run_ = log["runs"][0]
        assert [r["ruleId"] for r in run_["results"]] == ["SCHEMA-UNKNOWN-KEY"]
        assert run_["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
            "ml/opsets/com.acme.vision/Blur.yaml"
        )
        assert github_upload_problems(log, repo) == [], argv


def test_without_specs_in_a_monorepo_the_error_names_the_spec_trees(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = monorepo(tmp_path / "repo")
    monkeypatch.chdir(repo / "ml" / "tools")
    for argv in (["validate"], ["diff", "--against", "HEAD"], ["generate", "--check"]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "hint: this repository's spec trees: pass --specs ../opsets" in err, argv
    code, _, err = run(capsys, "validate", "../opsets")  # the hint, followed
    assert code == 0, err
