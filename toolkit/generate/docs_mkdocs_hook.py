"""mkdocs hook: mount the generated reference pages into the site.

`opset generate` writes the `docs` kind to `generated/docs/` (checked in, verified current by
`opset generate --check`). mkdocs reads the hand-written guide from `docs/`; this hook adds every
generated Markdown page as if it were `docs/reference/<path>` and appends the generated
navigation (`generated/docs/nav.json`) as the "Reference" section. No copy step, nothing to get
stale: the site always shows exactly what is checked in.

Set `OPSET_DOCS_GENERATED` to mount another folder (tests build the site from a temp dir).
Guide pages listed in `nav` that do not exist (yet) are dropped with a log message, so the
nav can name pages other people are still writing.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ENV = "OPSET_DOCS_GENERATED"
MOUNT = "reference"
NAV_TITLE = "Reference"
log = logging.getLogger("mkdocs.hooks.opset")


def generated_root(config: MkDocsConfig) -> Path:
    configured = os.environ.get(ENV)
    if configured:
        return Path(configured).resolve()
    return Path(config.config_file_path).resolve().parent / "generated" / "docs"


def _mount(entry: Any) -> Any:
    """Prefix the paths of a generated nav entry with the mount point."""
    if isinstance(entry, str):
        return f"{MOUNT}/{entry}"
    if isinstance(entry, list):
        return [_mount(item) for item in entry]
    if isinstance(entry, dict):
        return {title: _mount(value) for title, value in entry.items()}
    return entry


def _prune(entry: Any, docs_dir: Path) -> Any:
    """Drop nav entries naming hand-written pages that do not exist; None when nothing is left."""
    if isinstance(entry, str):
        if "://" in entry or (docs_dir / entry).is_file():
            return entry
        log.info("opset hook: nav page '%s' does not exist (yet); left out of the nav", entry)
        return None
    if isinstance(entry, list):
        kept = [item for item in (_prune(i, docs_dir) for i in entry) if item is not None]
        return kept or None
    if isinstance(entry, dict):
        kept_dict = {title: value for title, value in ((t, _prune(v, docs_dir)) for t, v in entry.items())}
        kept_dict = {title: value for title, value in kept_dict.items() if value is not None}
        return kept_dict or None
    return entry


def _listed(entry: Any) -> set[str]:
    if isinstance(entry, str):
        return {entry}
    if isinstance(entry, list):
        return {path for item in entry for path in _listed(item)}
    if isinstance(entry, dict):
        return {path for value in entry.values() for path in _listed(value)}
    return set()


def _add_unlisted(nav: list[Any], docs_dir: Path) -> None:
    """Pages other people drop into docs/ without naming them in the nav still get a place:
    docs/guide/* joins the Guide section, docs/reference/* the Reference section, the rest the end."""
    listed = _listed(nav)
    sections = {
        title: value
        for entry in nav
        if isinstance(entry, dict)
        for title, value in entry.items()
        if isinstance(value, list)
    }
    for path in sorted(docs_dir.rglob("*.md")):
        relative = path.relative_to(docs_dir).as_posix()
        if relative in listed:
            continue
        top = relative.split("/", 1)[0]
        section = {"guide": "Guide", MOUNT: NAV_TITLE}.get(top)
        target = sections.get(section) if section else None
        (target if target is not None else nav).append(relative)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    root = generated_root(config)
    nav_file = root / "nav.json"
    if not nav_file.is_file():
        log.warning("opset hook: %s is missing; run `opset generate` first", nav_file)
        return config
    if config.nav is not None:
        docs_dir = Path(config.docs_dir)
        config.nav = _prune(list(config.nav), docs_dir) or []
        config.nav.append({NAV_TITLE: _mount(json.loads(nav_file.read_text(encoding="utf-8")))})
        _add_unlisted(config.nav, docs_dir)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = generated_root(config)
    if not root.is_dir():
        return files
    for path in sorted(root.rglob("*.md")):
        relative = path.relative_to(root).as_posix()
        files.append(File.generated(config, f"{MOUNT}/{relative}", abs_src_path=str(path)))
    return files


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    root = generated_root(config)
    if root.is_dir():
        server.watch(str(root))
    return server
