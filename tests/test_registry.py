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
        [
            sys.executable,
            "-m",
            "toolkit",
            "show",
            "com.acme.vision.Normalize",
            "--opset",
            "2",
            "--format",
            "json",
        ],
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


# --------------------------------------------------------------------------- the registry cache


@pytest.fixture()
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(folder))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.delenv("OPSET_TOOLKIT_CACHE_MAX_MB", raising=False)
    return folder


def _tree_with_a_warning(tmp_path: Path) -> Path:
    import shutil

    tree = tmp_path / "opsets"
    shutil.copytree(REPO / "opsets", tree)
    blur = tree / "com.acme.vision" / "Blur.yaml"
    blur.write_text(blur.read_text("utf-8").replace("doc: Box blur", "doc: <b>Box</b> blur", 1), "utf-8")
    return tree


def test_registry_cache_holds_data_and_gives_back_the_same_result(tmp_path: Path, cache_folder: Path) -> None:
    from test_codec import differences

    from toolkit.load.result_cache import MAGIC
    from toolkit.registry.core import load_registry

    tree = _tree_with_a_warning(tmp_path)
    first = load_registry([tree], strict=False)
    assert any(d.rule == "DOC-HTML" for d in first.diagnostics)
    entries = sorted(cache_folder.iterdir())
    assert [p.suffix for p in entries] == [".entry"]
    assert entries[0].read_bytes().startswith(MAGIC)
    again = load_registry([tree], strict=False)
    assert differences(first.specs, again.specs) == []
    assert again.diagnostics == first.diagnostics
    assert [d.hint for d in again.diagnostics] == [d.hint for d in first.diagnostics]


def test_registry_cache_key_is_the_content_not_the_file_time(tmp_path: Path, cache_folder: Path) -> None:
    import os

    from toolkit.registry.core import load_registry

    tree = _tree_with_a_warning(tmp_path)
    blur = tree / "com.acme.vision" / "Blur.yaml"
    assert load_registry([tree], strict=False).operator("Blur", "com.acme.vision")
    stat = blur.stat()
    text = blur.read_text("utf-8")
    renamed = text.replace("operator: Blur", "operator: Blux")
    assert len(renamed) == len(text) and renamed != text
    blur.write_text(renamed, "utf-8")
    os.utime(blur, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time, new content
    diagnostics = load_registry([tree], strict=False).diagnostics
    assert any(d.rule == "FILE-PLACEMENT" for d in diagnostics)


def test_a_damaged_or_foreign_cache_entry_is_a_miss(tmp_path: Path, cache_folder: Path) -> None:
    import pickle

    from toolkit.registry.core import load_registry

    tree = _tree_with_a_warning(tmp_path)
    expected = load_registry([tree], strict=False)
    (entry,) = cache_folder.iterdir()
    marker = tmp_path / "executed"

    class Evil:
        def __reduce__(self) -> tuple[object, ...]:
            return (Path.write_text, (marker, "pwned"))

    for payload in (b"", entry.read_bytes()[:-7], b"garbage" * 10, pickle.dumps(Evil())):
        entry.write_bytes(payload)
        loaded = load_registry([tree], strict=False)
        assert loaded.specs == expected.specs and loaded.diagnostics == expected.diagnostics
        assert not marker.exists()


def test_no_cache_writes_nothing(tmp_path: Path, cache_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.registry.core import load_registry

    tree = _tree_with_a_warning(tmp_path)
    load_registry([tree], strict=False, cache=False)
    assert not cache_folder.exists()
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    load_registry([tree], strict=False)
    assert not cache_folder.exists()


def test_cache_is_pruned_least_recently_used_first(
    cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from toolkit.load import cache

    monkeypatch.setenv("OPSET_TOOLKIT_CACHE_MAX_MB", str(3.5 / 1024))  # 3.5 KiB
    cache_folder.mkdir()
    (cache_folder / "old.pickle").write_bytes(b"x")  # what earlier versions left: removed
    (cache_folder / "onnx-catalog-1").mkdir()  # other kinds of files are left alone
    for number, name in enumerate(["a", "b", "c"]):
        cache.write_entry(name, b"x" * 1024)
        os.utime(cache.entry_path(name), (1000 + number, 1000 + number))
    monkeypatch.setattr(cache, "_working_set", [])  # what follows is another command
    assert cache.read_entry("a") == b"x" * 1024  # used: now the most recent
    cache.write_entry("d", b"x" * 1024)
    assert sorted(p.name for p in cache_folder.iterdir()) == [
        "a.entry",
        "c.entry",
        "d.entry",
        "onnx-catalog-1",
    ]
    cache.write_entry("e", b"x" * 4096)  # larger than the cap on its own: not stored, nothing goes
    assert sorted(p.name for p in cache_folder.iterdir()) == [
        "a.entry",
        "c.entry",
        "d.entry",
        "onnx-catalog-1",
    ]


def test_toolkit_neither_unpickles_nor_executes_from_the_cache() -> None:
    """No marshal, no exec, and no pickle: the only pickles are those `concurrent.futures` sends
    between the toolkit's process pool (`load.parallel`) and this process, never from disk."""
    import re

    offenders = []
    for path in (REPO / "toolkit").rglob("*.py"):
        if path.parent.name == "proto":
            continue
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(REPO).as_posix()
        # the builtins, not a method of that name (the shape engine's `Run.eval`)
        if re.search(r"^\s*(import marshal|from marshal)|(?<![.\w])(?<!def )(exec|eval)\(", text, re.M):
            offenders.append(rel)
        if re.search(r"^\s*(import pickle|from pickle|import copyreg)|\bpickle\.loads?\(", text, re.M):
            offenders.append(rel)
    assert offenders == []


def test_cli_no_cache_turns_every_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--no-cache` writes nothing to the cache folder, also for caches the command does not pass
    `cache=` to (the onnx catalog import of check-model), and leaves the environment as it was."""
    import os

    from toolkit.cli import main

    pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Relu", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    specs = str(Path(__file__).resolve().parent.parent / "opsets")
    assert main(["show", "--no-cache", "--specs", specs, "org.example.abc.A"]) == 0
    assert main(["check-model", "--no-cache", str(path)]) == 0
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*"))
    assert "OPSET_TOOLKIT_NO_CACHE" not in os.environ
    assert main(["show", "--specs", specs, "org.example.abc.A"]) == 0  # caching on again
    assert any((tmp_path / "cache").rglob("*.entry"))
