"""The JSON Schemas of the spec files and other YAML inputs (`toolkit/schemas/<kind>.schema.json`).

An `enum` that lists a Python table (the adapter step kinds, attribute types, severities, ...)
is derived from that table (`DERIVED_ENUMS`): `json_schema` sets it when it reads a schema, and
`opset schemas`, run in the toolkit's own repository, writes it into the packaged files
(`packaged_schema_files`; `opset schemas --check` says whether they are current), so the files
never hold a hand-kept copy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from toolkit.model.adapter_steps import STEP_KINDS
from toolkit.model.diagnostics import Severity
from toolkit.model.examples import EXAMPLE_DTYPES
from toolkit.model.spec import AttrType, Differentiability, ParamOption, Status

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


class _Table:
    """A Python table an enum lists: its values in order, read when asked (so the enum follows
    the table), and its name for the schema's `$comment`."""

    def __init__(self, name: str, read: Callable[[], Any]) -> None:
        self.name, self._read = name, read

    def values(self) -> list[str]:
        return [getattr(item, "value", item) for item in self._read()]


def _enum(table: type) -> _Table:
    return _Table(f"{table.__module__}.{table.__qualname__}", lambda: table)


_STEP_KINDS = _Table("toolkit.model.adapter_steps.STEP_KINDS", lambda: STEP_KINDS)
# kind -> (path to the object that holds the enum, its table)
DERIVED_ENUMS: dict[str, tuple[tuple[tuple[str, ...], _Table], ...]] = {
    "operator": (
        (("$defs", "version", "properties", "status"), _enum(Status)),
        (("$defs", "parameter", "properties", "option"), _enum(ParamOption)),
        (("$defs", "parameter", "properties", "differentiability"), _enum(Differentiability)),
        (("$defs", "attribute", "properties", "type"), _enum(AttrType)),
        (("$defs", "adapter_step", "properties", "kind"), _STEP_KINDS),
        (
            ("$defs", "example_tensor", "properties", "dtype"),
            _Table("toolkit.model.examples.EXAMPLE_DTYPES", lambda: EXAMPLE_DTYPES),
        ),
    ),
    "adapter_overlay": ((("$defs", "adapter_step", "properties", "kind"), _STEP_KINDS),),
    "findings": ((("$defs", "severity"), _enum(Severity)),),
    "check_model_findings": ((("$defs", "finding", "properties", "severity"), _enum(Severity)),),
}


def _with_derived_enums(kind: str, schema: dict[str, Any]) -> dict[str, Any]:
    for path, table in DERIVED_ENUMS.get(kind, ()):
        holder = schema
        for key in path:
            holder = holder[key]
        holder["enum"] = table.values()
        holder["$comment"] = f"enum: {table.name}, written by `opset schemas`; do not edit"
    return schema


@cache
def json_schema(kind: str) -> dict[str, Any]:
    with open(SCHEMA_DIR / f"{kind}.schema.json", encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return _with_derived_enums(kind, schema)


def _file_bytes(schema: dict[str, Any]) -> bytes:
    return (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


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
        files[f"{kind}.schema.json"] = _file_bytes(schema)
    return files


def packaged_schema_files() -> dict[str, bytes]:
    """The toolkit's own `schemas/` files that hold derived enums, as `opset schemas` writes them
    when the folder it writes is that one (the editor kinds as `editor_schema_files` has them)."""
    files = {f"{kind}.schema.json": _file_bytes(json_schema(kind)) for kind in DERIVED_ENUMS}
    return {**files, **editor_schema_files()}
