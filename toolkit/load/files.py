"""Reading spec files safely: only regular files, never more than the size limit, and never a
file that a symbolic link of the tree leads to outside the tree (`SpecRoots`).

Kept apart from the YAML reader so that code which only hashes or copies spec files (the
registry cache key, the git-ref loader) does not import PyYAML.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from toolkit.model.diagnostics import UNPRINTABLE, Diagnostic
from toolkit.model.spec import Location

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_EXAMPLE_FILE_BYTES = 64 * 1024 * 1024  # a `.npy` / `.pb` file of an operator example


def too_large_diagnostic(
    display: str, limit: int = MAX_FILE_BYTES, hint: str = "split the operator's versions or shorten its docs"
) -> Diagnostic:
    """FILE-TOO-LARGE for a file over `limit`: a spec file over MAX_FILE_BYTES (on disk, or a
    blob in git), a project file over its own limit."""
    return Diagnostic(
        "FILE-TOO-LARGE", f"file is larger than the limit of {limit} bytes", Location(display, 1, 1), hint
    )


def encoding_diagnostic(display: str, data: bytes, error: UnicodeDecodeError) -> Diagnostic:
    """FILE-ENCODING at the first byte of `data` (the file shown as `display`) that is not UTF-8,
    as `data.decode("utf-8")` raised `error`: every reader of a text file of the tree says it so."""
    line, column = line_column(data, error.start)
    return Diagnostic(
        "FILE-ENCODING",
        f"byte 0x{data[error.start]:02x} is not valid UTF-8",
        Location(display, line, column),
        "save the file as UTF-8",
    )


def line_column(text: str | bytes, at: int) -> tuple[int, int]:
    """The 1-based line and column of offset `at` of `text` (lines end at `\\n`; columns count
    what `text` holds, characters or bytes)."""
    if isinstance(text, bytes):
        return text.count(b"\n", 0, at) + 1, at - text.rfind(b"\n", 0, at)
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


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


class LeavesTree(OSError):
    """A file of a spec tree whose real path (every symbolic link resolved) lies outside the
    tree: never read. The message names neither the target nor anything about it."""


def git_folder_name(part: str) -> bool:
    """Whether one path component names git's metadata folder on some system: `.git` in any case,
    also with the trailing dots and spaces Windows drops (`.git.`, `.git `) and as NTFS's short
    name (`git~1`). Nothing opset reads from a tree or writes may pass through one."""
    folded = part.rstrip(". ").casefold()
    return folded in (".git", "git~1")


def path_problem(path: str) -> str | None:
    """Why `path` is not a plain relative path, or None. THE test of one wherever a path comes
    from data, not from the invoker: a git tree entry, a manifest or commit-journal entry, a
    generator's output, the mkdocs plugin's mount, an example file reference. A plain path is
    `/`-separated, names the same file on every system a checkout may be on (no absolute path,
    no drive or stream `:`, no backslash, no `.git` folder in any spelling), and is the one
    spelling of it (no empty, `.` or `..` part), without characters that hide what it says."""
    if not path:
        return "it is empty"
    if path.startswith("/"):
        return "it is an absolute path"
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return f"it has a `{part or '(empty)'}` component"
        if git_folder_name(part):
            return "it has a `.git` component"
    if "\\" in path:
        return "it holds a backslash (a folder separator on Windows)"
    if ":" in path:
        return "it holds a `:` (a drive or stream separator on Windows)"
    hidden = UNPRINTABLE.search(path)
    if hidden is not None:
        return f"it holds the control character U+{ord(hidden.group()):04X}"
    return None


def content_digest(data: bytes) -> str:
    """THE digest of a file's content wherever opset records one (the manifest, the commit
    journal, the freshness record): its SHA-256, in hex."""
    import hashlib  # imported on use: a cold run with the cache off hashes nothing

    return hashlib.sha256(data).hexdigest()


def file_digest_of(path: Path, limit: int) -> str | None:
    """`content_digest` of the regular file at `path` (never through a symlink), or None when it
    is anything else, is gone, or holds more than `limit` bytes (so a planted huge file costs at
    most `limit` bytes read)."""
    import hashlib  # imported on use: only a run that replaces or removes files hashes them

    try:
        if os.path.islink(path):
            return None
        fd = _open_regular(os.fspath(path), os.stat(path), path)
    except OSError:
        return None
    try:
        digest, total = hashlib.sha256(), 0
        while chunk := os.read(fd, 1 << 20):  # in chunks: memory stays bounded whatever the size
            total += len(chunk)
            if total > limit:
                return None
            digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def is_inside(real: str, root: str) -> bool:
    """Whether the real path `real` is `root` (a real path) or lies below it."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


