"""What every semantic spec check shares: its signature and the helpers that build findings.

A check module (domains, types, params, versions, adapters, releases) registers each check with
`toolkit.model.rules.rule(id, family, ...)`; `toolkit.checks.spec.check_specs` runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import DomainSpec, Location, OpSchema, SpecSet

# A spec check: the loaded specs and their domains by name -> the problems it finds.
SpecCheck = Callable[[SpecSet, dict[str, DomainSpec]], Iterator[Diagnostic]]


class Located(Protocol):
    """A model object that knows where it was written."""

    @property
    def location(self) -> Location: ...


def located(rule_id: str, message: str, subject: Located, hint: str) -> Diagnostic:
    """An error at `subject`'s location."""
    return Diagnostic(rule_id, message, subject.location, hint)


def each_version(specs: SpecSet) -> Iterator[OpSchema]:
    for op in specs.operators:
        yield from op.versions


def version_list(values: tuple[int, ...], limit: int) -> str:
    """Versions for a message: all of them up to `limit`, else `first..last`."""
    if not values:
        return "none"
    return ", ".join(map(str, values)) if len(values) <= limit else f"{values[0]}..{values[-1]}"
