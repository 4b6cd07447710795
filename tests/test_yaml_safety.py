"""Hostile YAML: object-constructing tags, alias bombs, non-UTF-8, deep nesting, control
characters and keys that are not text never get through, and each is located."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.load import yamlsrc
from toolkit.load.yamlsrc import MAX_DEPTH, MAX_EXPANDED_NODES, YamlProblem, parse_yaml_text, read_yaml


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


def test_scalars_resolve_like_yaml_1_2_core_schema() -> None:
    data = parse_yaml_text(
        "a: [1, -2, 2.5, .inf, true, 'no', null, ~, tensor(float), '3', 0x10, 0o10, 1e3, y]\n", "s.yaml"
    )
    assert data["a"][:4] == [1, -2, 2.5, float("inf")]
    assert data["a"][4:] == [True, "no", None, None, "tensor(float)", "3", 16, 8, 1000.0, "y"]


def test_duplicate_keys_name_the_first_line() -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    diag = info.value.diagnostic
    assert diag.rule == "YAML-DUPLICATE-KEY" and "line 1" in diag.message
    assert (diag.location.line, diag.location.column) == (3, 1)


def _problem(text: str) -> tuple[str, int, int]:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text(text, "deep.yaml")
    diag = info.value.diagnostic
    assert diag.hint
    return diag.rule, diag.location.line, diag.location.column


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 990, 5_000, 100_000])
def test_deep_flow_nesting_is_located_not_a_crash(levels: int) -> None:
    rule, line, column = _problem("a: " + "[" * levels + "]" * levels + "\n")
    assert rule == "YAML-DEPTH" and line == 1
    # The root mapping is one level: the first list too deep is the MAX_DEPTH-th bracket,
    # unless libyaml's own limit (1000 levels, scanned ahead) stops it first.
    assert column == 3 + MAX_DEPTH or levels >= 1000


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 990, 100_000])
def test_deep_block_and_mapping_nesting_is_located(levels: int) -> None:
    assert _problem("a:\n" + "- " * levels + "x\n")[0] == "YAML-DEPTH"
    assert _problem("a: " + "{a: " * levels + "1" + "}" * levels + "\n")[0] == "YAML-DEPTH"
    if levels < 1000:  # indentation grows quadratically: keep the file small
        block = "".join(" " * i + "a:\n" for i in range(levels))
        rule, line, column = _problem(block)
        assert (rule, line, column) == ("YAML-DEPTH", MAX_DEPTH + 1, MAX_DEPTH + 1)


def test_nesting_up_to_the_limit_is_fine() -> None:
    levels = MAX_DEPTH - 1  # plus the root mapping
    data = parse_yaml_text("a: " + "[" * levels + "]" * levels + "\n", "ok.yaml")
    assert isinstance(data["a"], list)


def test_deep_aliases_count_as_nesting() -> None:
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, MAX_DEPTH + 2)]
    assert _problem("\n".join(lines) + "\n")[0] == "YAML-DEPTH"


def test_depth_is_checked_on_the_event_stream_without_libyaml_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A composer without its own depth limit (pure-Python PyYAML, libyaml < 0.2.5) is guarded
    by walking the events first, which recurse nowhere."""
    monkeypatch.setattr(yamlsrc, "_COMPOSER_BOUNDED", False)
    assert _problem("a: " + "[" * 100_000 + "]" * 100_000 + "\n")[0] == "YAML-DEPTH"
    assert _problem("a: " + "[" * 70 + "]" * 70 + "\n") == ("YAML-DEPTH", 1, 3 + MAX_DEPTH)
    assert parse_yaml_text("a: [[1]]\n", "ok.yaml") == {"a": [[1]]}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a: 1\nb: x\x00y\n", (2, 5)),
        ("a: 1\r\nb: 'x\x07y'\r\n", (2, 6)),
        ("\ufeffa: 1\nb:\n  - ok\n  - \x1b[31m\n", (4, 5)),
        ("a: 1\n\x85b: \x01\n", (3, 4)),  # NEL is a line break for YAML 1.1 marks
        ("a: 'é€𝄞'\nb: 'é€𝄞\x02'\n", (2, 8)),  # columns count characters, not UTF-8 bytes
    ],
)
def test_control_characters_are_located_at_their_position(text: str, where: tuple[int, int]) -> None:
    rule, line, column = _problem(text)
    assert (rule, line, column) == ("YAML-SYNTAX", *where)


def test_control_character_message_names_the_character() -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_text("a: x\x00\n", "nul.yaml")
    assert "U+0000" in info.value.diagnostic.message and "position" not in info.value.diagnostic.message


@pytest.mark.parametrize("key", [".inf", "-.inf", ".nan", ".NaN", "1", "0x10", "1.5e3"])
def test_number_keys_keep_their_spelling(key: str) -> None:
    """`.inf:` must not become the name 'inf': name checks then see what was written."""
    data = parse_yaml_text(f"{key}: 1\n", "k.yaml")
    assert list(data) == [key] and data.key_marks[key] == (1, 1)


@pytest.mark.parametrize("key", ["1_000", "no", "on", "017"])
def test_keys_yaml_1_1_reads_otherwise_are_ambiguous(key: str) -> None:
    """A key is a name, but PyYAML would read `on:` as True: the same rule as for a value."""
    assert _problem(f"x: 1\n{key}: 2\n") == ("YAML-AMBIGUOUS", 2, 1)


@pytest.mark.parametrize("key", ["true", "null", "~", "[a, b]", "{a: 1}"])
def test_keys_that_are_not_text_are_located(key: str) -> None:
    rule, line, column = _problem(f"x: 1\n  {key}: 2\n".replace("\n  ", "\n"))
    assert (rule, line, column) == ("SCHEMA-TYPE", 2, 1)


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b"operator: OpA\ndomain: com.a.b\nty", (3, 3)),  # error at the end, no final newline
        (b"operator: OpA\ndomain: com.a.b\nty\n", (3, 3)),  # the same with one
        (b"a: 'open\n", (1, 9)),  # an unclosed quote: the end of its (last) line
    ],
)
def test_syntax_error_at_end_of_file_is_on_a_line_the_file_has(
    tmp_path: Path, body: bytes, where: tuple[int, int]
) -> None:
    from toolkit.load.yamlsrc import YamlProblem, read_yaml

    path = tmp_path / "X.yaml"
    path.write_bytes(body)
    with pytest.raises(YamlProblem) as caught:
        read_yaml(path, "X.yaml")
    location = caught.value.diagnostic.location
    assert caught.value.diagnostic.rule == "YAML-SYNTAX"
    assert (location.line, location.column) == where
