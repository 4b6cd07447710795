"""The commit journal of `toolkit.load.writer`: what a commit will do, written before it does it,
so a run killed mid-commit is finished by the next writing run (`recover`).

The journal lies in the output folder, which may come from a stranger's pull request: it holds
paths relative to the root, and one that names anything but the writer's own renames (a
temporary name beside its target) and removals under the root, or that passes through a symlink,
or is in another form, is refused whole (`JournalError`), never rolled forward. Only a writing run
rolls a journal forward (a `--check` reports it pending), and then only the steps its caller's
`Outputs` allow: a path among the declared outputs with no `.git` component, a removed or
replaced file the caller owns (for `opset generate`: `manifest.wrote`), a staged file whose digest
is the one the journal records for it. Every other step is left alone and named. The file that
says what the outputs are (the manifest) is renamed in after every other step (`last`), so a
roll-forward judges each step by the manifest the interrupted run started from.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.load.files import file_digest_of, path_problem, read_regular_file

JOURNAL = ".opset-toolkit-commit.json"
JOURNAL_FORMAT = "opset-toolkit-commit-2"
TMP_SUFFIX = ".opset-tmp"

# (temporary, target, digest of the staged bytes; None for a folder staged whole)
Staged = tuple[str, str, str | None]


class JournalError(OSError):
    """A journal this writer did not write (or a damaged one: nothing of it was applied), or one
    naming steps its caller does not own (`journal_refused`)."""


@dataclass(frozen=True)
class Outputs:
    """What a roll-forward of a journal found on disk may touch (`recover`): the files of `folders`
    (top-level folders under the root; "." for all of them) and the `files` named, and of those
    that exist, only the ones `owned` says the caller may replace or remove."""

    folders: frozenset[str]
    files: frozenset[str]
    owned: Callable[[str], bool] | None = None  # None: every declared file (the caller writes them all)

    def declared(self, rel: str) -> bool:
        return rel in self.files or "." in self.folders or rel.split("/", 1)[0] in self.folders

    def may_replace(self, rel: str) -> bool:
        return self.owned(rel) if self.owned is not None else self.declared(rel)


def recover(root: Path, outputs: Outputs) -> list[str]:
    """Finish a commit that a kill interrupted after its journal was written, as far as `outputs`
    allows (see the module doc); returns what was left alone, one line per step (JournalError,
    nothing applied: a journal this writer did not write)."""
    left: list[str] = []
    if os.path.lexists(root / JOURNAL):
        left = roll_forward(root, _read_journal(root), outputs)
        unlink_if_present(root / JOURNAL)
    stale = root / (JOURNAL + TMP_SUFFIX)
    if os.path.lexists(stale):
        unlink_if_present(stale)
    return left


def pending(root: Path) -> bool:
    """Whether `root` holds a commit journal (an interrupted commit, or a planted file) that only a
    writing run may roll forward."""
    return os.path.lexists(root / JOURNAL)


MAX_JOURNAL_BYTES = 256 * 1024 * 1024  # a journal lists paths only: far more than any real one
# The largest staged file a roll-forward hashes: far above any generated file.
MAX_STAGED_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class _Journal:
    renames: list[tuple[str, str, str | None]]  # (temporary, target, staged digest) relative to the root
    removals: list[str]
    last: str | None  # the target renamed in after every other step


def steps(renames: list[tuple[str, str, str | None]], removals: list[str], last: str | None) -> _Journal:
    """The steps of a commit the writer journaled a moment ago (for `roll_forward`)."""
    return _Journal(renames, removals, last)


def roll_forward(root: Path, journal: _Journal, outputs: Outputs | None) -> list[str]:
    """Apply the journal's renames, its removals, then the rename of `last` (each at most once: a
    rename whose temporary is gone was done already, a removal whose file is gone too). `outputs`
    None: the commit this process journaled a moment ago, applied as is; else a journal found on
    disk, each step checked (`_refusal`) and left alone when it fails. Returns what was left."""
    left: list[str] = []
    order = [r for r in journal.renames if r[1] != journal.last] + [None]
    order += [r for r in journal.renames if r[1] == journal.last]
    for step in order:
        if step is None:
            removed = []
            for target in journal.removals:
                why = None if outputs is None else _refusal(root, target, outputs)
                if why is None:
                    unlink_if_present(root / target)
                    removed.append(target)
                elif os.path.lexists(root / target):
                    left.append(f"{target}: not removed, {why}")
            _prune_emptied(root, removed)
            continue
        tmp, target, digest = step
        if not os.path.lexists(root / tmp):
            continue  # renamed already
        why = None if outputs is None else _rename_refusal(root, tmp, target, digest, outputs)
        if why is None:
            os.replace(root / tmp, root / target)
        else:
            left.append(f"{target}: not replaced by {tmp}, {why}")
    return left


def _prune_emptied(root: Path, removed: list[str]) -> None:
    """The folders these removals left empty go too (a package renamed leaves none behind), up to
    but not including a target's first folder (the kind's): deepest first, each only while
    `rmdir` finds it empty, so a folder holding anything else, or that no removal emptied, stays."""
    for target in sorted(removed, key=lambda t: -t.count("/")):
        parts = target.split("/")[:-1]
        while len(parts) > 1:
            try:
                (root / "/".join(parts)).rmdir()
            except OSError:  # not empty (or gone already): stop here
                break
            parts.pop()


def _refusal(root: Path, target: str, outputs: Outputs) -> str | None:
    """Why a journal found on disk may not replace or remove `target`, or None."""
    if not outputs.declared(target):
        return "it is not among the outputs of this command"
    if os.path.lexists(root / target) and not outputs.may_replace(target):
        return "opset did not write it (not listed with the digest of its bytes)"
    return None


def _rename_refusal(root: Path, tmp: str, target: str, digest: str | None, outputs: Outputs) -> str | None:
    why = _refusal(root, target, outputs)
    if why is not None:
        return why
    if digest is None:  # a folder staged whole: only ever renamed in where there was none
        if os.path.lexists(root / target) or os.path.islink(root / tmp) or not os.path.isdir(root / tmp):
            return "the folder is there already or the staged one is not a folder"
        return None
    if file_digest_of(root / tmp, MAX_STAGED_BYTES) != digest:
        return "the staged file is not the one the journal records"
    return None


def journal_refused(root: Path, left: Sequence[str]) -> JournalError:
    """The error of a caller that cannot go on with steps of a journal left alone (`left`)."""
    return JournalError(
        0,
        f"the commit journal named what this command does not write, left alone: {'; '.join(left[:3])}"
        f"{f' and {len(left) - 3} more' if len(left) > 3 else ''} (the rest of it was applied)",
        os.fspath(root / JOURNAL),
    )


def _read_journal(root: Path) -> _Journal:
    """The journal's steps, relative to `root`, after checking that they are what `Staging.finish`
    writes; JournalError otherwise."""
    journal = root / JOURNAL
    refused = JournalError(
        0,
        "not a commit journal opset-toolkit wrote (it names paths outside the output folder, through "
        "a symlink, or not its own temporary files); nothing of it was applied: delete it",
        os.fspath(journal),
    )
    try:
        data = json.loads(read_regular_file(journal, MAX_JOURNAL_BYTES))
        if data["format"] != JOURNAL_FORMAT:
            raise refused
        renames = [(tmp, target, digest) for tmp, target, digest in data["renames"]]
        removals = list(data["removals"])
        last = data["last"]
    except OSError:
        raise
    except (ValueError, KeyError, TypeError, RecursionError):  # json recurses per nested array
        raise refused from None
    for tmp, target, digest in renames:
        if not (_inside(root, tmp) and _inside(root, target) and tmp == target + TMP_SUFFIX):
            raise refused
        if digest is not None and not isinstance(digest, str):
            raise refused
    if not all(_inside(root, target) for target in removals) or not (last is None or _inside(root, last)):
        raise refused
    return _Journal(renames, removals, last)


def _inside(root: Path, rel: object) -> bool:
    """`rel` is a plain relative path (`files.path_problem`) whose folders under `root` are not
    symlinks."""
    if not isinstance(rel, str) or path_problem(rel) is not None:
        return False
    folder = root
    for part in rel.split("/")[:-1]:
        folder = folder / part
        if os.path.islink(folder):
            return False
    return True


def unlink_if_present(path: Path) -> None:
    """Remove a file; one that is gone already is fine (a step done before a kill)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
