"""Run the semantic spec checks over loaded model objects.

Structural problems (YAML syntax, unknown keys, value types) are found earlier by the loader;
these checks need the whole picture: a domain's opset versions, the resolved signature of a
version, the other versions of the operator. Each check is registered in the rule catalog
(`toolkit.model.rules`) by its family's module, imported below; `check_specs` runs every check
of the families `CHECKED_FAMILIES`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping

import toolkit.checks.output_names  # registers NAME-TOO-LONG
import toolkit.checks.python_names  # noqa: F401  (registers DOMAIN-PACKAGE, GEN-FAILED)
from toolkit.checks import adapters, domains, examples, functions, params, releases, shapes, types, versions
from toolkit.checks.base import SpecCheck
from toolkit.load import rules as load_rules
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import CATALOG, Rule
from toolkit.model.spec import DomainSpec, OperatorSpec, SpecSet

# The modules that register rules: the loader's rules (so the catalog is complete whenever
# specs are checked) and one module per family of checks.
RULE_MODULES = (load_rules, domains, types, params, versions, adapters, releases, functions, examples, shapes)
CHECKED_FAMILIES = ("spec", "adapter", "release")


def check_specs(specs: SpecSet, *, per_operator: bool = True) -> list[Diagnostic]:
    """Every problem the registered checks find, less those a version's `suppress` silences;
    per_operator=False leaves out the checks the loader ran already (`operator_problems`)."""
    by_name = {d.name: d for d in specs.domains}
    out: list[Diagnostic] = []
    for rule, check in _checks():
        if per_operator or not rule.per_operator:
            out.extend(check(specs, by_name))
    return drop_suppressed(out, specs)


def operator_problems(op: OperatorSpec, domains: Mapping[str, DomainSpec]) -> list[Diagnostic]:
    """What the checks that read one operator at a time (`Rule.per_operator`) find in `op`, less
    what its `suppress` lists silence: their part of `check_specs`, for the loader to run where
    it builds the operator (on a large tree, in the pool's workers too)."""
    one = SpecSet(domains=tuple(domains.values()), operators=(op,))
    by_name = dict(domains)
    out = [d for rule, check in _checks() if rule.per_operator for d in check(one, by_name)]
    return drop_suppressed(out, one)


def _checks() -> Iterator[tuple[Rule, SpecCheck]]:
    for family in CHECKED_FAMILIES:
        for rule in CATALOG.family(family):
            if rule.check is not None:
                yield rule, rule.check


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
