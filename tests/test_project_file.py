"""Which pyproject.toml holds the project's settings: one with a [tool.opset-toolkit] table, in
any TOML spelling of the key; one that only names the package (a dependency, its own name) is
not read at all, so another tool's broken pyproject.toml is not our error."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.load.project import find_project_file, load_project

SPELLINGS = [
    '[tool.opset-toolkit]\nout = "gen"\n',
    '[tool."opset-toolkit"]\nout = "gen"\n',
    "[ tool . 'opset-toolkit' ]\nout = \"gen\"\n",
    '[tool]\nopset-toolkit = { out = "gen" }\n',
    'tool.opset-toolkit.out = "gen"\n',
    '[tool]\n"opset-toolkit" . out = "gen"\n',
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spelling_of_the_table_is_found(tmp_path: Path, text: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(text + '\n[project]\nname = "x"\n')
    assert find_project_file(tmp_path) == tmp_path / "pyproject.toml"
    assert load_project(tmp_path).out == "gen"


def test_a_pyproject_that_only_names_the_package_is_not_parsed(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "opset-toolkit"\ndependencies = ["opset-toolkit[test]"]\nbroken = \n'
    )
    assert find_project_file(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[tool.opset-toolkit]\nbroken = \n")
    with pytest.raises(Exception, match="invalid TOML"):
        find_project_file(tmp_path)


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (
            '# the project\nspec_root = "opsets"\nmax_example_bytes = "16M"\n',
            "opset.toml:3:1",
            "`max_example_bytes` = '16M' is not valid",
        ),
        ('out = ""\n', "opset.toml:1:1", "`out` = '' is not valid"),
        (
            'spec_root = "opsets"\n[python]\npakage = "x"\n',
            "opset.toml:2:1",  # at the table's header (the key of a sub-table is found too)
            "unknown key(s) in [python]: pakage",
        ),
    ],
)
def test_a_bad_setting_is_a_located_project_setting_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str,
    where: str,
    message: str,
) -> None:
    """Exit 2 with `file:line:col: error[PROJECT-SETTING]`, the key's line when it is a top-level
    key, and a hint (the settings errors used to name the file only, with no rule id)."""
    from toolkit.cli import main

    (tmp_path / "opset.toml").write_text(text, encoding="utf-8")
    (tmp_path / "opsets").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 2
    err = capsys.readouterr().err
    assert f"{where}: error[PROJECT-SETTING]: {message}" in err and "\n  hint: " in err, err
