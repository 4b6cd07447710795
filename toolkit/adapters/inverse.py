"""The downgrade an upgrade implies, when a version writes no `downgrade` list: the steps derived
in `toolkit.model.adapter_inverse` (shared with `opset validate`, which requires an explicit
`downgrade` where none can be derived), as the adapter engine's `AdapterError` when they cannot."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.adapters.node import AdapterError
from toolkit.model.adapter_inverse import NoInverse, implied_downgrade
from toolkit.model.spec import AdapterStep, OpSchema


def inverse_steps(steps: Sequence[AdapterStep], new: OpSchema, old: OpSchema) -> tuple[AdapterStep, ...]:
    """The downgrade implied by upgrade `steps` (from `old` to `new`), derived from both
    versions' signatures. AdapterError when a step has no inverse (a `python` step, a
    `remove_input` before the last input)."""
    try:
        return implied_downgrade(steps, old, new)
    except NoInverse as exc:
        raise AdapterError(
            f"{new.id} has no inverse of its upgrade: {exc.reason}; write a `downgrade` list"
        ) from None
