"""Running real git in tests: one fixed author and committer, so that commits need no user
configuration on the machine and their ids do not depend on who runs the tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(cwd: Path, *args: str) -> str:
    """`git ARGS` in `cwd` with the fixed identity; its standard output (raises when it fails)."""
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **IDENTITY}, capture_output=True, text=True, check=True
    )
    return proc.stdout
