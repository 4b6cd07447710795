"""What the tests of the `python` generator share (tests/test_python_source.py, which reads its
source, and tests/test_python_classes.py, which generates packages)."""

from __future__ import annotations

from pathlib import Path

# The generated package's runtime as the toolkit ships it: copied into every package (as
# `_runtime.py`, with the attribute type table written in) and never imported by the toolkit.
RUNTIME = Path(__file__).resolve().parent.parent / "toolkit" / "generate" / "python" / "runtime.py"
