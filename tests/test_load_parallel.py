"""The loader's fast path (`toolkit.load.parallel`: GC paused, files shared out between this
process and a forked one, each running the per-operator checks on what it built) gives the same
LoadResult as the plain sequential loop followed by every check: same specs, field by field
(locations included), and the same diagnostics in the same order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_codec import differences

from toolkit.checks.docs import check_docs
from toolkit.checks.run import load_specs
from toolkit.checks.spec import check_specs
from toolkit.load import parallel
from toolkit.load.discovery import discover, display_path
from toolkit.load.loader import dedupe, load_files, read_specs
from toolkit.load.result import LoadResult
from toolkit.model.diagnostics import sort_key

TESTS = Path(__file__).resolve().parent
# The shipped specs and the bad-input corpus: valid files and every kind of broken one.
POOL = discover([TESTS.parent / "opsets", TESTS / "bad_inputs"])


def assert_same(a: LoadResult, b: LoadResult) -> None:
    assert differences(a.specs, b.specs) == []
    assert a.diagnostics == b.diagnostics
    assert [(d.hint, d.severity) for d in a.diagnostics] == [(d.hint, d.severity) for d in b.diagnostics]
    assert a.files == b.files


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(POOL), unique=True, max_size=80))
def test_split_load_equals_sequential_load(files: list[Path]) -> None:
    files = sorted(files)
    sequential = load_files(files, display_path)
    with parallel.gc_paused():
        split = load_files(files, display_path, workers=2)
    assert_same(sequential, split)


def test_whole_pool_split_equals_sequential() -> None:
    assert len(POOL) > 100
    assert_same(load_files(POOL, display_path), load_files(POOL, display_path, workers=2))


def test_onnx_catalog_split_equals_sequential(onnx_catalog_dir: Path) -> None:
    files = discover([onnx_catalog_dir])
    assert len(files) >= parallel.MIN_FILES  # read_specs takes the fast path for this tree
    fast = read_specs([onnx_catalog_dir], jobs=2)
    plain = load_files(files, display_path)
    assert_same(plain, fast)
    assert not fast.errors and len(fast.specs.operators) > 100


def plain_load_and_check(paths: list[Path]) -> LoadResult:
    """The definition of `load_specs`: read everything in one process, then run every check."""
    result = read_specs(paths, jobs=1)
    checked = [*check_specs(result.specs), *check_docs(result.specs)]
    if checked:
        result.diagnostics = sorted(dedupe([*result.diagnostics, *checked]), key=sort_key)
    return result


def split_load_and_check(paths: list[Path]) -> LoadResult:
    """`load_specs` with the files shared out between two processes, however few they are."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel, "MIN_FILES", 2)
        return load_specs(paths, jobs=2)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(POOL), unique=True, min_size=2, max_size=80))
def test_load_specs_equals_read_then_check(files: list[Path]) -> None:
    """Checks run where operators are built (both processes) as the definition runs them after."""
    paths = sorted(files)
    plain = plain_load_and_check(paths)
    assert_same(plain, split_load_and_check(paths))
    assert_same(plain, load_specs(paths, jobs=1))


def test_whole_pool_load_specs_equals_read_then_check() -> None:
    """Many operators are defined twice (NAME-DUPLICATE): only the kept one's checks count."""
    paths = [TESTS.parent / "opsets", TESTS / "bad_inputs"]
    plain = plain_load_and_check(paths)
    assert any(d.rule == "NAME-DUPLICATE" for d in plain.diagnostics)
    assert_same(plain, load_specs(paths, jobs=2))
    with_docs = [TESTS.parent / "opsets", TESTS / "bad_inputs" / "doc-raw-html"]
    plain = plain_load_and_check(with_docs)
    assert any(d.rule == "DOC-HTML" for d in plain.diagnostics)
    assert_same(plain, split_load_and_check(with_docs))


def test_onnx_catalog_load_specs_equals_read_then_check(onnx_catalog_dir: Path) -> None:
    plain = plain_load_and_check([onnx_catalog_dir])
    assert sum(d.rule.startswith("DOC-") for d in plain.diagnostics) > 10
    assert_same(plain, load_specs([onnx_catalog_dir]))


def test_run_shared_covers_every_item_once() -> None:
    for count in (2, 3, 254, 255, 256, 1000):
        items = list(range(count))
        parts = parallel.run_shared(lambda chunk: list(chunk), items, 2)
        assert sorted(i for part in parts for i in part) == items
        assert len(parts) == count if count <= parallel.MAX_CHUNKS else len(parts) <= parallel.MAX_CHUNKS
    assert parallel.run_shared(lambda chunk: list(chunk), [1, 2, 3], 1) == [[1, 2, 3]]
    assert parallel.run_shared(lambda chunk: list(chunk), [1], 2) == [[1]]


