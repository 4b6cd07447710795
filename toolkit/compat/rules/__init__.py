"""The gate's rule catalog: one module per category, each rule's doc beside its check.

| module        | rules                                                              |
| ------------- | ------------------------------------------------------------------ |
| `signature`   | ATTR-*, INPUT-*, OUTPUT-* (in-place changes of released versions)  |
| `types`       | TYPE-PARAM-*, TYPE-ADDED/REMOVED, TYPE-SET-CHANGED                 |
| `versioning`  | VERSION-*, STATUS-CHANGED                                          |
| `adapters`    | ADAPTER-MISSING, ADAPTER-RECOMMENDED (a breaking bump's adapter)   |
| `inventory`   | OPSET-* (released opsets' contents)                                |
| `lifecycle`   | DEPRECATED-/REMOVED-WITHOUT-REPLACEMENT                            |
| `docs`        | DOC-CHANGED                                                        |
| `functions`   | FUNCTION-BODY-CHANGED (a released version's function body)         |
| `shapes`      | SHAPE-RULE-CHANGED, SHAPE-RULE-ADDED (a released version's shapes) |
| `allowlist`   | ALLOWLIST-* (emitted by the gate from the configuration)           |
| `plugins`     | PLUGINS-IGNORED (the configuration's plugins, not opted in to)     |

Every rule is a `toolkit.model.rules.Rule` of family "gate" in the one `CATALOG`; importing
this package registers them all. A new built-in rule goes into its category's module (write it
with `compat_rule` over a pair handler, see `toolkit.compat.rules.base` and
`toolkit.compat.handlers`) plus a positive and a negative case in
tests/test_compat_rules.py. User rules come from plugin modules the invoker names or allows
(`toolkit.compat.plugins`).
"""

from __future__ import annotations

from toolkit.compat.handlers import domain_pairs, operator_pairs, type_set_pairs
from toolkit.compat.rules import (  # noqa: F401  (imported to register their rules)
    adapters,
    allowlist,
    docs,
    functions,
    inventory,
    lifecycle,
    plugins,
    shapes,
    signature,
    types,
    versioning,
)
from toolkit.compat.rules.base import CATEGORIES, FAMILY, compat_rule, rule_doc
from toolkit.model.rules import CATALOG, Rule

__all__ = [
    "CATEGORIES",
    "Rule",
    "all_rules",
    "compat_rule",
    "domain_pairs",
    "get_rule",
    "operator_pairs",
    "rule_doc",
    "type_set_pairs",
]


def all_rules() -> list[Rule]:
    """The gate's rules (built-in and loaded plugins), sorted by category then id."""
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(CATALOG.family(FAMILY), key=lambda r: (order[r.category], r.id))


def get_rule(rule_id: str) -> Rule | None:
    """The gate rule `rule_id` (any case), or None."""
    rule = CATALOG.get(rule_id)
    return rule if rule is not None and rule.family == FAMILY else None
