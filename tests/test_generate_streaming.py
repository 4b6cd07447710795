"""`opset generate` streams: one kind's output at a time is compared and staged (toolkit/load/
writer.py `Staging`), and the result still reports exactly what the in-memory plan would."""

from __future__ import annotations

from pathlib import Path

from toolkit.generate import GenerateContext
from toolkit.generate.pipeline import generate_tree, plan_outputs, run_generators
from toolkit.load import writer
from toolkit.registry.core import Registry

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"
KINDS = ["docs", "proto", "python"]


def _generate(out: Path, registry: Registry, *, check: bool = False):  # type: ignore[no-untyped-def]
    return generate_tree([OPSETS], out, kinds=KINDS, registry=registry, source="opsets", check=check)


def test_streamed_result_matches_the_in_memory_plan(tmp_path: Path, shipped_registry: Registry) -> None:
    out = tmp_path / "gen"
    _generate(out, shipped_registry)
    files = run_generators(shipped_registry, GenerateContext(source="opsets"), KINDS)
    # damage: one file changed, one removed, one stray file in a generated kind's folder
    changed, removed = "proto/org.example.abc/opset_1.textproto", "docs/index.md"
    (out / changed).write_text("changed")
    (out / removed).unlink()
    (out / "python" / "stray.py").write_text("x = 1\n")
    expected = plan_outputs(out, files, KINDS)
    checked = _generate(out, shipped_registry, check=True)
    assert checked.changes == tuple(expected)  # same paths, same old and new bytes, same order
    assert dict(checked.files) == files
    written = _generate(out, shipped_registry)
    assert [(c.path, c.old is None, c.new is None) for c in written.changes] == [
        (c.path, c.old is None, c.new is None) for c in expected
    ]
    assert {p: (out / p).read_bytes() for p in files} == files
    assert not (out / "python" / "stray.py").exists()
    assert dict(written.files) == files


def test_temporaries_of_a_killed_run_are_swept(tmp_path: Path, shipped_registry: Registry) -> None:
    out = tmp_path / "gen"
    _generate(out, shipped_registry)
    # a run killed while staging leaves temporaries and no journal: never part of the tree
    litter = out / "proto" / "org.example.abc" / ("opset_9.pb" + writer.TMP_SUFFIX)
    litter.write_bytes(b"half a file")
    assert not _generate(out, shipped_registry).changes
    assert not litter.exists()
    assert not list(out.rglob("*" + writer.TMP_SUFFIX))
