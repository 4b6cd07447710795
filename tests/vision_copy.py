"""What a test's copy of the shipped vendor domain (opsets/com.acme.vision) declares.

Tests that copy the domain read its opset versions (and the lines that declare them) from the
copy, never from a number written into the test: the domain gains opset versions over time, and
"bump into the next opset" or "the newest opset is open" must keep meaning the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolkit import load_registry

REPO = Path(__file__).resolve().parent.parent
VISION = REPO / "opsets" / "com.acme.vision"
DOMAIN = "com.acme.vision"


@dataclass(frozen=True)
class Opset:
    version: int
    ir_version: int
    line: int  # 1-based line of its `- version:` entry in domain.yaml


def opsets(domain_dir: Path) -> list[Opset]:
    """The opset versions `domain_dir/domain.yaml` declares, in file order. The shipped file
    writes each one as a block entry, `- version: N` followed by `ir_version: M`."""
    lines = (domain_dir / "domain.yaml").read_text(encoding="utf-8").splitlines()
    found: list[Opset] = []
    for n, line in enumerate(lines, 1):
        if line.startswith("  - version:"):
            ir_key, ir_value = lines[n].split(":")
            assert ir_key == "    ir_version", f"domain.yaml:{n + 1}: expected the entry's ir_version"
            found.append(Opset(int(line.split(":")[1]), int(ir_value), n))
    assert found, f"no block-style opset versions in {domain_dir / 'domain.yaml'}"
    return found


def newest_opset(domain_dir: Path) -> Opset:
    """The newest opset version the copy declares."""
    return opsets(domain_dir)[-1]


def since(specs: Path, operator: str) -> int:
    """since_version of `operator`'s newest version in the copy (what `opset bump` bases on)."""
    return load_registry([specs], cache=False).versions(operator, DOMAIN)[-1].since_version


def operator_older_than(specs: Path, opset: int, *, besides: tuple[str, ...] = ()) -> str:
    """An operator of the copy that `opset bump` may give a version in `opset`: not removed,
    its newest version older than `opset`; the first by name that is not in `besides`."""
    registry = load_registry([specs], cache=False)
    names = sorted(
        op.name
        for op in registry.operators(DOMAIN)
        if op.removed_in is None and op.versions[-1].since_version < opset and op.name not in besides
    )
    assert names, f"no operator of {DOMAIN} without a version in opset {opset}"
    return names[0]


def operator_in(specs: Path, opset: int) -> str:
    """An operator of the copy whose newest version is in `opset` (the first by name)."""
    registry = load_registry([specs], cache=False)
    names = sorted(op.name for op in registry.operators(DOMAIN) if op.versions[-1].since_version == opset)
    assert names, f"no operator of {DOMAIN} has its newest version in opset {opset}"
    return names[0]
