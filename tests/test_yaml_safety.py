"""Hostile YAML: object-constructing tags, alias bombs and non-UTF-8 never get through."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.load.yamlsrc import MAX_EXPANDED_NODES, YamlProblem, parse_yaml_text, read_yaml


def test_python_tags_are_refused_not_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text(text, "x.yaml")
    assert info.value.diagnostic.rule == "YAML-TAG"
    assert not marker.exists()


def test_alias_bomb_is_stopped_early() -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 10) + "]")
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text("\n".join(lines) + "\n", "bomb.yaml")
    assert info.value.diagnostic.rule == "YAML-ALIAS-LIMIT"
    assert str(MAX_EXPANDED_NODES) in info.value.diagnostic.message


def test_small_aliases_are_fine() -> None:
    data = parse_yaml_text("a: &x [1, 2]\nb: *x\n", "ok.yaml")
    assert data == {"a": [1, 2], "b": [1, 2]}


def test_non_utf8_is_located(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(YamlProblem) as info:
        read_yaml(path, "latin1.yaml")
    diag = info.value.diagnostic
    assert (diag.rule, diag.location.line, diag.location.column) == ("FILE-ENCODING", 2, 7)


def test_scalars_resolve_like_yaml_1_1() -> None:
    data = parse_yaml_text("a: [1, -2, 2.5, .inf, true, no, null, ~, tensor(float), '3', 0x10]\n", "s.yaml")
    assert data["a"][:4] == [1, -2, 2.5, float("inf")]
    assert data["a"][4:] == [True, False, None, None, "tensor(float)", "3", 16]


def test_duplicate_keys_name_the_first_line() -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    diag = info.value.diagnostic
    assert diag.rule == "YAML-DUPLICATE-KEY" and "line 1" in diag.message
    assert (diag.location.line, diag.location.column) == (3, 1)
