"""`opset import-onnx`: the installed catalog as DSL files that validate cleanly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.checks.run import load_specs

pytest.importorskip("onnx")


def test_imported_catalog_validates_without_errors(onnx_catalog_dir: Path) -> None:
    result = load_specs([onnx_catalog_dir])
    assert result.errors == []
    assert {d.name for d in result.specs.domains} == {
        "",
        "ai.onnx.ml",
        "ai.onnx.preview",
        "ai.onnx.preview.training",
    }
    assert sum(len(op.versions) for op in result.specs.operators) == 659
    # Every imported file names the JSON Schema an editor should use.
    for path in list(onnx_catalog_dir.rglob("*.yaml"))[:20]:
        assert path.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=")


def test_imported_files_validate_against_the_json_schemas(onnx_catalog_dir: Path) -> None:
    """What an editor would check with the published schemas, independently of our loader."""
    import jsonschema
    import yaml

    from toolkit.load.schema_files import json_schema

    validators = {kind: jsonschema.Draft202012Validator(json_schema(kind)) for kind in ("operator", "domain")}
    for path in sorted(onnx_catalog_dir.rglob("*.yaml"))[::7]:
        kind = {"domain.yaml": "domain", "releases.yaml": "releases"}.get(path.name, "operator")
        if kind == "releases":
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        errors = list(validators[kind].iter_errors(data))
        if kind == "operator":  # historical onnx names are silenced per version via `suppress`
            errors = [e for e in errors if e.validator != "pattern"]
        assert errors == [], (path, [e.message for e in errors])


def test_import_one_domain_cli(tmp_path: Path) -> None:
    out = tmp_path / "ml"
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "import-onnx", "--out", str(out), "--domain", "ai.onnx.ml"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["ai.onnx.ml"] or "ai.onnx.ml" in {
        p.name for p in out.iterdir()
    }
    assert (out / "ai.onnx.ml" / "LinearRegressor.yaml").is_file()
    assert not (out / "ai.onnx").exists()


def test_unknown_domain_and_missing_onnxruntime_are_usage_errors(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "import-onnx", "--out", str(tmp_path), "--domain", "com.nobody"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "com.nobody" in proc.stderr and "Traceback" not in proc.stderr
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolkit",
                "import-onnx",
                "--out",
                str(tmp_path),
                "--source",
                "onnxruntime",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 2 and "onnxruntime is not installed" in proc.stderr
