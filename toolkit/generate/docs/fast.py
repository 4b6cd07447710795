"""Fast paths of the docs generator, beside the plain code they stand in for (each has an
equivalence test in tests/test_docs_fastpaths.py):

* `Bodies`: a version's body (Attributes, Inputs, Outputs, Type Constraints) is built once per
  run and shared by Operators.md, Changelog.md and the operator page, at heading levels 3 and 4;
  the plain code is `toolkit.generate.docs.views.version_body`, which builds it on every call.
* `gc_paused`: no cyclic garbage collection while the pages are built. The pages of a catalog
  allocate about a million short-lived objects that hold no cycles (strings, rows, views), and
  each allocation burst made the collector walk the registry's objects again. The output does not
  depend on it.
"""

from __future__ import annotations

from toolkit.generate.docs.views import body_parts
from toolkit.load.parallel import gc_paused as gc_paused  # the one pause of the cyclic collector
from toolkit.model.spec import OpSchema

SchemaKey = tuple[str, str, int]  # (domain, name, since_version): one schema of a registry


class Bodies:
    """`version_body(schema, level)` with the build shared across levels and pages (one
    instance per docs run: the key names a schema within one registry)."""

    def __init__(self) -> None:
        self._parts: dict[SchemaKey, list[str]] = {}

    def __call__(self, schema: OpSchema, level: int) -> str:
        key = (schema.domain, schema.name, schema.since_version)
        parts = self._parts.get(key)
        if parts is None:
            parts = self._parts[key] = body_parts(schema)
        return ("#" * level).join(parts)
