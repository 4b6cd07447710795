"""Registry resolution on the shipped specs: the A/B/C example of Versioning.md and the vendor domain."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.registry.core import Registry, SchemaNotFound

REPO = Path(__file__).resolve().parent.parent
SEED = REPO.parent / "shared" / "seeds" / "000_a69c0c1c3f2d28aa.txt"  # ONNX Versioning.md, beside the repo

# Versioning.md, "Operator sets" example: since_version of A, B, C in opsets 1-4
# (None = not in the opset). Transcribed from the document.
VERSIONING_EXAMPLE = {
    "A": [1, 1, 3, None],
    "B": [None, 2, 2, 2],
    "C": [None, None, 3, 4],
}
INVENTORIES = {1: {"A"}, 2: {"A", "B"}, 3: {"A", "B", "C"}, 4: {"B", "C"}}


def test_abc_example_resolution(shipped_registry: Registry) -> None:
    for op, cells in VERSIONING_EXAMPLE.items():
        for opset, expected in enumerate(cells, start=1):
            schema = shipped_registry.find_schema(op, opset, "org.example.abc")
            assert (schema.since_version if schema else None) == expected, (op, opset)
    for opset, names in INVENTORIES.items():
        assert set(shipped_registry.inventory("org.example.abc", opset)) == names


def test_inventory_command_prints_the_documents_table() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "inventory", "org.example.abc", "--specs", "opsets"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    rows = [line.split("|") for line in proc.stdout.strip().splitlines()]
    assert rows[0] == ["Operator", "OpSet 1", "OpSet 2", "OpSet 3", "OpSet 4"]
    assert rows[1] == ["-"] * 5
    table = {row[0]: row[1:] for row in rows[2:]}
    assert set(table) == set(VERSIONING_EXAMPLE)
    for op, cells in VERSIONING_EXAMPLE.items():
        previous: int | None = None
        for printed, value in zip(table[op], cells):
            text = "-" if value is None else str(value)
            changed = value != previous
            assert printed == (f"**{text}**" if changed else text), (op, printed, value)
            previous = value


def test_inventory_matches_the_table_in_versioning_md() -> None:
    """Cell by cell against the table as the document itself writes it (when the seed is at hand)."""
    if not SEED.is_file():
        pytest.skip(f"{SEED} is not beside this checkout")
    text = SEED.read_text(encoding="utf-8")
    start = text.index("Operator|OpSet 1|OpSet 2|OpSet 3|OpSet 4")
    document = ["|".join(cell.strip() for cell in line.split("|")) for line in text[start:].splitlines()[:5]]
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "inventory", "org.example.abc", "--specs", "opsets"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert proc.stdout.strip().splitlines() == document


def test_inventory_json_for_one_opset() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "inventory", "com.acme.vision", "--opset", "3", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    inventory = json.loads(proc.stdout)
    assert "Blur" not in inventory  # removed in 3
    assert inventory["Normalize"] == 3 and inventory["FusedConv"] == 2 and inventory["RoIAlignRotated"] == 3


def test_inheritance_is_resolved(shipped_registry: Registry) -> None:
    v1 = shipped_registry.get_schema("FusedConv", 1, "com.acme.vision")
    v2 = shipped_registry.get_schema("FusedConv", 2, "com.acme.vision")
    assert v2.based_on == 1
    assert [a.name for a in v2.attributes] == [a.name for a in v1.attributes] + ["activation"]
    assert v2.inputs == v1.inputs
    assert "tensor(bfloat16)" in v2.constraint_map["T"].allowed
    assert "tensor(bfloat16)" not in v1.constraint_map["T"].allowed
    assert v2.constraint_map["T"].type_sets == ("float_types_bf16",)
    normalize = shipped_registry.get_schema("Normalize", 3, "com.acme.vision")
    assert normalize.attributes == () and [p.name for p in normalize.inputs] == ["X", "mean", "std"]


def test_removed_and_deprecated(shipped_registry: Registry) -> None:
    assert shipped_registry.find_schema("Blur", 2, "com.acme.vision") is not None
    assert shipped_registry.find_schema("Blur", 3, "com.acme.vision") is None
    with pytest.raises(SchemaNotFound):
        shipped_registry.get_schema("Blur", 3, "com.acme.vision")
    assert shipped_registry.get_schema("LegacyResize", 3, "com.acme.vision").deprecated
    assert not shipped_registry.get_schema("LegacyResize", 1, "com.acme.vision").deprecated
    assert shipped_registry.get_schema("RoIAlignRotated", 3, "com.acme.vision").experimental


def test_arity_bounds(shipped_registry: Registry) -> None:
    nms = shipped_registry.get_schema("NonMaxSuppressionLite", 2, "com.acme.vision")
    assert (nms.min_input, nms.max_input) == (2, 3)
    concat = shipped_registry.get_schema("ConcatFeatures", 1, "com.acme.vision")
    assert concat.min_input == 2 and concat.max_input == 2**31 - 1
    split = shipped_registry.get_schema("SplitChannels", 1, "com.acme.vision")
    assert (split.min_input, split.max_input, split.min_output) == (1, 2, 1)


def test_show_command_resolves_by_opset() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "show", "com.acme.vision.Normalize", "--opset", "2", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    data = json.loads(proc.stdout)
    assert data["since_version"] == 1 and set(data["attributes"]) == {"mean", "std"}
    assert data["attributes"]["mean"]["required"] is True


def test_every_shipped_spec_names_its_json_schema() -> None:
    for path in (REPO / "opsets").rglob("*.yaml"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("=", 1)[1]).resolve()
        assert target.is_file(), (path, target)
