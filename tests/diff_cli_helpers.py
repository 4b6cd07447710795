"""What the `opset diff` CLI tests share (tests/test_diff_cli.py, tests/test_diff_git_refs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main

ABC = Path(__file__).resolve().parent.parent / "opsets" / "org.example.abc"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
