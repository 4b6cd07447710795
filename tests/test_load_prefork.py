"""A large tree's load before and around the fork (issue #24's start-up and load): what the
per-operator checks build once per process is made before the loader forks, so the pool's worker
inherits it (`toolkit.load.loader.OperatorCheck.prepare`), and the operator files are handed out
in chunks that shrink towards the end (`toolkit.load.parallel.split`), so neither process waits
long for the other's last chunk. That the split load equals the sequential one:
tests/test_load_parallel.py."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest
from load_helpers import slowed_here, write_tree

from toolkit.checks import markdown
from toolkit.checks.run import OPERATOR_CHECKS, load_specs
from toolkit.load import parallel
from toolkit.load.loader import OperatorCheck, read_specs
from toolkit.model.spec import DomainSpec, OperatorSpec

OPERATORS = 80  # above parallel.MIN_FILES: read_specs shares the files out


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path, "com.example.fork", OPERATORS, lambda index: f"# Op{index} copies x")


def test_workers_inherit_what_the_check_prepared(tree: Path) -> None:
    if not parallel.can_fork():
        pytest.skip("no process pool on this platform")
    prepared: list[int] = []  # the processes that ran `prepare`, in each process's own copy
    seen: list[tuple[str, bool]] = []

    def run(op: OperatorSpec, _: Mapping[str, DomainSpec]) -> tuple[list[object], list[tuple[str, bool]]]:
        return [], [(str(os.getpid()), bool(prepared))]

    check = OperatorCheck(run, seen.extend, lambda: prepared.append(os.getpid()))
    read_specs([tree], jobs=2, check_operator=slowed_here(check))  # type: ignore[arg-type]
    assert prepared == [os.getpid()]  # once, here
    assert len(seen) == OPERATORS
    assert {pid for pid, _ in seen} - {str(os.getpid())}  # the worker worked some files
    assert all(ready for _, ready in seen)  # ... with what this process prepared before the fork


def test_the_doc_checks_parser_is_made_before_the_fork(tree: Path, tmp_path: Path) -> None:
    """The real checks: the Markdown parser exists in each process before its first file is
    checked (a worker building its own on its first file was work done twice). Each process
    notes in a file whether it had one when it checked a file."""
    if not parallel.can_fork():
        pytest.skip("no process pool on this platform")
    notes = tmp_path / "notes"
    notes.mkdir()
    markdown.parser.cache_clear()

    def run(op: OperatorSpec, domains: Mapping[str, DomainSpec]):  # type: ignore[no-untyped-def]
        had = markdown.parser.cache_info().currsize
        (notes / f"{os.getpid()}-{had}").touch()
        return OPERATOR_CHECKS.run(op, domains)

    with pytest.MonkeyPatch.context() as patch:
        check = OperatorCheck(run, OPERATOR_CHECKS.reuse, OPERATOR_CHECKS.prepare)
        patch.setattr("toolkit.checks.run.OPERATOR_CHECKS", slowed_here(check))
        result = load_specs([tree], jobs=2)
    assert [d.rule for d in result.diagnostics] == ["DOC-HEADING"] * OPERATORS
    noted = {tuple(name.split("-")) for name in os.listdir(notes)}
    assert {had for _, had in noted} == {"1"}  # never without the parser
    assert len({pid for pid, _ in noted}) == 2  # this process and the worker


def test_chunks_shrink_towards_the_end() -> None:
    items = list(range(227))
    chunks = parallel.split(items, 2, 4)
    assert [item for chunk in chunks for item in chunk] == items  # consecutive, in order
    sizes = [len(chunk) for chunk in chunks]
    assert sizes[0] == 57  # a quarter of the files: one of two processes' halves, halved
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[-3:] == [4, 4, 3]  # the last ones handed out are small
    # Few hand-outs however large the tree: the chunks shrink geometrically.
    assert len(parallel.split(list(range(100_000)), 2, 4)) < 60
    assert parallel.split([], 2, 4) == []
    assert parallel.split([1, 2, 3], 1, 4) == [[1, 2, 3]]
