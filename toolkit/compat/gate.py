"""The gate: run the enabled rules over two registries and apply the configuration.

    result = run_gate(old_registry, new_registry, config)
    result.findings        # active findings, sorted (allowlisted ones are in result.allowed)
    result.exit_code("error")

Exit codes: 0 clean, 1 a finding at or above the `--fail-on` threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from toolkit.compat.config import GateConfig, kept_severity
from toolkit.compat.engine import DiffContext, Finding, run_rules
from toolkit.compat.plugins import load_plugins
from toolkit.compat.rules import all_rules
from toolkit.compat.rules.allowlist import apply_allowlist
from toolkit.model.diagnostics import Severity
from toolkit.model.rules import Rule
from toolkit.registry.core import Registry


@dataclass(frozen=True)
class GateResult:
    findings: tuple[Finding, ...]
    allowed: tuple[Finding, ...]
    rules: tuple[Rule, ...]  # the rules that ran (or could report), in catalog order
    profile: str
    old_label: str = "old tree"

    def at_or_above(self, threshold: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity.rank >= threshold.rank]

    def exit_code(self, fail_on: Severity | str = Severity.ERROR) -> int:
        return 1 if self.at_or_above(Severity(fail_on)) else 0

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for finding in self.findings:
            out[finding.severity.value] += 1
        out["allowed"] = len(self.allowed)
        return out


def active_rules(config: GateConfig) -> list[Rule]:
    load_plugins(config.plugins)
    out = []
    for rule in all_rules():
        if not config.enabled(rule.id):
            continue
        if rule.option is not None and not config.option(rule.option):
            continue
        out.append(rule)
    return out


def _by_profile(findings: list[Finding], rules: list[Rule], config: GateConfig) -> list[Finding]:
    """Each finding with the severity the profile's one rule gives it (`kept_severity`), the
    dropped ones left out."""
    by_id = {rule.id: rule for rule in rules}
    out = []
    for finding in findings:
        kept = kept_severity(config.profile, by_id[finding.rule], finding.bc, finding.fc, finding.severity)
        if kept is not None:
            out.append(finding if kept is finding.severity else replace(finding, severity=kept))
    return out


def run_gate(
    old: Registry, new: Registry, config: GateConfig | None = None, old_label: str = "old tree"
) -> GateResult:
    config = config or GateConfig()
    rules = active_rules(config)
    severities = {r.id: config.severity(r.id, r.severity) for r in rules}
    ctx = DiffContext(old, new, config.profile.options, old_label)
    findings = _by_profile(run_rules(ctx, rules, severities), rules, config)
    active, allowed = apply_allowlist(findings, config, severities)
    return GateResult(tuple(active), tuple(allowed), tuple(rules), config.profile.name, old_label)
