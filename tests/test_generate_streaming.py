"""`opset generate` streams: one kind's output at a time is compared and staged (toolkit/load/
writer.py `Staging`), and the result still reports exactly what the in-memory plan would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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


def _damage(out: Path) -> None:
    (out / "proto/org.example.abc/opset_1.textproto").write_text("changed")
    (out / "docs/index.md").unlink()
    (out / "python" / "stray.py").write_text("x = 1\n")


def test_two_processes_give_the_result_of_one(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """parallel_kinds (python here, the other kinds in a forked child) == the plain sequential run."""
    results = {}
    for jobs in ("1", "2"):
        monkeypatch.setenv("OPSET_TOOLKIT_JOBS", jobs)
        monkeypatch.setattr(os, "cpu_count", lambda: 2)
        out = tmp_path / f"gen{jobs}"
        _generate(out, shipped_registry)
        _damage(out)
        checked = _generate(out, shipped_registry, check=True)
        written = _generate(out, shipped_registry)
        results[jobs] = (checked.changes, dict(checked.files), [(c.path, c.old is None, c.new is None) for c in written.changes])
        assert not list(out.rglob("*" + writer.TMP_SUFFIX))
    assert results["1"] == results["2"]


def test_a_failure_in_the_second_process_leaves_the_outputs_untouched(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.generate import docs as docs_generator
    from toolkit.generate.pipeline import GeneratorError

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.delenv("OPSET_TOOLKIT_JOBS", raising=False)
    out = tmp_path / "gen"
    _generate(out, shipped_registry)
    (out / "proto/org.example.abc/opset_1.textproto").write_text("changed")  # a write would fix it
    before = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(*_args: object, **_kwargs: object) -> dict[str, str]:
        raise RuntimeError("boom")

    monkeypatch.setattr(docs_generator, "render_docs", broken)
    with pytest.raises(GeneratorError, match="generator 'docs' failed"):
        _generate(out, shipped_registry)
    after = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
