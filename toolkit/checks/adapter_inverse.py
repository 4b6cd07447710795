"""ADAPTER-NO-INVERSE: a version writes no `downgrade`, and its `upgrade` implies none.

Which downgrade an upgrade implies is `toolkit.model.adapter_inverse` (the converter derives the
same one); this check only reports where that derivation fails, with the list to write.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.model.adapter_inverse import NoInverse, implied_downgrade, suggested_downgrade
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import OpSchema

RULE = "ADAPTER-NO-INVERSE"  # registered with the other ADAPTER-* ids (checks.adapters)


def missing_downgrade(old: OpSchema, new: OpSchema) -> Iterator[Diagnostic]:
    """ADAPTER-NO-INVERSE at the upgrade step of `new` that has no inverse, when `new` writes no
    `downgrade` list."""
    adapter = new.adapter
    if adapter is None or adapter.downgrade is not None or not adapter.upgrade:
        return
    try:
        implied_downgrade(adapter.upgrade, old, new)
    except NoInverse as exc:
        yield Diagnostic(
            RULE,
            f"{new.id} writes no `downgrade`, and its `upgrade` implies none: {exc.reason}",
            exc.step.location,
            f"write the downgrade to {old.id} under `adapter:`: "
            f"{suggested_downgrade(adapter.upgrade, old, new)}",
        )
