"""Test helpers for output folders that `opset generate` wrote."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from toolkit.load.manifest import MANIFEST, manifest_bytes


def as_if_written(out: Path, *rels: str) -> None:
    """Record the files `rels` (relative to `out`, under a kind's folder) in the manifest with the
    digest of their current bytes, as if an earlier run had written them: a file whose bytes
    differ from its recorded digest is not opset's to replace or remove (`manifest.wrote`), so a
    test that simulates stale outputs by editing them records the edit here."""
    path = out / MANIFEST
    data = json.loads(path.read_text())
    for rel in rels:
        data["kinds"].setdefault(rel.split("/", 1)[0], {})[rel] = hashlib.sha256(
            (out / rel).read_bytes()
        ).hexdigest()
    path.write_bytes(manifest_bytes(data["kinds"]))  # in opset's own form
