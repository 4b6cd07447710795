"""Release tables: which release shipped which IR version and opset versions.

A release table is data (`releases.yaml`, schemas/releases.schema.json), loaded into
`toolkit.model.spec.Release` rows (oldest first) and reachable as `Registry.releases`. The ONNX
table ships with the toolkit (`toolkit/data/onnx_releases.yaml`: Versioning.md's table
extended with onnx's `helper.VERSION_TABLE`); `onnx_releases()` loads it.

Lookups, the same as onnx's helpers but for any table:
- `release_for_opset(releases, domain, version)`: the first release that shipped the opset.
- `opset_ir_versions(releases)`: `(domain, version) -> IR version` of the first release
  shipping it (onnx's `OP_SET_ID_VERSION_MAP`).
- `min_ir_version_for(releases, opsets)`: the least IR version a model importing `opsets`
  needs (onnx's `find_min_ir_version_for`).
Domains are accepted in either spelling (`""` or `ai.onnx`); rows store them canonical.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from toolkit.model.diagnostics import SpecError
from toolkit.model.spec import Release, canonical_domain, display_domain

ONNX_RELEASES_FILE = Path(__file__).resolve().parent.parent / "data" / "onnx_releases.yaml"

# onnx resolves the preview domains through the table rows of their stable counterparts.
ONNX_DOMAIN_ALIASES: Mapping[str, str] = {
    "ai.onnx.preview": "",
    "ai.onnx.preview.training": "ai.onnx.training",
}

OpsetIds = Mapping[str, int] | Iterable[tuple[str, int]]


class UnknownOpset(LookupError):
    """An opset version that no release of the table ships."""

    def __str__(self) -> str:
        return str(self.args[0])


def load_releases(path: str | Path) -> tuple[Release, ...]:
    """The release rows of one releases file (any name); SpecError when it has problems."""
    from toolkit.checks.run import load_specs
    from toolkit.load.discovery import RELEASES_FILE, display_path

    source = Path(path)
    with tempfile.TemporaryDirectory(prefix="opset-releases-") as tmp:
        # The loader tells file kinds by name: present the file as releases.yaml.
        copy = Path(tmp) / RELEASES_FILE
        shutil.copyfile(source, copy)
        result = load_specs([copy], display=lambda _p: display_path(source))
    if result.errors:
        raise SpecError(result.errors)
    return result.specs.releases


@functools.cache
def onnx_releases() -> tuple[Release, ...]:
    """The shipped ONNX release table, oldest release first."""
    return load_releases(ONNX_RELEASES_FILE)


def opset_version(release: Release, domain: str) -> int | None:
    """The opset version `release` ships for `domain`, or None."""
    wanted = canonical_domain(domain)
    for name, version in release.opsets:
        if name == wanted:
            return version
    return None


def find_release(releases: Sequence[Release], name: str) -> Release | None:
    for release in releases:
        if release.name == name:
            return release
    return None


def release_for_opset(releases: Sequence[Release], domain: str, version: int) -> Release | None:
    """The first (oldest) release that shipped opset (`domain`, `version`), or None."""
    for release in releases:
        if opset_version(release, domain) == version:
            return release
    return None


def opset_ir_versions(
    releases: Sequence[Release], aliases: Mapping[str, str] | None = None
) -> dict[tuple[str, int], int]:
    """(canonical domain, opset version) -> IR version of the first release shipping it.

    `aliases` maps a domain to the domain whose rows it shares (ONNX_DOMAIN_ALIASES).
    """
    out: dict[tuple[str, int], int] = {}
    for release in releases:
        for domain, version in release.opsets:
            out.setdefault((domain, version), release.ir_version)
    for alias, target in sorted((aliases or {}).items()):
        target_domain = canonical_domain(target)
        for (domain, version), ir in list(out.items()):
            if domain == target_domain:
                out.setdefault((canonical_domain(alias), version), ir)
    return out


def min_ir_version_for(
    releases: Sequence[Release],
    opsets: OpsetIds,
    *,
    ignore_unknown: bool = False,
    aliases: Mapping[str, str] | None = None,
) -> int:
    """The least IR version a model importing `opsets` needs.

    Unknown opsets raise UnknownOpset unless `ignore_unknown`, when they count as the
    oldest release's IR version (what onnx does: 3 for its table). No opsets: the same.
    """
    if not releases:
        raise UnknownOpset("the release table is empty")
    table = opset_ir_versions(releases, aliases)
    floor = releases[0].ir_version
    pairs = opsets.items() if isinstance(opsets, Mapping) else opsets
    result = floor
    for domain, version in pairs:
        key = (canonical_domain(domain), version)
        if key in table:
            result = max(result, table[key])
        elif not ignore_unknown:
            raise UnknownOpset(f"no release ships opset {display_domain(key[0])} {version}")
    return result


def latest_opsets(releases: Sequence[Release]) -> dict[str, int]:
    """Canonical domain -> the largest opset version any release ships."""
    out: dict[str, int] = {}
    for release in releases:
        for domain, version in release.opsets:
            out[domain] = max(out.get(domain, 0), version)
    return out


def released_versions(releases: Sequence[Release], domain: str) -> tuple[int, ...]:
    """The opset versions of `domain` some release ships, increasing."""
    wanted = canonical_domain(domain)
    return tuple(sorted({v for r in releases for d, v in r.opsets if d == wanted}))


def onnx_releases_file(available: Mapping[str, int], schema_header: str) -> bytes:
    """The shipped ONNX table as a releases.yaml for an imported catalog.

    Rows naming an opset newer than the imported catalog has (`available`: domain -> largest
    opset version imported) are left out, so an older onnx gets a consistent table; the
    first line (the schema comment) is replaced by `schema_header`.
    """
    limits = {canonical_domain(d): v for d, v in available.items()}
    dropped = {
        release.location.line
        for release in onnx_releases()
        if any(domain in limits and version > limits[domain] for domain, version in release.opsets)
    }
    lines = ONNX_RELEASES_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for number, line in enumerate(lines[1:], start=2) if number not in dropped]
    return (schema_header + "".join(kept)).encode("utf-8")
