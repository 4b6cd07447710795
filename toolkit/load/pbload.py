"""Load a Registry from generated protobuf schema documents (`proto/<domain>/schemas.pb`).

`opset generate` writes, per domain, an `OperatorSchemaSetProto` (`schemas.pb`) carrying every
operator version with its full signature and source locations (see
`toolkit.generate.proto_docs`). This module reads those documents back, so that a registry can be
rebuilt from `.pb` files alone, equal to the one loaded from YAML (releases are not part of the
documents and come back empty).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from toolkit.load.discovery import SPEC_SUFFIXES, walk
from toolkit.model.diagnostics import Diagnostic, SpecError
from toolkit.model.spec import Location, SpecSet

__all__ = [
    "SCHEMAS_FILE",
    "find_schema_documents",
    "is_pb_tree",
    "load_specset_from_pb",
]

SCHEMAS_FILE = "schemas.pb"


def find_schema_documents(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every `schemas.pb` under the given folders (or the files themselves), sorted."""
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.add(path)
        elif path.is_dir():
            found.update(p for p in walk(path, SCHEMAS_FILE.__eq__) if p.is_file())
        else:
            raise SpecError([Diagnostic("PB-LOAD", "no such file or folder", Location(str(path)))])
    return sorted(found, key=lambda p: p.as_posix())


def is_pb_tree(path: str | os.PathLike[str]) -> bool:
    """True for a `.pb` file, or a folder holding schema documents and no YAML specs."""
    p = Path(path)
    if p.is_file():
        return p.suffix == ".pb"
    if not p.is_dir():
        return False
    names = {f.name for f in walk(p, lambda name: name == SCHEMAS_FILE or name.endswith(SPEC_SUFFIXES))}
    return SCHEMAS_FILE in names and len(names) == 1


def load_specset_from_pb(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> SpecSet:
    # protobuf is imported only when a .pb tree is read (is_pb_tree is asked on every load).
    from toolkit.model.codec import specset_from_schema_documents

    path_list = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    files = find_schema_documents(path_list)
    if not files:
        shown = ", ".join(os.fspath(p) for p in path_list)
        raise SpecError(
            [
                Diagnostic(
                    "PB-LOAD",
                    f"no {SCHEMAS_FILE} schema documents found",
                    Location(shown),
                    hint="point at the proto/ folder written by `opset generate`",
                )
            ]
        )
    blobs: list[bytes] = []
    for file in files:
        blobs.append(file.read_bytes())
    try:
        specs = specset_from_schema_documents(blobs)
    except Exception as exc:  # a DecodeError or a foreign document: say which file set
        raise SpecError(
            [Diagnostic("PB-LOAD", f"cannot read schema documents: {exc}", Location(os.fspath(files[0])))]
        ) from exc
    names = [d.name for d in specs.domains]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SpecError(
            [
                Diagnostic(
                    "PB-LOAD", f"domain {d!r} appears in more than one schema document", Location("pb")
                )
                for d in duplicates
            ]
        )
    return specs
