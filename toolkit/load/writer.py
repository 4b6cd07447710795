"""The one writer every generator goes through: compare, then commit atomically.

Generators return `{relative path: bytes}` and never touch the disk. Writing happens in
two phases: every changed file is first written next to its target under a temporary
name (`Staging`, one file at a time as the generators produce them), then a journal lists
the renames, then the renames happen, then the journal goes. A failure before the journal
leaves the tree as it was (the temporary files are removed; those of a killed run are swept
by the next one); a kill after it is rolled forward by the next run. Unchanged files are
not touched (their mtimes stay). A folder that does not exist yet (a generator kind's first
run) is staged whole, its files under their own names in a temporary folder that the commit
renames in once (`Staging(whole=...)`).

The journal and its roll-forward are `toolkit.load.journal`'s (a tree may plant one). Every
OSError this module lets through names the file it was working on (`_naming`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.load.files import content_digest
from toolkit.load.journal import (
    JOURNAL,
    JOURNAL_FORMAT,
    TMP_SUFFIX,
    Outputs,
    Staged,
    journal_refused,
    recover,
    roll_forward,
    steps,
    unlink_if_present,
)

# All-or-nothing holds against failures and kills without fsync (the kernel keeps what was
# written); fsync per file also survives power loss, at up to 10x the cost on a busy disk.
DURABLE = os.environ.get("OPSET_TOOLKIT_FSYNC") == "1"


@dataclass(frozen=True)
class Change:
    path: str  # relative, forward slashes
    old: bytes | None  # None: file is new
    new: bytes | None  # None: file is removed


@contextlib.contextmanager
def _naming(path: Path | str, what: str) -> Iterator[None]:
    """An OSError raised without a file name (a write or close that hit a full disk, an fsync)
    gets the path it concerned and what was being done, so the user reads which file failed."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise _named(exc, path, what) from exc
        raise


def _native(rel: str) -> str:
    """A relative path with forward slashes in the platform's spelling."""
    return rel if os.sep == "/" else rel.replace("/", os.sep)


def _named(exc: OSError, path: Path | str, what: str) -> OSError:
    """`exc` (raised without a file name) as the OSError that names `path` and what was done."""
    return OSError(exc.errno, f"cannot {what}: {exc.strerror or exc}", os.fspath(path))


def plan(root: Path, files: Mapping[str, bytes], prune_dirs: Iterable[str] = ()) -> list[Change]:
    """Changes needed to make `root` hold exactly `files` (and nothing else in `prune_dirs`), after
    finishing an interrupted commit of the same outputs (any other journal: JournalError)."""
    left = recover(root, Outputs(frozenset(prune_dirs), frozenset(files)))
    if left:
        raise journal_refused(root, left)
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


def existing_files(root: Path, prune_dirs: Iterable[str]) -> set[str]:
    """The files under root/<dir> for each of `prune_dirs` (relative paths; a commit's own
    temporary files and journal excluded)."""
    return _existing(root, prune_dirs)


def existing_tree(root: Path, prune_dirs: Iterable[str]) -> tuple[set[str], set[str]]:
    """`existing_files` and, from the same walk, the folders: root/<dir> and every folder under
    it, plus "." for root itself (relative paths of those that exist). A run takes this before it
    stages anything, so that `remove_new_folders` can undo the folders staging made."""
    folders: set[str] = set()
    return _existing(root, prune_dirs, folders), folders


def remove_new_folders(root: Path, prune_dirs: Iterable[str], before: set[str]) -> None:
    """After a failed run whose staged files were removed: remove the folders under root/<dir>
    (and root itself) that were not there `before` (`existing_tree`) and are empty now, so the
    tree is left as it was."""
    for sub in prune_dirs:
        for dirpath, _dirs, _names in os.walk(root / sub, topdown=False):
            _remove_new_folder(root, Path(dirpath), before)
    _remove_new_folder(root, root, before)


def _remove_new_folder(root: Path, folder: Path, before: set[str]) -> None:
    if (folder.relative_to(root).as_posix() if folder != root else ".") not in before:
        with contextlib.suppress(OSError):  # not empty (or gone): it holds what it held
            folder.rmdir()


def unlisted(rel: str) -> bool:
    """Whether a file at `rel` could exist although `existing_files` does not list it: it lies in
    a build-output folder, which the walk skips."""
    return any(_build_output(folder) for folder in rel.split("/")[:-1])


