"""`opset init`, `opset schemas`, opset.toml and `opset show` of onnx's domains without specs (issue 15).
The whole flow in a fresh environment is tests/test_vendor_e2e.py; these are the unit checks."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.load.schema_files import editor_schema_files


@pytest.fixture
def vendor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "repo", "--domain", "com.example.x"]) == 0
    monkeypatch.chdir(tmp_path / "repo")
    return tmp_path / "repo"


def test_init_writes_a_repository_that_validates(vendor: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate"]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out
    modeline = (vendor / "opsets" / "com.example.x" / "Gain.yaml").read_text().splitlines()[0]
    assert modeline == "# yaml-language-server: $schema=../../schemas/operator.schema.json"
    schema = json.loads((vendor / "schemas" / "operator.schema.json").read_text())
    assert "$id" not in schema  # refs resolve against the file itself: editors work offline
    assert main(["schemas", "--check"]) == 0


def test_init_never_overwrites(vendor: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (vendor / "opset.toml").read_bytes()
    assert main(["init", ".", "--domain", "com.example.x"]) == 2
    assert "already exist" in capsys.readouterr().err
    assert (vendor / "opset.toml").read_bytes() == before


@pytest.mark.parametrize("domain", ["acme", "Com.Acme", "com..acme", "com.acme."])
def test_init_refuses_a_domain_that_is_not_reverse_dns(
    tmp_path: Path, domain: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "r"), "--domain", domain]) == 2
    assert "reverse-DNS" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_the_generated_package_is_named_by_opset_toml(vendor: Path) -> None:
    assert main(["generate", "-q"]) == 0  # recorded: the renamed package must not be answered from it
    assert (vendor / "generated" / "python" / "com_example_x_ops" / "py.typed").is_file()
    text = (vendor / "opset.toml").read_text().replace('package = "com_example_x_ops"', 'package = "xops"')
    (vendor / "opset.toml").write_text(text)
    assert main(["generate", "-q"]) == 0
    assert (vendor / "generated" / "python" / "xops" / "py.typed").is_file()
    assert not [p for p in (vendor / "generated" / "python" / "com_example_x_ops").rglob("*") if p.is_file()]
    assert 'name = "com-example-x-ops"' in (vendor / "generated" / "python" / "pyproject.toml").read_text()
    assert not (vendor / "generated" / "docs" / "dsl.md").exists()
    assert main(["generate", "--check", "-q"]) == 0


def test_a_bad_setting_is_a_usage_error(vendor: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vendor / "opset.toml").write_text('[python]\npackage = "not-an-identifier"\n')
    assert main(["generate"]) == 2
    err = capsys.readouterr().err
    assert "opset.toml:2:1: error[PROJECT-SETTING]: `python.package`" in err and "Python identifier" in err


def test_schemas_check_names_stale_and_missing_files(
    vendor: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vendor / "schemas" / "domain.schema.json").write_text("{}\n")
    (vendor / "schemas" / "releases.schema.json").unlink()
    assert main(["schemas", "--check"]) == 1
    err = capsys.readouterr().err
    assert "schemas/domain.schema.json: differs" in err and "schemas/releases.schema.json: is missing" in err
    assert main(["schemas"]) == 0
    assert (vendor / "schemas" / "domain.schema.json").read_bytes() == editor_schema_files()[
        "domain.schema.json"
    ]


def test_the_repository_schemas_are_current(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    assert main(["schemas", "--check"]) == 0


def test_pre_commit_and_the_workflow_are_valid_for_their_tools(vendor: Path) -> None:
    pytest.importorskip("pre_commit")
    from pre_commit.clientlib import load_config

    hooks = load_config(str(vendor / ".pre-commit-config.yaml"))
    assert [h["id"] for h in hooks["repos"][0]["hooks"]] == [
        "opset",
        "opset-schemas",
        "opset-generate-check",
    ]
    if shutil.which("actionlint") is None:
        pytest.skip("actionlint is not installed")
    proc = subprocess.run(
        ["actionlint", "-no-color", ".github/workflows/opset.yml"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_show_and_inventory_of_onnx_domains_need_no_specs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")
    monkeypatch.chdir(tmp_path)  # no opsets/, no opset.toml: the installed onnx's catalog
    monkeypatch.setattr("toolkit.cli.common.default_spec_dir", lambda: None)
    assert main(["show", "ai.onnx.Relu", "--opset", "13"]) == 0
    assert capsys.readouterr().out.startswith("ai.onnx.Relu:13  (stable)")
    assert main(["inventory", "ai.onnx.ml", "--opset", "1", "--format", "json"]) == 0
    assert "ArrayFeatureExtractor" in json.loads(capsys.readouterr().out)


def test_a_spec_file_outside_the_spec_root_is_reported(
    vendor: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q"], check=True)
    stray = vendor / "com.example.x" / "Mix.yaml"
    stray.parent.mkdir()
    stray.write_text("# a vendor's first try\noperator: Mix\ndomain: com.example.x\nversions: []\n")
    assert main(["validate"]) == 0  # a warning: nothing is wrong with the specs that are read
    captured = capsys.readouterr()
    assert "com.example.x/Mix.yaml:2:1: warning[FILE-OUTSIDE-ROOT]" in captured.err
    assert "outside the spec root opsets/" in captured.err and "1 warning(s)" in captured.out
