"""`opset generate` streams: one kind's output at a time is compared and staged (toolkit/load/
writer.py `Staging`), and the result still reports exactly what the in-memory plan would."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from output_helpers import as_if_written

from toolkit.generate import GenerateContext
from toolkit.generate.pipeline import generate_tree, plan_outputs, run_generators
from toolkit.load import writer
from toolkit.load.manifest import MANIFEST
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
    # damage: one file changed, one removed (stale files of the manifest: tests/test_generate.py)
    changed, removed = "proto/org.example.abc/opset_1.textproto", "docs/index.md"
    (out / changed).write_text("changed")
    as_if_written(out, changed)  # an older run's output, not a hand edit
    (out / removed).unlink()
    expected = plan_outputs(out, files, KINDS)
    checked = _generate(out, shipped_registry, check=True)
    # same paths, same old and new bytes, same order; and the manifest (`as_if_written` changed it)
    assert checked.changes == (*expected, checked.changes[-1]) and checked.changes[-1].path == MANIFEST
    assert dict(checked.files) == files
    written = _generate(out, shipped_registry)
    assert [(c.path, c.old is None, c.new is None) for c in written.changes] == [
        (c.path, c.old is None, c.new is None) for c in (*expected, checked.changes[-1])
    ]
    assert {p: (out / p).read_bytes() for p in files} == files
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
    as_if_written(out, "proto/org.example.abc/opset_1.textproto")  # an older run's output
    (out / "docs/index.md").unlink()
    (out / "python" / "stray.py").write_text("x = 1\n")


def test_two_processes_give_the_result_of_one(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kinds shared out between this process and the process pool == the plain sequential run."""
    results = {}
    for jobs in ("1", "2"):
        monkeypatch.setenv("OPSET_TOOLKIT_JOBS", jobs)
        monkeypatch.setattr(os, "cpu_count", lambda: 2)
        out = tmp_path / f"gen{jobs}"
        _generate(out, shipped_registry)
        _damage(out)
        checked = _generate(out, shipped_registry, check=True)
        written = _generate(out, shipped_registry)
        results[jobs] = (
            checked.changes,
            dict(checked.files),
            [(c.path, c.old is None, c.new is None) for c in written.changes],
        )
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

    monkeypatch.setattr(docs_generator, "render_files", broken)
    with pytest.raises(GeneratorError, match="generator 'docs' failed"):
        _generate(out, shipped_registry)
    after = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


# -- load, then check, then generate ---------------------------------------------------------------

BAD_INPUTS = Path(__file__).parent / "bad_inputs"
# Trees that read without error but fail the semantic checks (no generator runs for them:
# tests/test_parallel_pool.py).
CHECK_FAILURES = ["duplicate-input-name", "function-body", "type-param-undeclared", "versions-out-of-order"]


@pytest.fixture()
def two_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.delenv("OPSET_TOOLKIT_JOBS", raising=False)


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under root."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None for p in root.rglob("*")}


