"""The docs generated from the rule catalog (toolkit.reporting.reference_pages): current in the
repository, and rewritten by the one command that makes them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.reporting.reference_pages import REFERENCE_OUTPUTS, WRITE_COMMAND, stale

REPO = Path(__file__).resolve().parent.parent


def test_reference_pages_are_current() -> None:
    assert stale(REPO) == [], f"run: {WRITE_COMMAND}"


def _copy(tmp_path: Path) -> Path:
    for output in REFERENCE_OUTPUTS:
        target = tmp_path / output.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / output.path, target)
    return tmp_path


def test_write_docs_rewrites_a_stale_page_and_keeps_hand_written_text(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    catalog = root / "docs/reference/rule-catalog.md"
    catalog.write_text("stale\n")
    model_tools = root / "docs/guide/model-tools.md"
    text = model_tools.read_text()
    start = text.index("### Rules\n")
    # a rule dropped from the generated section; the hand-written text around it stays
    model_tools.write_text(text[:start] + "### Rules\n\nold table\n" + text[text.index("\n## ", start) + 1 :])
    assert stale(root) == ["docs/reference/rule-catalog.md", "docs/guide/model-tools.md"]
    assert main(["rules", "--write-docs", str(root)]) == 0
    assert stale(root) == []
    assert catalog.read_bytes() == (REPO / "docs/reference/rule-catalog.md").read_bytes()
    assert model_tools.read_bytes() == (REPO / "docs/guide/model-tools.md").read_bytes()


def test_write_docs_refuses_a_folder_that_is_not_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "--write-docs", str(tmp_path)]) == 2
    assert "opset rules --write-docs ." in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_write_docs_names_a_missing_section_heading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    page = root / "docs/guide/model-tools.md"
    page.write_text(page.read_text().replace("### Rules\n", "### Rule list\n"))
    assert main(["rules", "--write-docs", str(root)]) == 2
    assert "no line '### Rules'" in capsys.readouterr().err
