"""Reading spec files safely: only regular files, never more than the size limit.

Kept apart from the YAML reader so that code which only hashes or copies spec files (the
registry cache key, the git-ref loader) does not import PyYAML.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import Location

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_EXAMPLE_FILE_BYTES = 64 * 1024 * 1024  # a `.npy` / `.pb` file of an operator example


def too_large_diagnostic(display: str) -> Diagnostic:
    """FILE-TOO-LARGE for a spec file over MAX_FILE_BYTES (on disk, or a blob in git)."""
    return Diagnostic(
        "FILE-TOO-LARGE",
        f"file is larger than the limit of {MAX_FILE_BYTES} bytes",
        Location(display, 1, 1),
        "split the operator's versions or shorten its docs",
    )


class NotRegularFile(OSError):
    """A spec path that names a FIFO, a device, a socket or a directory: never read."""


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _require_regular(mode: int, path: Path) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegularFile(0, f"{_kind_of(mode)}, not a regular file", os.fspath(path))


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of `path`, at most `limit` + 1 of them (enough to tell the file is too large).

    Opened without blocking and checked with fstat before anything is read, so a FIFO cannot
    hang the command and a symlink to /dev/zero cannot exhaust memory: anything but a regular
    file raises NotRegularFile. Other failures (missing, symlink loop) raise OSError."""
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    )
    _require_regular(os.stat(path).st_mode, path)  # a socket cannot even be opened: say what it is
    fd = os.open(path, flags)
    try:
        _require_regular(os.fstat(fd).st_mode, path)  # the path may have been swapped in between
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
