"""The command's terminal streams painted (`toolkit.reporting.colour`) while it runs.

The colouring sits on the stream, not in the writers: every line a command prints on a terminal
goes through one `paint`, and nothing written to a file or in a machine format is touched."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from toolkit.reporting.colour import paint, wanted


class _Painted:
    """A text stream whose writes are painted; everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(paint(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def painted_streams(setting: str, *, stdout: bool) -> Iterator[None]:
    """stderr painted when colour is wanted there, stdout too when `stdout` (it carries text);
    restored afterwards (in-process callers, `opset pre-commit`'s nested commands)."""
    saved = sys.stdout, sys.stderr
    try:
        if stdout and _paintable(sys.stdout, setting):
            sys.stdout = _Painted(sys.stdout)
        if _paintable(sys.stderr, setting):
            sys.stderr = _Painted(sys.stderr)
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _paintable(stream: TextIO, setting: str) -> bool:
    return not isinstance(stream, _Painted) and wanted(setting, stream, os.environ)
