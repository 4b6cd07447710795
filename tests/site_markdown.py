"""The renderers generated Markdown meets, configured from the repository's own files: Python-
Markdown with the extensions (and their settings) of mkdocs.yml, as plain mkdocs renders
`generated/docs`, and markdown-it in CommonMark mode, as GitHub-like renderers do. One place, so a
test cannot drift from the site's configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent


def site_extensions() -> list[Any]:
    """mkdocs.yml's `markdown_extensions` entries, as written there."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    return list(config["markdown_extensions"])


def site_markdown() -> Any:
    """Python-Markdown configured with the extensions (and their settings) of mkdocs.yml."""
    markdown = pytest.importorskip("markdown")
    names: list[str] = []
    settings: dict[str, Any] = {}
    for entry in site_extensions():
        name, value = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        names.append(name)
        if value:
            settings[name] = value
    return markdown.Markdown(extensions=names, extension_configs=settings)


def render_pm(text: str) -> str:
    return str(site_markdown().convert(text))


def render_cm(text: str) -> str:
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark", {"html": True}).enable("table").render(text))
