"""#25.3, #25.6, #25.8: test-runtime skips what the runtime cannot run (with the reason and the
ways out) in every format and names JUnit cases by example; check-model --runtime and compat give
one answer; the model tools' missing-package messages name the `[onnx]` extra."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.cli import main

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
REPO = Path(__file__).resolve().parent.parent

DOMAIN = "domain: com.test.rt\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
NO_KERNEL = """\
operator: Mystery
domain: com.test.rt
versions:
  - since_version: 1
    doc: No runtime has a kernel for it and it has no body.
    inputs: [{name: X, type: tensor(float)}]
    outputs: [{name: Y, type: tensor(float)}]
    examples:
      - {name: identity, inputs: [{dtype: float, data: [1]}], outputs: [{dtype: float, data: [1]}]}
"""
WITH_BODY = """\
operator: Twice
domain: com.test.rt
versions:
  - since_version: 1
    doc: Doubles its input.
    inputs: [{name: X, type: tensor(float)}]
    outputs: [{name: Y, type: tensor(float)}]
    examples:
      - {name: doubled, inputs: [{dtype: float, data: [1, 2]}], outputs: [{dtype: float, data: [2, 4]}]}
      - {name: wrong, inputs: [{dtype: float, data: [1]}], outputs: [{dtype: float, data: [3]}]}
    function:
      opset_imports: {ai.onnx: 19}
      body: |
        Y = Add (X, X)
