"""The one writer every generator goes through: compare, then commit atomically.

Generators return `{relative path: bytes}` and never touch the disk. Writing happens in
two phases: every changed file is first written next to its target under a temporary
name, then a journal lists the renames, then the renames happen, then the journal goes.
A failure before the journal leaves the tree as it was; a kill after it is rolled forward
by the next run. Unchanged files are not touched (their mtimes stay).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

JOURNAL = ".opset-toolkit-commit.json"
# All-or-nothing holds against failures and kills without fsync (the kernel keeps what was
# written); fsync per file also survives power loss, at up to 10x the cost on a busy disk.
DURABLE = os.environ.get("OPSET_TOOLKIT_FSYNC") == "1"
TMP_SUFFIX = ".opset-tmp"


@dataclass(frozen=True)
class Change:
    path: str  # relative, forward slashes
    old: bytes | None  # None: file is new
    new: bytes | None  # None: file is removed


def plan(root: Path, files: Mapping[str, bytes], prune_dirs: Iterable[str] = ()) -> list[Change]:
    """Changes needed to make `root` hold exactly `files` (and nothing else in `prune_dirs`)."""
    recover(root)
    changes: list[Change] = []
    for rel in sorted(files):
        target = root / rel
        try:
            old: bytes | None = target.read_bytes()
        except FileNotFoundError:
            old = None
        if old != files[rel]:
            changes.append(Change(rel, old, files[rel]))
    for rel in sorted(_existing(root, prune_dirs) - set(files)):
        changes.append(Change(rel, (root / rel).read_bytes(), None))
    return changes


def _existing(root: Path, prune_dirs: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for sub in prune_dirs:
        base = root / sub
        if not base.is_dir():
            continue
        for dirpath, _dirs, names in os.walk(base):
            for name in names:
                if name.endswith(TMP_SUFFIX) or name == JOURNAL:
                    continue
                found.add((Path(dirpath) / name).relative_to(root).as_posix())
    return found


def commit(root: Path, changes: list[Change]) -> None:
    """Apply `changes` under `root` all-or-nothing (see the module doc)."""
    if not changes:
        return
    staged: list[tuple[str, str]] = []
    try:
        for change in changes:
            if change.new is None:
                continue
            target = root / change.path
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + TMP_SUFFIX)
            with open(tmp, "wb") as handle:
                handle.write(change.new)
                if DURABLE:
                    handle.flush()
                    os.fsync(handle.fileno())
            staged.append((str(tmp), str(target)))
    except BaseException:
        for staged_tmp, _ in staged:
            _unlink(Path(staged_tmp))
        raise
    removals = [str(root / c.path) for c in changes if c.new is None]
    journal = root / JOURNAL
    root.mkdir(parents=True, exist_ok=True)
    journal_tmp = journal.with_name(JOURNAL + TMP_SUFFIX)
    journal_tmp.write_text(json.dumps({"renames": staged, "removals": removals}), encoding="utf-8")
    os.replace(journal_tmp, journal)
    _roll_forward(journal)


def recover(root: Path) -> None:
    """Finish a commit that a kill interrupted after its journal was written."""
    journal = root / JOURNAL
    if journal.exists():
        _roll_forward(journal)
    stale = root / (JOURNAL + TMP_SUFFIX)
    if stale.exists():
        _unlink(stale)


def _roll_forward(journal: Path) -> None:
    data = json.loads(journal.read_text(encoding="utf-8"))
    for tmp, target in data["renames"]:
        if os.path.exists(tmp):
            os.replace(tmp, target)
    for target in data["removals"]:
        _unlink(Path(target))
    _unlink(journal)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def write_tree(root: Path, files: Mapping[str, bytes], *, prune: bool = False) -> list[Change]:
    """Plan and commit in one go; with prune=True, files under `root` not in `files` go."""
    changes = plan(root, files, ["."] if prune else [])
    commit(root, changes)
    return changes


def write_file(path: Path, data: bytes) -> None:
    """Replace one file atomically: a uniquely named temporary file beside it, then a rename, so
    a reader (a CI upload step, a concurrent run) sees the old file or the whole new one.
    A device or pipe (`-o /dev/null`, a FIFO) is written into, never replaced by a file."""
    if path.exists() and not path.is_file():
        with open(path, "wb") as out:
            out.write(data)
        return
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            if DURABLE:
                out.flush()
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        _unlink(Path(tmp))
        raise
