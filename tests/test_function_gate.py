"""FUNCTION-BODY-CHANGED: the gate sees a changed function body of a released version, ignores
layout-only edits, and the CLI reports it located at the body (issue #16)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.compat.config import GateConfig, Profile
from toolkit.compat.gate import run_gate
from toolkit.registry.core import load_registry

REPO = Path(__file__).resolve().parent.parent
VISION = REPO / "opsets" / "com.acme.vision"
GATE = GateConfig(Profile("test", disabled=frozenset({"ADAPTER-MISSING", "ADAPTER-RECOMMENDED"})))
FUSED_V1_BODY = (
    "        Y = Conv <strides: ints = @strides, pads: ints = @pads, group: int = @group> (X, W, B)\n"
)


def _trees(tmp_path: Path, old_text: str, new_text: str) -> tuple[Path, Path]:
    roots = []
    for name, text in (("old", old_text), ("new", new_text)):
        folder = tmp_path / name / "com.acme.vision"
        shutil.copytree(VISION, folder)
        (folder / "FusedConv.yaml").write_text(text, encoding="utf-8")
        roots.append(folder.parent)
    return roots[0], roots[1]


def _rules(tmp_path: Path, new_text: str) -> list[tuple[str, str, int]]:
    original = (VISION / "FusedConv.yaml").read_text(encoding="utf-8")
    old, new = _trees(tmp_path, original, new_text)
    result = run_gate(load_registry([old], cache=False), load_registry([new], cache=False), GATE)
    return [(f.rule, f.message, f.location.line) for f in result.findings]


def _fused() -> str:
    text = (VISION / "FusedConv.yaml").read_text(encoding="utf-8")
    assert FUSED_V1_BODY in text
    return text


@pytest.mark.parametrize(
    ("new_body", "what"),
    [
        (
            FUSED_V1_BODY.replace("(X, W, B)", "(X, W)"),
            "has a different function body: node 0 (Conv): inputs (X, W, B) -> (X, W)",
        ),
        (
            FUSED_V1_BODY.replace("Y = Conv", "Y = ConvInteger"),
            "has a different function body: node 0 (Conv): operator Conv -> ConvInteger",
        ),
    ],
)
def test_changed_body_of_a_released_version_is_an_error(tmp_path: Path, new_body: str, what: str) -> None:
    text = _fused().replace(FUSED_V1_BODY, new_body)
    findings = _rules(tmp_path, text)
    assert [(r, m) for r, m, _ in findings] == [
        ("FUNCTION-BODY-CHANGED", f"released version com.acme.vision.FusedConv:1 {what}")
    ]
    line = findings[0][2]
    assert text.splitlines()[line - 1].strip() == "function:"


def test_removed_body_and_import_change_are_errors(tmp_path: Path) -> None:
    text = _fused()
    start = text.index("    function:\n")
    end = text.index("  - since_version: 2")
    removed = _rules(tmp_path / "a", text[:start] + text[end:])
    assert [m for r, m, _ in removed if r == "FUNCTION-BODY-CHANGED"] == [
        "released version com.acme.vision.FusedConv:1 lost its function body"
    ]
    moved = _rules(
        tmp_path / "b", text.replace("opset_imports: {ai.onnx: 19}", "opset_imports: {ai.onnx: 20}", 1)
    )
    assert [r for r, _, _ in moved] == ["FUNCTION-BODY-CHANGED"]


def test_layout_and_comments_are_no_change(tmp_path: Path) -> None:
    relaid = FUSED_V1_BODY.replace(" (X, W, B)", "(X,W,B)  # the plain convolution").replace("= @", "=@")
    assert _rules(tmp_path, _fused().replace(FUSED_V1_BODY, relaid)) == []


def test_cli_gate_exits_1_with_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = _trees(
        tmp_path, _fused(), _fused().replace(FUSED_V1_BODY, FUSED_V1_BODY.replace("Conv", "ConvTranspose"))
    )
    assert main(["diff", "--specs", str(new), "--against", str(old), "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "FUNCTION-BODY-CHANGED" in out and "FusedConv.yaml" in out
