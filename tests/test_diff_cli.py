"""`opset diff` / `opset rules` end to end: formats, exit codes, config, CI hooks. Diff against a
git ref: tests/test_diff_git_refs.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pydantic
import pytest
import sarif_pydantic
from diff_cli_helpers import ABC
from output_helpers import cli as run

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture()
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """old/ = the shipped A/B/C domain; new/ = the same with C:4 edited in place (+ a doc edit)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    old = tmp_path / "old" / "org.example.abc"
    new = tmp_path / "new" / "org.example.abc"
    shutil.copytree(ABC, old)
    shutil.copytree(ABC, new)
    c = new / "C.yaml"
    text = c.read_text()
    text = text.replace(
        'T: {allowed: "@numbers"}',
        'T: {allowed: "@numbers"}\n    attributes:\n      axis: {type: int, default: 0}',
    )
    c.write_text(text)
    b = new / "B.yaml"
    b.write_text(b.read_text().replace("element by element", "elementwise"))
    return tmp_path / "old", tmp_path / "new"


def test_text_output_has_rule_ids_and_locations(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]
) -> None:
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 1
    assert "new/org.example.abc/C.yaml:" in out and "error[ATTR-ADDED]: org.example.abc.C:4:" in out
    assert "info[DOC-CHANGED]" in out
    assert "was: old/org.example.abc/C.yaml:" in out
    assert "hint: keep org.example.abc.C:4 as it was" in out and "since_version: 5" in out
    assert out.strip().endswith("-> FAIL (--fail-on error)")


def test_identical_trees_exit_0(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]) -> None:
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "old")
    assert code == 0
    assert "0 error(s), 0 warning(s), 0 info -> ok" in out


def test_fail_on_threshold(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]) -> None:
    old, new = trees
    (new / "org.example.abc" / "C.yaml").write_text((old / "org.example.abc" / "C.yaml").read_text())
    assert run(capsys, "diff", "--against", "old", "--specs", "new")[0] == 0  # only DOC-CHANGED (info)
    assert run(capsys, "diff", "--against", "old", "--specs", "new", "--fail-on", "info")[0] == 1
    assert run(capsys, "diff", "--against", "old", "--specs", "new", "--fail-on", "warning")[0] == 0


def test_json_output_validates_against_schema(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]
) -> None:
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    schema = json.loads((REPO / "schemas" / "findings.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["exit_code"] == 1 and doc["summary"]["error"] == 1
    rules = {f["rule"] for f in doc["findings"]}
    assert rules == {"ATTR-ADDED", "DOC-CHANGED"}
    # deterministic: the same run gives byte-identical output
    assert run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "json")[1] == out


def test_fingerprint_is_stable_across_unrelated_edits(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]
) -> None:
    _, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "json")
    before = {f["rule"]: f for f in json.loads(out)["findings"]}
    c = trees[1] / "org.example.abc" / "C.yaml"
    # move every line down and touch an unrelated part of the file
    c.write_text(
        "# a comment that shifts lines\n\n" + c.read_text().replace("Sums any number", "Sums any count")
    )
    _, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "json")
    after = {f["rule"]: f for f in json.loads(out)["findings"]}
    assert after["ATTR-ADDED"]["location"]["line"] == before["ATTR-ADDED"]["location"]["line"] + 2
    assert after["ATTR-ADDED"]["fingerprint"] == before["ATTR-ADDED"]["fingerprint"]


def _no_extras(model: Any, path: str = "sarif") -> list[str]:
    """Fields the SARIF model did not recognise (its config allows extras; we do not)."""
    out: list[str] = []
    if isinstance(model, pydantic.BaseModel):
        extra = {k for k in (model.model_extra or {}) if k != "$schema"}
        out += [f"{path}.{k}" for k in sorted(extra)]
        for name in type(model).model_fields:
            if name == "properties":
                continue
            out += _no_extras(getattr(model, name), f"{path}.{name}")
    elif isinstance(model, list):
        for i, item in enumerate(model):
            out += _no_extras(item, f"{path}[{i}]")
    return out


