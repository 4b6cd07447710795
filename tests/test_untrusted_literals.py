"""Untrusted literals and nesting (review of #26's tensor defaults): a tensor default is validated
by the one tensor-literal reader as an example's is (its bad cases are in the BAD table of
tests/test_tensor_defaults.py; here, that nothing is generated from one), ONNX's textual syntax is
parsed to a bounded nesting (function bodies, graph defaults), the TOML and JSON a tree may plant
(opset.toml, the output folder's manifest and commit journal) are refused when nested past what
their parsers can recurse, and a sparse default's dense tensor is capped in elements."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from output_helpers import cli_text as _run

from toolkit.load.build_defaults import MAX_SPARSE_ELEMENTS
from toolkit.load.journal import JOURNAL
from toolkit.load.manifest import MANIFEST
from toolkit.model.onnx_text import MAX_NESTING

DOMAIN = "domain: com.test.lit\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
TOO_DEEP = 3000  # the reviewer's case: 319 KB of text, RecursionError before the limit


def _operator(tail: str) -> str:
    return (
        "operator: Op\ndomain: com.test.lit\nversions:\n"
        "  - since_version: 1\n    doc: Copies X.\n"
        "    inputs:\n      - {name: X, type: T}\n"
        "    outputs:\n      - {name: Y, type: T}\n"
        "    type_constraints:\n      T: {allowed: [tensor(float)]}\n" + tail
    )


def _tree(root: Path, operator: str) -> Path:
    folder = root / "specs" / "com.test.lit"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    (folder / "Op.yaml").write_text(operator)
    return root / "specs"


def _located(text: str, operator: str, token: str, rule: str) -> None:
    """`text` reports `rule` at the first occurrence of `token` in Op.yaml."""
    offset = operator.index(token)
    line = operator.count("\n", 0, offset) + 1
    column = offset - (operator.rfind("\n", 0, offset) + 1) + 1
    assert f"specs/com.test.lit/Op.yaml:{line}:{column}: error[{rule}]: " in text, text
    assert re.search(r"^\s+hint: ", text, re.M), text


def _graphs(first: int, last: int, indent: str) -> str:
    """Lines of a node whose `then_branch` nests graphs g<first>..g<last>, one a line."""
    opening = [f"{indent}Y = If <then_branch: graph = g{n} (X) => (Y) {{\n" for n in range(first, last + 1)]
    closing = [f"{indent}}}> (X)\n"] * (last - first + 1)
    return "".join(opening) + f"{indent}Y = Relu (X)\n" + "".join(closing)


def _graph_default(depth: int) -> str:
    """An attribute whose graph default nests `depth` graphs (g1 is the default itself)."""
    indent = " " * 10
    text = f"{indent}g1 (X) => (Y) {{\n" + _graphs(2, depth, indent) + f"{indent}}}\n"
    return (
        "    attributes:\n      body:\n        type: graph\n        doc: A body.\n        default: |\n" + text
    )


# --------------------------------------------------------------------------- tensor defaults


def test_a_default_with_negative_dimensions_generates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    attributes = "    attributes:\n      v: {type: tensor, default: {dtype: float, shape: [-1, -2], data: [1.0, 2.0]}}\n"
    operator = _operator(attributes)
    _tree(tmp_path, operator)
    code, text = _run(capsys, "generate", "--specs", "specs", "--out", "out", "--no-cache")
    assert code == 1
    _located(text, operator, "[-1, -2]", "ATTR-DEFAULT-TYPE")
    assert "a default tensor" in text and "examples" not in text
    assert not (tmp_path / "out").exists()  # no page or class says `float[-1, -2]`


# --------------------------------------------------------------------------- nesting of ONNX text


def test_a_graph_default_nested_too_deep_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    operator = _operator(_graph_default(TOO_DEEP))
    _tree(tmp_path, operator)
    code, text = _run(capsys, "validate", "--specs", "specs", "--no-cache")
    assert code == 1
    _located(text, operator, f"g{MAX_NESTING + 1} (X)", "ATTR-DEFAULT-TYPE")
    assert f"nested more than {MAX_NESTING} levels deep" in text


def test_a_graph_default_at_the_limit_is_generated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every walker of a parsed graph (checks, codec, docs, Python) handles the deepest one the
    parser lets through."""
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, _operator(_graph_default(MAX_NESTING)))
    code, text = _run(capsys, "generate", "--specs", "specs", "--out", "out", "--no-cache")
    assert code == 0, text
    page = (tmp_path / "out" / "docs" / "com.test.lit" / "ops" / "Op.md").read_text(encoding="utf-8")
    assert f"g{MAX_NESTING} (X) => (Y)" in page
    assert list((tmp_path / "out" / "proto").rglob("*.pb"))


