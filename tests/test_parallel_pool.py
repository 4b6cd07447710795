"""The toolkit's one process pool (`toolkit.load.parallel.run_shared`) and where it runs: the
chunks come back in order from whichever process worked them, whatever a worker does not return
is worked and raised here, a failure or Ctrl-C here stops the workers before anything is removed,
`OPSET_TOOLKIT_JOBS` sets the processes; and `opset generate` loads, then checks, then generates
(no generator runs for a tree that fails the checks; the registry is built once, read-only)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.generate import GENERATORS, GenerateContext
from toolkit.generate.pipeline import GeneratorError, generate_tree
from toolkit.load import parallel, writer
from toolkit.model.diagnostics import UsageError
from toolkit.registry.core import Registry, load_registry

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"
BAD_INPUTS = Path(__file__).parent / "bad_inputs"
pytestmark = pytest.mark.skipif(
    not parallel.can_fork(), reason="the pool forks; elsewhere all runs in one process"
)


@pytest.fixture(autouse=True)
def _two_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(parallel.JOBS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)


def _pid_and_items(chunk: Sequence[int]) -> tuple[int, list[int]]:
    time.sleep(0.005)  # long enough for every process to take a turn
    return os.getpid(), list(chunk)


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under root."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None for p in root.rglob("*")}


# -- the pool ---------------------------------------------------------------------------------------


def test_chunks_come_back_in_order_from_both_processes() -> None:
    chunks = parallel.split(list(range(100)), 2, 2)
    results = parallel.run_shared(_pid_and_items, chunks, 2)
    assert [item for _, items in results for item in items] == list(range(100))
    pids = {pid for pid, _ in results}
    assert os.getpid() in pids and len(pids) == 2  # this process and one worker
    assert multiprocessing.active_children() == []  # the worker is gone when it returns


def test_jobs_setting(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = parallel.split(list(range(60)), 3, 2)
    monkeypatch.setenv(parallel.JOBS_ENV, "1")
    assert {pid for pid, _ in parallel.run_shared(_pid_and_items, chunks, parallel.worker_count(None))} == {
        os.getpid()
    }
    monkeypatch.setenv(parallel.JOBS_ENV, "3")
    assert (
        len({pid for pid, _ in parallel.run_shared(_pid_and_items, chunks, parallel.worker_count(None))}) == 3
    )
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(parallel.JOBS_ENV, bad)
        with pytest.raises(UsageError, match="OPSET_TOOLKIT_JOBS"):
            parallel.worker_count(None)
        assert main(["validate", str(OPSETS)]) == 2  # the invoker's mistake: a usage error, on any tree
        assert "OPSET_TOOLKIT_JOBS" in capsys.readouterr().err


def test_everything_runs_here_where_fork_is_unsafe_or_the_pool_cannot_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunks = parallel.split(list(range(20)), 2, 2)
    with monkeypatch.context() as patched:
        patched.setattr(sys, "platform", "darwin")  # forking after system frameworks load is unsafe
        assert {pid for pid, _ in parallel.run_shared(_pid_and_items, chunks, 2)} == {os.getpid()}

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)  # a host's thread (mkdocs serve): no fork then
    other.start()
    try:
        assert {pid for pid, _ in parallel.run_shared(_pid_and_items, chunks, 2)} == {os.getpid()}
    finally:
        stop.set()
        other.join()

    def no_semaphores(*_args: object, **_kwargs: object) -> object:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(multiprocessing.context.BaseContext, "Value", no_semaphores)
    results = parallel.run_shared(_pid_and_items, chunks, 2)
    assert [item for _, items in results for item in items] == list(range(20))
    assert {pid for pid, _ in results} == {os.getpid()}


class _Located(Exception):
    """An exception whose data is not in its args (as GeneratorError's diagnostic): a worker's copy
    would lose it on the way back."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


def test_what_a_worker_fails_is_worked_and_raised_here() -> None:
    parent = os.getpid()

    def fails_in_workers(chunk: Sequence[int]) -> tuple[int, list[int]]:
        if os.getpid() != parent:
            raise RuntimeError("only in a worker")
        return _pid_and_items(chunk)

    chunks = parallel.split(list(range(30)), 2, 2)
    results = parallel.run_shared(fails_in_workers, chunks, 2)
    assert [item for _, items in results for item in items] == list(range(30))

    def fails_on_seven(chunk: Sequence[int]) -> list[int]:
        time.sleep(0.005)
        if 7 in chunk:
            raise _Located("seven", where=f"pid {os.getpid()}")
        return list(chunk)

    with pytest.raises(_Located) as raised:
        parallel.run_shared(fails_on_seven, [[n] for n in range(15)], 2)
    assert raised.value.where == f"pid {parent}"  # raised here, with all its data


def test_a_worker_that_dies_is_made_good_here() -> None:
    parent = os.getpid()

    def dies_in_workers(chunk: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.005)
        return list(chunk)

    assert parallel.run_shared(dies_in_workers, [[n] for n in range(12)], 2) == [[n] for n in range(12)]
    assert multiprocessing.active_children() == []


def test_a_failure_here_stops_the_workers_at_once(tmp_path: Path) -> None:
    parent = os.getpid()
    finished = tmp_path / "a worker finished"

    def work(chunk: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            time.sleep(60)  # killed long before
            finished.touch()
        else:
            time.sleep(0.2)  # the worker has taken its chunk
            raise ValueError("this process failed")
        return list(chunk)

    start = time.monotonic()
    with pytest.raises(ValueError, match="this process failed"):
        parallel.run_shared(work, [[1], [2], [3]], 2)
    assert time.monotonic() - start < 20
    assert multiprocessing.active_children() == []  # gone when run_shared raises, not left running
    assert not finished.exists()


CTRL_C = """
import os, signal, sys, time
from pathlib import Path
from toolkit.load import parallel

parent, marks = os.getpid(), Path(sys.argv[1])
# As on a terminal: Python only installs its Ctrl-C handler when SIGINT is not ignored at start,
# and a job started in the background of a non-interactive shell inherits SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)

def work(chunk):
    if os.getpid() != parent:
        (marks / "worker started").touch()
        time.sleep(30)
        (marks / "worker finished").touch()
    else:
        while not (marks / "worker started").exists():
            time.sleep(0.01)
        os.killpg(0, signal.SIGINT)  # Ctrl-C: the whole process group gets it
        time.sleep(30)
    return chunk

try:
    parallel.run_shared(work, [[1], [2]], 2)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    raise SystemExit(130)
"""


def test_ctrl_c_stops_the_workers_without_a_traceback(tmp_path: Path) -> None:
    """Workers ignore SIGINT (no traceback of theirs on the terminal); this process gets it and
    stops them."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # its own process group: the SIGINT stays there
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert (done.returncode, done.stderr) == (130, "interrupted\n")
    assert time.monotonic() - start < 25
    assert (tmp_path / "worker started").exists() and not (tmp_path / "worker finished").exists()


def test_the_collector_pause_restores_the_collector() -> None:
    assert gc.isenabled()
    with parallel.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


# -- opset generate: load, then check, then generate -----------------------------------------------


@pytest.fixture()
def marking_generators(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each generator leaves `<marks>/<kind>.<pid>` when it runs, in whichever process."""
    marks = tmp_path / "marks"
    marks.mkdir()
    for kind, generator in list(GENERATORS.items()):

        def marked(registry: Registry, context: GenerateContext, kind: str = kind, real=generator) -> object:  # type: ignore[no-untyped-def]
            (marks / f"{kind}.{os.getpid()}").touch()
            return real(registry, context)

        monkeypatch.setitem(GENERATORS, kind, marked)
    return marks


@pytest.mark.parametrize("case", ["duplicate-input-name", "type-param-undeclared", "versions-out-of-order"])
def test_no_generator_runs_for_a_tree_that_fails_the_checks(
    case: str, tmp_path: Path, marking_generators: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gen"
    assert main(["generate", "--specs", str(BAD_INPUTS / case), "--out", str(out), "--no-cache"]) == 1
    assert "error[" in capsys.readouterr().err
    assert list(marking_generators.iterdir()) == []
    assert not out.exists()


def test_the_kinds_run_side_by_side_once_checked(tmp_path: Path, marking_generators: Path) -> None:
    result = generate_tree([OPSETS], tmp_path / "gen", source="opsets", cache=False)
    ran = sorted(p.name for p in marking_generators.iterdir())
    assert sorted(name.split(".")[0] for name in ran) == sorted(GENERATORS)  # each kind once
    assert len({name.split(".")[1] for name in ran}) == 2
    assert result.diagnostics == load_registry([OPSETS], cache=False).diagnostics


def test_the_registry_is_built_whole_and_read_only() -> None:
    registry = load_registry([OPSETS], cache=False)
    with pytest.raises(AttributeError):
        registry.diagnostics = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        registry.specs = registry.specs  # type: ignore[misc]


def test_a_kind_failing_after_another_was_staged_leaves_the_tree_as_it_was(
    tmp_path: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The python kind fails once the other process has staged files of another kind: the
    failure is raised here (located), and what was staged, in either process, is gone."""
    out = tmp_path / "gen"
    generate_tree([OPSETS], out, kinds=["proto"], source="opsets")  # the other kinds' folders are new
    (out / "proto/org.example.abc/opset_1.textproto").write_text("changed")  # a write would fix it
    before = _tree(out)

    def late_failure(_registry: Registry, _context: GenerateContext) -> dict[str, bytes]:
        deadline = time.monotonic() + 30
        while not list(out.rglob("*" + writer.TMP_SUFFIX)) and time.monotonic() < deadline:
            time.sleep(0.005)
        raise RuntimeError("boom")

    monkeypatch.setitem(GENERATORS, "python", late_failure)
    with pytest.raises(GeneratorError, match="generator 'python' failed") as failure:
        generate_tree(
            [OPSETS], out, kinds=["docs", "proto", "python"], registry=shipped_registry, source="opsets"
        )
    assert failure.value.diagnostic is not None and failure.value.diagnostic.rule == "GEN-FAILED"
    assert _tree(out) == before
    assert multiprocessing.active_children() == []


def test_kinds_a_worker_fails_are_run_again_here_with_the_same_bytes(
    tmp_path: Path,
    marking_generators: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    parent = os.getpid()
    for kind, generator in list(GENERATORS.items()):

        def broken_in_workers(registry: Registry, context: GenerateContext, real=generator) -> object:  # type: ignore[no-untyped-def]
            result = real(registry, context)
            if os.getpid() != parent:
                raise RuntimeError("boom")
            return result

        monkeypatch.setitem(GENERATORS, kind, broken_in_workers)
    out = tmp_path / "gen"
    assert main(["generate", "--specs", str(OPSETS), "--out", str(out), "--no-cache", "-q"]) == 0
    assert any(not name.endswith(f".{parent}") for name in os.listdir(marking_generators))  # a worker failed
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(parallel.JOBS_ENV, "1")
    reference = tmp_path / "reference"
    assert main(["generate", "--specs", str(OPSETS), "--out", str(reference), "--no-cache", "-q"]) == 0
    assert _tree(out) == _tree(reference)
    assert not list(tmp_path.rglob("*" + writer.TMP_SUFFIX))
