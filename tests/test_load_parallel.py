"""A large tree's load (`toolkit.load.parallel`: GC paused, the operator files shared out between
this process and the process pool, each running the per-operator checks on what it built) gives
the same LoadResult as the plain sequential loop followed by every check: same specs, field by
field (locations included), and the same diagnostics in the same order. The pool itself:
tests/test_parallel_pool.py."""

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
def test_load_specs_equals_plain_load_and_check(files: list[Path]) -> None:
    """Checks run where operators are built (both processes) as the definition runs them after."""
    paths = sorted(files)
    plain = plain_load_and_check(paths)
    assert_same(plain, split_load_and_check(paths))
    assert_same(plain, load_specs(paths, jobs=1))


def test_whole_pool_load_specs_equals_plain_load_and_check() -> None:
    """Many operators are defined twice (NAME-DUPLICATE): only the kept one's checks count."""
    paths = [TESTS.parent / "opsets", TESTS / "bad_inputs"]
    plain = plain_load_and_check(paths)
    assert any(d.rule == "NAME-DUPLICATE" for d in plain.diagnostics)
    assert_same(plain, load_specs(paths, jobs=2))
    with_docs = [TESTS.parent / "opsets", TESTS / "bad_inputs" / "doc-raw-html"]
    plain = plain_load_and_check(with_docs)
    assert any(d.rule == "DOC-HTML" for d in plain.diagnostics)
    assert_same(plain, split_load_and_check(with_docs))


def test_onnx_catalog_load_specs_equals_plain_load_and_check(onnx_catalog_dir: Path) -> None:
    plain = plain_load_and_check([onnx_catalog_dir])
    assert sum(d.rule.startswith("DOC-") for d in plain.diagnostics) > 10
    assert_same(plain, load_specs([onnx_catalog_dir]))
