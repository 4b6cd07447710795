"""The CI reports end to end, read by their real consumers (tests/ci_consumers.py).

A temporary git repository with a monorepo layout (specs under `ml/opsets`), the commands run
from a subfolder (`ml/tools`, as the action's `working-directory` does): a spec typo (a load
error, exit 2) and a breaking change (exit 1) each appear in every format with the repository
path and line of the defect. The SARIF validates against the SARIF 2.1.0 schema and passes the
SARIF Multitool's GitHub rules; the JUnit validates against the strict schema (plus the
`file`/`line` location attributes) and junitparser reads it; the annotations parse.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import ci_consumers as consumers
import jsonschema
import junitparser
import pytest
import xmlschema
from git_helpers import git as _git
from output_helpers import cli as _run

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
SPECS = "ml/opsets/org.example.abc"
FORMATS = ("text", "json", "github", "sarif", "junit")


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if needle in line)


@pytest.fixture()
def monorepo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """repo/ml/opsets/org.example.abc committed on main; the commands run in repo/ml/tools."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root = tmp_path / "repo"
    shutil.copytree(ABC, root / SPECS)
    (root / "ml" / "tools").mkdir(parents=True)
    (root / "ml" / "tools" / "README").write_text("the gate runs here\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "specs")
    monkeypatch.chdir(root / "ml" / "tools")
    return root


def _breaking_change(root: Path) -> tuple[str, int]:
    c = root / SPECS / "C.yaml"
    c.write_text(
        c.read_text().replace(
            'T: {allowed: "@numbers"}',
            'T: {allowed: "@numbers"}\n    attributes:\n      axis: {type: int, default: 0}',
        )
    )
    return f"{SPECS}/C.yaml", _line_of(c, "axis:")


def _typo(root: Path) -> tuple[str, int]:
    a = root / SPECS / "A.yaml"
    a.write_text(a.read_text().replace("replaced_by: C", "replaced_bye: C"))
    return f"{SPECS}/A.yaml", _line_of(a, "replaced_bye")


def _all_formats(
    capsys: pytest.CaptureFixture[str], tmp: Path, *argv: str
) -> dict[str, tuple[int, str, str]]:
    out = {}
    for fmt in FORMATS:
        out[fmt] = _run(capsys, *argv, "--format", fmt)
    # --output writes the same report to a file
    target = tmp / "report.sarif"
    code, stdout, _ = _run(capsys, *argv, "--format", "sarif", "--output", str(target))
    assert code == out["sarif"][0] and stdout == "" and target.read_text() == out["sarif"][1]
    return out


def _check_located(reports: dict[str, tuple[int, str, str]], path: str, line: int, rule_prefix: str) -> None:
    """Every format names `path` (the repository path) at `line`."""
    code, out, err = reports["text"]
    assert f"{path.split('ml/', 1)[1]}:{line}:" in out + err  # text: relative to the working directory
    data = json.loads(reports["json"][1])
    entries = data.get("findings") or data.get("diagnostics")
    assert any(
        (e.get("location") or e).get("path") == path and (e.get("location") or e)["line"] == line
        for e in entries
    ), entries
    annotations = consumers.parse_workflow_commands(reports["github"][1])
    assert any(
        a.get("file") == path and a.get("line") == str(line) and a["title"].startswith(rule_prefix)
        for a in annotations
    ), annotations
    sarif = json.loads(reports["sarif"][1])
    locations = [
        res["locations"][0]["physicalLocation"]
        for res in sarif["runs"][0]["results"]
        if res["ruleId"].startswith(rule_prefix)
    ]
    assert {"uri": path, "uriBaseId": "%SRCROOT%"} in [p["artifactLocation"] for p in locations]
    assert any(p["region"]["startLine"] == line for p in locations)
    cases = [c for suite in junitparser.JUnitXml.fromstring(reports["junit"][1]) for c in suite]
    assert any(
        c._elem.get("file") == path
        and c._elem.get("line") == str(line)
        and c.classname.split(".")[-1].startswith(rule_prefix)
        and not c.is_passed
        for c in cases
    )
    for fmt in FORMATS:
        assert reports[fmt][0] == code, fmt


def test_breaking_change_and_spec_typo_in_every_format(
    capsys: pytest.CaptureFixture[str], monorepo: Path, tmp_path: Path
) -> None:
    change_path, change_line = _breaking_change(monorepo)
    gate = _all_formats(capsys, tmp_path, "diff", "--against", "main", "--specs", "../opsets")
    assert gate["text"][0] == 1
    _check_located(gate, change_path, change_line, "ATTR-ADDED")
    assert "breaks: BC=no FC=yes" in gate["text"][1]
    annotation = next(
        a for a in consumers.parse_workflow_commands(gate["github"][1]) if a.get("file") == change_path
    )
    assert annotation["title"] == "ATTR-ADDED [BC=no FC=yes]" and "hint: " in annotation["message"]
    # The old location names its own file: the old tree's path at the git ref, not the new file.
    result = next(
        r for r in json.loads(gate["sarif"][1])["runs"][0]["results"] if r["ruleId"] == "ATTR-ADDED"
    )
    related = result["relatedLocations"][0]
    assert related["physicalLocation"]["artifactLocation"] == {"uri": change_path, "uriBaseId": "OLDTREE"}
    assert "(main)" in related["message"]["text"]
    bases = json.loads(gate["sarif"][1])["runs"][0]["originalUriBaseIds"]
    assert "git ref main" in bases["OLDTREE"]["description"]["text"]
    assert bases["%SRCROOT%"]["uri"] == monorepo.resolve().as_uri() + "/"

    typo_path, typo_line = _typo(monorepo)
    load = _all_formats(capsys, tmp_path, "diff", "--against", "main", "--specs", "../opsets")
    assert load["text"][0] == 2
    _check_located(load, typo_path, typo_line, "SCHEMA")
    sarif = json.loads(load["sarif"][1])
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    junit = ET.fromstring(load["junit"][1])
    assert (
        junit.find("testsuite/testcase/error") is not None
    )  # the gate could not run: an error, not a failure

    validate = _all_formats(capsys, tmp_path, "validate", "../opsets")
    assert validate["text"][0] == 1
    _check_located(validate, typo_path, typo_line, "SCHEMA")

    _consumers_accept(tmp_path, monorepo, [gate, load, validate])


def test_usage_errors_reach_the_report(capsys: pytest.CaptureFixture[str], monorepo: Path) -> None:
    code, out, err = _run(
        capsys, "diff", "--against", "no-such-ref", "--specs", "../opsets", "--format", "github"
    )
    assert code == 2 and "no such git ref" in err
    (annotation,) = consumers.parse_workflow_commands(out)
    assert (
        annotation["command"] == "error"
        and "file" not in annotation
        and "no such git ref" in annotation["message"]
    )
    code, out, _ = _run(capsys, "validate", "../opsets", "--format", "sarif", "--no-such-option")
    assert code == 2
    invocation = json.loads(out)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "--no-such-option" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    code, out, _ = _run(capsys, "check-model", "missing.onnx", "--format", "junit")
    assert code == 2
    error = ET.fromstring(out).find("testsuite/testcase/error")
    assert error is not None and "missing.onnx" in error.get("message", "")


def test_check_model_findings_are_located_at_the_model(
    capsys: pytest.CaptureFixture[str], monorepo: Path, tmp_path: Path
) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r", alpha=1.0)], "g", [x], [y])
    models = monorepo / "ml" / "models"
    models.mkdir()
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), models / "bad model,v1.onnx"
    )
    reports = {
        fmt: _run(capsys, "check-model", "../models/bad model,v1.onnx", "--format", fmt) for fmt in FORMATS
    }
    assert {code for code, _, _ in reports.values()} == {1}
    sarif = json.loads(reports["sarif"][1])
    (result,) = sarif["runs"][0]["results"]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {
        "uri": "ml/models/bad%20model%2Cv1.onnx",
        "uriBaseId": "%SRCROOT%",
    }
    assert physical["region"] == {"startLine": 1}
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "g/r/0"
    (annotation,) = consumers.parse_workflow_commands(reports["github"][1])
    assert annotation["file"] == "ml/models/bad model,v1.onnx" and annotation["title"] == "MODEL-ATTR-UNKNOWN"
    assert json.loads(reports["json"][1])["models"][0]["path"] == "ml/models/bad model,v1.onnx"
    (case,) = [c for suite in junitparser.JUnitXml.fromstring(reports["junit"][1]) for c in suite]
    assert case._elem.get("file") == "ml/models/bad model,v1.onnx" and not case.is_passed
    _consumers_accept(tmp_path, monorepo, [reports])


