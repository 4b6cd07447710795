"""`mkdocs build --strict` of the real mkdocs.yml, with the docs kind generated into a temp dir."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit import load_registry
from toolkit.cli import build_parser
from toolkit.generate.docs import render_docs

REPO = Path(__file__).resolve().parent.parent
# Guide pages other engineers own; the nav names them and guide/bc-gate.md links ci-gate.md.
FOREIGN_GUIDES = ("guide/authoring.md", "guide/ci-gate.md", "guide/model-tools.md")

pytest.importorskip("mkdocs")
pytest.importorskip("material")


def build_site(tmp: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """Copy mkdocs.yml + docs/ into `tmp`, generate the reference pages, build --strict."""
    shutil.copy(REPO / "mkdocs.yml", tmp / "mkdocs.yml")
    shutil.copytree(REPO / "docs", tmp / "docs")
    for page in FOREIGN_GUIDES:  # not written yet by their owners: stand-ins, so links resolve
        target = tmp / "docs" / page
        if not target.exists():
            target.write_text(
                f"# {target.stem}\n\nPlaceholder for a page not written yet.\n", encoding="utf-8"
            )
    hook = tmp / "toolkit" / "generate"
    hook.mkdir(parents=True)
    shutil.copy(REPO / "toolkit" / "generate" / "docs_mkdocs_hook.py", hook / "docs_mkdocs_hook.py")
    generated = tmp / "generated" / "docs"
    for path, text in render_docs(load_registry([REPO / "opsets"], cache=False), "opsets", build_parser).items():
        (generated / path).parent.mkdir(parents=True, exist_ok=True)
        (generated / path).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "OPSET_DOCS_GENERATED"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(tmp / "mkdocs.yml"),
            "-d",
            str(tmp / "site"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return tmp / "site", result


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site, result = build_site(tmp_path_factory.mktemp("mkdocs"))
    assert result.returncode == 0, result.stderr[-4000:]
    return site


def test_mkdocs_build_strict_passes(built_site: Path) -> None:
    assert (built_site / "index.html").is_file()
    assert (built_site / "guide" / "getting-started" / "index.html").is_file()
    assert (built_site / "reference" / "dsl" / "index.html").is_file()
    assert (built_site / "reference" / "cli" / "index.html").is_file()
    page = (built_site / "reference" / "org.example.abc" / "ops" / "A" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "<table>" in page and "<code>scale</code>" in page
    assert 'id="A-3"' in page
    index = (built_site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "reference/com.acme.vision/ops/FusedConv/" in index


def test_bad_link_fails_the_strict_build(tmp_path: Path) -> None:
    """The build really is strict: a broken link in a guide page fails it."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(REPO / "mkdocs.yml", work / "mkdocs.yml")
    shutil.copytree(REPO / "docs", work / "docs")
    (work / "docs" / "index.md").write_text("# Home\n\n[broken](nowhere.md)\n", encoding="utf-8")
    for page in FOREIGN_GUIDES:
        target = work / "docs" / page
        if not target.exists():
            target.write_text("# stand-in\n", encoding="utf-8")
    hook = work / "toolkit" / "generate"
    hook.mkdir(parents=True)
    shutil.copy(REPO / "toolkit" / "generate" / "docs_mkdocs_hook.py", hook / "docs_mkdocs_hook.py")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", OPSET_DOCS_GENERATED=str(REPO / "generated" / "docs"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(work / "mkdocs.yml"),
            "-d",
            str(work / "site"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode != 0 and "nowhere.md" in result.stderr