def _build_output(folder: str) -> bool:
    """Folders a build of the generated files leaves beside them, which are neither generated
    nor stale: `pip install ./generated/python` writes `build/` and `<name>.egg-info/` into the
    package folder, Python writes `__pycache__/`. (No generator writes a folder of these names:
    domains are dotted, packages are identifiers.)"""
    return folder in ("__pycache__", "build") or folder.endswith(".egg-info")


def _existing(root: Path, prune_dirs: Iterable[str], folders: set[str] | None = None) -> set[str]:
    found: set[str] = set()
    if folders is not None and root.is_dir():
        folders.add(".")
    for sub in prune_dirs:
        base = root / sub
        if not base.is_dir():
            continue
        for dirpath, dirs, names in os.walk(base):
            if folders is not None:
                folders.add(Path(dirpath).relative_to(root).as_posix())
            dirs[:] = [d for d in dirs if not _build_output(d)]
            for name in names:
                if name.endswith(TMP_SUFFIX) or name == JOURNAL:
                    continue
                found.add((Path(dirpath) / name).relative_to(root).as_posix())
    return found


def commit(root: Path, changes: list[Change]) -> None:
    """Apply `changes` under `root` all-or-nothing (see the module doc)."""
    if not changes:
        return
    staging = Staging(root)
    try:
        for change in changes:
            if change.new is not None:
                staging.stage(change.path, change.new)
    except BaseException:
        staging.abandon()
        raise
    staging.finish([c.path for c in changes if c.new is None])  # `plan` ran `recover`


class Staging:
    """The first phase of a commit, one file at a time: each changed file is written beside its
    target under a temporary name as soon as it is known, so a large generation is never held in
    memory. `finish` writes the journal and rolls forward (the second phase); `abandon` removes
    what was staged, leaving the tree as it was."""

    def __init__(self, root: Path, *, whole: str | None = None) -> None:
        """`whole`: a folder under `root` that does not exist (a generator kind's, on its first
        run). Its files are written under their own names into a temporary folder beside it,
        which the commit renames in one go (one rename instead of one per file)."""
        self.root = root
        # What `root / rel` reads as, for joining plain relative paths as strings: pathlib drops a
        # root of "." and writes the platform's separator.
        self._prefix = "" if str(root) == "." else os.path.join(str(root), "")
        self._staged: list[Staged] = []
        self._folders: set[str] = set()  # made already: one mkdir per folder, not per file
        self._whole = (
            None if whole is None else (whole + "/", str(root / (whole + TMP_SUFFIX)), str(root / whole))
        )
        if whole is not None and os.path.lexists(root / (whole + TMP_SUFFIX)):
            _remove(root / (whole + TMP_SUFFIX))  # a killed run's, never committed (`recover` ran)

    def stage(self, rel: str, data: bytes, digest: str | None = None) -> None:
        """Write `data` beside `rel`'s target under a temporary name (`digest`: its
        `content_digest`, when the caller has it already). `rel`: a relative path with
        forward slashes and no empty, `.` or `..` part (as `generate.running` checks a generator's
        paths to be), so joining strings gives the path pathlib would (`_native`). Plain strings
        and os calls rather than pathlib: a run stages hundreds of files, and the Path objects
        cost about a third of staging's CPU time."""
        if self._whole is not None and rel.startswith(self._whole[0]):
            prefix, folder_tmp, folder_target = self._whole
            if (folder_tmp, folder_target, None) not in self._staged[:1]:
                self._staged.insert(0, (folder_tmp, folder_target, None))  # once; abandon() removes it all
            tmp = os.path.join(folder_tmp, _native(rel[len(prefix) :]))
        else:
            target = self._prefix + _native(rel)
            tmp = target + TMP_SUFFIX
            # Before writing (abandon() removes a partial one). The digest goes into the journal: a
            # roll-forward renames in only the bytes this run staged.
            self._staged.append((tmp, target, digest if digest is not None else content_digest(data)))
        folder = os.path.dirname(tmp) or os.curdir  # a file at the top of a root of "."
        try:
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            # os-level calls: a file object would also fstat, lseek and ask whether it is a terminal.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if DURABLE:
                    os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:  # `_naming`, inline: a context manager per file costs as much again
            if exc.filename is None:
                raise _named(exc, self._prefix + _native(rel), "write") from exc
            raise

    @property
    def staged(self) -> list[Staged]:
        """(temporary, target, digest) of every file staged so far."""
        return list(self._staged)

    def adopt(self, staged: Iterable[Staged]) -> None:
        """Take over files another process staged under this root (committed or abandoned with
        this staging's own)."""
        self._staged.extend(staged)

    def sweep(self, prune_dirs: Iterable[str]) -> None:
        """Remove temporary files under root/<dir> that this staging did not write: leftovers of a
        run killed while staging (no journal yet, so they were never part of the tree)."""
        ours = {tmp for tmp, _target, _digest in self._staged}
        for sub in prune_dirs:
            whole = self.root / (sub + TMP_SUFFIX)  # a folder staged whole (`whole`)
            if str(whole) not in ours and whole.is_dir():
                _remove(whole)
            for dirpath, _dirs, names in os.walk(self.root / sub):
                for name in names:
                    path = os.path.join(dirpath, name)
                    if name.endswith(TMP_SUFFIX) and path not in ours:
                        unlink_if_present(Path(path))

    def abandon(self) -> None:
        for staged_tmp, _target, _digest in self._staged:
            _remove(Path(staged_tmp))
        self._staged.clear()

    def finish(self, removals: Iterable[str], *, last: str | None = None) -> None:
        """Journal the staged renames and the removals (relative paths), then apply them. `last`:
        a staged file (the manifest) renamed in after every other step."""
        gone = sorted(removals)
        if not self._staged and not gone:
            return
        journal = self.root / JOURNAL
        journal_tmp = journal.with_name(JOURNAL + TMP_SUFFIX)
        renames = [
            (self._relative(tmp), self._relative(target), digest) for tmp, target, digest in self._staged
        ]
        record = {"format": JOURNAL_FORMAT, "renames": renames, "removals": gone, "last": last}
        with _naming(journal_tmp, "write the commit journal"):
            self.root.mkdir(parents=True, exist_ok=True)
            journal_tmp.write_text(json.dumps(record), encoding="utf-8")
            os.replace(journal_tmp, journal)
        roll_forward(self.root, steps(renames, gone, last), None)
        unlink_if_present(journal)
        self._staged = []

    def _relative(self, path: str) -> str:
        return Path(path).relative_to(self.root).as_posix()


