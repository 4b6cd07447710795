"""The spec files of a git commit, read from its objects into memory; nothing is written to disk.

The commit may come from a stranger (a pull request's base can be any fetched commit), and git
plumbing (`git mktree`, `git commit-tree`) makes trees no checkout could hold: entries named
`..`, `.` or `.git`, names with backslashes, `:` or control characters, bytes that are not UTF-8
(`files.path_problem`).
`git fetch` accepts them. None of these paths is used as a file name: the blobs are kept in a
mapping from the repository path to bytes, which the loader reads (`read_specs(contents=...)`).
An entry that cannot be a spec path is reported as FILE-GIT-PATH; a spec-named symlink (mode
120000) or submodule (160000) is reported as FILE-READ and never followed; a blob over the
per-file limit is FILE-TOO-LARGE, found from its size before it is read. Git compresses well
(a 1 GiB blob of zeros is a few KiB), so the sizes are asked first (`cat-file --batch-check`)
and the whole read is bounded (MAX_TREE_BYTES), as is the listing of the tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.load.discovery import MAX_FOLDER_DEPTH, SPEC_SUFFIXES, too_deep_diagnostic
from toolkit.load.files import MAX_FILE_BYTES, path_problem, too_large_diagnostic
from toolkit.load.git import GitOutputTooLarge, run_git
from toolkit.model.diagnostics import Diagnostic, UsageError, sort_key, unicode_escaped
from toolkit.model.spec import Location

# All spec files read from one commit, together. The shipped trees hold well under 1 MiB.
MAX_TREE_BYTES = 256 * 1024 * 1024
# `ls-tree -r` prints about 100 bytes an entry: some 600,000 entries.
MAX_LISTING_BYTES = 64 * 1024 * 1024

_SYMLINK, _SUBMODULE = "120000", "160000"
_OBJECT_ID = re.compile(rb"^[0-9a-f]{40}([0-9a-f]{24})?$")


@dataclass
class TreeFiles:
    blobs: dict[str, bytes] = field(default_factory=dict)  # repository path -> contents
    diagnostics: list[Diagnostic] = field(default_factory=list)  # entries found but not read


def _clean_head(path: str) -> str:
    """Where a refused entry is located: the path itself, or when it has `.`, `..` or empty
    components (which every path tool would normalise into another file's name), the folder
    before the first of them, as the tree spells it."""
    head: list[str] = []
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return "/".join(head) or "."
        head.append(part)
    return path


def read_tree(
    commit: str, prefixes: Sequence[str], top: Path, name: Callable[[str], str], what: str
) -> TreeFiles:
    """The spec files under `prefixes` (repository paths; "" is the whole tree) at `commit`.
    `name` maps a repository path to the name diagnostics use; `what` starts usage errors
    (`--against main`)."""
    found = TreeFiles()
    wanted: dict[str, str] = {}  # repository path -> blob id
    for prefix in prefixes:
        for mode, kind, oid, raw in list_entries(commit, prefix, top, what):
            path = raw.decode("utf-8", "backslashreplace")
            if not path.endswith(SPEC_SUFFIXES):
                continue  # never read, whatever it is
            problem = (
                "it is not UTF-8" if path.encode("utf-8", "surrogatepass") != raw else path_problem(path)
            )
            if problem is not None:
                found.diagnostics.append(
                    _bad_path(name(unicode_escaped(_clean_head(path))), unicode_escaped(path), problem)
                )
            elif kind != "blob" or mode == _SYMLINK:
                found.diagnostics.append(_not_a_file(name(path), mode))
            elif (folder := _too_deep_folder(path, prefix)) is not None:
                found.diagnostics.append(too_deep_diagnostic(name(folder)))
            else:
                wanted[path] = oid
    sizes = _sizes(sorted(set(wanted.values())), top, what)
    total = 0
    for path in sorted(wanted):
        size = sizes[wanted[path]]
        if size > MAX_FILE_BYTES:
            found.diagnostics.append(too_large_diagnostic(name(path)))
            del wanted[path]
            continue
        total += size
    if total > MAX_TREE_BYTES:
        raise UsageError(
            f"{what}: the spec files at commit {commit[:12]} hold more than {MAX_TREE_BYTES >> 20} MiB\n"
            "  hint: a spec tree is a few MiB; point --specs at the spec folder, or compare with a directory"
        )
    blobs = _contents({oid: sizes[oid] for oid in set(wanted.values())}, top, what)
    found.blobs = {path: blobs[oid] for path, oid in wanted.items()}
    found.diagnostics = sorted(set(found.diagnostics), key=sort_key)
    return found


def list_entries(commit: str, prefix: str, top: Path, what: str) -> list[tuple[str, str, str, bytes]]:
    """(mode, kind, object id, path bytes) of every entry under `prefix`, subfolders included."""
    args = ["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", commit]
    if prefix:
        args += ["--", prefix]
    try:
        proc = run_git(args, top, limit=MAX_LISTING_BYTES)
    except GitOutputTooLarge:
        raise UsageError(
            f"{what}: the tree at commit {commit[:12]} lists more than {MAX_LISTING_BYTES >> 20} MiB of entries\n"
            "  hint: point --specs at the spec folder only, or compare with a directory"
        ) from None
    if not proc.ok:
        raise UsageError(
            f"{what}: git could not list the files of commit {commit[:12]}: {proc.stderr}\n"
            "  hint: check that the commit is complete in this clone (`git fsck`), or fetch it again"
        )
    entries = []
    for record in proc.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3 or not _OBJECT_ID.match(fields[2]):
            raise UsageError(f"{what}: git ls-tree printed an entry that is not understood: {meta!r}")
        mode, kind, oid = (field.decode("ascii", "replace") for field in fields)
        entries.append((mode, kind, oid, path))
    return entries


def _too_deep_folder(path: str, prefix: str) -> str | None:
    """The first folder of `path` deeper than discovery enters below `prefix`, or None; such
    files are not read (discovery would not enter them either)."""
    below = path[len(prefix) :].lstrip("/").split("/") if prefix else path.split("/")
    if len(below) - 1 <= MAX_FOLDER_DEPTH:
        return None
    parts = below[: MAX_FOLDER_DEPTH + 1]
    return "/".join([prefix, *parts] if prefix else parts)


def _sizes(oids: list[str], top: Path, what: str) -> dict[str, int]:
    if not oids:
        return {}
    proc = _batch(["cat-file", "--batch-check"], oids, top, what, limit=len(oids) * 128)
    sizes: dict[str, int] = {}
    for oid, line in zip(oids, proc.splitlines()):
        fields = line.split()
        if len(fields) != 3 or fields[0] != oid.encode() or fields[1] != b"blob" or not fields[2].isdigit():
            raise _missing(oid, line, what)
        sizes[oid] = int(fields[2])
    if len(sizes) != len(oids):
        raise _missing(oids[len(sizes)], b"", what)
    return sizes


def _contents(sizes: dict[str, int], top: Path, what: str) -> dict[str, bytes]:
    """The blobs' bytes (`cat-file --batch`: a header line, the bytes, a newline, per blob)."""
    oids = sorted(sizes)
    if not oids:
        return {}
    limit = sum(sizes.values()) + len(oids) * 130
    data = _batch(["cat-file", "--batch"], oids, top, what, limit=limit)
    blobs, offset = {}, 0
    for oid in oids:
        end = data.find(b"\n", offset)
        header = data[offset:end].split() if end >= 0 else []
        if len(header) != 3 or header[0] != oid.encode() or header[2] != str(sizes[oid]).encode():
            raise _missing(oid, data[offset : max(end, offset)], what)
        blobs[oid] = data[end + 1 : end + 1 + sizes[oid]]
        offset = end + 1 + sizes[oid] + 1
    return blobs


def _batch(args: list[str], oids: list[str], top: Path, what: str, *, limit: int) -> bytes:
    request = "".join(f"{oid}\n" for oid in oids).encode()
    try:
        proc = run_git(args, top, stdin=request, limit=limit)
    except GitOutputTooLarge:
        raise UsageError(f"{what}: git {args[0]} printed more than the objects' sizes") from None
    if not proc.ok:
        raise UsageError(
            f"{what}: git could not read the spec files' objects: {proc.stderr}\n"
            "  hint: check the clone with `git fsck`; a partial clone (--filter) must fetch the blobs first"
        )
    return proc.stdout


def _missing(oid: str, reply: bytes, what: str) -> UsageError:
    return UsageError(
        f"{what}: git cannot give the blob {oid[:12]} ({reply.decode('utf-8', 'replace').strip() or 'no reply'})\n"
        "  hint: this clone lacks the object (a partial clone made with --filter?); fetch it with "
        "`git fetch --refetch`, or clone without --filter"
    )


def _bad_path(display: str, path: str, problem: str) -> Diagnostic:
    return Diagnostic(
        "FILE-GIT-PATH",
        f"the tree at the ref holds an entry '{path}' that cannot be a spec file's path ({problem}); it is not read",
        Location(display, 1, 1),
        "a commit made with git plumbing can hold such names; compare with another ref, or remove the entry",
    )


def _not_a_file(display: str, mode: str) -> Diagnostic:
    what = "a symbolic link (git mode 120000)" if mode == _SYMLINK else f"a submodule (git mode {mode})"
    return Diagnostic(
        "FILE-READ",
        f"cannot read file: {what} in the tree at the ref, not a regular file; it is not followed",
        Location(display, 1, 1),
        "a spec must be a regular file: commit the file itself instead of a link to it",
    )
