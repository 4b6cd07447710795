"""The code base stays `mypy --strict` and `ruff` clean (configuration in pyproject.toml)."""

from __future__ import annotations

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
    pytest.importorskip("ruff")
    proc = _run(sys.executable, "-m", "ruff", "check", "toolkit", "tests", "benchmarks", "tools")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_formatted() -> None:
    """One format for the code base (`ruff format`, the settings in pyproject.toml): a change is
    reviewed for what it does, not for how it is laid out."""
    pytest.importorskip("ruff")
    proc = _run(sys.executable, "-m", "ruff", "format", "--check", "toolkit", "tests", "benchmarks", "tools")
    assert proc.returncode == 0, (
        proc.stdout + proc.stderr + "\nrun: ruff format toolkit tests benchmarks tools"
    )
