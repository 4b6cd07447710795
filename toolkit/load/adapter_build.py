"""Adapter mappings (`{upgrade, downgrade}` of a spec version or of the adapter overlay) as
`Adapter` objects: shared by the spec builder and the overlay reader."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolkit.model.spec import Adapter, AdapterStep, Location


def build_adapter(item: Mapping[str, Any], loc: Callable[..., Location]) -> Adapter:
    """A schema-valid `{upgrade, downgrade}` mapping as an Adapter (step arguments frozen);
    `loc(*path)` locates a path below the mapping. Shared with the adapter overlay reader."""

    def steps(key: str) -> tuple[AdapterStep, ...]:
        return tuple(
            AdapterStep(
                kind=step["kind"],
                args=tuple(sorted((k, _freeze(v)) for k, v in step.items() if k != "kind")),
                location=loc(key, index),
            )
            for index, step in enumerate(item.get(key, []))
        )

    return Adapter(
        upgrade=steps("upgrade"),
        downgrade=steps("downgrade") if "downgrade" in item else None,
        location=loc(),
    )


def _freeze(value: Any) -> object:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value
