"""What the load tests share: a per-operator check slowed in this process only."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

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
