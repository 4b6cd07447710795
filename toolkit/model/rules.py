"""The one rule record and the one registration mechanism, shared by every rule family.

Every problem or finding the toolkit reports carries a stable rule id. Whatever emits it — the
loader (FILE-/YAML-/SCHEMA-), the semantic spec checks, the docs checks (DOC-*), the adapter
checks (ADAPTER-*), the breaking-change gate, check-model (MODEL-*), compat (COMPAT-*,
RUNTIME-*) or model-diff (MDIFF-*) — the rule is described by one `Rule` and registered with
`register()` (or the `rule()` decorator, which also attaches the check function). `opset rules`
and the generated rules page list the whole catalog.

A family keeps its own way of *running* its checks (a gate rule takes a `DiffContext`, a spec
rule a `SpecSet`), so `check` is typed loosely here and narrowed by the family that calls it.

Ids are stable API (configurations and allowlists name them): never reuse or rename one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from toolkit.model.diagnostics import Severity

# The project's repository (pyproject.toml `[project.urls]` says the same). Reports link each
# rule to its doc where it exists today, whatever is installed: the Markdown page under docs/ on
# the main branch, as GitHub renders it (its heading anchors are the lower-cased ids, as mkdocs').
# No docs site is published, so no address of one is handed out.
REPOSITORY = "opset-toolkit/opset-toolkit"
REPOSITORY_URL = f"https://github.com/{REPOSITORY}"
DOCS_URL = f"{REPOSITORY_URL}/blob/main/docs/"

# Families in the order `opset rules` lists them, with the docs page holding one heading (anchor)
# per rule of the family.
FAMILIES: dict[str, str] = {
    "load": "reference/spec-rules/",
    "spec": "reference/spec-rules/",
    "docs": "reference/spec-rules/",
    "adapter": "reference/spec-rules/",
    "release": "reference/spec-rules/",
    "gate": "reference/rules/",
    "model": "guide/model-tools/",
    "compat": "guide/model-tools/",
    "runtime": "guide/model-tools/",
    "mdiff": "guide/model-tools/",
    "convert": "guide/model-tools/",
}

F = TypeVar("F", bound=Callable[..., Any])


def docs_link(page: str, anchor: str = "") -> str:
    """Address of a docs page (`guide/model-tools/` is docs/guide/model-tools.md) and optional
    heading anchor."""
    return f"{DOCS_URL}{page.rstrip('/')}.md" + (f"#{anchor}" if anchor else "")


@dataclass(frozen=True)
class Rule:
    """What a rule id means: who emits it, how bad it is, what to do about it."""

    id: str
    family: str
    severity: Severity
    summary: str  # one line: what is wrong
    doc: str = ""  # Markdown: why it matters, before/after, how to fix
    hint: str = ""  # the default fix, printed under a finding
    name: str = ""  # a short kebab-case or prose name (SARIF's rule name)
    category: str = ""  # a grouping within the family (the gate's categories)
    bc: bool | None = None  # gate rules: old models may stop working on the new registry
    fc: bool | None = None  # gate rules: new models may not run on runtimes of the old registry
    option: str | None = None  # gate rules: a profile option that must be true for the rule to run
    anchor: str = ""  # heading on the family's docs page (default: the lower-cased id)
    check: Callable[..., Any] | None = None
    # Spec checks: the check reads one operator at a time (and the domains), so the loader runs it
    # where it builds the operator (`toolkit.checks.spec.operator_problems`).
    per_operator: bool = False

    @property
    def page(self) -> str:
        return FAMILIES[self.family]

    @property
    def help_uri(self) -> str:
        return docs_link(self.page, self.anchor or self.id.lower())

    @property
    def compat_text(self) -> str:
        parts = [name for name, flag in (("BC", self.bc), ("FC", self.fc)) if flag]
        return " and ".join(parts) + "-breaking" if parts else "not breaking old or new models"


class RuleCatalog:
    """Rules by id. One instance (`CATALOG`) holds every family; a family module registers its
    rules when it is imported, so the catalog is complete once the emitting modules are loaded
    (`toolkit.reporting.catalog.all_rules()` imports them all)."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def register(self, rule: Rule) -> Rule:
        if rule.family not in FAMILIES:
            raise ValueError(f"rule {rule.id}: unknown family '{rule.family}' (one of {', '.join(FAMILIES)})")
        known = self._rules.get(rule.id)
        if known is not None and known != rule:
            raise ValueError(f"rule id {rule.id} is registered twice")
        self._rules[rule.id] = rule
        return rule

    def get(self, rule_id: str) -> Rule | None:
        return self._rules.get(rule_id.upper())

    def family(self, family: str) -> list[Rule]:
        return sorted((r for r in self._rules.values() if r.family == family), key=lambda r: r.id)

    def __iter__(self) -> Any:
        order = {name: i for i, name in enumerate(FAMILIES)}
        return iter(sorted(self._rules.values(), key=lambda r: (order[r.family], r.category, r.id)))

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __len__(self) -> int:
        return len(self._rules)


CATALOG = RuleCatalog()


def register(
    rule_id: str,
    family: str,
    severity: str | Severity,
    summary: str,
    **fields: Any,
) -> Rule:
    """Register one rule (no check function: the emitter reports it by id)."""
    return CATALOG.register(Rule(rule_id, family, Severity(severity), summary, **fields))


def register_all(family: str, rows: Iterable[tuple[str, str, str]]) -> list[Rule]:
    """Register a table of (id, severity, summary) rows of one family."""
    return [register(rule_id, family, severity, summary) for rule_id, severity, summary in rows]


def rule(
    rule_id: str,
    family: str,
    severity: str | Severity,
    summary: str,
    **fields: Any,
) -> Callable[[F], F]:
    """Decorator: register the decorated function as the check of rule `rule_id`."""

    def attach(func: F) -> F:
        CATALOG.register(Rule(rule_id, family, Severity(severity), summary, check=func, **fields))
        return func

    return attach
