"""Spec paths as generated files name them: from the repository root, not the working directory.

Diagnostics name spec files relative to the working directory (`../opsets/x/A.yaml` from a
subfolder). Generated files must not: a monorepo developer who runs `opset generate` in `ml/`
and a CI job that runs `opset generate --check --specs ml/opsets` at the top must get the same
bytes, or every file is "stale". So headers and the source locations in `schemas.pb` name the
spec files from the root of the repository (the nearest folder above with a `.git`, a folder
or a worktree's file); outside a repository, from the working directory as before.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path


@functools.cache
def _repository_root(cwd: str) -> str | None:
    here = Path(cwd)
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return str(folder)
    return None


def cwd_offset() -> str | None:
    """The working directory relative to the repository root ("" at the root, "ml/tools" in a
    subfolder); None outside a repository."""
    cwd = os.path.realpath(os.getcwd())
    root = _repository_root(cwd)
    if root is None:
        return None
    offset = os.path.relpath(cwd, root)
    return "" if offset == "." else Path(offset).as_posix()


def stable_path(path: str | os.PathLike[str], offset: str | None = None) -> str | None:
    """`path` (absolute, or relative to the working directory) from the repository root, POSIX
    style; None when it lies outside the repository or there is none."""
    offset = cwd_offset() if offset is None else offset
    if offset is None:
        return None
    text = os.fspath(path)
    if os.path.isabs(text):
        cwd = os.path.realpath(os.getcwd())
        root = _repository_root(cwd)
        assert root is not None  # offset is not None
        text = os.path.relpath(os.path.realpath(text), root)
    else:
        text = os.path.normpath(os.path.join(offset, text))
    posix = Path(text).as_posix()
    return None if posix == ".." or posix.startswith("../") else posix
