"""Configuration rules: the allowlist itself is checked, so it cannot rot.

These rules read the gate configuration, not the two trees: their records have no `check`.
The gate (`toolkit.compat.gate.run_gate`) hands the findings of the other rules to
`apply_allowlist` here, which silences what live entries match and then reports the entries
that expired or matched nothing (`allowlist_findings`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterator, Mapping
from dataclasses import replace

from toolkit.compat.config import AllowEntry, GateConfig, today
from toolkit.compat.engine import Finding, fingerprint
from toolkit.compat.rules.base import emitted_rule
from toolkit.model.diagnostics import Severity

EXPIRED = "ALLOWLIST-EXPIRED"
UNUSED = "ALLOWLIST-UNUSED"

emitted_rule(
    EXPIRED,
    name="allowlist-entry-expired",
    severity="error",
    category="config",
    summary="An allowlist entry is past its expiry date.",
    doc=(
        "**Why:** allowlists rot: entries outlive the reason they were added for (pytorch #81983). "
        "An expired entry no longer silences anything and is itself an error.\n\n"
        '**Before:**\n\n```toml\n[[tool.opset-toolkit.allowlist]]\nrule = "ATTR-ADDED"\n'
        'operator = "com.acme.vision.Resize:2"\nreason = "..."\nexpires = 2024-01-31\n```\n\n'
        "**After:** the entry is deleted (the change was fixed) or re-justified with a new date.\n\n"
        "**How to fix:** remove the entry, or extend `expires` with a reason that still holds."
    ),
)

emitted_rule(
    UNUSED,
    name="allowlist-entry-unused",
    severity="warning",
    category="config",
    summary="An allowlist entry matches no finding.",
    doc=(
        "**Why:** an entry that silences nothing is stale and may later hide a new, unrelated "
        "finding for the same operator.\n\n"
        '**Before:**\n\n```toml\n[[tool.opset-toolkit.allowlist]]\nrule = "TYPE-ADDED"\n'
        'operator = "com.acme.vision.Resize:2"\n```\n\n'
        "**After:** the entry is deleted.\n\n"
        "**How to fix:** delete the entry (or add `fingerprint` to pin it to one finding)."
    ),
)


def apply_allowlist(
    findings: list[Finding], config: GateConfig, severities: Mapping[str, Severity]
) -> tuple[list[Finding], list[Finding]]:
    """(active, allowlisted) findings: a live entry silences the findings it matches; the
    allowlist's own findings (expired or unused entries) join the active ones."""
    now = today()
    live = [i for i, e in enumerate(config.allowlist) if not e.expired(now)]
    used: set[int] = set()
    active: list[Finding] = []
    allowed: list[Finding] = []
    for finding in findings:
        match = next(
            (
                i
                for i in live
                if config.allowlist[i].matches(finding.rule, finding.operator, finding.fingerprint)
            ),
            None,
        )
        if match is None:
            active.append(finding)
        else:
            used.add(match)
            allowed.append(replace(finding, allowed_by=config.allowlist[match].reason))
    active.extend(allowlist_findings(config, used, now, severities))
    return sorted(active, key=lambda f: f.sort_key), allowed


def allowlist_findings(
    config: GateConfig, used: Collection[int], now: dt.date, severities: Mapping[str, Severity]
) -> Iterator[Finding]:
    """ALLOWLIST-EXPIRED for entries expired by `now`, ALLOWLIST-UNUSED for live entries whose index
    is not in `used`; `severities` holds the rules the profile enables (with their severity)."""
    for index, entry in enumerate(config.allowlist):
        if entry.expired(now):
            rule_id = EXPIRED
            message = (
                f"allowlist entry for {entry.rule} on {entry.operator} expired on {entry.expires.isoformat()} "
                f"(reason was: {entry.reason})"
            )
            hint = "fix the finding and delete the entry, or re-justify it with a new `expires` date"
        elif index not in used:
            rule_id = UNUSED
            message = f"allowlist entry for {entry.rule} on {entry.operator} matches no finding"
            hint = "delete the entry"
        else:
            continue
        if rule_id in severities:  # else disabled by the profile
            yield _finding(rule_id, severities[rule_id], entry, message, hint)


def _finding(rule_id: str, severity: Severity, entry: AllowEntry, message: str, hint: str) -> Finding:
    return Finding(
        rule_id,
        severity,
        entry.operator,
        message,
        hint,
        entry.location,
        None,
        fingerprint(rule_id, entry.operator, entry.rule, (entry.fingerprint, entry.expires.isoformat())),
        subject=entry.rule,
        bc=False,
        fc=False,
    )