def symlinked_folders(root: Path, prune_dirs: Iterable[str]) -> list[str]:
    """The folders root/<dir> (and below) that are symlinks (relative paths): a write through one
    would land wherever it points, so the caller refuses them. A walk that never follows links."""
    found: list[str] = []
    for sub in prune_dirs:
        base = root / sub
        if os.path.islink(base):
            found.append(sub)
            continue
        for dirpath, dirs, _names in os.walk(base):
            for name in dirs:
                if os.path.islink(os.path.join(dirpath, name)):
                    found.append((Path(dirpath) / name).relative_to(root).as_posix())
    return sorted(found)


def _remove(path: Path) -> None:
    """A staged file, or a folder staged whole."""
    if path.is_dir() and not path.is_symlink():
        import shutil  # imported on use: only a failed or killed first run has a folder to remove

        shutil.rmtree(path, ignore_errors=True)
    else:
        unlink_if_present(path)


def write_tree(root: Path, files: Mapping[str, bytes], *, prune: bool = False) -> list[Change]:
    """Plan and commit in one go; with prune=True, files under `root` not in `files` go."""
    changes = plan(root, files, ["."] if prune else [])
    commit(root, changes)
    return changes


def write_file(path: Path, data: bytes) -> None:
    """Replace one file atomically: a uniquely named temporary file beside it, then a rename, so
    a reader (a CI upload step, a concurrent run) sees the old file or the whole new one.
    A device or pipe (`-o /dev/null`, a FIFO) is written into, never replaced by a file."""
    import tempfile  # imported on use: only reports are written this way

    if path.exists() and not path.is_file():
        with _naming(path, "write"), open(path, "wb") as out:
            out.write(data)
        return
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with _naming(path, "write"), os.fdopen(handle, "wb") as out:
            out.write(data)
            if DURABLE:
                out.flush()
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        unlink_if_present(Path(tmp))
        raise


class FilesOnDisk(Mapping[str, bytes]):
    """Files under `root` by relative path, read when asked for (`overlay` holds the contents of
    those that differ from the disk, e.g. what a `--check` run would have written)."""

    def __init__(self, root: Path, paths: Sequence[str], overlay: Mapping[str, bytes] | None = None) -> None:
        self._root = root
        self._paths = sorted(paths)
        self._known = frozenset(self._paths)
        self._overlay = dict(overlay or {})

    def __getitem__(self, path: str) -> bytes:
        if path not in self._known:
            raise KeyError(path)
        found = self._overlay.get(path)
        return found if found is not None else (self._root / path).read_bytes()

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