def _consumers_accept(tmp: Path, root: Path, runs: list[dict[str, tuple[int, str, str]]]) -> None:
    """Every SARIF and JUnit report: schema-valid, GitHub's rules, the Multitool, junitparser."""
    schema = consumers.sarif_schema()
    validator = jsonschema.Draft202012Validator(schema)
    strict = consumers.junit_xsd()
    located = xmlschema.XMLSchema(consumers.junit_xsd_with_location(strict))
    plain = xmlschema.XMLSchema(strict.read_text(encoding="utf-8"))
    sarif_files = []
    for n, reports in enumerate(runs):
        log: dict[str, Any] = json.loads(reports["sarif"][1])
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
        assert errors == []
        assert consumers.github_upload_problems(log, root) == []
        path = tmp / f"report{n}.sarif"
        path.write_text(reports["sarif"][1])
        sarif_files.append(path)
        xml = reports["junit"][1]
        located.validate(xml)
        assert consumers.ant_junit_problems(xml) == []
        assert consumers.ant_junit_problems(xml.replace(" timestamp=", " stamp=", 1))  # the check can fail
        # Without the two location attributes, the document is valid against the unmodified schema.
        tree = ET.fromstring(xml)
        for case in tree.iter("testcase"):
            case.attrib.pop("file", None)
            case.attrib.pop("line", None)
        plain.validate(ET.tostring(tree, encoding="unicode"))
    # A copy with the faults of issue 14 (no region, an unencoded URI) shows the validator bites.
    broken = json.loads(sarif_files[0].read_text())
    physical = broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    del physical["region"]
    physical["artifactLocation"]["uri"] = "sp,ec:s%/x.yaml"
    (tmp / "broken.sarif").write_text(json.dumps(broken))
    problems = consumers.multitool_validate([*sarif_files, tmp / "broken.sarif"], tmp / "validation.sarif")
    serious = [p for p in problems if p["level"] in ("error", "warning")]
    assert {p["file"] for p in serious} == {"broken.sarif"}, serious
    assert {"SARIF1002", "SARIF2017"} <= {p["ruleId"] for p in serious}


