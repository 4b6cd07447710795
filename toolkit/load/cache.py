"""The on-disk cache shared by the registry, the git-ref reader and the onnx catalog import.

Everything here is an optimisation: a missing, unreadable or read-only cache only costs time.
Location: `$OPSET_TOOLKIT_CACHE`, else `$XDG_CACHE_HOME/opset-toolkit`, else `~/.cache/opset-toolkit`.
`OPSET_TOOLKIT_NO_CACHE=1` (the CLI's `--no-cache` sets it) turns every cache off.

The cache holds data only: entries are bytes that their readers decode and check (see
`toolkit.load.result_cache`); nothing read from here is unpickled or executed. The entry files
(`*.entry`) are capped in total size (`$OPSET_TOOLKIT_CACHE_MAX_MB`, default 256): every write
prunes the least recently used entries (reading an entry marks it used) until they fit.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from toolkit.load import writer

ENTRY_SUFFIX = ".entry"
DEFAULT_MAX_MB = 256
# Files earlier versions of the toolkit left in the cache folder (pickles, marshalled code):
# never read again, removed when the cache is pruned.
_LEGACY_SUFFIXES = (".pickle", ".marshal")


def cache_dir() -> Path:
    base = os.environ.get("OPSET_TOOLKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "opset-toolkit"
    )
    return Path(base)


def enabled() -> bool:
    """False when `OPSET_TOOLKIT_NO_CACHE` is set (to anything but empty)."""
    return not os.environ.get("OPSET_TOOLKIT_NO_CACHE")


def disable() -> None:
    """Turn every cache off for this process and the processes it starts (`--no-cache`)."""
    os.environ["OPSET_TOOLKIT_NO_CACHE"] = "1"


def max_bytes() -> int:
    raw = os.environ.get("OPSET_TOOLKIT_CACHE_MAX_MB", "")
    try:
        megabytes = float(raw) if raw else DEFAULT_MAX_MB
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return max(0, int(megabytes * 1024 * 1024))


def entry_path(name: str) -> Path:
    return cache_dir() / f"{name}{ENTRY_SUFFIX}"


def read_entry(name: str) -> bytes | None:
    """The bytes of entry `name`, or None when absent, unreadable or caching is off."""
    if not enabled():
        return None
    path = entry_path(name)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: the last to be pruned
    return data


def write_entry(name: str, data: bytes) -> None:
    """Store entry `name` (atomically), then prune the cache to its size cap."""
    if not enabled():
        return
    path = entry_path(name)
    write_bytes(path, data)
    prune(path.parent, max_bytes(), keep=path)


def write_bytes(path: Path, data: bytes) -> None:
    """Write atomically (the one writer's temp file + rename) so a concurrent reader never sees
    half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        writer.write_file(path, data)
    except OSError:
        pass  # a read-only home is no reason to fail


def prune(folder: Path, limit: int, keep: Path | None = None) -> None:
    """Delete the least recently used entries of `folder` until they total <= `limit` bytes
    (never `keep`, the entry just written); legacy pickle/marshal files always go."""
    entries: list[tuple[float, int, Path]] = []
    try:
        with os.scandir(folder) as listing:
            for item in listing:
                if not item.is_file(follow_symlinks=False):
                    continue
                path = Path(item.path)
                if item.name.endswith(_LEGACY_SUFFIXES):
                    _remove(path)
                elif item.name.endswith(ENTRY_SUFFIX):
                    stat = item.stat(follow_symlinks=False)
                    entries.append((stat.st_mtime, stat.st_size, path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    entries.sort(key=lambda e: e[0])
    for _, size, path in entries:
        if total <= limit:
            break
        if path == keep:
            continue
        _remove(path)
        total -= size


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