"""


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs" / "com.test.rt"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    (folder / "Mystery.yaml").write_text(NO_KERNEL)
    (folder / "Twice.yaml").write_text(WITH_BODY)
    return tmp_path / "specs"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["test-runtime", *args])
    return code, capsys.readouterr().out


def test_no_kernel_and_no_body_is_skip_not_error(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _run(capsys, "--specs", str(specs), "--op", "Mystery", "--allow-all-skipped")
    assert code == 0, text  # nothing failed: a skip is not a failure (all skipped: allowed here)
    assert "SKIP  com.test.rt.Mystery:1/identity" in text
    located = re.search(r"specs/com\.test\.rt/Mystery\.yaml:(\d+):(\d+): (.*)", text)
    assert located and int(located.group(1)) > 0, text
    reason = located.group(3)
    assert "has no kernel for com.test.rt.Mystery:1" in reason and "no function body" in reason
    assert "`function:` body" in reason and "--custom-op-library" in reason  # the two ways out
    assert "not a registered function/op" not in text  # decided before running, not a runtime error
    assert text.rstrip().endswith("1 example(s): 0 passed, 0 failed, 0 error(s), 1 skipped")


def test_skip_counts_in_json_junit_github_and_sarif(
    specs: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from junitparser import Failure, JUnitXml, Skipped

    base = ["--specs", str(specs), "--no-cache"]
    code, out = _run(capsys, *base, "--format", "json")
    assert code == 1  # Twice/wrong fails; the skip does not change that
    report = json.loads(out)
    assert report["summary"] == {"examples": 3, "pass": 1, "fail": 1, "error": 0, "skip": 1}
    (skip,) = [r for r in report["results"] if r["status"] == "skip"]
    assert skip["rule"] == "RUNTIME-EXAMPLE-SKIP" and skip["location"]["line"] > 0

    code, out = _run(capsys, *base, "--format", "junit")
    (tmp_path / "r.xml").write_text(out)
    suite = next(iter(JUnitXml.fromfile(str(tmp_path / "r.xml"))))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (3, 1, 0, 1)
    cases = {(case.classname, case.name): case for case in suite}
    assert set(cases) == {
        ("com.test.rt.Mystery:1", "identity"),
        ("com.test.rt.Twice:1", "doubled"),
        ("com.test.rt.Twice:1", "wrong"),
    }
    assert cases[("com.test.rt.Twice:1", "doubled")].is_passed
    assert "RUNTIME-EXAMPLE" not in out.split("doubled")[0].rsplit("<testcase", 1)[1]  # a pass names no rule
    (skipped,) = cases[("com.test.rt.Mystery:1", "identity")].result
    assert isinstance(skipped, Skipped) and "--custom-op-library" in (skipped.message or "")
    (failure,) = cases[("com.test.rt.Twice:1", "wrong")].result
    assert isinstance(failure, Failure) and failure.type == "RUNTIME-EXAMPLE-FAIL"

    code, out = _run(capsys, *base, "--format", "github")
    assert "::notice file=" in out and "title=RUNTIME-EXAMPLE-SKIP" in out
    code, out = _run(capsys, *base, "--format", "sarif")
    levels = {r["ruleId"]: r["level"] for r in json.loads(out)["runs"][0]["results"]}
    assert levels == {"RUNTIME-EXAMPLE-SKIP": "note", "RUNTIME-EXAMPLE-FAIL": "error"}


def test_shipped_specs_pass_or_skip(capsys: pytest.CaptureFixture[str]) -> None:
    """This repository's examples: every version with a function body passes on onnxruntime
    (GaussianBlur-4 among them), every other one is skipped with its reason; exit 0."""
    from toolkit.registry.core import load_registry

    code, out = _run(capsys, "--specs", str(REPO / "opsets"), "--format", "json")
    assert code == 0, out
    registry = load_registry([REPO / "opsets"], cache=False)
    statuses: dict[str, set[str]] = {}
    for row in json.loads(out)["results"]:
        schema = registry.get_schema(row["operator"], row["since_version"], row["domain"])
        expected = "pass" if schema.function is not None else "skip"
        assert row["status"] == expected, row
        statuses.setdefault(f"{row['operator']}:{row['since_version']}", set()).add(row["status"])
    assert statuses["GaussianBlur:4"] == {"pass"} and statuses["Blur:1"] == {"skip"}


def _model(path: Path, op: str, domain_version: int) -> Path:
    import onnx
    from onnx import TensorProto, helper

    inputs = ["X"] if op == "Blur" else ["X", "W"]
    node = helper.make_node(op, inputs, ["Y"], domain="com.acme.vision")
    graph = helper.make_graph(
        [node],
        "g",
        # a 1x1 kernel: the output keeps the input's shape (check-model also checks shapes)
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 1, 3, 3] if n == "X" else [1, 1, 1, 1])
            for n in inputs
        ],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, 3, 3])],
    )
    opsets = [helper.make_opsetid("", 19), helper.make_opsetid("com.acme.vision", domain_version)]
    onnx.save(helper.make_model(graph, opset_imports=opsets, ir_version=10), path)
    return path


def _rules(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, dict[str, str]]:
    code = main(args)
    data = json.loads(capsys.readouterr().out)
    findings = data["findings"] if "findings" in data else data["models"][0]["findings"]
    return code, {f["rule"]: f["severity"] for f in findings if f["rule"].startswith("COMPAT-")}


@pytest.mark.parametrize(
    ("op", "rule", "severity", "check_code"),
    [("Blur", "COMPAT-OP-MISSING", "error", 1), ("FusedConv", "COMPAT-OP-INLINABLE", "warning", 0)],
)
def test_check_model_runtime_and_compat_give_one_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str, rule: str, severity: str, check_code: int
) -> None:
    model = str(_model(tmp_path / f"{op}.onnx", op, 2))
    specs = ["--specs", str(REPO / "opsets")]
    compat_code, compat = _rules(
        capsys, ["compat", model, "--runtime", "onnxruntime", *specs, "--format", "json"]
    )
    check_code_got, check = _rules(
        capsys, ["check-model", model, "--runtime", "onnxruntime", *specs, "--format", "json"]
    )
    assert compat == check == {rule: severity}
    assert compat_code == 1 and check_code_got == check_code


def _without(module: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    script = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from toolkit.cli import main\n"
        f"raise SystemExit(main({argv!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=False
    )


def test_missing_onnx_or_onnxruntime_names_the_extra(tmp_path: Path, specs: Path) -> None:
    model = str(_model(tmp_path / "blur.onnx", "Blur", 2))
    for module, argv in (
        ("onnx", ["check-model", model, "--no-cache"]),
        ("onnx", ["compat", model, "--runtime", "onnxruntime", "--no-cache"]),
        ("onnxruntime", ["test-runtime", "--specs", str(specs), "--no-cache"]),
    ):
        proc = _without(module, argv)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert "opset-toolkit[onnx]" in proc.stderr and f"needs the {module} package" in proc.stderr, (
            proc.stderr
        )
        assert "Traceback" not in proc.stderr


def test_one_message_and_the_extra_pins_match_the_test_extra() -> None:
    """No second spelling of the install advice in the toolkit; `[onnx]` pins what `[test]` pins."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    spellings = re.compile(r"pip install onnx|not installed[:;]? \(?(install it )?\(?pip install")
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "toolkit").rglob("*.py")
        if spellings.search(path.read_text("utf-8"))
    ]
    assert offenders == []
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pins = {re.split("[=<>]", r)[0]: r for r in extras["test"]}
    assert sorted(extras["onnx"]) == sorted([pins["onnx"], pins["onnxruntime"]])