def test_sarif_output_parses_strictly(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]) -> None:
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "sarif")
    assert code == 1
    log = sarif_pydantic.Sarif.model_validate_json(out)
    assert _no_extras(log) == []
    assert log.version == "2.1.0"
    run_ = log.runs[0]
    rules = {r.id: r for r in run_.tool.driver.rules or []}
    rule = rules["ATTR-ADDED"]
    assert rule.name == "AttributeAdded"
    assert rule.short_description is not None and rule.full_description is not None
    assert rule.help is not None and "How to fix" in rule.help.text
    assert rule.help_uri is not None and str(rule.help_uri).endswith("#attr-added")
    results = run_.results or []
    result = next(r for r in results if r.rule_id == "ATTR-ADDED")
    assert (run_.tool.driver.rules or [])[result.rule_index or 0].id == "ATTR-ADDED"
    loc = result.locations[0].physical_location  # type: ignore[index]
    assert loc is not None and loc.artifact_location is not None
    assert loc.artifact_location.uri == "new/org.example.abc/C.yaml"
    assert loc.region is not None and (loc.region.start_line or 0) > 0
    assert result.partial_fingerprints and len(next(iter(result.partial_fingerprints.values()))) == 16
    assert result.related_locations


def test_github_annotations(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]) -> None:
    _, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "github")
    lines = out.splitlines()
    error = next(line for line in lines if line.startswith("::error "))
    assert error.startswith("::error file=new/org.example.abc/C.yaml,line=")
    assert ",col=" in error and ",title=ATTR-ADDED::org.example.abc.C%3A4" not in error
    assert "title=ATTR-ADDED [BC=no FC=yes]::org.example.abc.C:4: attribute `axis` added" in error
    assert "%0Ahint: " in error and "\n" not in error
    assert any(line.startswith("::notice ") and "title=DOC-CHANGED" in line for line in lines)


def test_junit_output(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]) -> None:
    _, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "junit")
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    cases = {c.get("classname", ""): c for c in suite.iter("testcase")}
    added = cases["opset.diff.ATTR-ADDED"]
    failure = added.find("failure")
    assert failure is not None and "org.example.abc.C:4" in (failure.text or "")
    assert added.get("file") == "new/org.example.abc/C.yaml" and int(added.get("line", "0")) > 1
    info = cases["opset.diff.DOC-CHANGED"]  # below --fail-on: a passing case, still located
    assert info.find("failure") is None and info.get("file") == "new/org.example.abc/B.yaml"


def test_output_file(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], tmp_path: Path) -> None:
    code, out, err = run(
        capsys, "diff", "--against", "old", "--specs", "new", "--format", "sarif", "-o", "r.sarif"
    )
    assert code == 1 and out == ""
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert "error[ATTR-ADDED]" in err  # the human summary still shows in the log


def test_output_file_is_written_atomically(
    capsys: pytest.CaptureFixture[str],
    trees: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "new", "-o", "nodir/r.txt")
    assert code == 2 and "no such directory nodir" in err
    (tmp_path / "r.json").write_text("previous report\n")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device", dst)

    monkeypatch.setattr(os, "replace", fail)
    code, _, err = run(
        capsys, "diff", "--against", "old", "--specs", "new", "--format", "json", "-o", "r.json"
    )
    assert code == 2 and "No space left on device" in err
    assert (tmp_path / "r.json").read_text() == "previous report\n"  # untouched, not half-written
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["r.json"]  # no temp file left


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_output_to_a_pipe_writes_into_it(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], tmp_path: Path
) -> None:
    """`-o /dev/null` or a named pipe is written into, not replaced by a regular file (an atomic
    rename onto /dev/null would turn it into a file for the whole machine)."""
    import stat
    import threading

    pipe = tmp_path / "report.pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    code, _, _ = run(
        capsys, "diff", "--against", "old", "--specs", "new", "--format", "json", "-o", str(pipe)
    )
    reader.join(timeout=30)
    assert code == 1
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert json.loads(received[0])["summary"]["error"] >= 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []


