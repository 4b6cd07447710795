"""What the load tests share: a tree of one-version operators whose docs are headings, and a
per-operator check slowed in this process only."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from toolkit.load.loader import OperatorCheck
from toolkit.model.spec import DomainSpec, OperatorSpec


def slowed_here(check: OperatorCheck[object]) -> OperatorCheck[object]:
    """`check` made slow in this process only, so that the pool's worker surely takes chunks."""
    here = os.getpid()

    def run(op: OperatorSpec, domains: Mapping[str, DomainSpec]):  # type: ignore[no-untyped-def]
        if os.getpid() == here:
            time.sleep(0.005)
        return check.run(op, domains)

    return OperatorCheck(run, check.reuse, check.prepare)


def write_tree(root: Path, domain: str, count: int, doc: Callable[[int], str]) -> Path:
    """`count` operators `Op0`... of `domain` under `root/specs`, each one version with the doc
    `doc(index)` (a heading, so that the doc checks parse it); returns `root/specs`."""
    specs = root / "specs" / domain
    specs.mkdir(parents=True)
    (specs / "domain.yaml").write_text(
        f"domain: {domain}\nopset_versions:\n  - {{version: 1, ir_version: 10}}\n"
    )
    for index in range(count):
        (specs / f"Op{index}.yaml").write_text(
            f"operator: Op{index}\ndomain: {domain}\nversions:\n"
            f"  - since_version: 1\n    doc: '{doc(index)}'\n"
            "    inputs: [{name: X, type: tensor(float)}]\n"
            "    outputs: [{name: Y, type: tensor(float)}]\n"
        )
    return specs.parent
