"""Finding spec files: which files a set of paths names, what kind each is, how it is shown."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from toolkit.model.diagnostics import UsageError

DOMAIN_FILE = "domain.yaml"
RELEASES_FILE = "releases.yaml"
SPEC_SUFFIXES = (".yaml", ".yml")


def discover(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every spec file under `paths` (files are taken as given), sorted for determinism."""
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in files:
                    if name.endswith(SPEC_SUFFIXES):
                        found.add(Path(root) / name)
        elif path.is_file():
            found.add(path)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    return sorted(found)


def classify(path: Path) -> str:
    """The schema kind of a spec file: "releases", "domain" or "operator"."""
    if path.name == RELEASES_FILE:
        return "releases"
    if path.name == DOMAIN_FILE:
        return "domain"
    return "operator"


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the working directory when possible."""
    try:
        return os.path.relpath(path)
    except ValueError:  # different drive on Windows
        return str(path)
