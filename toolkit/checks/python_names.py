"""Spec checks of the names the generated Python package derives from spec names (DOMAIN-PACKAGE).

The generator renames what it can (`toolkit.model.python_names`: keywords, dunder names and the
package's own names get a prefix or a suffix, same-named modules and methods a `_2`); what no
renaming can settle without surprising the user is reported here, so that `validate` fails
where `generate` would.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.base import located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.python_names import domain_package
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, SpecSet, display_domain

DOMAIN_PACKAGE_HINT = "rename one of the domains: Python package names keep only letters, digits and '_'"


@rule(
    "DOMAIN-PACKAGE",
    "spec",
    "error",
    "Two domains map to one package of the generated Python code.",
    category="Domains and opset versions",
    hint=DOMAIN_PACKAGE_HINT,
    doc="""\
**Why:** `opset generate` writes one Python package per domain, named after the domain with dots
and hyphens as underscores (`com.acme.vision` -> `com_acme_vision`). Two domains that differ only
in those characters would have to share one package, so one would overwrite the other.

**Before:** two domains `com.acme.vision` and `com.acme-vision`

**After:** `com.acme.vision` and `com.acme.vision2` (or merge them into one domain)""",
)
def domain_packages(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    first: dict[str, DomainSpec] = {}
    ordered = sorted(specs.domains, key=lambda d: (d.location.file, d.location.line, d.name))
    for domain in ordered:
        package = domain_package(domain.name)
        earlier = first.setdefault(package, domain)
        if earlier is domain or display_domain(earlier.name) == display_domain(domain.name):
            continue  # the same domain twice is another rule's finding
        yield located(
            "DOMAIN-PACKAGE",
            f"domains '{display_domain(earlier.name)}' ({earlier.location}) and "
            f"'{display_domain(domain.name)}' both map to the Python package '{package}'",
            domain,
            DOMAIN_PACKAGE_HINT,
        )


# Emitted by `opset generate` (toolkit.generate.pipeline) when a generator raises; registered here
# (the generators sit above the checks) in the family of the generated documents' rules, since no
# spec check emits it.
GENERATOR_FAILED = "GEN-FAILED"
register(
    GENERATOR_FAILED,
    "load",
    "error",
    "A generator failed on a spec that passed the checks; nothing was written.",
    category="Generated documents",
    hint="nothing was written; the outputs are unchanged",
    doc="""\
**Why:** `opset generate` renders every output in memory and writes only when all generators
succeed, so a failure leaves the outputs as they were. The report points at the spec part the
generator was rendering (the operator version, opset version, domain or release row) and names
the error, e.g. a value the protobuf encoding cannot hold. `validate` is meant to catch all such
values first: a GEN-FAILED on a spec that `validate` passes is a missing check, worth a report.

**Before:** `opset generate` stops with `generator 'proto' failed on the protobuf schema of
com.acme.vision.Blur:1: ValueError: Value out of range` at `Blur.yaml:5:5`

**After:** the value fixed in `Blur.yaml` (or the check added), `opset generate` writes the outputs""",
)

# Emitted by `opset generate --check` (toolkit.cli.generate_command) for each stale output file.
GENERATED_STALE = "GEN-STALE"
register(
    GENERATED_STALE,
    "load",
    "error",
    "A generated file differs from what the specs generate now (`opset generate --check`).",
    category="Generated documents",
    hint="run `opset generate` and commit the result",
    doc="""\
**Why:** `generated/` is checked in, so a spec change must come with its regenerated outputs;
otherwise the classes, docs and protobuf documents that users read disagree with the specs.
`opset generate --check` writes nothing and reports each stale file at its first differing line
(line 1 for a file that is new, would be removed, or is binary).

**Before:** `Blur.yaml` gains an attribute, `generated/` is not regenerated:
`generated/docs/com.acme.vision/Blur.md:12:1: error[GEN-STALE]`.

**After:** `opset generate` rewrites the stale files; commit them with the spec change.""",
)