def test_generate_check_reports_stale_files(capsys: pytest.CaptureFixture[str], monorepo: Path) -> None:
    out = monorepo / "ml" / "generated"
    assert _run(capsys, "generate", "--specs", "../opsets", "--out", str(out), "--only", "docs", "-q")[0] == 0
    page = next(out.rglob("A.md"))
    lines = page.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2] + " (edited by hand)"
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    repo_path = page.relative_to(monorepo).as_posix()
    argv = ("generate", "--specs", "../opsets", "--out", "../generated", "--only", "docs", "--check")
    code, text, _ = _run(capsys, *argv)
    assert code == 1 and "(edited by hand)" in text  # text: the unified diff, as before
    code, github, _ = _run(capsys, *argv, "--format", "github")
    assert code == 1
    (annotation,) = consumers.parse_workflow_commands(github)
    assert (annotation["file"], annotation["line"], annotation["title"]) == (repo_path, "3", "GEN-STALE")
    code, sarif, _ = _run(capsys, *argv, "--format", "sarif")
    (result,) = json.loads(sarif)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == repo_path
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert consumers.github_upload_problems(json.loads(sarif), monorepo) == []
    report = monorepo / "gen.xml"
    assert _run(capsys, *argv, "--format", "junit", "--output", str(report))[0] == 1
    (case,) = [c for suite in junitparser.JUnitXml.fromfile(str(report)) for c in suite]
    assert case._elem.get("file") == repo_path and case._elem.get("line") == "3" and not case.is_passed


def test_convert_failure_is_a_located_finding(capsys: pytest.CaptureFixture[str], monorepo: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    def f32(name: str, shape: list[int]) -> Any:
        return helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, shape)

    models = monorepo / "ml" / "models"
    models.mkdir()
    split = helper.make_graph(
        [helper.make_node("Split", ["x"], ["a", "b"], name="s", axis=1, split=[1, 2])],
        "g",
        [f32("x", [1, 3])],
        [f32("a", [1, 1]), f32("b", [1, 2])],
    )
    onnx.save(helper.make_model(split, opset_imports=[helper.make_opsetid("", 11)]), models / "split.onnx")
    # GroupNormalization-21 changed what scale and bias mean: no adapter moves a node to it.
    group = helper.make_graph(
        [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=1)],
        "g",
        [f32("x", [1, 2, 2]), f32("s", [1]), f32("b", [1])],
        [f32("y", [1, 2, 2])],
    )
    onnx.save(helper.make_model(group, opset_imports=[helper.make_opsetid("", 18)]), models / "group.onnx")
    argv = ("convert", "../models/group.onnx", "--to", "ai.onnx=21", "--out", "../models/out.onnx")
    reports = {fmt: _run(capsys, *argv, "--format", fmt) for fmt in FORMATS}
    assert {code for code, _, _ in reports.values()} == {1}
    assert not (models / "out.onnx").exists()
    (annotation,) = consumers.parse_workflow_commands(reports["github"][1])
    assert annotation["file"] == "ml/models/group.onnx" and annotation["title"] == "CONVERT-NO-ADAPTER"
    assert "GroupNormalization" in annotation["message"]
    log = json.loads(reports["sarif"][1])
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "ml/models/group.onnx"
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].startswith("g/")
    assert consumers.github_upload_problems(log, monorepo) == []
    assert json.loads(reports["json"][1])["findings"][0]["rule"] == "CONVERT-NO-ADAPTER"
    (case,) = [c for suite in junitparser.JUnitXml.fromstring(reports["junit"][1]) for c in suite]
    assert case._elem.get("file") == "ml/models/group.onnx" and not case.is_passed
    # a conversion that works: exit 0, an empty report on stdout, the steps on stderr
    code, out, err = _run(
        capsys,
        "convert",
        "../models/split.onnx",
        "--to",
        "ai.onnx=12",
        "--out",
        "../models/out.onnx",
        "--format",
        "sarif",
        "--report",
        str(monorepo / "convert.sarif"),
    )
    assert code == 0 and out == "" and "wrote ../models/out.onnx" in err
    assert json.loads((monorepo / "convert.sarif").read_text())["runs"][0]["results"] == []
