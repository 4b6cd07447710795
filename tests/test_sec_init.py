"""Issue 23, item 8: `opset init` and `opset schemas` never write through a symbolic link that the
tree holds, and a generated package may not take the name of a module it would shadow.

Each hostile layout is built at test time; the assertions are on the real CLI's exit code and
message and on the folders around the repository (nothing written outside)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkit.cli import main

DOMAIN = "domain: com.newco.audio\nopset_versions:\n  - {version: 1, ir_version: 9}\n"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): (
            b"<link>" if p.is_symlink() else p.read_bytes() if p.is_file() else b"<dir>"
        )
        for p in sorted(folder.rglob("*"))
    }


def test_init_refuses_a_symlinked_opsets_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "opsets").symlink_to(outside, target_is_directory=True)
    before = _snapshot(tmp_path)

    assert main(["init", str(repo), "--domain", "com.newco.audio"]) == 2

    err = capsys.readouterr().err
    assert "opsets is a symbolic link" in err and "hint:" in err
    assert _snapshot(tmp_path) == before  # nothing written anywhere, the link's target untouched


def test_init_refuses_a_symlink_deeper_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = tmp_path / "repo"
    (repo / ".github").mkdir(parents=True)
    (repo / ".github" / "workflows").symlink_to(outside, target_is_directory=True)

    assert main(["init", str(repo), "--domain", "com.newco.audio"]) == 2

    assert ".github/workflows is a symbolic link" in capsys.readouterr().err
    assert list(outside.iterdir()) == []
    assert not (repo / "opset.toml").exists()  # refused before anything was written


@pytest.mark.parametrize("package", ["json", "os", "toolkit", "yaml", "onnx", "numpy"])
def test_init_refuses_a_package_name_that_shadows_a_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], package: str
) -> None:
    assert main(["init", str(tmp_path / "repo"), "--domain", "com.newco.audio", "--package", package]) == 2
    err = capsys.readouterr().err
    assert f"--package '{package}' would shadow" in err and "hint:" in err
    assert not (tmp_path / "repo").exists()


@pytest.mark.parametrize("package", ["json", "toolkit", "yaml"])
def test_project_file_package_that_shadows_a_module_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], package: str
) -> None:
    (tmp_path / "opsets" / "com.newco.audio").mkdir(parents=True)
    (tmp_path / "opsets" / "com.newco.audio" / "domain.yaml").write_text(DOMAIN)
    (tmp_path / "opset.toml").write_text(f'[python]\npackage = "{package}"\n')
    monkeypatch.chdir(tmp_path)

    assert main(["generate"]) == 2

    err = capsys.readouterr().err
    assert f"opset.toml:2:1: error[PROJECT-SETTING]: `python.package` = '{package}' would shadow" in err
    assert not (tmp_path / "generated").exists()


def test_init_refuses_a_domain_too_long_for_a_folder_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    domain = "com." + "a" * 300 + ".x"
    assert main(["init", str(tmp_path / "repo"), "--domain", domain, "--package", "foo_ops"]) == 2
    err = capsys.readouterr().err
    assert "is too long: the folder named after it would be 306 bytes, over the 255" in err
    assert "hint: pick a shorter reverse-DNS domain" in err and "Traceback" not in err
    assert not (tmp_path / "repo").exists()


def test_a_package_name_of_its_own_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "repo"), "--domain", "com.newco.audio", "--package", "json_ops"]) == 0
    assert 'package = "json_ops"' in (tmp_path / "repo" / "opset.toml").read_text()


def test_schemas_refuses_a_symlinked_schemas_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "opset.toml").write_text("")
    (repo / "schemas").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(repo)

    assert main(["schemas"]) == 2

    assert "schemas is a symbolic link" in capsys.readouterr().err
    assert list(outside.iterdir()) == []
    # the invoker may still choose the folder explicitly
    assert main(["schemas", "--out", os.fspath(outside)]) == 0
    assert sorted(p.name for p in outside.iterdir()) != []


def test_the_workflow_init_writes_runs_no_tree_code_where_it_can_write(tmp_path: Path) -> None:
    """The job holding a write permission (SARIF upload) only reads the tree as data; the job that
    runs the tree's code (pip install of the generated package, mkdocs with its hooks) may not
    write; no checkout keeps the token; the trigger is pull_request, never pull_request_target."""
    import yaml

    assert main(["init", str(tmp_path / "repo"), "--domain", "com.newco.audio"]) == 0
    workflow = yaml.safe_load((tmp_path / "repo" / ".github" / "workflows" / "opset.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert "pull_request" in triggers and "pull_request_target" not in triggers
    assert workflow["permissions"] == {"contents": "read"}
    runs_tree_code = ("pip install ./", "mkdocs")
    for name, job in workflow["jobs"].items():
        writes = any(level == "write" for level in job.get("permissions", {}).values())
        commands = [step.get("run", "") for step in job["steps"]]
        if writes:
            assert not any(c.startswith(runs_tree_code) for c in commands), name
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, name
    assert any(
        c.startswith("mkdocs")
        for job in workflow["jobs"].values()
        for c in (s.get("run", "") for s in job["steps"])
    )
