"""What counts as released: the one definition the gate (`opset diff`) and `opset bump` share.

A released opset version is frozen: its operator versions and its inventory never change again
(ONNX IR.md: an operator published as stable must not change its signature or semantics in
later opset versions; Versioning.md: a breaking change needs a new operator version in a new
opset version). Which versions are released:

- **With a release table** (`releases.yaml`) that names the domain: opset N is released once
  some release row ships N or a later version of the domain (a runtime implementing opset N
  serves every older opset too, so those are part of the release). Opset versions declared in
  `domain.yaml` but shipped by no row are *open*: work on them may span several pull requests,
  and the gate lets them change.
- **Without one** (no table, or no row names the domain): every opset version that exists in
  the tree counts as released, the conservative rule. For the gate that tree is the old one
  (the base of the comparison); `opset bump --unreleased` is the author's word that the
  newest existing opset version has not shipped yet.

The gate asks with the OLD tree's domain and release table: a release row added by the pull
request itself does not freeze the opset it ships for that same pull request, and deleting a
row cannot unfreeze what the base already shipped.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.model.spec import DomainSpec, Release, canonical_domain


def shipped_versions(releases: Sequence[Release], domain: str) -> tuple[int, ...]:
    """The opset versions of `domain` that some release row ships, increasing."""
    wanted = canonical_domain(domain)
    return tuple(sorted({version for row in releases for name, version in row.opsets if name == wanted}))


def has_release_rows(releases: Sequence[Release], domain: str) -> bool:
    """True when the release table decides for `domain` (some row names it)."""
    return bool(shipped_versions(releases, domain))


def released_through(domain: DomainSpec, releases: Sequence[Release]) -> int:
    """The newest released opset version of `domain` (0 when nothing is released): every opset
    version up to it is frozen, the ones after it are open. See the module docstring."""
    shipped = shipped_versions(releases, domain.name)
    return shipped[-1] if shipped else domain.max_version


def is_released(domain: DomainSpec, releases: Sequence[Release], version: int) -> bool:
    """Whether opset `version` of `domain` is frozen."""
    return version <= released_through(domain, releases)


def open_opset(domain: DomainSpec, releases: Sequence[Release], *, newest_unreleased: bool = False) -> int:
    """The opset version new work goes into: the newest declared opset version if it is still
    open, else the next one (newest + 1). `newest_unreleased` marks the newest declared version
    as open when no release row names the domain (`opset bump --unreleased`)."""
    frozen = released_through(domain, releases)
    if newest_unreleased and not has_release_rows(releases, domain.name):
        frozen = min(frozen, domain.max_version - 1)
    return domain.max_version if domain.max_version > frozen else domain.max_version + 1
