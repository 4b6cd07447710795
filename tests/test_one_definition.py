"""One definition of each thing (#24): the JSON Schemas' enums follow the Python tables they list
(derived, written by `opset schemas`, never a hand-kept copy), and the conversion of a schema to
an onnx OpSchema is register.py's, which tests use too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.load import schema_files
from toolkit.load.schema_files import DERIVED_ENUMS, json_schema
from toolkit.model import adapter_steps

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh_schemas() -> Iterator[None]:
    """`json_schema` reads the tables anew in the test, and again after it."""
    json_schema.cache_clear()
    yield
    json_schema.cache_clear()


def test_the_repositorys_schemas_are_current(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert main(["schemas", "--check", "-q"]) == 0


def test_a_new_step_kind_reaches_the_schemas(
    fresh_schemas: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Add a kind to the one table: the schemas that list kinds are stale, and say so, while the
    validators already know it; the files are not touched by --check."""
    before = {p.name: p.read_bytes() for p in (REPO / "schemas").glob("*.json")}
    monkeypatch.setitem(adapter_steps.STEP_KINDS, "squash", ((), frozenset()))
    step = json_schema("operator")["$defs"]["adapter_step"]["properties"]["kind"]
    assert step["enum"][-1] == "squash"
    assert "squash" in json_schema("adapter_overlay")["$defs"]["adapter_step"]["properties"]["kind"]["enum"]
    monkeypatch.chdir(REPO)
    assert main(["schemas", "--check"]) == 1
    err = capsys.readouterr().err
    stale = sorted(line.split(":")[0].split("/")[-1] for line in err.splitlines() if "differs" in line)
    assert stale == ["adapter_overlay.schema.json", "operator.schema.json"]
    assert "hint: run `opset schemas`" in err
    assert {p.name: p.read_bytes() for p in (REPO / "schemas").glob("*.json")} == before


def test_a_vendor_copy_gets_the_tables_enums(
    fresh_schemas: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`opset schemas --out DIR` (an editor copy) carries the derived enums too, and only the
    editor kinds (a folder that is not the toolkit's own)."""
    monkeypatch.setitem(adapter_steps.STEP_KINDS, "squash", ((), frozenset()))
    monkeypatch.chdir(REPO)
    assert main(["schemas", "--out", str(tmp_path / "s"), "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [
        "domain.schema.json",
        "operator.schema.json",
        "releases.schema.json",
    ]
    written = json.loads((tmp_path / "s" / "operator.schema.json").read_text(encoding="utf-8"))
    assert "squash" in written["$defs"]["adapter_step"]["properties"]["kind"]["enum"]


def _enums(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], list[Any]]]:
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield path, node["enum"]
        for key, value in node.items():
            yield from _enums(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _enums(value, (*path, str(index)))


def test_no_schema_enum_is_a_hand_kept_table() -> None:
    """Every enum of the packaged schema files that lists one of the tables is derived from it
    (a new copy of a table, in any schema, fails here until DERIVED_ENUMS names it)."""
    tables = {table.name: set(table.values()) for entries in DERIVED_ENUMS.values() for _, table in entries}
    derived = {(kind, path) for kind, entries in DERIVED_ENUMS.items() for path, _ in entries}
    checked = 0
    for file in sorted(schema_files.SCHEMA_DIR.glob("*.schema.json")):
        kind = file.name.removesuffix(".schema.json")
        for path, values in _enums(json.loads(file.read_text(encoding="utf-8"))):
            copies = [name for name, table in tables.items() if set(values) == table]
            if copies:
                assert (kind, path) in derived, f"{file.name} {'/'.join(path)} lists {copies[0]} by hand"
                checked += 1
    assert checked == len(derived)


def test_register_and_tests_share_one_onnx_schema_conversion() -> None:
    onnx = pytest.importorskip("onnx")
    from toolkit.onnx_bridge.register import onnx_schema
    from toolkit.registry.core import load_registry

    registry = load_registry([REPO / "opsets"], cache=False)
    version = registry.operators("com.acme.vision")[0].versions[-1]
    plain, inferring = onnx_schema(version, inference=False), onnx_schema(version)
    for schema in (plain, inferring):
        assert isinstance(schema, onnx.defs.OpSchema)
        assert (schema.name, schema.domain, schema.since_version) == (
            version.name,
            version.domain,
            version.since_version,
        )
        assert [p.name for p in schema.inputs] == [p.name for p in version.inputs]
        assert sorted(schema.attributes) == sorted(a.name for a in version.attributes)
    assert not plain.has_type_and_shape_inference_function
    assert inferring.has_type_and_shape_inference_function