# --------------------------------------------------------------------------- usage and load errors


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]) -> None:
    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "nowhere")
    assert code == 2 and "--specs nowhere" in err
    code, _, err = run(capsys, "diff", "--specs", "new")
    assert code == 2 and "--against" in err
    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "new", "--profile", "nope")
    assert code == 2 and "unknown profile 'nope'" in err


def test_broken_new_tree_exits_2_with_located_errors(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]
) -> None:
    b = trees[1] / "org.example.abc" / "B.yaml"
    b.write_text(b.read_text().replace("since_version: 2", "since_version: two"))
    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 2
    assert "new/org.example.abc/B.yaml:" in err and "the new tree has" in err
    assert "Traceback" not in err


def test_rules_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "ATTR-ADDED" in out and "TYPE-SET-CHANGED" in out
    code, out, _ = run(capsys, "rules", "ATTR-RENAMED")
    assert code == 0 and out.startswith("## ATTR-RENAMED") and "**How to fix:**" in out
    code, _, err = run(capsys, "rules", "ATTR-RENAME")
    assert code == 2 and "did you mean ATTR-RENAMED" in err


# --------------------------------------------------------------------------- config


def _write_config(tmp_path: Path, body: str) -> None:
    (tmp_path / "opset.toml").write_text(body)


PLUGIN = """
from toolkit.compat.rules import compat_rule, rule_doc


@compat_rule(
    "ACME-EDITED",
    name="acme-edited",
    severity="warning",
    bc=False,
    fc=False,
    category="versioning",
    summary="A released version was edited (plugin rule).",
    doc=rule_doc("why", "a: 1", "a: 2", "fix"),
)
def edited(ctx):
    from toolkit.compat.engine import Hit

    for edit in ctx.edits:
        yield Hit(edit.new.id, "edited (plugin)", edit.new.location)
"""


def test_plugin_rules_from_the_config(trees: tuple[Path, Path], tmp_path: Path) -> None:
    """The documented plugin API (docs/guide/ci-gate.md): a module named in `plugins` (imported
    with the invoker's --allow-plugins) registers a gate rule with `compat_rule`; diff reports it,
    rules lists it, the config may name it. In a subprocess, so the plugin stays out of this
    process's catalog."""
    (tmp_path / "acme_rules.py").write_text(PLUGIN)
    _write_config(
        tmp_path, '[tool.opset-toolkit]\nplugins = ["acme_rules"]\nseverity = { ACME-EDITED = "info" }\n'
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}

    def opset(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "toolkit", *argv], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    diff = opset("diff", "--against", "old", "--specs", "new", "--allow-plugins")
    assert diff.returncode == 1, diff.stderr
    assert "info[ACME-EDITED]: org.example.abc.C:4: edited (plugin)" in diff.stdout
    listed = opset("rules", "--config", "opset.toml", "--allow-plugins")
    assert "ACME-EDITED" in listed.stdout and listed.stdout.count("\n") == len(listed.stdout.splitlines())
    doc = opset("rules", "--config", "opset.toml", "--allow-plugins", "acme-edited")
    assert (
        doc.returncode == 0
        and doc.stdout.startswith("## ACME-EDITED")
        and "**How to fix:** fix" in doc.stdout
    )
    without = opset("rules", "ACME-EDITED")  # no config, no plugin
    assert without.returncode == 2 and "unknown rule" in without.stderr


def test_config_disable_and_severity(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], tmp_path: Path
) -> None:
    _write_config(
        tmp_path, '[tool.opset-toolkit]\nseverity = { ATTR-ADDED = "warning" }\ndisable = ["DOC-CHANGED"]\n'
    )
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 0 and "warning[ATTR-ADDED]" in out and "DOC-CHANGED" not in out


def test_bc_only_profile_drops_fc_only_findings(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path]
) -> None:
    # an optional attribute added: FC-breaking only
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--profile", "bc-only")
    assert code == 0 and "ATTR-ADDED" not in out
    # a removed type: BC-breaking, kept
    c = trees[1] / "org.example.abc" / "C.yaml"
    c.write_text(
        c.read_text().replace(
            "T: {allowed: [tensor(float), tensor(double)]}", "T: {allowed: [tensor(float)]}"
        )
    )
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--profile", "bc-only")
    assert code == 1 and "error[TYPE-REMOVED]" in out


