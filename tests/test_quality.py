"""The code base stays `mypy --strict` and `ruff` clean (configuration in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)


def test_mypy_strict_toolkit() -> None:
    pytest.importorskip("mypy")
    proc = _run(sys.executable, "-m", "mypy", "--strict", "toolkit")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    proc = _run(ruff, "check", "toolkit", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr
