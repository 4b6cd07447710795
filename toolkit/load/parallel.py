"""Fast path for loading large spec trees, beside the plain sequential loop in `toolkit.load.loader`.

Two tricks, neither of which changes a result (`tests/test_load_parallel.py` checks that):
- the cyclic garbage collector is paused while a tree loads: it would re-walk the growing object
  graph many times while loading creates no garbage cycles worth collecting;
- the files are shared out between two processes: YAML composition is CPU-bound and the GIL
  would serialise threads. The second process is a plain `os.fork()` that inherits everything
  it needs and sends its results back through a pipe, pickled by `transfer`. The loader hands
  out small chunks of files to whichever process is free (`run_shared`), so both finish
  together even though files differ in size; the child sends each chunk's result as soon as it
  is worked and this process unpickles what has come between chunks of its own, so little is
  left to send or read when both are done.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from toolkit.load import transfer

T = TypeVar("T")
R = TypeVar("R")

# Below this many files the fork costs more than it saves.
MIN_FILES = 64


def worker_count(jobs: int | None) -> int:
    """Processes to use: `jobs` when given, else 2 on a machine with 2+ cores;
    `OPSET_TOOLKIT_JOBS=1` turns the second process off."""
    if jobs is not None:
        return max(1, jobs)
    if os.environ.get("OPSET_TOOLKIT_JOBS") == "1":
        return 1
    return min(2, os.cpu_count() or 1)


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


def run_split(work: Callable[[Sequence[T]], R], items: Sequence[T], workers: int) -> list[R]:
    """`work` over `items` split in two halves (alternate items), one in a forked child; the
    results in order [this process's half, the child's half]. Without fork, or when the child
    fails, the whole list is worked here and a single result is returned."""
    if workers < 2 or len(items) < 2:
        return [work(items)]
    return run_pair(work, items[0::2], items[1::2], whole=items)


# `run_shared` hands out chunk numbers as single bytes: a one-byte read from a pipe is never split
# between two readers, and the numbers of every chunk fit in the pipe's buffer at once.
MAX_CHUNKS = 255


def run_shared(
    work: Callable[[Sequence[T]], R],
    items: Sequence[T],
    workers: int,
    *,
    first: Callable[[], object] | None = None,
) -> list[R]:
    """`work` over `items` in chunks that this process and a forked child take one at a time,
    each as soon as it is free, so the two finish together however much each item costs (the
    child is started first, so with items ordered costliest first, the two start on the two
    costliest). The results, one per chunk, come in no particular order. Without fork, or when
    the child fails, the whole list is worked here and a single result is returned.

    `first` runs in this process before it takes any chunk, while the child already works
    (every run calls it once, before any chunk is worked here); when it raises, the child is
    stopped and the exception propagates."""
    if workers < 2 or len(items) < 2 or not hasattr(os, "fork"):
        if first is not None:
            first()
        return [work(items)]
    size = -(-len(items) // MAX_CHUNKS)  # items per chunk, rounded up
    chunks = [items[start : start + size] for start in range(0, len(items), size)]
    try:
        queue_end, queue_start = os.pipe()
    except OSError:
        if first is not None:
            first()
        return [work(items)]
    try:
        os.write(queue_start, bytes(range(len(chunks))))
    finally:
        os.close(queue_start)
    try:
        return _take_turns(work, chunks, queue_end, first) or [work(items)]
    finally:
        os.close(queue_end)


def _take_turns(
    work: Callable[[Sequence[T]], R],
    chunks: list[Sequence[T]],
    queue: int,
    first: Callable[[], object] | None,
) -> list[R] | None:
    """`run_shared` once the chunk numbers are queued: a forked child and this process take them
    in turn. The child sends each chunk's result as soon as it has worked it (a frame: its length,
    then `transfer.dumps` of it), and this process reads what has come after each chunk of its
    own, so neither the pickling nor the unpickling is left for the end, when the other process
    would wait. None when the child failed (what it took is lost)."""
    try:
        results_end, results_start = os.pipe()
    except OSError:
        return _all_here(work, chunks, queue, first)
    try:
        pid = os.fork()
    except OSError:
        os.close(results_end)
        os.close(results_start)
        return _all_here(work, chunks, queue, first)
    if pid == 0:  # the child: work, send, and leave without any clean-up
        status = 1
        try:
            os.close(results_end)
            outgoing = _Outgoing(results_start)
            for chunk in _numbers(chunks, queue):
                frame = transfer.dumps(work(chunk))
                outgoing.send(len(frame).to_bytes(8, "little") + frame)
            outgoing.finish()
            status = 0
        finally:
            os._exit(status)
    os.close(results_start)
    received = _Frames(results_end)
    try:
        if first is not None:
            first()
        done = []
        for chunk in _numbers(chunks, queue):
            done.append(work(chunk))
            received.take(block=False)
        received.take(block=True)
    except BaseException:
        # This side failed, so the whole result is lost: stop the child now rather than wait for
        # it, and only return once it is gone (the caller may remove what it wrote).
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(results_end)
    _, status = os.waitpid(pid, 0)
    if status != 0 or not received.complete:
        return None
    return [*done, *received.results]


def _all_here(
    work: Callable[[Sequence[T]], R], chunks: list[Sequence[T]], queue: int, first: Callable[[], object] | None
) -> list[R]:
    """No second process: `first`, then every chunk, here."""
    if first is not None:
        first()
    return [work(chunk) for chunk in _numbers(chunks, queue)]


class _Outgoing:
    """The child's end of the results pipe. A frame is written as far as the pipe takes it without
    waiting, and the rest is kept for later: the parent reads only between chunks of its own, and
    a child that waited on a full pipe would idle meanwhile (a large tree's chunk results are far
    larger than a pipe's buffer)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = bytearray()
        os.set_blocking(fd, False)

    def send(self, data: bytes) -> None:
        self.pending += data
        try:
            while self.pending:
                del self.pending[: os.write(self.fd, self.pending)]
        except BlockingIOError:  # full for now: the rest goes with a later frame, or `finish`
            pass

    def finish(self) -> None:
        os.set_blocking(self.fd, True)
        view = memoryview(self.pending)
        while view:
            view = view[os.write(self.fd, view) :]
        view.release()
        os.close(self.fd)


def _numbers(chunks: list[Sequence[T]], queue: int) -> Iterator[Sequence[T]]:
    """The chunks whose numbers this process takes from the queue, until it is empty."""
    while number := os.read(queue, 1):
        yield chunks[number[0]]


class _Frames:
    """The results a child sends over `fd`, unpickled frame by frame as they come."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.results: list[Any] = []
        self.complete = False  # the child closed its end with no frame cut short

    def take(self, *, block: bool) -> None:
        """Unpickle the frames that have come; with block=True, every frame until the end."""
        os.set_blocking(self.fd, block)
        while True:
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                break
            if not data:
                self.complete = not self.buffer
                break
            self.buffer += data
            self._unpickle()

    def _unpickle(self) -> None:
        at = 0
        while len(self.buffer) - at >= 8:
            size = int.from_bytes(self.buffer[at : at + 8], "little")
            if len(self.buffer) - at - 8 < size:
                break
            # from our own child over a private pipe, never from disk
            self.results.append(transfer.loads(bytes(self.buffer[at + 8 : at + 8 + size])))
            at += 8 + size
        del self.buffer[:at]


def run_pair(
    work: Callable[[Sequence[T]], R], mine: Sequence[T], theirs: Sequence[T], *, whole: Sequence[T] | None = None
) -> list[R]:
    """`work(mine)` here and `work(theirs)` in a forked child, at once: [mine's, theirs'] results.
    Without fork, or when the child fails, `work(whole)` (default: mine then theirs) runs here and
    is the only result."""
    items = list(whole) if whole is not None else [*mine, *theirs]
    if not hasattr(os, "fork"):
        return [work(items)]
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        return [work(items)]
    if pid == 0:  # the child: work, send the pickled result, and leave without any clean-up
        status = 1
        try:
            os.close(read_end)
            payload = transfer.dumps(work(theirs))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        local = work(mine)
    except BaseException:
        # This side failed, so the whole result is lost: stop the child now rather than wait for
        # it, and only return once it is gone (the caller may remove what it wrote).
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        os.close(read_end)
        os.waitpid(pid, 0)
        raise
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not payload:
        return [work(items)]
    their_result: R = transfer.loads(payload)  # from our own child over a private pipe, not from disk
    return [local, their_result]