def test_a_function_body_nested_too_deep_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    function = "    function:\n      opset_imports: {'': 19}\n      body: |\n" + _graphs(1, TOO_DEEP, " " * 8)
    operator = _operator(function)
    _tree(tmp_path, operator)
    code, text = _run(capsys, "validate", "--specs", "specs", "--no-cache")
    assert code == 1
    _located(text, operator, f"g{MAX_NESTING + 1} (X)", "FUNCTION-SYNTAX")
    assert f"nested more than {MAX_NESTING} levels deep" in text


def test_nested_lists_in_a_function_body_are_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    lists = "[" * TOO_DEEP + "]" * TOO_DEEP
    function = (
        f"    function:\n      opset_imports: {{'': 19}}\n      body: |\n        Y = Relu <a = {lists}> (X)\n"
    )
    operator = _operator(function)
    _tree(tmp_path, operator)
    code, text = _run(capsys, "validate", "--specs", "specs", "--no-cache")
    assert code == 1
    offset = operator.index(lists) + MAX_NESTING  # the first bracket past the limit
    line = operator.count("\n", 0, offset) + 1
    column = offset - (operator.rfind("\n", 0, offset) + 1) + 1
    assert f"specs/com.test.lit/Op.yaml:{line}:{column}: error[FUNCTION-SYNTAX]: " in text, text
    assert f"this list is nested more than {MAX_NESTING} levels deep" in text


# --------------------------------------------------------------------------- TOML and JSON a tree plants


def _nested_json() -> str:
    return "[" * TOO_DEEP + "]" * TOO_DEEP


@pytest.mark.parametrize("command", ["validate", "diff"])
def test_a_deeply_nested_opset_toml_is_a_usage_error(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, _operator(""))
    (tmp_path / "opset.toml").write_text(f'spec_root = "specs"\nx = {_nested_json()}\n')
    argv = ["validate"] if command == "validate" else ["diff", "--against", "specs", "--config", "opset.toml"]
    code, text = _run(capsys, *argv, "--no-cache")
    assert code == 2
    # located at the deepest bracket of line 2, with the rule id (PROJECT-TOML)
    where = f"opset.toml:2:{len('x = ') + TOO_DEEP}"
    assert f"{where}: error[PROJECT-TOML]: invalid TOML: arrays or inline tables nested too deeply" in text


def test_a_deeply_nested_planted_manifest_is_no_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, _operator(""))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / MANIFEST).write_text(_nested_json())
    code, text = _run(capsys, "generate", "--specs", "specs", "--out", "out", "--no-cache")
    assert code == 0, text
    written = json.loads((tmp_path / "out" / MANIFEST).read_text(encoding="utf-8"))
    assert "docs" in written["kinds"]  # replaced by the run's own


def test_a_deeply_nested_planted_journal_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, _operator(""))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / JOURNAL).write_text(_nested_json())
    code, text = _run(capsys, "generate", "--specs", "specs", "--out", "out", "--no-cache")
    assert code == 2 and JOURNAL in text and "delete it" in text
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [JOURNAL]  # nothing generated


# --------------------------------------------------------------------------- sparse defaults


@pytest.mark.parametrize(("rows", "refused"), [(1024, False), (1025, True)])
def test_a_sparse_default_stands_for_at_most_its_cap_in_elements(
    rows: int,
    refused: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert MAX_SPARSE_ELEMENTS == 1024 * 1024
    monkeypatch.chdir(tmp_path)
    attributes = (
        "    attributes:\n      s: {type: sparse_tensor, default: {values: {dtype: float, data: [1.0]},"
        f" indices: {{dtype: int64, data: [0]}}, dims: [{rows}, 1024]}}}}\n"
    )
    operator = _operator(attributes)
    _tree(tmp_path, operator)
    code, text = _run(capsys, "validate", "--specs", "specs", "--no-cache")
    if not refused:
        assert code == 0, text
        return
    assert code == 1
    _located(text, operator, f"[{rows}, 1024]", "ATTR-DEFAULT-TYPE")
    assert f"has more than {MAX_SPARSE_ELEMENTS} elements" in text
