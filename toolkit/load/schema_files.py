"""The JSON Schemas of the spec files and other YAML inputs (`toolkit/schemas/<kind>.schema.json`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@cache
def json_schema(kind: str) -> dict[str, Any]:
    with open(SCHEMA_DIR / f"{kind}.schema.json", encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


# The schemas editors need for spec files, written into a spec repository by `opset schemas`.
EDITOR_KINDS = ("operator", "domain", "releases")


def editor_schema_files() -> dict[str, bytes]:
    """`<kind>.schema.json` for each spec file kind, as written into a vendor repository for
    editors (`# yaml-language-server: $schema=<relative path>` modelines). The copies have no
    `$id`: a schema's internal `$ref`s then resolve against the file the editor loaded, which
    works offline; the packaged schemas' `urn:` ids are for the toolkit's own validators, and an
    editor cannot load a `urn:`."""
    files = {}
    for kind in EDITOR_KINDS:
        schema = {k: v for k, v in json_schema(kind).items() if k != "$id"}
        schema = {
            "$schema": schema.pop("$schema"),
            "$comment": "written by `opset schemas` from the installed opset-toolkit; do not edit "
            "(`opset schemas --check` says whether it is current)",
            **schema,
        }
        files[f"{kind}.schema.json"] = (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode(
            "utf-8"
        )
    return files
