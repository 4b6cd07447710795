"""The release table of the generated package: `RELEASES`, `OPSET_IR_VERSIONS`, `MIN_IR_VERSION`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.generate.python.source import LINE, str_literal
from toolkit.model.spec import Release, display_domain
from toolkit.registry.releases import opset_ir_versions

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

__all__ = ["DEFAULT_MIN_IR_VERSION", "min_ir_version", "opset_ir_table", "release_lines"]

# IR version 3 is the first with operator set imports: what onnx's find_min_ir_version_for
# answers for no (or only unknown) opsets; used when the specs have no release table.
DEFAULT_MIN_IR_VERSION = 3


def opset_ir_table(registry: Registry) -> dict[tuple[str, int], int]:
    """(display domain, opset version) -> the IR version the opset needs.

    A domain of the registry answers with what its domain.yaml declares; an opset only the
    release table names (e.g. ai.onnx next to a vendor domain) with the IR version of the first
    release shipping it (`toolkit.registry.releases.opset_ir_versions`). The two agree unless a
    release ships an opset at a higher IR version than the opset needs.
    """
    out = {(display_domain(d), v): ir for (d, v), ir in opset_ir_versions(registry.releases).items()}
    for name in registry.domains():
        for opset in registry.domain(name).opset_versions:
            out[(display_domain(name), opset.version)] = opset.ir_version
    return out


def min_ir_version(registry: Registry) -> int:
    """`MIN_IR_VERSION`: the oldest release's IR version, or the first with opset imports."""
    return registry.releases[0].ir_version if registry.releases else DEFAULT_MIN_IR_VERSION


def release_lines(release: Release) -> list[str]:
    """`Release(name, ir, {domain: version, ...})` as source lines (the first without indent)."""
    items = [f"{str_literal(display_domain(d))}: {v}" for d, v in release.opsets]
    head = f"Release({str_literal(release.name)}, {release.ir_version}, "
    one = head + "{" + ", ".join(items) + "})"
    if 4 + len(one) + 1 <= LINE:
        return [one]
    return [head + "{", *[f"    {item}," for item in items], "})"]
