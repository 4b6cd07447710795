"""The composite action's own scripts, run in order the way the runner runs them, in a temporary
monorepo (specs under ml/opsets, `working-directory: ml`).

The `uses:` steps (setup-python, cache, upload-sarif) need GitHub and are not run: the upload
counts as skipped (`upload-sarif: "false"`) or failed, and the install step is replaced by this
test environment's `opset`. Every `run:` script, its `env:` and `if:` come from action.yml; the
expressions they use are evaluated by a small evaluator that knows exactly the forms action.yml
uses (`inputs.*`, `steps.*.outputs.*`, `steps.*.outcome`, `always()`, `==`, `!=`, `&&`, `||`)
and fails on anything else.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
SPECS = "ml/opsets/org.example.abc"
OPSET = Path(sys.executable).with_name("opset")
pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or not OPSET.exists(), reason="needs bash and opset"
)

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Runner:
    def __init__(self, workspace: Path, inputs: dict[str, str], upload_outcome: str) -> None:
        action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
        self.steps: list[dict[str, Any]] = action["runs"]["steps"]
        self.inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
        self.inputs.update(inputs)
        self.workspace = workspace
        self.temp = workspace.parent / "runner-temp"
        self.temp.mkdir()
        self.outputs: dict[str, dict[str, str]] = {"install": {"bin": str(OPSET.parent)}}
        self.outcomes: dict[str, str] = {"upload": upload_outcome}
        self.logs: dict[str, subprocess.CompletedProcess[str]] = {}

    def value(self, expr: str) -> str:
        if m := re.fullmatch(r"inputs\.([\w-]+)", expr):
            return self.inputs[m[1]]
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr):
            return self.outputs.get(m[1], {}).get(m[2], "")
        if m := re.fullmatch(r"steps\.([\w-]+)\.outcome", expr):
            return self.outcomes.get(m[1], "skipped")
        raise AssertionError(f"expression the test runner does not know: {expr}")

    def substitute(self, text: str) -> str:
        return EXPR.sub(lambda m: self.value(m[1]), text)

    def condition(self, text: str | None) -> bool:
        if text is None:
            return True  # (no earlier step fails here: the gate step always exits 0)
        expr = EXPR.fullmatch(text.strip())
        body = expr[1] if expr else text
        tokens = re.findall(r"always\(\)|'[^']*'|&&|\|\||==|!=|\(|\)|[\w.-]+", body)
        python = []
        for token in tokens:
            if token == "always()":
                python.append("True")
            elif token in ("&&", "||"):
                python.append(" and " if token == "&&" else " or ")
            elif token in ("==", "!=", "(", ")") or token.startswith("'"):
                python.append(token)
            else:
                python.append(repr(self.value(token)))
        return bool(eval("".join(python)))  # the tokens above are literals and operators only

    def run(self, env: dict[str, str]) -> None:
        for step in self.steps:
            if "uses" in step:
                continue
            if step.get("id") == "install" or not self.condition(step.get("if")):
                continue
            output = self.temp / f"output-{len(self.logs)}"
            output.write_text("")
            step_env = {
                **env,
                **{k: self.substitute(str(v)) for k, v in step.get("env", {}).items()},
                "GITHUB_OUTPUT": str(output),
                "GITHUB_ACTION_PATH": str(REPO),
                "RUNNER_TEMP": str(self.temp),
                "RUNNER_OS": "Linux",
            }
            cwd = self.workspace / self.substitute(step.get("working-directory", "."))
            script = self.temp / "step.sh"
            script.write_text(step["run"])
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=cwd,
                env=step_env,
                capture_output=True,
                text=True,
            )
            self.logs[step["name"]] = proc
            pairs = [line.split("=", 1) for line in output.read_text().splitlines() if "=" in line]
            if "id" in step:
                self.outputs[step["id"]] = dict(pairs)
                self.outcomes[step["id"]] = "success" if proc.returncode == 0 else "failure"


def _git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture()
def workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OPSET_TOOLKIT_NO_CACHE": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    root = tmp_path / "workspace"
    shutil.copytree(ABC, root / SPECS)
    _git(root, env, "init", "-q", "-b", "main")
    _git(root, env, "add", ".")
    _git(root, env, "commit", "-q", "-m", "specs")
    _git(root, env, "checkout", "-q", "-b", "feature")
    return root, env


INPUTS = {"against": "main...", "specs": "opsets", "working-directory": "ml", "upload-sarif": "false"}


def test_a_breaking_change_fails_the_job_with_annotations(workspace: tuple[Path, dict[str, str]]) -> None:
    """The SARIF upload fails (a fork's pull request has no write token): the findings become
    annotations, and the verdict still fails the job with the gate's exit code."""
    root, env = workspace
    c = root / SPECS / "C.yaml"
    c.write_text(c.read_text().replace("tensor(double)]", "tensor(double), tensor(int8)]"))
    _git(root, env, "commit", "-q", "-am", "edit C:3 in place")
    runner = Runner(root, {**INPUTS, "upload-sarif": "true"}, "failure")
    runner.run(env)
    gate = runner.logs["Run the gate"]
    assert gate.returncode == 0 and runner.outputs["gate"]["exit-code"] == "1", gate.stderr
    assert "error[TYPE-ADDED]" in gate.stderr  # the text report in the log
    assert Path(runner.outputs["gate"]["sarif-file"]).is_file()
    annotate = runner.logs["Annotate the pull request"]
    assert annotate.returncode == 0, annotate.stderr
    lines = [line for line in annotate.stdout.splitlines() if line.startswith("::error ")]
    assert len(lines) == 1, annotate.stdout
    assert re.match(rf"::error file={re.escape(SPECS)}/C\.yaml,line=\d+,col=\d+,title=TYPE-ADDED::", lines[0])
    assert runner.logs["Verdict"].returncode == 1


def test_a_clean_change_passes(workspace: tuple[Path, dict[str, str]]) -> None:
    """upload-sarif off: the annotation step runs (and finds nothing), the verdict passes."""
    root, env = workspace
    runner = Runner(root, INPUTS, "skipped")
    runner.run(env)
    assert runner.outputs["gate"]["exit-code"] == "0"
    assert runner.logs["Annotate the pull request"].stdout == ""
    assert runner.logs["Verdict"].returncode == 0


def test_the_verdict_reports_a_gate_that_did_not_run(workspace: tuple[Path, dict[str, str]]) -> None:
    root, env = workspace
    runner = Runner(root, INPUTS, "skipped")
    runner.steps = [s for s in runner.steps if s.get("name") == "Verdict"]
    runner.run(env)
    verdict = runner.logs["Verdict"]
    assert verdict.returncode == 2 and "::error::opset diff did not run" in verdict.stdout
