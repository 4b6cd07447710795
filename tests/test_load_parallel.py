"""The loader's fast path (`toolkit.load.parallel`: GC paused, files split across a forked
process) gives the same LoadResult as the plain sequential loop: same specs, field by field
(locations included), and the same diagnostics in the same order."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_codec import differences

from toolkit.load import parallel
from toolkit.load.discovery import discover, display_path
from toolkit.load.loader import load_files, read_specs
from toolkit.load.result import LoadResult

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
