"""`opset test-runtime` on onnxruntime: pass / fail / error per example, formats, exit codes, and
the shipped vendor domain's examples."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.cli import main

pytest.importorskip("onnxruntime")
REPO = Path(__file__).resolve().parent.parent

RELU = """\
operator: Relu
domain: ai.onnx
versions:
  - since_version: 14
    doc: max(0, x)
    inputs: [{name: X, type: T}]
    outputs: [{name: Y, type: T}]
    type_constraints: {T: {allowed: [tensor(float), tensor(double), tensor(float16)]}}
    examples:
      - name: basic
        inputs: [{dtype: float, data: [[-1, 2], [3, -4]]}]
        outputs: [{dtype: float, data: [[0, 2], [3, 0]]}]
      - name: half
        inputs: [{dtype: float16, data: [-1.5, 2.25]}]
        outputs: [{dtype: float16, data: [0, 2.25]}]
      - name: wrong
        inputs: [{dtype: double, data: [-1, 2]}]
        outputs: [{dtype: double, data: [0, 3]}]
      - name: close_enough
        inputs: [{dtype: float, data: [1.0]}]
        outputs: [{dtype: float, data: [1.0005]}]
"""
UNKNOWN = """\
operator: Mystery
domain: com.test.rt
versions:
  - since_version: 1
    doc: Nobody implements it.
    inputs: [{name: X, type: tensor(float)}]
    outputs: [{name: Y, type: tensor(float)}]
    examples:
      - {name: identity, inputs: [{dtype: float, data: [1]}], outputs: [{dtype: float, data: [1]}]}
"""


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    onnx_dir = tmp_path / "specs" / "ai.onnx"
    onnx_dir.mkdir(parents=True)
    (onnx_dir / "domain.yaml").write_text(
        "domain: ai.onnx\nopset_versions:\n  - {version: 14, ir_version: 7}\n"
    )
    (onnx_dir / "Relu.yaml").write_text(RELU)
    rt = tmp_path / "specs" / "com.test.rt"
    rt.mkdir()
    (rt / "domain.yaml").write_text("domain: com.test.rt\nopset_versions:\n  - {version: 1, ir_version: 9}\n")
    (rt / "Mystery.yaml").write_text(UNKNOWN)
    return tmp_path / "specs"


def test_pass_fail_and_error_per_example(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test-runtime", "--specs", str(specs), "--no-cache", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    rows = {(r["operator"], r["example"]): r for r in report["results"]}
    assert {k: r["status"] for k, r in rows.items()} == {
        ("Relu", "basic"): "pass",
        ("Relu", "half"): "pass",
        ("Relu", "wrong"): "fail",
        ("Relu", "close_enough"): "pass",  # within the default rtol of 1e-3
        ("Mystery", "identity"): "skip",  # no kernel, no body: skipped with the reason (#25.3)
    }
    assert rows[("Relu", "wrong")]["rule"] == "RUNTIME-EXAMPLE-FAIL"
    assert "expected 3.0" in rows[("Relu", "wrong")]["message"]
    assert rows[("Mystery", "identity")]["rule"] == "RUNTIME-EXAMPLE-SKIP"
    assert rows[("Relu", "wrong")]["location"]["line"] > 0
    assert report["summary"] == {"examples": 5, "pass": 3, "fail": 1, "error": 0, "skip": 1}


def test_text_junit_and_filters(specs: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from junitparser import JUnitXml

    assert (
        main(["test-runtime", "--specs", str(specs), "--no-cache", "--op", "Relu", "--format", "junit"]) == 1
    )
    out = capsys.readouterr().out
    (tmp_path / "r.xml").write_text(out)
    suite = next(iter(JUnitXml.fromfile(str(tmp_path / "r.xml"))))
    assert (suite.tests, suite.failures) == (4, 1)
    assert (
        main(["test-runtime", "--specs", str(specs), "--no-cache", "--op", "Relu", "--format", "github"]) == 1
    )
    github = capsys.readouterr().out
    assert "::error file=" in github and "title=RUNTIME-EXAMPLE-FAIL" in github and "Relu:14/wrong" in github
    assert (
        main(["test-runtime", "--specs", str(specs), "--no-cache", "--op", "Relu", "--format", "sarif"]) == 1
    )
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["ruleId"] == "RUNTIME-EXAMPLE-FAIL"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] > 0
    code = main(["test-runtime", "--specs", str(specs), "--no-cache", "--domain", "ai.onnx", "--op", "Relu"])
    text = capsys.readouterr().out
    assert code == 1 and "FAIL  ai.onnx.Relu:14/wrong" in text and "Mystery" not in text
    assert text.rstrip().endswith("onnxruntime: 4 example(s): 3 passed, 1 failed, 0 error(s), 0 skipped")


def test_usage_errors_exit_2(specs: Path, tmp_path: Path) -> None:
    assert (
        main(["test-runtime", "--specs", str(specs), "--custom-op-library", str(tmp_path / "nope.so")]) == 2
    )
    assert main(["test-runtime", "--specs", str(specs), "--domain", "com.nowhere"]) == 2
    not_a_library = tmp_path / "fake.so"
    not_a_library.write_bytes(b"not an ELF file")
    assert main(["test-runtime", "--specs", str(specs), "--custom-op-library", str(not_a_library)]) == 2


def test_runtime_not_installed_is_a_clear_usage_error(specs: Path) -> None:
    script = (
        "import sys; sys.modules['onnxruntime'] = None\n"
        "from toolkit.cli import main\n"
        f"raise SystemExit(main(['test-runtime', '--specs', {str(specs)!r}, '--no-cache']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert "needs the onnxruntime package, which is not installed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_vendor_domain_examples_run_through_function_bodies(capsys: pytest.CaptureFixture[str]) -> None:
    """Every operator of the shipped vendor domain has examples; the versions with a function body
    pass on onnxruntime with no vendor kernel, the others are skipped (no kernel, no body)."""
    from toolkit.registry.core import load_registry

    registry = load_registry([REPO / "opsets"], cache=False)
    for op in registry.operators("com.acme.vision"):
        assert any(v.examples for v in op.versions), f"{op.name} has no examples"
    main(
        [
            "test-runtime",
            "--specs",
            str(REPO / "opsets"),
            "--no-cache",
            "--domain",
            "com.acme.vision",
            "--format",
            "json",
        ]
    )
    results = json.loads(capsys.readouterr().out)["results"]
    assert len(results) == sum(
        len(v.examples) for v in registry.all_schemas() if v.domain == "com.acme.vision"
    )
    for row in results:
        schema = registry.get_schema(row["operator"], row["since_version"], "com.acme.vision")
        if getattr(schema, "function", None) is not None:
            assert row["status"] == "pass", row
        else:
            assert row["status"] == "skip" and "has no function body" in row["message"], row
