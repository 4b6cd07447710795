"""Incremental generation: reuse a domain's rendered files when its inputs are unchanged.

A generator kind that renders each domain on its own (python: the domain's package; proto: its
operator set and schema documents; docs: the domain's pages) asks the memo before rendering a
domain. The unit's inputs are
content-addressed: the bytes of every spec file the domain was built from (its domain file and
operator files; specs never refer across domains) and of every other file in their folders, plus the kind, the source label of the
headers and the toolkit stamp. When the previous successful run recorded the same inputs digest
for the unit, and the files it wrote for it are still on disk with the digests it recorded,
those bytes are exactly what rendering would produce, and they are returned instead.

The record lives in the generate freshness record (`toolkit.generate.freshness`, data only);
tests/test_generate_incremental.py checks that a run reusing units writes the same bytes as a
full run, after edits of several kinds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from toolkit.load.files import MAX_FILE_BYTES, SpecRoots, read_regular_file
from toolkit.registry.core import toolkit_stamp

__all__ = ["RenderMemo", "Unit"]

Unit = dict[str, object]  # {"inputs": digest, "files": {path: sha256}}


def _sha(data: bytes) -> str:
    import hashlib  # imported on use: a cold run with the cache off hashes nothing

    return hashlib.sha256(data).hexdigest()


class RenderMemo:
    """Units of the previous run (`previous`) that may be reused, and the units of this one."""

    def __init__(
        self,
        out: Path,
        source: str,
        previous: Mapping[str, Unit] | None = None,
        roots: SpecRoots | None = None,
    ) -> None:
        self._out = out
        # the spec roots: a file linked out of them is not read (its digest is "unreadable"; no
        # output depends on it, as the loader does not read it either)
        self._roots = roots
        self._source = source
        self._previous = dict(previous or {})
        self._file_digests: dict[str, str] = {}
        self.units: dict[str, Unit] = {}
        self.reused: list[str] = []

    def _is_out(self, path: str) -> bool:
        return os.path.abspath(path) == os.path.abspath(self._out)

    def inputs(self, kind: str, files: Iterable[str]) -> str:
        """The inputs digest of a unit of `kind` built from the spec `files`, and every other file
        in their folders and below (data a spec names, such as example tensors, lives there)."""
        import hashlib  # imported on use: a cold run with the cache off hashes nothing

        # the working directory too: spec paths in the outputs are written relative to it
        digest = hashlib.sha256(f"{kind}\0{self._source}\0{toolkit_stamp()}\0{os.getcwd()}\0".encode())
        names = set(files)
        for folder in {os.path.dirname(name) or "." for name in names}:
            for dirpath, dirs, entries in os.walk(folder):
                # hidden folders (.git) and the output folder are never spec data
                dirs[:] = [
                    d for d in dirs if not d.startswith(".") and not self._is_out(os.path.join(dirpath, d))
                ]
                names.update(os.path.join(dirpath, entry) for entry in entries)
        for name in sorted(names):
            found = self._file_digests.get(name)
            if found is None:
                try:
                    found = _sha(read_regular_file(Path(name), MAX_FILE_BYTES, self._roots))
                except OSError:
                    found = "unreadable"
                self._file_digests[name] = found
            digest.update(f"{os.path.abspath(name)}\0{found}\0".encode())
        return digest.hexdigest()

    def reuse(self, unit: str, inputs: str) -> dict[str, bytes] | None:
        """The files recorded for `unit` when its inputs are `inputs` and they are intact on disk."""
        previous = self._previous.get(unit)
        if previous is None or previous.get("inputs") != inputs:
            return None
        recorded = previous.get("files")
        if not isinstance(recorded, dict):
            return None
        files: dict[str, bytes] = {}
        for path, sha in recorded.items():
            try:
                data = read_regular_file(self._out / path, MAX_FILE_BYTES)
            except OSError:
                return None
            if _sha(data) != sha:
                return None
            files[path] = data
        self.units[unit] = {"inputs": inputs, "files": dict(recorded)}
        self.reused.append(unit)
        return files

    def of_kind(self, kind: str) -> dict[str, Unit]:
        """This run's units of `kind` (a second process sends them back with its files)."""
        return {k: v for k, v in self.units.items() if k.startswith(f"{kind}:")}

    def remember(self, unit: str, inputs: str, files: Mapping[str, bytes]) -> None:
        self.units[unit] = {"inputs": inputs, "files": {path: _sha(data) for path, data in files.items()}}

    def render(
        self, kind: str, name: str, files: Iterable[str], build: Callable[[], dict[str, bytes]]
    ) -> dict[str, bytes]:
        """`build()`'s files for unit `name` of `kind` (built from spec `files`), or the recorded
        ones when its inputs are unchanged."""
        unit = f"{kind}:{name}"
        inputs = self.inputs(kind, files)
        found = self.reuse(unit, inputs)
        if found is None:
            found = build()
            self.remember(unit, inputs, found)
        return found
