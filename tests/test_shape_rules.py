"""Shape rules in the spec (issue #27): the `shape:` field of outputs and `shape_requires:` of
versions, written in spec files at test time, load with their locations, round-trip through the
codec, are inherited through `based_on`, and every SHAPE-* spec rule is emitted by `opset
validate` at the column of the defect. The parser is bounded and never executes spec text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.load.loader import read_specs
from toolkit.model.codec import schema_set_document, specset_from_schema_documents
from toolkit.shapes.lang import MAX_DEPTH, MAX_LENGTH, ShapeSyntaxError, parse

DOMAIN = """\
domain: com.test.shapes
opset_versions:
  - {version: 1, ir_version: 9}
  - {version: 2, ir_version: 9}
"""


def _operator(name: str, shape: str, *, requires: str = "", second: str = "") -> str:
    return (
        f"operator: {name}\ndomain: com.test.shapes\nversions:\n"
        "  - since_version: 1\n    doc: Multiplies.\n"
        "    inputs:\n      - {name: A, type: tensor(float)}\n      - {name: B, type: tensor(float)}\n"
        "    attributes:\n      axis: {type: int, default: 0}\n"
        f"    outputs:\n      - name: Y\n        type: tensor(float)\n        shape: {shape}\n"
        + (
            f"    shape_requires:\n      - require: {requires}\n        message: inner sizes differ\n"
            if requires
            else ""
        )
        + (f"  - since_version: 2\n    based_on: 1\n{second}" if second is not None else "")
    )


def _tree(root: Path, operators: dict[str, str]) -> Path:
    folder = root / "com.test.shapes"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    for name, text in operators.items():
        (folder / f"{name}.yaml").write_text(text)
    return root


def _validate(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]]]:
    code = main(["validate", str(root), "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out).get("diagnostics", json.loads(out).get("findings", []))


def _line_col(path: Path, needle: str) -> tuple[int, int]:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def test_rules_load_inherit_and_round_trip(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {"Mul2": _operator("Mul2", "'matmul(A, B)'", requires="'A[-1] == B[-2]'", second="")},
    )
    result = read_specs([root])
    specs = result.specs
    assert not result.errors
    (op,) = specs.operators
    first, second = op.versions
    assert first.outputs[0].shape is not None and first.outputs[0].shape.text == "matmul(A, B)"
    assert second.outputs[0].shape == first.outputs[0].shape  # inherited with the outputs
    assert (
        second.shape_requires == first.shape_requires
        and first.shape_requires[0].message == "inner sizes differ"
    )
    text = first.outputs[0].shape
    line, column = _line_col(root / "com.test.shapes" / "Mul2.yaml", "matmul")
    assert (text.location.line, text.location.column, text.literal) == (line, column, True)
    back = specset_from_schema_documents([schema_set_document(specs.domains[0], specs.operators)])
    (again,) = back.operators
    assert again.versions[0].outputs[0].shape == text
    assert again.versions[0].outputs[0].shape.location == text.location  # type: ignore[union-attr]
    assert again.versions[0].shape_requires == first.shape_requires


def test_requires_cleared_by_a_later_version(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "Mul2": _operator(
                "Mul2", "'matmul(A, B)'", requires="'A[-1] == B[-2]'", second="    shape_requires: []\n"
            )
        },
    )
    specs = read_specs([root]).specs
    assert specs.operators[0].versions[1].shape_requires == ()


@pytest.mark.parametrize(
    ("rule", "shape", "needle"),
    [
        ("SHAPE-SYNTAX", "'broadcast(A, B'", None),
        ("SHAPE-UNKNOWN-NAME", "'broadcast(A, C)'", "C)"),
        ("SHAPE-UNKNOWN-NAME", "'[A[@axs]]'", "@axs"),
        ("SHAPE-UNKNOWN-NAME", "'brodcast(A, B)'", "brodcast"),
        ("SHAPE-ARITY", "'matmul(A)'", "matmul"),
        ("SHAPE-TYPE", "'A + 1'", "A + 1"),
        ("SHAPE-TYPE", "'len(A)'", "len(A)"),
    ],
)
def test_each_rule_is_located_at_its_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str, shape: str, needle: str | None
) -> None:
    root = _tree(tmp_path, {"Op": _operator("Op", shape)})
    code, diags = _validate(root, capsys)
    assert code == 1
    found = [d for d in diags if d["rule"] == rule]
    assert len(found) == 1, diags  # reported once, not again for the version that inherits it
    path = root / "com.test.shapes" / "Op.yaml"
    line, column = _line_col(path, shape.strip("'"))
    if needle is None:  # the syntax error is at the end of the text, where reading stopped
        column += len(shape.strip("'"))
    else:
        column = _line_col(path, needle)[1]
    assert (found[0]["line"], found[0]["column"]) == (line, column)
    assert found[0]["hint"]


def test_did_you_mean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(tmp_path, {"Op": _operator("Op", "'[A[@axs]]'")})
    _, diags = _validate(root, capsys)
    assert "did you mean 'axis'" in str(diags[0]["hint"])


def test_never_holds_and_wrong_constraint_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(
        tmp_path,
        {
            "Never": _operator("Never", "A", requires="'1 == 2'"),
            "Kind": _operator("Kind", "A", requires="'A[0]'"),
            "Fine": _operator("Fine", "A", requires="'1 + 1 == 2 and A[0] >= 0'"),
        },
    )
    code, diags = _validate(root, capsys)
    assert code == 1
    by_file = {(Path(str(d["file"])).stem, d["rule"]) for d in diags}
    assert ("Never", "SHAPE-NEVER-HOLDS") in by_file
    assert ("Kind", "SHAPE-TYPE") in by_file
    assert not [d for d in diags if Path(str(d["file"])).stem == "Fine"]


def test_good_rules_validate_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = [
        "'[A[i] for i in 0..A.rank if i != normalize_axis(@axis, A.rank)]'",
        "'if @axis == 0 then broadcast(A, B) else A[1:] ++ [1]'",
        "'reshape(A, value(B) ?? [], 0)'",
    ]
    root = _tree(tmp_path, {f"Op{n}": _operator(f"Op{n}", rule) for n, rule in enumerate(rules)})
    code, diags = _validate(root, capsys)
    assert (code, diags) == (0, [])


def test_hostile_rules_are_parsed_never_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "MARKER"
    payload = f"__import__('os').system('touch {marker}')"
    root = _tree(tmp_path / "tree", {"Op": _operator("Op", json.dumps(payload))})
    code, diags = _validate(root, capsys)
    assert code == 1 and {d["rule"] for d in diags} == {"SHAPE-SYNTAX"}
    assert not marker.exists()


def test_parser_bounds() -> None:
    with pytest.raises(ShapeSyntaxError, match="nests more than"):
        parse("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(ShapeSyntaxError, match="characters long"):
        parse("1 + " * (MAX_LENGTH // 4 + 1) + "1")
    with pytest.raises(ShapeSyntaxError, match="every 'if' has an 'else'"):
        parse("if true then A")
    deep = "-" * 1000 + "1"  # unary chains count as nesting too
    with pytest.raises(ShapeSyntaxError):
        parse(deep)
