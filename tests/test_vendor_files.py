"""Which files are specs and how their YAML reads (issue 15): misnamed files are located
errors naming the right name, one operator file is validated with the domain file beside it,
and plain scalars follow YAML 1.2's core schema (as editors read them)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from toolkit.cli import main
from toolkit.load import yaml12
from toolkit.load.yamlsrc import YamlProblem, parse_yaml_text

DOMAIN = "domain: com.newco.audio\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
MIX = """\
operator: Mix
domain: com.newco.audio
versions:
  - since_version: 1
    doc: Mixes two signals.
    inputs:
      - {name: A, type: tensor(float)}
      - {name: B, type: tensor(float)}
    outputs:
      - {name: Y, type: tensor(float)}
    attributes:
      mode: {type: string, default: MODE}
"""


@pytest.fixture
def audio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "opsets" / "com.newco.audio"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    (folder / "Mix.yaml").write_text(MIX.replace("MODE", "'off'"))
    monkeypatch.chdir(tmp_path)
    return folder


def test_one_operator_file_is_validated_with_its_domain_file(
    audio: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "opsets/com.newco.audio/Mix.yaml"]) == 0
    monkeypatch.chdir(audio)  # inside the domain folder: the folder is still named right
    assert main(["validate", "Mix.yaml"]) == 0
    out = capsys.readouterr()
    assert "DOMAIN-UNKNOWN" not in out.err and "FILE-PLACEMENT" not in out.err
    assert "2 files, 1 domain, 1 operator" in out.out


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("domain.yml", "domain.yaml"),
        ("Domain.yaml", "domain.yaml"),
        ("DOMAIN.YML", "domain.yaml"),
        ("Mix.yml", "Mix.yaml"),
    ],
)
def test_misnamed_files_are_located_errors_naming_the_right_name(
    audio: Path, capsys: pytest.CaptureFixture[str], wrong: str, right: str
) -> None:
    (audio / right).rename(audio / wrong)
    assert main(["validate"]) == 1
    err = capsys.readouterr().err
    assert f"opsets/com.newco.audio/{wrong}:1:1: error[FILE-NAME]" in err
    assert f"rename the file to '{right}'" in err
    # not read as an operator file: no messages about keys it was never meant to have
    assert "operator" not in err.replace("an operator", "") or right == "Mix.yaml"
    assert "DOMAIN-UNKNOWN" not in err and "SCHEMA-" not in err


def test_yaml_1_1_spelling_is_a_located_error(audio: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (audio / "Mix.yaml").write_text(MIX.replace("MODE", "off"))
    assert main(["validate"]) == 1
    err = capsys.readouterr().err
    assert "opsets/com.newco.audio/Mix.yaml:12:37: error[YAML-AMBIGUOUS]" in err
    assert "the boolean false in YAML 1.1" in err and "quote it ('off')" in err


# Plain scalars, what YAML 1.2's core schema makes of them (YAML 1.2.2, 10.3.2), and whether
# YAML 1.1 reads the same spelling differently.
CORE = [
    ("true", True),
    ("False", False),
    ("null", None),
    ("~", None),
    ("", None),
    ("0", 0),
    ("-12", -12),
    ("+3", 3),
    ("0o17", 15),
    ("0x1F", 31),
    ("1.5", 1.5),
    ("1e3", 1000.0),
    ("-.5E-2", -0.005),
    (".inf", math.inf),
    ("-.Inf", -math.inf),
    ("y", "y"),
    ("n", "n"),
    ("2001-12-14", "2001-12-14"),
    ("tensor(float)", "tensor(float)"),
    ("0o8", "0o8"),
    ("0xG", "0xG"),
    ("1.2.3", "1.2.3"),
    ("-x", "-x"),
    (".", "."),
]
ONE_ONE_ONLY = ["yes", "No", "ON", "off", "017", "-010", "09", "1_000", "1:30", "0b101", "+0x1F", "1_0.5"]


@pytest.mark.parametrize(("text", "value"), CORE)
def test_plain_scalars_follow_the_yaml_1_2_core_schema(text: str, value: object) -> None:
    got = parse_yaml_text(f"a: {text}\n", "s.yaml")["a"]
    assert got == value and type(got) is type(value)


def test_nan_is_a_float() -> None:
    assert math.isnan(parse_yaml_text("a: .NaN\n", "s.yaml")["a"])


@pytest.mark.parametrize("text", ONE_ONE_ONLY)
def test_yaml_1_1_readings_differ_and_are_refused(text: str) -> None:
    # PyYAML (YAML 1.1) really reads these spellings as something other than the YAML 1.2 value
    one_one = yaml.safe_load(f"a: {text}\n")["a"]
    one_two = int(text, 10) if text.lstrip("+-").isdigit() else text
    assert one_one != one_two or type(one_one) is not type(one_two)
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text(f"a: {text}\n", "s.yaml")
    assert info.value.diagnostic.rule == "YAML-AMBIGUOUS"
    assert parse_yaml_text(f"a: '{text}'\n", "s.yaml")["a"] == text  # quoted: plain text, no finding
    assert yaml12.resolve(text) == yaml12.ONE_ONE_ONLY
