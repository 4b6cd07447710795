"""The one way the toolkit uses more than one core: a `concurrent.futures` process pool, forked
from this process, sharing out chunks of work with it.

Two places use it: the loader, for the operator files of a large tree (YAML composition is
CPU-bound and the GIL would serialise threads), and `opset generate`, for the generator kinds
once the registry is loaded and checked. Both hand `run_shared` a function and a list of chunks;
this process and the pool's workers take the next chunk whenever they are free (a counter in
shared memory), so they finish together however much each chunk costs, and the results come back
in chunk order: the same result as working the chunks one after another here.

The workers are forked (`multiprocessing.get_context("fork")`), so they inherit the function and
everything it reads (the domains, the registry) instead of receiving them pickled; only the
chunks' results travel, pickled by the pool over its private pipe. Without fork, on macOS, where
forking a process that has loaded system frameworks is unsafe and a spawned worker would first
have to import the toolkit and receive the registry, or while another thread runs, everything
runs here.

Whatever a worker does not return (it raised, or died), this process works itself, so a failure
is raised here exactly as the sequential run raises it. When this process fails (or is
interrupted), the workers are killed before `run_shared` returns, so a caller that removes what
was written meanwhile removes everything. Workers ignore SIGINT: Ctrl-C reaches the whole
process group, and only this process decides what happens next.

The cyclic garbage collector is paused while a tree loads (`gc_paused`): it would re-walk the
growing object graph many times while loading creates no garbage cycles worth collecting.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from toolkit.model.diagnostics import UsageError

if TYPE_CHECKING:
    from multiprocessing.sharedctypes import Synchronized

T = TypeVar("T")
R = TypeVar("R")

JOBS_ENV = "OPSET_TOOLKIT_JOBS"

# Below this many operator files the pool costs more than it saves (see `toolkit.load.loader`).
MIN_FILES = 64


def worker_count(jobs: int | None) -> int:
    """Processes to use, this one included: `jobs` when given, else `OPSET_TOOLKIT_JOBS` (the
    invoker's; 1 runs everything in this process), else 2 on a machine with 2+ cores (the only
    count measured; see the README)."""
    if jobs is not None:
        return max(1, jobs)
    value = os.environ.get(JOBS_ENV)
    if value is not None and value.strip():
        try:
            count = int(value)
        except ValueError:
            count = 0
        if count < 1:
            raise UsageError(
                f"{JOBS_ENV}={value!r}: expected a positive whole number of processes (1: no worker)"
            )
        return count
    return min(2, os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether the pool may be used here: fork exists and is safe, so not on macOS (see the module
    doc) and not while another thread runs (a lock it holds at the fork stays held in the worker
    for ever; Python 3.12 warns of it), as in a host such as `mkdocs serve`."""
    import threading

    return sys.platform != "darwin" and hasattr(os, "fork") and threading.active_count() == 1


@contextmanager
def gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """The cyclic collector off for the block (the previous state comes back on exit). With
    freeze=True what exists at exit is moved out of the collector's sight (`gc.freeze`): a loaded
    catalog lives as long as the command, and every later collection would otherwise walk all of
    its objects again (on a large catalog, seconds for nothing)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if collecting:
            gc.enable()


class _Job(Generic[T, R]):
    """What the workers inherit: the function, the chunks and the shared counter of the next one."""

    def __init__(self, work: Callable[[T], R], chunks: Sequence[T], counter: Synchronized[int]) -> None:
        self.work = work
        self.chunks = chunks
        self.counter = counter

    def take(self) -> int | None:
        """The number of the next chunk nobody has taken, or None when all are taken."""
        with self.counter.get_lock():
            number = self.counter.value
            if number >= len(self.chunks):
                return None
            self.counter.value = number + 1
        return number


_job: _Job[Any, Any] | None = None  # set in each worker by `_start_worker`


def _start_worker(job: _Job[Any, Any]) -> None:
    """The pool's initializer: runs in each forked worker (its argument is inherited, not pickled)."""
    global _job
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _job = job


def _work_next() -> tuple[int, bool, Any] | None:
    """In a worker: (number, True, result) of the next chunk, (number, False, None) when working it
    raised (this process works it again and raises), or None when every chunk is taken."""
    assert _job is not None
    number = _job.take()
    if number is None:
        return None
    try:
        return number, True, _job.work(_job.chunks[number])
    except BaseException:  # reported by number: this process works the chunk again and raises
        return number, False, None


def run_shared(work: Callable[[T], R], chunks: Sequence[T], workers: int) -> list[R]:
    """`[work(chunk) for chunk in chunks]`, with the chunks shared out between this process and
    `workers - 1` forked ones, each taking the next whenever it is free. With one worker, one
    chunk, or no safe fork, everything runs here. See the module doc for failures."""
    if workers < 2 or len(chunks) < 2 or not can_fork():
        return [work(chunk) for chunk in chunks]
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    before = set(multiprocessing.active_children())
    try:
        job = _Job(work, chunks, context.Value("l", 0))
        pool = ProcessPoolExecutor(
            min(workers - 1, len(chunks) - 1), mp_context=context, initializer=_start_worker, initargs=(job,)
        )
    except OSError:  # no semaphores here (a sandbox without /dev/shm): everything in this process
        return [work(chunk) for chunk in chunks]
    results: dict[int, R] = {}
    try:
        futures: list[Future[tuple[int, bool, Any] | None]] = []
        with contextlib.suppress(OSError):  # no process could be started: the chunks are all here
            # One request per chunk: a worker that runs one takes the next chunk at that moment
            # (the requests left when every chunk is taken return None at once).
            futures += (pool.submit(_work_next) for _ in chunks)
        while (number := job.take()) is not None:
            results[number] = work(chunks[number])
        for future in futures:
            try:
                answer = future.result()
            except Exception:  # the worker died (BrokenProcessPool): its chunks are worked below
                continue
            if answer is not None and answer[1]:
                results[answer[0]] = answer[2]
    except BaseException:
        _kill(set(multiprocessing.active_children()) - before)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    if not futures:  # the pool failed to start: stop what it started before the failure
        _kill(set(multiprocessing.active_children()) - before)
    pool.shutdown(wait=True)
    # What no worker returned, in chunk order: a failure raises here as it would sequentially.
    return [results[number] if number in results else work(chunk) for number, chunk in enumerate(chunks)]


def split(items: Sequence[T], workers: int, smallest: int) -> list[Sequence[T]]:
    """`items` cut into consecutive chunks that shrink as they go: each is a `2 * workers`-th of
    what is left, and at least `smallest` items. The processes start on big chunks (few hand-outs)
    and the last chunks handed out are small, so whoever runs out of work first waits only for a
    small chunk of the others (with chunks of equal size it waited for up to a whole one)."""
    chunks: list[Sequence[T]] = []
    start = 0
    while start < len(items):
        size = max(smallest, -(-(len(items) - start) // (2 * max(1, workers))), 1)
        chunks.append(items[start : start + size])
        start += size
    return chunks


def _kill(processes: set[Any]) -> None:
    """Stop the pool's workers now and wait until they are gone (the caller may then remove what
    they wrote)."""
    for process in processes:
        process.kill()
    for process in processes:
        process.join()
