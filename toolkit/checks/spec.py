"""Run the semantic spec checks over loaded model objects.

Structural problems (YAML syntax, unknown keys, value types) are found earlier by the loader;
these checks need the whole picture: a domain's opset versions, the resolved signature of a
version, the other versions of the operator. Each check is registered in the rule catalog
(`toolkit.model.rules`) by its family's module, imported below; `check_specs` runs every check
of the families `CHECKED_FAMILIES`.
"""

from __future__ import annotations

from bisect import bisect_right

import toolkit.checks.python_names  # noqa: F401  (registers DOMAIN-PACKAGE, GEN-FAILED)
from toolkit.checks import adapters, domains, examples, functions, params, releases, shapes, types, versions
from toolkit.load import rules as load_rules
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import CATALOG
from toolkit.model.spec import SpecSet

# The modules that register rules: the loader's rules (so the catalog is complete whenever
# specs are checked) and one module per family of checks.
RULE_MODULES = (load_rules, domains, types, params, versions, adapters, releases, functions, examples, shapes)
CHECKED_FAMILIES = ("spec", "adapter", "release")


def check_specs(specs: SpecSet) -> list[Diagnostic]:
    """Every problem the registered checks find, less those a version's `suppress` silences."""
    by_name = {d.name: d for d in specs.domains}
    out: list[Diagnostic] = []
    for family in CHECKED_FAMILIES:
        for rule in CATALOG.family(family):
            if rule.check is not None:
                out.extend(rule.check(specs, by_name))
    return drop_suppressed(out, specs)


def drop_suppressed(diags: list[Diagnostic], specs: SpecSet) -> list[Diagnostic]:
    """Leave out each diagnostic that lies inside an operator version whose `suppress` lists its rule.

    A version spans from its entry's line to the next version's entry (the last one to the end
    of the file); versions whose entries start on one line share their suppress lists.
    """
    spans: dict[str, tuple[list[int], list[frozenset[str]]]] = {}
    for op in specs.operators:
        if op.location.file in spans or not any(v.suppress for v in op.versions):
            continue
        rules_at: dict[int, set[str]] = {}
        for version in op.versions:
            rules_at.setdefault(version.location.line, set()).update(version.suppress)
        starts = sorted(rules_at)
        spans[op.location.file] = (starts, [frozenset(rules_at[line]) for line in starts])
    if not spans:
        return diags

    def silenced(diag: Diagnostic) -> bool:
        found = spans.get(diag.location.file)
        if found is None:
            return False
        starts, suppressed = found
        index = bisect_right(starts, diag.location.line) - 1
        return index >= 0 and diag.rule in suppressed[index]

    return [d for d in diags if not silenced(d)]
