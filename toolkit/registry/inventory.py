"""Opset inventories over opset versions: the since_version table of Versioning.md."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.registry.core import Registry


@dataclass(frozen=True)
class Cell:
    since_version: int | None  # None: operator not in this opset
    changed: bool  # new, updated or removed compared with the previous opset version

    @property
    def text(self) -> str:
        return "-" if self.since_version is None else str(self.since_version)


@dataclass(frozen=True)
class SinceTable:
    domain: str
    opset_versions: tuple[int, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]  # operator name -> one cell per opset version


def since_table(registry: Registry, domain: str) -> SinceTable:
    spec = registry.domain(domain)
    versions = spec.versions
    rows = []
    for op in sorted(registry.operators(spec.name), key=lambda o: o.name):
        cells = []
        previous: int | None = None
        for version in versions:
            schema = registry.find_schema(op.name, version, spec.name)
            current = schema.since_version if schema else None
            cells.append(Cell(current, current != previous))
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
