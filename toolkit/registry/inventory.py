"""Opset inventories over opset versions: the since_version table of Versioning.md."""

from __future__ import annotations

from typing import NamedTuple

from toolkit.model.resolution import index_at
from toolkit.registry.core import Registry


# NamedTuples rather than frozen dataclasses: cheaper to define (at import) and to make.
class Cell(NamedTuple):
    since_version: int | None  # None: operator not in this opset
    changed: bool  # new, updated or removed compared with the previous opset version

    @property
    def text(self) -> str:
        return "-" if self.since_version is None else str(self.since_version)


class SinceTable(NamedTuple):
    domain: str
    opset_versions: tuple[int, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]  # operator name -> one cell per opset version


def since_table(registry: Registry, domain: str) -> SinceTable:
    """Each operator's row, resolved by `model.resolution.index_at` over its own since_versions
    (what `Registry.find_schema` does per cell, without a lookup per cell); equal cells are one
    object (they are immutable, and a catalog's table has thousands)."""
    spec = registry.domain(domain)
    versions = spec.versions
    made: dict[tuple[int | None, bool], Cell] = {}
    rows = []
    for op in sorted(registry.operators(spec.name), key=lambda o: o.name):
        since = [v.since_version for v in op.versions]
        cells = []
        previous: int | None = None
        for version in versions:
            index = index_at(since, op.removed_in, version)
            current = None if index is None else since[index]
            key = (current, current != previous)
            cell = made.get(key)
            if cell is None:
                cell = made[key] = Cell(*key)
            cells.append(cell)
            previous = current
        rows.append((op.name, tuple(cells)))
    return SinceTable(spec.name, versions, tuple(rows))


def since_table_markdown(table: SinceTable) -> str:
    """The table in Versioning.md's shape: changed cells in bold, absent operators as `-`."""
    header = "Operator|" + "|".join(f"OpSet {v}" for v in table.opset_versions)
    rule = "-|" + "|".join("-" for _ in table.opset_versions)
    lines = [header, rule]
    for name, cells in table.rows:
        lines.append(name + "|" + "|".join(f"**{c.text}**" if c.changed else c.text for c in cells))
    return "\n".join(lines) + "\n"
