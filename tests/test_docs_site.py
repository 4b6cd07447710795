"""`mkdocs build --strict` of the real mkdocs.yml: the `opset` plugin (entry point of the installed
toolkit) renders the reference pages from opsets/ while the site builds."""

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
    shutil.copytree(REPO / "opsets", tmp / "opsets")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
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
    shutil.copytree(REPO / "opsets", work / "opsets")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
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


def test_the_site_shows_exactly_the_generated_pages(built_site: Path) -> None:
    """The plugin renders what `opset generate` checks in: same pages, same navigation."""
    rendered = render_docs(load_registry([REPO / "opsets"], cache=False), "opsets", build_parser)
    checked_in = {
        p.relative_to(REPO / "generated" / "docs").as_posix()
        for p in (REPO / "generated" / "docs").rglob("*")
        if p.is_file()
    }
    assert set(rendered) == checked_in
    for path in rendered:
        if path.endswith(".md"):
            page = built_site / "reference" / path[: -len(".md")].removesuffix("index")
            assert (page / "index.html").is_file() or (built_site / "reference" / "index.html").is_file(), (
                path
            )


def test_a_spec_error_stops_the_build_with_located_diagnostics(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(REPO / "opsets", work / "opsets")
    (work / "docs").mkdir()
    (work / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (work / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - opset\n", encoding="utf-8")
    blur = work / "opsets" / "com.acme.vision" / "Blur.yaml"
    blur.write_text(blur.read_text(encoding="utf-8").replace("operator: Blur", "operator: Blur\nbogus: 1"))
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
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        timeout=300,
        cwd=work,
    )
    assert result.returncode != 0
    line = blur.read_text(encoding="utf-8").splitlines().index("bogus: 1") + 1
    expected = f"opsets/com.acme.vision/Blur.yaml:{line}:1: error[SCHEMA-UNKNOWN-KEY]: unknown key 'bogus'"
    assert expected in result.stderr, result.stderr[-2000:]