@pytest.mark.parametrize("case", CHECK_FAILURES)
def test_check_errors_leave_no_trace(
    case: str, tmp_path: Path, two_processes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.cli import main

    specs = BAD_INPUTS / case
    assert main(["validate", str(specs)]) == 1
    shown = capsys.readouterr()
    expected = [line for line in (shown.out + shown.err).splitlines() if "error[" in line]
    assert expected
    fresh = tmp_path / "fresh"
    assert main(["generate", "--specs", str(specs), "--out", str(fresh), "--no-cache"]) == 1
    reported = capsys.readouterr().err
    assert all(line in reported for line in expected)
    assert not fresh.exists()  # not even an empty output folder
    existing = tmp_path / "existing"
    generate_tree([OPSETS], existing, source="opsets")
    (existing / "docs/index.md").write_text("changed")  # a write would fix it
    before = _tree(existing)
    assert main(["generate", "--specs", str(specs), "--out", str(existing), "--no-cache"]) == 1
    assert _tree(existing) == before


def test_warnings_of_the_checks_reach_the_result(tmp_path: Path, two_processes: None) -> None:
    """The result carries the warnings of the checks (a domain doc's raw HTML is checked after the
    read), as `load_registry` gives them, however many processes generate."""
    from toolkit.registry.core import load_registry

    specs = tmp_path / "specs"
    shutil.copytree(OPSETS, specs)
    domain = specs / "org.example.abc" / "domain.yaml"
    domain.write_text(domain.read_text().replace("A tiny domain", "A <b>tiny</b> domain"))
    expected = load_registry([specs], cache=False).diagnostics
    assert any(d.rule.startswith("DOC-") for d in expected)
    for jobs in ("1", "2"):
        os.environ["OPSET_TOOLKIT_JOBS"] = jobs
        try:
            result = generate_tree([specs], tmp_path / f"gen{jobs}", cache=False)
        finally:
            del os.environ["OPSET_TOOLKIT_JOBS"]
        assert result.diagnostics == expected


def test_files_known_absent_are_not_read_but_build_folders_are_not_known(tmp_path: Path) -> None:
    """`existing` lets a kind skip reading files the walk did not find; the walk skips build
    output folders (`build/`, `__pycache__/`), so a file there is read and compared all the same."""
    from toolkit.generate.streaming import stream_kind
    from toolkit.model.spec import SpecSet
    from toolkit.registry.core import Registry

    def generator(_registry: Registry, _context: GenerateContext) -> dict[str, bytes]:
        return {"extra/pkg/build/kept.txt": b"same\n", "extra/pkg/new.txt": b"new\n"}

    from toolkit.generate import GENERATORS

    GENERATORS["extra"] = generator
    try:
        root = tmp_path / "gen"
        (root / "extra/pkg/build").mkdir(parents=True)
        (root / "extra/pkg/build/kept.txt").write_bytes(b"same\n")
        existing = writer.existing_files(root, ["extra"])
        assert existing == set()  # the walk skips build/
        empty = Registry(SpecSet(domains=(), operators=()))
        out = stream_kind(
            root, empty, GenerateContext(source="t"), "extra", check=True, digests=False, existing=existing
        )
        assert [c.path for c in out.changes] == ["extra/pkg/new.txt"]
    finally:
        del GENERATORS["extra"]


# -- a kind's first run stages its folder whole --------------------------------------------------


def test_a_first_run_renames_each_kind_folder_in_once(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Into a root where no kind has a folder yet, each kind is staged in a temporary folder and
    renamed in whole: the journal goes in, then one rename per kind; the files equal a run over
    an existing tree."""
    real_replace = os.replace
    renamed: list[str] = []

    def counting(src: str, dst: str) -> None:
        renamed.append(os.path.basename(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", counting)
    out = tmp_path / "gen"
    _generate(out, shipped_registry)
    monkeypatch.setattr(os, "replace", real_replace)
    assert sorted(renamed) == sorted([writer.JOURNAL, MANIFEST, *KINDS])
    assert not list(tmp_path.rglob("*" + writer.TMP_SUFFIX))
    files = run_generators(shipped_registry, GenerateContext(source="opsets"), KINDS)
    assert _tree(out) == {**dict.fromkeys(_folders(files)), **files, MANIFEST: (out / MANIFEST).read_bytes()}


def _folders(files: dict[str, bytes]) -> set[str]:
    return {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)}


def test_a_first_run_killed_after_its_journal_is_rolled_forward(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected_root = tmp_path / "expected"
    _generate(expected_root, shipped_registry)
    real_replace = os.replace
    state = {"n": 0}

    def dying_replace(src: str, dst: str) -> None:
        state["n"] += 1  # the journal goes in first, then one kind's folder; then the kill
        if state["n"] == 3:
            raise KeyboardInterrupt("killed")
        real_replace(src, dst)

    out = tmp_path / "gen"
    monkeypatch.setattr(os, "replace", dying_replace)
    with pytest.raises(KeyboardInterrupt):
        _generate(out, shipped_registry)
    monkeypatch.setattr(os, "replace", real_replace)
    assert (out / writer.JOURNAL).exists() and list(out.glob("*" + writer.TMP_SUFFIX))
    written = _generate(out, shipped_registry)  # rolled forward first (a --check only reports it)
    assert not written.changes and not written.left_alone
    assert _tree(out) == _tree(expected_root)


def test_folders_of_a_first_run_killed_while_staging_are_swept(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "gen"
    (out / ("docs" + writer.TMP_SUFFIX) / "ops").mkdir(parents=True)  # no journal: never committed
    (out / ("docs" + writer.TMP_SUFFIX) / "ops" / "half.md").write_text("half a page")
    _generate(out, shipped_registry)
    assert not list(out.glob("*" + writer.TMP_SUFFIX))
    assert not (out / "docs" / "ops" / "half.md").exists()


def test_a_failed_first_run_leaves_no_folder(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.generate import docs as docs_generator
    from toolkit.generate.pipeline import GeneratorError

    def broken(*_args: object, **_kwargs: object) -> dict[str, str]:
        raise RuntimeError("boom")

    monkeypatch.setattr(docs_generator, "render_files", broken)
    out = tmp_path / "gen"
    with pytest.raises(GeneratorError):
        _generate(out, shipped_registry)
    assert not out.exists()
