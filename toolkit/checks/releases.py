"""Spec checks of release tables (RELEASE-*): order, names and the opsets each release ships.

A releases.yaml lists releases oldest first; its rows are checked against each other and against
the domains loaded beside it (a domain not loaded here, e.g. ai.onnx next to a vendor domain, is
not checked).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.base import version_list
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, Location, Release, SpecSet, display_domain

RELEASES = "Release tables"


@rule(
    "RELEASE-DUPLICATE",
    "release",
    "error",
    "Two releases have the same name.",
    category=RELEASES,
    hint="list each release once",
    doc="""\
**Why:** a release name identifies one row of the table (`opset releases` looks releases up by
name); two rows of one name would give two answers.

**Before:** two rows `- {release: "1.2", ...}`

**After:** one of them removed, or renamed to the release it really is.""",
)
def releases(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """Every RELEASE-* problem, per releases file."""
    by_file: dict[str, list[Release]] = {}
    for release in specs.releases:
        by_file.setdefault(release.location.file, []).append(release)
    for _file, rows in sorted(by_file.items()):
        yield from _release_order(rows)
        for release in rows:
            yield from _release_opsets(release, domains)


def _release_order(rows: list[Release]) -> Iterator[Diagnostic]:
    seen: dict[str, Location] = {}
    previous: Release | None = None
    newest: dict[str, tuple[int, Release]] = {}
    for release in rows:
        if release.name in seen:
            yield Diagnostic(
                "RELEASE-DUPLICATE",
                f"release '{release.name}' is listed twice (first at {seen[release.name]})",
                release.location,
                "list each release once",
            )
        seen.setdefault(release.name, release.location)
        if previous is not None and release.ir_version < previous.ir_version:
            yield Diagnostic(
                "RELEASE-IR-ORDER",
                f"release {release.name} has IR version {release.ir_version}, lower than "
                f"{previous.name}'s {previous.ir_version}",
                release.location,
                "IR versions never decrease from one release to the next (list releases oldest first)",
            )
        for domain, version in release.opsets:
            if domain in newest and version < newest[domain][0]:
                earlier = newest[domain][1]
                yield Diagnostic(
                    "RELEASE-OPSET-ORDER",
                    f"release {release.name} ships {display_domain(domain)} opset {version}, older than "
                    f"opset {newest[domain][0]} of release {earlier.name}",
                    release.location,
                    "opset versions never decrease from one release to the next",
                )
            else:
                newest[domain] = (version, release)
        previous = release


def _release_opsets(release: Release, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for domain_name, version in release.opsets:
        domain = domains.get(domain_name)
        if domain is None:
            continue  # a domain not loaded here (e.g. ai.onnx next to a vendor domain)
        opset = domain.opset(version)
        if opset is None:
            yield Diagnostic(
                "RELEASE-OPSET-UNKNOWN",
                f"release {release.name} ships {domain.display_name} opset {version}, which the domain "
                f"does not define (it has {version_list(domain.versions, 6)})",
                release.location,
                f"add opset version {version} to {domain.display_name}'s domain.yaml or fix the release",
            )
        elif release.ir_version < opset.ir_version:
            yield Diagnostic(
                "RELEASE-IR-TOO-LOW",
                f"release {release.name} has IR version {release.ir_version}, but {domain.display_name} "
                f"opset {version} needs IR version {opset.ir_version}",
                release.location,
                "a release's IR version is at least the IR version of every opset it ships",
            )


# The other ids the `releases` check reports.

register(
    "RELEASE-IR-ORDER",
    "release",
    "error",
    "IR versions decrease from one release to the next.",
    category=RELEASES,
    hint="IR versions never decrease from one release to the next (list releases oldest first)",
    doc="""\
**Why:** a release supports every IR version up to its own, and later releases support more,
never less; a decrease usually means rows out of order.

**Before:** `- {release: "1.3", ir_version: 9, ...}` listed before `- {release: "1.4", ir_version: 8, ...}`

**After:** rows oldest first with IR versions that never decrease.""",
)

register(
    "RELEASE-OPSET-ORDER",
    "release",
    "error",
    "A domain's opset version decreases from one release to the next.",
    category=RELEASES,
    hint="opset versions never decrease from one release to the next",
    doc="""\
**Why:** a later release ships the newest opset version of each domain it knows; it never goes
back to an older one. Lookups (`release_for_opset`, `min_ir_version_for`) rely on that order.

**Before:** release 1.4 ships `com.acme.vision: 3`, release 1.5 ships `com.acme.vision: 2`.

**After:** release 1.5 ships opset 3 or later.""",
)

register(
    "RELEASE-OPSET-UNKNOWN",
    "release",
    "error",
    "A release names an opset version its (loaded) domain does not have.",
    category=RELEASES,
    hint="add the opset version to the domain's domain.yaml or fix the release",
    doc="""\
**Why:** a release ships existing opset versions; one the domain does not define has no
inventory and no IR version.

**Before:** `opsets: {com.acme.vision: 4}` when the domain lists opset versions 1 to 3.

**After:** `opsets: {com.acme.vision: 3}`, or add opset version 4 to the domain.""",
)

register(
    "RELEASE-IR-TOO-LOW",
    "release",
    "error",
    "A release's IR version is lower than an opset version it ships needs.",
    category=RELEASES,
    hint="a release's IR version is at least the IR version of every opset it ships",
    doc="""\
**Why:** each opset version states the IR version its models need; a release shipping it must
read that IR version.

**Before:** `{release: "2.0", ir_version: 8, opsets: {com.acme.vision: 3}}` where opset 3 needs IR 9.

**After:** `ir_version: 9` (or more).""",
)

register(
    "RELEASE-DOMAIN-TWICE",
    "release",
    "error",
    'A release row names one domain under two keys (`""` and `ai.onnx`).',
    category=RELEASES,
    hint='keep one entry per domain: "" and ai.onnx are both the default domain',
    doc="""\
**Why:** `""` and `ai.onnx` are two spellings of the default domain; a row giving both ships two
opset versions of one domain, and only one of them can be meant. Reported while the release
table is read (the row's opsets are kept by domain, so the second key is dropped).

**Before:** `opsets: {"": 21, ai.onnx: 22}`

**After:** `opsets: {ai.onnx: 22}`""",
)
