"""One `opset generate` at a time per output folder.

An editor's save hook and a terminal may run `opset generate` on the same tree at once; each
would roll the other's journal forward, stage over the other's temporary files and leave a
half-finished commit. Runs that write take an exclusive `flock` on the output folder itself (the
folder is opened, no lock file is created, so nothing but the outputs is written), and
`generate --check` a shared one, so a check never reads a commit half done. A second run waits:
it says so once and gives up after `OPSET_TOOLKIT_LOCK_TIMEOUT` seconds (default 60, an invoker's
setting) with a usage error.

POSIX only (Linux, macOS: `fcntl.flock` on a directory). On Windows, or on a file system that
does not lock directories (some network mounts), runs are not serialised; nothing fails to import.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from toolkit.model.diagnostics import UsageError

TIMEOUT_ENV = "OPSET_TOOLKIT_LOCK_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
_POLL = 0.05

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def lock_timeout() -> float:
    """Seconds a run waits for another one on the same output folder."""
    raw = os.environ.get(TIMEOUT_ENV)
    if raw is None or raw == "":
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise UsageError(f"{TIMEOUT_ENV}={raw!r} is not a number of seconds\n  hint: e.g. {TIMEOUT_ENV}=120")
    return value


@contextlib.contextmanager
def output_lock(
    folder: Path, *, shared: bool, on_wait: Callable[[float], None] | None = None
) -> Iterator[None]:
    """Hold the lock of `folder` (which must exist) while the block runs. `on_wait(timeout)` is
    called once when another run holds it."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    timeout = lock_timeout()
    deadline = time.monotonic() + timeout
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    waited = False
    while True:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            if not _try_lock(fd, mode):
                os.close(fd)
                fd = -1
                if not waited and on_wait is not None:
                    on_wait(timeout)
                waited = True
                if time.monotonic() >= deadline:
                    raise UsageError(
                        f"{folder}: another `opset generate` is still writing it after {timeout:g} s\n"
                        f"  hint: wait for it to finish, or set {TIMEOUT_ENV}=SECONDS to wait longer"
                    )
                time.sleep(_POLL)
                continue
            # The folder may have been removed (a failed first run) and made again while this run
            # waited: a lock on the old one would not keep out a run that locks the new one.
            here, now = os.fstat(fd), os.stat(folder)
            if (here.st_dev, here.st_ino) != (now.st_dev, now.st_ino):
                os.close(fd)
                fd = -1
                continue
            yield
            return
        finally:
            if fd >= 0:
                os.close(fd)  # closing releases the lock


def _try_lock(fd: int, mode: int) -> bool:
    """True when locked, False when another process holds it; a file system that cannot lock a
    folder counts as locked (the run goes on unserialised, as on Windows)."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        if exc.errno in (errno.ENOLCK, errno.EBADF, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            return True
        raise
    return True
