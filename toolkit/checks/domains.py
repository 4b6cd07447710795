"""Spec checks of domains and their opset versions (DOMAIN-NAME, OPSET-ORDER, OPSET-IR-ORDER)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.checks.base import located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, SpecSet

DOMAINS = "Domains and opset versions"

# Reverse DNS: at least two dot-separated labels of lower-case letters, digits and hyphens.
# Matched with fullmatch (`$` would also accept a name ending in a line break).
REVERSE_DNS = re.compile(r"[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+")


@rule(
    "DOMAIN-NAME",
    "spec",
    "error",
    "A vendor domain name is not reverse DNS (`com.acme.vision`).",
    category=DOMAINS,
    hint="name vendor domains after a DNS name you own, reversed: com.acme.vision",
    doc="""\
**Why:** a domain name is global: models name it in their `opset_import`, and two vendors must
never pick the same one. A DNS name you own, reversed, is unique by construction (ONNX's own
domains are `ai.onnx` and `ai.onnx.ml`). Lower-case letters, digits and hyphens, at least two labels.

**Before:** `domain: AcmeVision`

**After:** `domain: com.acme.vision` (and the folder `opsets/com.acme.vision/`)""",
)
def domain_names(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for domain in specs.domains:
        if domain.name and not REVERSE_DNS.fullmatch(domain.name):
            yield located(
                "DOMAIN-NAME",
                f"domain '{domain.name}' is not a reverse-DNS name",
                domain,
                "name vendor domains after a DNS name you own, reversed: com.acme.vision",
            )


@rule(
    "OPSET-ORDER",
    "spec",
    "error",
    "Opset versions of a domain do not strictly increase.",
    category=DOMAINS,
    hint="list opset versions in strictly increasing order",
    doc="""\
**Why:** an opset version names one inventory of operators; resolution ("the largest
since_version not above the opset version") needs the versions in one order, each once.

**Before:** `opset_versions: [{version: 2, ir_version: 9}, {version: 1, ir_version: 8}]`

**After:** `opset_versions: [{version: 1, ir_version: 8}, {version: 2, ir_version: 9}]`""",
)
def opset_order(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """OPSET-ORDER, and OPSET-IR-ORDER between neighbours that are in order."""
    for domain in specs.domains:
        previous = None
        for opset in domain.opset_versions:
            if previous is not None and opset.version <= previous.version:
                yield located(
                    "OPSET-ORDER",
                    f"opset version {opset.version} does not increase (after {previous.version})",
                    opset,
                    "list opset versions in strictly increasing order",
                )
            elif previous is not None and opset.ir_version < previous.ir_version:
                yield located(
                    "OPSET-IR-ORDER",
                    f"opset version {opset.version} needs IR version {opset.ir_version}, "
                    f"lower than opset {previous.version}'s {previous.ir_version}",
                    opset,
                    "IR versions never decrease along opset versions",
                )
            previous = opset


register(
    "OPSET-IR-ORDER",
    "spec",
    "error",
    "A later opset version needs a lower IR version than an earlier one.",
    category=DOMAINS,
    hint="IR versions never decrease along opset versions",
    doc="""\
**Why:** a newer opset version may use anything an older one does, so it cannot need an older
IR (file format) version. Emitted by the OPSET-ORDER check.

**Before:** `opset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 8}]`

**After:** `opset_versions: [{version: 1, ir_version: 8}, {version: 2, ir_version: 9}]`""",
)
