"""Fast path of `opset generate` on a machine with two cores: the kinds are shared between this
process and a forked child, each taking the next kind as soon as it is free
(`toolkit.load.parallel.run_shared`), and each streaming and staging its own files
(`toolkit.generate.streaming.stream_kind`); the parent commits them all. The plain path runs the
kinds one after another in this process; tests/test_generate_streaming.py checks both give the
same files, changes and digests.

A child that fails, for any reason, is ignored and every kind runs here (a generator error is then
raised here, located as usual); what it staged is overwritten or swept.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from pathlib import Path

from toolkit.generate.context import GenerateContext
from toolkit.generate.streaming import KindOutput, Ownership, stream_kind
from toolkit.load import parallel
from toolkit.registry.core import Registry

__all__ = ["KIND_ORDER", "stream_kinds"]

# The order the kinds are taken in: whichever process is free takes the next, and the child
# starts at once while this process first runs the checks (`first`). On the onnx catalog python
# is the costliest kind, then docs, then proto (each about two thirds of python), then the
# backend tests; starting the child on docs and this process on python after its checks pairs
# them as {checks, python, backend tests} against {docs, proto}, which leaves the least idle time
# of the orders measured (python first left this process idle while the child ran proto). Kinds
# not named here (plugins) come after them, by name.
KIND_ORDER = ("docs", "python", "proto", "backend_tests")


def stream_kinds(
    root: Path,
    registry: Registry,
    context: GenerateContext,
    kinds: Sequence[str],
    *,
    check: bool,
    digests: bool,
    workers: int | None = None,
    first: Callable[[], object] | None = None,
    existing: Container[str] | None = None,
    ownership: Mapping[str, Ownership] | None = None,
) -> dict[str, KindOutput]:
    """{kind: its output} for every kind, split across two processes when that pays.

    `first` runs in this process before its own kinds, while the child already works (the specs'
    semantic checks: `toolkit.registry.core.PendingRegistry.confirm`); it must do its work once
    however often it is called. When it raises, the child is stopped and the exception
    propagates (the caller removes what was staged). `existing`, `ownership` (by kind): see
    `stream_kind`."""

    def work(part: Sequence[str]) -> dict[str, KindOutput]:
        return {
            k: stream_kind(
                root,
                registry,
                context,
                k,
                check=check,
                digests=digests,
                existing=existing,
                ownership=None if ownership is None else ownership.get(k),
            )
            for k in part
        }

    order = sorted(kinds, key=lambda k: (KIND_ORDER.index(k) if k in KIND_ORDER else len(KIND_ORDER), k))
    results: dict[str, KindOutput] = {}
    for part in parallel.run_shared(work, order, parallel.worker_count(workers), first=first):
        results.update(part)
    return results
