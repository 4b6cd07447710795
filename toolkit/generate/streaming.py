"""One generator kind at a time: compare each file with the disk as it comes and stage the
changed ones (`toolkit.load.writer.Staging`), keeping only paths, digests and (for `--check`) the
differing bytes. `toolkit.generate.pipeline` commits what this stages; `toolkit.generate.
parallel_kinds` runs some kinds in a second process with the same function."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.generate import freshness
from toolkit.generate.context import GenerateContext
from toolkit.generate.running import run_generators
from toolkit.load.writer import Change, Staging, unlisted
from toolkit.registry.core import Registry

__all__ = ["KindOutput", "stream_kind"]


@dataclass
class KindOutput:
    """What one kind produced, relative to the output root."""

    produced: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)  # new and changed files, in path order
    overlay: dict[str, bytes] = field(default_factory=dict)  # check mode: the bytes that differ
    digests: dict[str, str] = field(default_factory=dict)  # path -> freshness.file_digest
    staged: list[tuple[str, str]] = field(default_factory=list)  # (temporary, target) written
    units: dict[str, dict[str, object]] = field(default_factory=dict)  # its incremental units (memo)


def stream_kind(
    root: Path,
    registry: Registry,
    context: GenerateContext,
    kind: str,
    *,
    check: bool,
    digests: bool,
    existing: Container[str] | None = None,
) -> KindOutput:
    """Run the generator of `kind`; compare (check) or stage (write) each of its files.
    `existing`: the files under `root` before the run (relative paths), when known; a file not
    in it is new without trying to read it.

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
            if digests:
                out.digests[rel] = freshness.file_digest(data)
            absent = existing is not None and rel not in existing and not unlisted(rel)
            old = None if absent else _read_existing(root / rel)
            if old == data:
                continue
            if staging is None:
                out.changes.append(Change(rel, old, data))
                out.overlay[rel] = data
            else:
                staging.stage(rel, data)
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


def _read_existing(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
