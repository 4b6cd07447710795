"""Spec checks of an operator's versions: their order, their opset versions, their outputs; the
`removed_in` rule.

VERSION-ORDER is also reported by the loader (a since_version listed twice), which drops the
second entry; this check sees the versions that were built.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.base import located, version_list
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, OpSchema, SpecSet

VERSIONS = "Versions"


@rule(
    "VERSION-ORDER",
    "spec",
    "error",
    "Versions are not listed oldest first, or a since_version appears twice.",
    category=VERSIONS,
    hint="list versions oldest first, each with a larger since_version",
    doc="""\
**Why:** `based_on` and version adapters refer to the version listed before, and readers expect
one order; a since_version listed twice would make one opset version resolve to two schemas.

**Before:**

```yaml
versions:
  - since_version: 7
  - since_version: 1
```

**After:** the same entries with `since_version: 1` first.""",
)
def version_order(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """VERSION-ORDER and VERSION-NOT-IN-DOMAIN per version (REMOVED-IN-INVALID is reported by
    the builder, `toolkit.load.build`, at the `removed_in` value only the source can locate)."""
    for op in specs.operators:
        domain = domains.get(op.domain)
        known = set(domain.versions) if domain else set()
        previous: OpSchema | None = None
        for schema in op.versions:
            if previous is not None and schema.since_version <= previous.since_version:
                yield located(
                    "VERSION-ORDER",
                    f"since_version {schema.since_version} is not after {previous.since_version}",
                    schema,
                    "list versions oldest first, each with a larger since_version",
                )
            if domain is not None and schema.since_version not in known:
                yield located(
                    "VERSION-NOT-IN-DOMAIN",
                    f"since_version {schema.since_version} is not an opset version of "
                    f"'{domain.display_name}' (has {version_list(domain.versions, 8)})",
                    schema,
                    "add the opset version to domain.yaml or pick an existing one",
                )
            previous = schema


register(
    "VERSION-NOT-IN-DOMAIN",
    "spec",
    "error",
    "A since_version is not an opset version of the domain.",
    category=VERSIONS,
    hint="add the opset version to domain.yaml or pick an existing one",
    doc="""\
**Why:** an operator version is introduced *by* an opset version; a since_version the domain
does not list would belong to no opset inventory.

**Before:** `since_version: 3` in a domain whose `opset_versions` are 1 and 2.

**After:** add `{version: 3, ir_version: ...}` to the domain's `opset_versions`, or use 2.""",
)

register(
    "REMOVED-IN-INVALID",
    "spec",
    "error",
    "`removed_in` is not an opset version of the domain, or not after the newest version.",
    category=VERSIONS,
    hint="name the opset version from which the operator is gone",
    doc="""\
**Why:** `removed_in` is the first opset version whose inventory no longer has the operator, so
it must be an opset version of the domain and later than the operator's newest since_version.

**Before:** `removed_in: 2` on an operator whose newest version has `since_version: 3`.

**After:** `removed_in: 4` (an opset version of the domain after 3).""",
)


@rule(
    "DEPRECATED-REASON-ALONE",
    "spec",
    "error",
    "A version gives a `deprecated_reason` but is not deprecated.",
    category=VERSIONS,
    hint="add `deprecated: true` to the version, or remove its `deprecated_reason`",
    doc="""\
**Why:** the reason is shown only with a deprecated version (on its docs pages and in its Python
docstrings); on a version that is not deprecated it would be dropped without a word. Usually
`deprecated: true` was forgotten, or the version was undeprecated and the reason left behind.

**Before:**

```yaml
  - since_version: 10
    deprecated_reason: Use Resize, which covers every mode of Upsample.
```

**After:**

```yaml
  - since_version: 10
    deprecated: true
    deprecated_reason: Use Resize, which covers every mode of Upsample.
```""",
)
def deprecated_reason_alone(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        for schema in op.versions:
            if schema.deprecated_reason and not schema.deprecated:
                yield located(
                    "DEPRECATED-REASON-ALONE",
                    f"version {schema.since_version} of '{op.name}' gives a deprecated_reason "
                    "but is not deprecated",
                    schema,
                    "add `deprecated: true` to the version, or remove its `deprecated_reason`",
                )


@rule(
    "VERSION-NO-OUTPUTS",
    "spec",
    "warning",
    "An operator version has no outputs (none written and none inherited through `based_on`).",
    category=VERSIONS,
    hint="declare what the operator computes under `outputs:` (or inherit it with `based_on`)",
    doc="""\
**Why:** a node produces its results only through its outputs. An operator version without
one computes nothing a graph can use (graph optimizers drop such nodes), ONNX has no such
operator, and usually `outputs:` was forgotten or written under the wrong key or version.

**Before:**

```yaml
  - since_version: 1
    inputs:
      - {name: X, type: T}
```

**After:**

```yaml
  - since_version: 1
    inputs:
      - {name: X, type: T}
    outputs:
      - {name: Y, type: T}
```""",
)
def version_no_outputs(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        for schema in op.versions:
            if not schema.outputs:
                yield Diagnostic(
                    "VERSION-NO-OUTPUTS",
                    f"{schema.id} has no outputs",
                    schema.location,
                    "declare what the operator computes under `outputs:` (or inherit it with `based_on`)",
                    Severity.WARNING,
                )
