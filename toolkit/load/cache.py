"""The on-disk cache shared by the registry, the git-ref reader and the onnx catalog import.

Everything here is an optimisation: a missing, unreadable or read-only cache only costs time.
Location: `$OPSET_TOOLKIT_CACHE`, else `$XDG_CACHE_HOME/opset-toolkit`, else `~/.cache/opset-toolkit`.
`OPSET_TOOLKIT_NO_CACHE=1` (the CLI's `--no-cache` sets it) turns every cache off.

The cache holds data only: entries are bytes that their readers decode and check (see
`toolkit.load.result_cache`); nothing read from here is unpickled or executed.

Size: the entry files (`*.entry`) have a cap (`$OPSET_TOOLKIT_CACHE_MAX_MB`, default 256, set by
the invoker only). Every write prunes the least recently used entries (reading an entry marks it
used) until the folder fits the cap, except the entries this process used last (its working set,
`WORKING_SET` entries): a command never evicts what it has just read or written, so `opset diff`
keeps both of its trees even when together they pass the cap (each of them alone fits). An entry
larger than the cap is not stored at all: a tree can make its entry much larger than its files
(every `based_on` version stores what it inherits), and what it costs is time, never disk. So
the folder holds at most the cap, or the working sets of the commands running at that moment
when they are larger: at most `WORKING_SET` times the cap per process.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection
from pathlib import Path

from toolkit.load import writer

ENTRY_SUFFIX = ".entry"
DEFAULT_MAX_MB = 256
# The most entries one command uses: `opset diff`'s two trees, `generate`'s tree and its freshness
# record, `check-model --runtime`'s catalog, runtime catalog and vendor specs. A process that runs
# several commands (`opset pre-commit`, the mkdocs plugin while `mkdocs serve` rebuilds) protects
# only the latest ones, so what it used earlier is pruned like anything else.
WORKING_SET = 4
_working_set: list[str] = []  # the names this process used last, the most recent at the end
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
    _used(name)
    return data


def write_entry(name: str, data: bytes) -> None:
    """Store entry `name` (atomically), then prune the cache to its size cap, keeping this
    process's working set. An entry larger than the cap is not stored."""
    limit = max_bytes()
    if not enabled() or len(data) > limit:
        return
    path = entry_path(name)
    write_bytes(path, data)
    _used(name)
    prune(path.parent, limit, keep={entry_path(used) for used in _working_set})


def _used(name: str) -> None:
    if name in _working_set:
        _working_set.remove(name)
    _working_set.append(name)
    del _working_set[:-WORKING_SET]


def write_bytes(path: Path, data: bytes) -> None:
    """Write atomically (the one writer's temp file + rename) so a concurrent reader never sees
    half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        writer.write_file(path, data)
    except OSError:
        pass  # a read-only home is no reason to fail


def prune(folder: Path, limit: int, keep: Collection[Path] = ()) -> None:
    """Delete the least recently used entries of `folder` until they total <= `limit` bytes, or
    only those in `keep` (the working set) are left; legacy pickle/marshal files always go."""
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
        if path in keep:
            continue
        _remove(path)
        total -= size


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