def test_run_shared_falls_back_when_the_child_fails(tmp_path: Path) -> None:
    import os
    import time

    parent = os.getpid()
    taken = tmp_path / "child-took-a-chunk"

    def work(items: object) -> list[object]:
        if os.getpid() != parent:
            taken.touch()
            raise RuntimeError("the child fails")
        deadline = time.monotonic() + 10
        while not taken.exists() and time.monotonic() < deadline:  # let the child take its turn
            time.sleep(0.001)
        return list(items)  # type: ignore[call-overload]

    assert parallel.run_shared(work, list(range(10)), 2) == [list(range(10))]
    assert taken.exists()


def test_run_shared_without_a_child_works_every_chunk_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    def no_fork() -> int:
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", no_fork)
    calls: list[list[int]] = []

    def work(items: object) -> list[int]:
        calls.append(list(items))  # type: ignore[call-overload]
        return list(items)  # type: ignore[call-overload]

    parts = parallel.run_shared(work, list(range(10)), 2)
    assert sorted(i for part in parts for i in part) == list(range(10))
    assert sorted(i for call in calls for i in call) == list(range(10))  # nothing worked twice


def test_both_processes_take_chunks() -> None:
    import os
    import time

    def work(items: object) -> list[int]:
        time.sleep(0.002)  # long enough for the other process to take its turns too
        return [os.getpid()]

    parts = parallel.run_shared(work, list(range(40)), 2)
    assert len({pid for part in parts for pid in part}) == 2


def test_run_split_falls_back_when_the_child_fails() -> None:
    parent = __import__("os").getpid()

    def work(items: object) -> list[object]:
        if __import__("os").getpid() != parent:
            raise RuntimeError("the child fails")
        return list(items)  # type: ignore[call-overload]

    assert parallel.run_split(work, [1, 2, 3, 4], 2) == [[1, 2, 3, 4]]
    assert parallel.run_split(lambda items: list(items), [1, 2, 3], 2) == [[1, 3], [2]]
    assert parallel.run_split(lambda items: list(items), [1, 2, 3], 1) == [[1, 2, 3]]


def test_gc_pause_restores_the_collector() -> None:
    import gc

    assert gc.isenabled()
    with parallel.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_run_shared_runs_first_here_once_before_taking_a_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`first` runs once, in this process, before it works any chunk, while the child already
    works; without a child it runs before the whole list."""
    import os
    import time

    parent = os.getpid()
    log = tmp_path / "log"

    waits = [True]

    def first() -> None:
        assert os.getpid() == parent
        deadline = time.monotonic() + 30
        while waits[0] and "child" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
            time.sleep(0.005)  # the child takes chunks meanwhile
        with log.open("a") as out:
            out.write("first\n")

    def work(items: object) -> list[int]:
        with log.open("a") as out:
            out.write(f"{'here' if os.getpid() == parent else 'child'} {list(items)}\n")  # type: ignore[call-overload]
        time.sleep(0.01)
        return list(items)  # type: ignore[call-overload]

    parts = parallel.run_shared(work, list(range(10)), 2, first=first)
    assert sorted(i for part in parts for i in part) == list(range(10))
    lines = log.read_text().splitlines()
    assert lines.count("first") == 1
    assert lines.index("first") > 0  # the child had started
    assert not [line for line in lines[: lines.index("first")] if line.startswith("here")]
    log.unlink()
    waits[0] = False  # no child from here on
    assert parallel.run_shared(work, [1, 2], 1, first=first) == [[1, 2]]
    assert log.read_text().splitlines() == ["first", "here [1, 2]"]

    def no_fork() -> int:
        raise OSError("no more processes")

    log.unlink()
    monkeypatch.setattr(os, "fork", no_fork)
    parallel.run_shared(work, [1, 2], 2, first=first)
    assert log.read_text().splitlines()[0] == "first"


def test_a_failing_first_stops_the_child_at_once() -> None:
    import time

    def first() -> None:
        raise ValueError("checks failed")

    def work(items: object) -> list[int]:
        time.sleep(60)  # the child would take a minute: it is killed instead
        return list(items)  # type: ignore[call-overload]

    start = time.monotonic()
    with pytest.raises(ValueError, match="checks failed"):
        parallel.run_shared(work, list(range(4)), 2, first=first)
    assert time.monotonic() - start < 30


def test_run_shared_carries_results_larger_than_a_pipe_while_both_work() -> None:
    """The child sends each chunk's result as it goes, through a pipe far smaller than what it
    sends; this process reads between its own chunks, so neither waits for the other."""
    import os

    parent = os.getpid()

    def work(items: object) -> list[tuple[int, bytes]]:
        return [(i, bytes([i % 256]) * 300_000) for i in items]  # type: ignore[attr-defined]

    parts = parallel.run_shared(work, list(range(60)), 2)
    got = sorted(pair for part in parts for pair in part)
    assert got == [(i, bytes([i % 256]) * 300_000) for i in range(60)]
    assert os.getpid() == parent
