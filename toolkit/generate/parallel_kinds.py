"""Fast path of `opset generate` on a machine with two cores: the Python kind in this process,
the other kinds in a forked child (`toolkit.load.parallel.run_pair`), each streaming and staging
its own files (`toolkit.generate.streaming.stream_kind`); the parent commits them all. The plain
path runs the kinds one after another in this process; tests/test_generate_streaming.py checks
both give the same files, changes and digests.

A child that fails, for any reason, is ignored and its kinds run here (a generator error is then
raised here, located as usual); what it staged is overwritten or swept.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Sequence
from pathlib import Path

from toolkit.generate.context import GenerateContext
from toolkit.generate.streaming import KindOutput, stream_kind
from toolkit.load import parallel
from toolkit.registry.core import Registry

__all__ = ["HEAVY_KIND", "stream_kinds"]

# The kind that takes about as long as all the others together: it runs alone in this process.
HEAVY_KIND = "python"


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
) -> dict[str, KindOutput]:
    """{kind: its output} for every kind, split across two processes when that pays.

    `first` runs in this process before its own kinds, while the child already works (the specs'
    semantic checks: `toolkit.registry.core.PendingRegistry.confirm`); it must do its work once
    however often it is called. When it raises, the child is stopped and the exception
    propagates (the caller removes what was staged). `existing`: see `stream_kind`."""
    here = os.getpid()

    def work(part: Sequence[str]) -> dict[str, KindOutput]:
        if first is not None and os.getpid() == here:  # never in the forked child
            first()
        return {
            k: stream_kind(root, registry, context, k, check=check, digests=digests, existing=existing) for k in part
        }

    mine = [k for k in kinds if k == HEAVY_KIND] or list(kinds[:1])
    theirs = [k for k in kinds if k not in mine]
    if not theirs or parallel.worker_count(workers) < 2:
        return work(kinds)
    results: dict[str, KindOutput] = {}
    for part in parallel.run_pair(work, mine, theirs):
        results.update(part)
    return results
