"""Which files of the output folder `opset generate` may replace or remove: only its own.

The manifest (`toolkit.load.manifest`) lists what the last run wrote, per kind, with digests. A
run replaces a file opset wrote (`manifest.wrote`: listed, and its bytes still have the recorded
digest or its generated header), removes one no generator produces any more (stale), and leaves
every other file where it is; a listed file that is neither is refused like any file opset did not
write (`--adopt` lets the run overwrite it, never delete it). A kind the manifest does not list yet (an output folder from before manifests,
or one someone else filled: `out = "."` puts the `docs/` and `python/` kinds beside the project's
own files) is judged by the generated header: header files are opset's; if any other file is
there the run is refused before anything is written, naming the files, unless the invoker passes
`--adopt` (overwrite the files opset generates, leave the others in place). A file opset did not
write in the place of one it generates is refused the same way, with or without a manifest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from toolkit.generate.streaming import Ownership
from toolkit.load.manifest import MANIFEST, Owned, carries_header, head_of, manifest_bytes, wrote
from toolkit.load.output_folder import OutputRefused, listed

__all__ = ["ownership_by_kind", "refuse_foreign", "stale_files", "updated_manifest"]


def ownership_by_kind(manifest: Owned, kinds: Iterable[str], adopt: bool) -> dict[str, Ownership]:
    return {kind: Ownership(None if kind not in manifest else manifest, adopt) for kind in kinds}


def stale_files(
    root: Path, kinds: Sequence[str], before: Iterable[str], produced: Iterable[str], manifest: Owned
) -> tuple[list[str], list[str]]:
    """(opset's files under the kinds' folders that no generator produced: to remove, the other
    files there that opset would have removed but did not write: a listed file without its recorded
    digest or the header, or any file of a kind without a manifest entry but the header files),
    both sorted."""
    made = set(produced)
    remove: list[str] = []
    foreign: list[str] = []
    for rel in sorted(set(before) - made):
        kind = rel.split("/", 1)[0]
        if kind in manifest:
            if wrote(root, manifest, rel):
                remove.append(rel)
            elif rel in manifest[kind]:
                foreign.append(rel)  # listed, but not what opset wrote there: never deleted
            continue  # not listed: someone else's file, left where it is
        head = head_of(root / rel)
        (remove if head is not None and carries_header(head) else foreign).append(rel)
    return remove, foreign


def updated_manifest(manifest: Owned, kinds: Iterable[str], digests: Mapping[str, str]) -> bytes:
    """The manifest after this run: each generated kind lists the files it produced (`digests`,
    {path: sha256}); the kinds this run left alone keep their entries."""
    owned: Owned = {kind: dict(files) for kind, files in manifest.items()}
    for kind in kinds:
        owned[kind] = {rel: sha for rel, sha in digests.items() if rel.startswith(kind + "/")}
    return manifest_bytes(owned)


def refuse_foreign(root: Path, overwritten: Sequence[str], beside: Sequence[str]) -> None:
    """Raise OutputRefused naming the files opset did not write that it would overwrite
    (`overwritten`) or that share a kind's folder with its outputs before any manifest (`beside`)."""
    if not overwritten and not beside:
        return
    shown = str(root).rstrip("/") or "."
    names = [f"{shown}/{rel} (would be overwritten)" for rel in overwritten] + [
        f"{shown}/{rel}" for rel in beside
    ]
    raise OutputRefused(
        f"{listed(names)}: {len(names)} file(s) opset-toolkit did not write (not in {shown}/{MANIFEST} with "
        "the digest of their bytes, no generated header) in the folders `opset generate` writes; nothing "
        "was written",
        "move them out of the way or choose another output folder (--out, `out` in opset.toml); or pass "
        "--adopt to let opset overwrite the files it generates and leave the others in place",
    )