class SpecRoots:
    """The spec roots the invoker named (a folder; for a file, its folder), as named and as they
    really are: what every file read from a spec tree on disk must really lie inside.

    A root that is itself a symlink is the invoker's choice and is followed; a symbolic link
    below it (of the file, or of a folder on the way) must lead inside the root's real path.
    A tree from a pull request may hold `Foo.yaml -> /proc/self/environ` or a link to a token
    file: reading it would copy the secret into the outputs or the diagnostics."""

    def __init__(self, roots: Iterable[str | os.PathLike[str]] = ()) -> None:
        self._roots = [(os.path.abspath(root), os.path.realpath(root)) for root in roots]
        # a folder as spelled -> its real path (with a separator after it), and whether that lies
        # inside the folder's root.
        # Files share a few folders, and resolving each file's path whole (an lstat per component,
        # in Python) would cost a tree of 60k files most of a second: only a file that is itself a
        # symlink is resolved whole. (All files of a folder have one root: roots are folders.)
        self._folders: dict[str, tuple[str, bool]] = {}

    @classmethod
    def of(cls, paths: Iterable[str | os.PathLike[str]]) -> SpecRoots:
        """The roots of the spec paths a command was given (`discover`'s paths): a folder is a
        root, a file's folder is its root."""
        return cls(sorted({Path(p) if Path(p).is_dir() else Path(p).parent for p in paths}))

    def root_of(self, path: str | os.PathLike[str]) -> str:
        """The real path of the root `path` was found under (the innermost, when roots nest),
        else of `path`'s own folder."""
        lexical = os.path.abspath(path)
        found = ("", "")
        for named, real in self._roots:
            if lexical.startswith(named.rstrip(os.sep) + os.sep) and len(named) > len(found[0]):
                found = (named, real)
        return found[1] or os.path.realpath(os.path.dirname(lexical))

    def locate(
        self, path: str | os.PathLike[str], named_by: str | os.PathLike[str] | None = None
    ) -> tuple[str, os.stat_result]:
        """The real path of `path` and its status (links followed), when it lies inside the root
        of `named_by` (the spec file naming it: an example file, whose name may hold folders;
        default: `path` itself). LeavesTree when it does not, before the target is looked at;
        OSError when it cannot be resolved (missing, a dangling link, a loop)."""
        spelled = os.fspath(path)
        if named_by is None:
            if os.altsep is None:  # os.path.split's answer at a sixth of its cost
                folder, separator, name = spelled.rpartition(os.sep)
                folder = folder or separator  # "/Foo.yaml": the folder is "/"
            else:
                folder, name = os.path.split(spelled)
            known = self._folders.get(folder)
            if known is None:
                real_folder = _real(folder or os.curdir)
                inside = is_inside(real_folder, self.root_of(spelled))
                known = self._folders[folder] = (real_folder.rstrip(os.sep) + os.sep, inside)
            info = os.lstat(spelled)
            if not stat.S_ISLNK(info.st_mode):  # its real path is its real folder's; lstat = stat
                if not known[1]:
                    raise LeavesTree(0, _LEAVES, spelled)
                return known[0] + name, info
            real, root = _real(known[0] + name), self.root_of(spelled)
        else:
            real, root = _real(spelled), self.root_of(named_by)
        if not is_inside(real, root):
            raise LeavesTree(0, _LEAVES, spelled)
        return real, os.stat(real)


_LEAVES = "a symbolic link leads out of the spec tree"


def _real(path: str) -> str:
    """`path` with every symbolic link resolved; OSError when one dangles or loops."""
    try:
        return os.path.realpath(path, strict=True)
    except RuntimeError:  # a loop, on Pythons whose realpath raises that
        raise OSError(0, "a symbolic link loop", path) from None


_READ_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
)


def _open_regular(target: str, info: os.stat_result, path: Path) -> int:
    """A descriptor of `target` (stat'ed as `info`), opened without blocking and checked again with
    fstat, or NotRegularFile naming `path`."""
    _require_regular(info.st_mode, path)  # a socket cannot even be opened: say what it is
    fd = os.open(target, _READ_FLAGS)
    try:
        _require_regular(os.fstat(fd).st_mode, path)  # the path may have been swapped in between
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(
    path: Path, limit: int, inside: SpecRoots | None = None, named_by: Path | None = None
) -> bytes:
    """The bytes of `path`, at most `limit` + 1 of them (enough to tell the file is too large).

    Opened without blocking and checked with fstat before anything is read, so a FIFO cannot
    hang the command and a symlink to /dev/zero cannot exhaust memory: anything but a regular
    file raises NotRegularFile. `inside`: the roots of the spec tree `path` belongs to; a path
    whose real path is outside them (outside the root of `named_by`, when given: see
    `SpecRoots.locate`) raises LeavesTree before anything is opened. Other failures (missing,
    symlink loop) raise OSError."""
    if inside is None:
        target, info = os.fspath(path), os.stat(path)
    else:
        target, info = inside.locate(path, named_by)
    fd = _open_regular(target, info, path)
    try:
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