def _allow(expires: str, fingerprint: str = "") -> str:
    fp = f'fingerprint = "{fingerprint}"\n' if fingerprint else ""
    return (
        "[[allowlist]]\n"
        'rule = "ATTR-ADDED"\n'
        'operator = "org.example.abc.C:4"\n'
        f"{fp}"
        'reason = "runtimes already accept it"\n'
        f"expires = {expires}\n"
    )


def test_allowlist_live_entry_silences(
    capsys: pytest.CaptureFixture[str],
    trees: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPSET_TODAY", "2026-01-01")
    _write_config(tmp_path, _allow("2026-06-30"))
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["allowed"] == 1
    assert doc["allowed"][0]["allowed_by"] == "runtimes already accept it"


def test_allowlist_expired_entry_is_an_error(
    capsys: pytest.CaptureFixture[str],
    trees: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPSET_TODAY", "2026-07-01")
    _write_config(tmp_path, "# gate config\n" + _allow("2026-06-30"))
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 1
    assert "opset.toml:2:1: error[ALLOWLIST-EXPIRED]" in out
    assert "error[ATTR-ADDED]" in out  # an expired entry silences nothing


def test_allowlist_fingerprint_pin_and_unused(
    capsys: pytest.CaptureFixture[str],
    trees: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPSET_TODAY", "2026-01-01")
    _write_config(tmp_path, _allow("2026-06-30", fingerprint="0000000000000000"))
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 1 and "error[ATTR-ADDED]" in out and "warning[ALLOWLIST-UNUSED]" in out


def test_config_errors_are_usage_errors(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], tmp_path: Path
) -> None:
    _write_config(tmp_path, '[[allowlist]]\nrule = "ATTR-ADDED"\noperator = "x.Y:1"\nexpires = 2026-01-01\n')
    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 2 and "missing `reason`" in err
    _write_config(tmp_path, 'disable = ["ATTR-ADDD"]\n')
    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 2 and "unknown rule id 'ATTR-ADDD'" in err and "ATTR-ADDED" in err
    _write_config(tmp_path, 'profle = "bc-only"\n')
    code, _, err = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert code == 2 and "unknown key 'profle'" in err and "did you mean 'profile'" in err
    _write_config(tmp_path, '[profiles.release]\nextends = "bc-only"\ndisable = ["DOC-CHANGED"]\n')
    code, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new", "--profile", "release")
    assert code == 0 and "[release]" in out and "DOC-CHANGED" not in out


def test_pyproject_table(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.opset-toolkit]\nprofile = "bc-only"\n'
    )
    _, out, _ = run(capsys, "diff", "--against", "old", "--specs", "new")
    assert "[bc-only]" in out


# --------------------------------------------------------------------------- drop-in CI


@pytest.mark.parametrize("against", ["", "  "])
def test_empty_against_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], against: str
) -> None:
    """An unset `$BASE` in a CI script (`--against "$BASE"`) must not pass the gate."""
    code, out, err = run(capsys, "diff", "--against", against, "--specs", "new")
    assert code == 2 and out == ""
    assert "--against: the value is empty" in err and "hint:" in err


def test_same_tree_under_two_spellings_is_not_a_duplicate(
    capsys: pytest.CaptureFixture[str], trees: tuple[Path, Path], tmp_path: Path
) -> None:
    (tmp_path / "link").symlink_to(trees[1], target_is_directory=True)
    for spellings in (["new", str(trees[1])], ["new", "link"], ["new", "./new/../new"]):
        argv = [arg for s in spellings for arg in ("--specs", s)]
        code, out, err = run(capsys, "diff", "--against", "old", *argv)
        assert code == 1 and "NAME-DUPLICATE" not in out + err, spellings
        assert "error[ATTR-ADDED]" in out
