"""One generator kind: compare each file with the disk as it comes and stage the changed ones
(`toolkit.load.writer.Staging`), keeping only paths, digests and (for `--check`) the differing
bytes. `toolkit.generate.pipeline` runs it for each kind (in this process or a worker of the
process pool: the result is small and plain) and commits what it staged."""

from __future__ import annotations

import os
import stat
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.generate.context import GenerateContext
from toolkit.generate.running import run_generators
from toolkit.load.files import content_digest, read_regular_file
from toolkit.load.journal import Staged
from toolkit.load.manifest import Owned, carries_header, wrote
from toolkit.load.writer import Change, Staging, unlisted
from toolkit.registry.core import Registry

# `--check` keeps the old bytes of a differing file for its diff; a larger one (not something
# opset wrote) is compared by size and shown as differing without being read whole.
MAX_DIFF_BYTES = 64 * 1024 * 1024
_HEAD_BYTES = 4096

__all__ = ["KindOutput", "stream_kind"]


@dataclass
class KindOutput:
    """What one kind produced, relative to the output root."""

    produced: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)  # new and changed files, in path order
    overlay: dict[str, bytes] = field(default_factory=dict)  # check mode: the bytes that differ
    digests: dict[str, str] = field(default_factory=dict)  # path -> load.files.content_digest
    staged: list[Staged] = field(default_factory=list)  # (temporary, target, digest) written
    units: dict[str, dict[str, object]] = field(default_factory=dict)  # its incremental units (memo)
    foreign: list[str] = field(default_factory=list)  # files opset did not write it would overwrite


@dataclass(frozen=True)
class Ownership:
    """Which existing files of a kind opset may overwrite: those it wrote by the manifest
    (`manifest.wrote`: listed, with their recorded digest or the header; `manifest` None: the kind has no
    manifest entry, then those that carry the generated header), or any (`adopt`, the invoker's
    --adopt)."""

    manifest: Owned | None = None
    adopt: bool = False

    def allows(self, root: Path, rel: str, head: bytes) -> bool:
        if self.adopt:
            return True
        return wrote(root, self.manifest, rel) if self.manifest is not None else carries_header(head)


def stream_kind(
    root: Path,
    registry: Registry,
    context: GenerateContext,
    kind: str,
    *,
    check: bool,
    digests: bool,
    existing: Container[str] | None = None,
    ownership: Ownership | None = None,
) -> KindOutput:
    """Run the generator of `kind`; compare (check) or stage (write) each of its files.
    `existing`: the files under `root` before the run (relative paths), when known; a file not
    in it is new without trying to read it. `ownership`: which differing files may be replaced
    (default: any); the others are listed in `foreign`, neither staged nor reported as changes.

    With check=True each change carries the old and new bytes (for the diff); after a write only
    whether the file was added or changed (`b""` stands for contents not kept). Raises what
    `run_generators` raises, after removing what it staged."""
    out = KindOutput()
    # A kind's first run into `root` stages its folder whole: renamed in by the commit at once.
    staging = None if check else Staging(root, whole=None if (root / kind).exists() else kind)
    try:
        outputs = run_generators(registry, context, [kind])
        for rel, data in outputs.items():
            out.produced.append(rel)
            digest = content_digest(data) if digests else None
            if digest is not None:
                out.digests[rel] = digest
            absent = existing is not None and rel not in existing and not unlisted(rel)
            old, head = (None, b"") if absent else _read_existing(root / rel, data, keep=staging is None)
            if old is _SAME:
                continue
            if old is not None and ownership is not None and not ownership.allows(root, rel, head):
                out.foreign.append(rel)
                continue
            if staging is None:
                out.changes.append(Change(rel, old, data))
                out.overlay[rel] = data
            else:
                staging.stage(rel, data, digest)
                out.changes.append(Change(rel, None if old is None else b"", b""))
    except BaseException:
        if staging is not None:
            staging.abandon()
        raise
    if staging is not None:
        out.staged = staging.staged
    if context.memo is not None:
        out.units = context.memo.of_kind(kind)
    return out


_SAME = b"\0same"  # compared by identity: the file holds exactly the new bytes


def _read_existing(path: Path, new: bytes, *, keep: bool) -> tuple[bytes | None, bytes]:
    """(`_SAME`, or the file's bytes when kept, else b"": the file differs; its first bytes), or
    (None, b"") when there is no file. Never follows a symlink or opens anything but a regular
    file: a symlink, FIFO or folder in the place of an output counts as a differing file with no
    header (so it is opset's only when the manifest lists it), and a file whose size differs is
    not read whole unless kept for `--check`'s diff."""
    try:
        mode = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None, b""
    if not stat.S_ISREG(mode.st_mode):
        return b"", b""
    whole = mode.st_size == len(new) or (keep and mode.st_size <= MAX_DIFF_BYTES)
    data = read_regular_file(path, mode.st_size if whole else _HEAD_BYTES)
    if data == new:
        return _SAME, data[:_HEAD_BYTES]
    return (data if keep and whole else b""), data[:_HEAD_BYTES]
