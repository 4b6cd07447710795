"""What the `opset diff` CLI tests share (tests/test_diff_cli.py, tests/test_diff_git_refs.py)."""

from __future__ import annotations

from pathlib import Path

ABC = Path(__file__).resolve().parent.parent / "opsets" / "org.example.abc"
