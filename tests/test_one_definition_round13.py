"""Issue #24, round 13: each thing defined once, so two copies cannot disagree.

- the generated package's name: one test (`model.output_names.package_problem`) that `opset init
  --package` and `python.package` of the project file both apply, so init never writes a setting
  that generate refuses;
- the generator kinds: one list (`generate.GENERATORS`), in run order;
- the protobuf function bodies: one bounded cache;
- the type_restriction step built in one place;
- the tools whose output a test checks (ruff, mypy, import-linter) pinned;
- every module of the toolkit named in docs/architecture.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main

DOMAIN = "domain: com.newco.audio\nopset_versions:\n  - {version: 1, ir_version: 9}\n"

# Names a generated package cannot take, one per kind of reason.
REFUSED = {
    "keyword": "class",
    "dunder": "__main__",
    "too-long": "a" * 300,
    "not-identifier": "9lives",
    "stdlib": "json",
}


@pytest.mark.parametrize("package", REFUSED.values(), ids=REFUSED.keys())
def test_init_refuses_what_the_project_file_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], package: str
) -> None:
    """`opset init --package class` (or 300 letters) exited 0 and wrote an opset.toml that
    `opset generate` then refused, or (for a keyword) generated a package no import can name."""
    assert main(["init", str(tmp_path / "repo"), "--domain", "com.newco.audio", "--package", package]) == 2
    init_err = capsys.readouterr().err
    assert f"--package {package!r} " in init_err and "hint: pass --package" in init_err
    assert not (tmp_path / "repo").exists()

    tree = tmp_path / "tree"
    (tree / "opsets" / "com.newco.audio").mkdir(parents=True)
    (tree / "opsets" / "com.newco.audio" / "domain.yaml").write_text(DOMAIN)
    (tree / "opset.toml").write_text(f'out = "generated"\n\n[python]\n  package = "{package}"\n')
    monkeypatch.chdir(tree)
    assert main(["generate"]) == 2
    err = capsys.readouterr().err
    # Located at the key of the sub-table, with the same reason init gave.
    assert err.startswith(f"opset.toml:4:3: error[PROJECT-SETTING]: `python.package` = {package!r} "), err
    reason = init_err.split(f"--package {package!r} ", 1)[1].split("\n", 1)[0]
    assert reason in err and "hint:" in err
    assert not (tree / "generated").exists()


def test_a_name_both_accept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A soft keyword imports fine (`import match`), so neither refuses it."""
    repo = tmp_path / "repo"
    assert main(["init", str(repo), "--domain", "com.newco.audio", "--package", "match", "-q"]) == 0
    monkeypatch.chdir(repo)
    assert main(["generate", "-q"]) == 0
    assert (repo / "generated" / "python" / "match" / "__init__.py").is_file()


def test_a_package_derived_from_a_long_domain_is_refused_by_init(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --package the name comes from the domain, and is held to the same test."""
    domain = f"com.{'a' * 260}.audio"
    assert main(["init", str(tmp_path / "repo"), "--domain", domain]) == 2
    err = capsys.readouterr().err
    assert "(from --domain) is longer than 255 bytes" in err and "hint:" in err
    assert not (tmp_path / "repo").exists()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('[python]\npackage = "class"\n', "opset.toml:2:1"),
        ('spec_root = "opsets"\npython.package = "class"\n', "opset.toml:2:1"),
        ('spec_root = "opsets"\npython = {package = "class"}\n', "opset.toml:2:1"),  # its table
        ('[project]\nname = "x"\n[tool."opset-toolkit".python]\n\npackage = "class"\n', "pyproject.toml:5:1"),
    ],
)
def test_a_sub_table_key_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    (tmp_path / "opsets").mkdir()
    (tmp_path / where.split(":")[0]).write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 2
    assert capsys.readouterr().err.startswith(f"{where}: error[PROJECT-SETTING]: `python.package`")
