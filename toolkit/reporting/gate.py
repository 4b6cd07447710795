"""Reporters for gate results: text, json, github, sarif, junit. Deterministic output only.

- text: `file:line:col: severity[RULE-ID]: operator: message`, then what the change breaks
  (`breaks: BC=yes FC=no`), the old location and a hint; under the findings one line says what
  BC and FC mean (`LEGEND`).
- json: documented by `schemas/findings.schema.json` (format version 1).
- github, sarif, junit: the shared writers of `toolkit.reporting.report` (repository paths,
  a region on every result, the old location as a related location that names the old tree);
  github titles carry the flags (`title=ATTR-ADDED [BC=yes FC=no]`).
"""

from __future__ import annotations

from toolkit.compat.engine import Finding
from toolkit.compat.gate import GateResult
from toolkit.model.diagnostics import Severity
from toolkit.model.rules import Rule
from toolkit.model.spec import Location
from toolkit.reporting import common as shared
from toolkit.reporting.formats import render as render_machine
from toolkit.reporting.paths import RepoPaths, discover
from toolkit.reporting.report import Item, Place, Report

FINGERPRINT_KEY = "opsetFinding/v1"
FORMATS = shared.GATE_FORMATS


def render(
    result: GateResult, fmt: str, fail_on: Severity, *, old_commit: str = "", paths: RepoPaths | None = None
) -> str:
    """`old_commit`: the old tree was read from git (`result.old_label` is the ref) at this commit."""
    if fmt == "text":
        return render_text(result, fail_on)
    if fmt == "json":
        return render_json(result, fail_on, paths)
    return render_machine(gate_report(result, fail_on, old_commit=old_commit, paths=paths), fmt)


def flags(f: Finding) -> str:
    """What the change breaks, both ways: `BC=yes FC=no`."""
    return f"BC={'yes' if f.bc else 'no'} FC={'yes' if f.fc else 'no'}"


# Printed once under the findings of a text report: the `breaks:` line assumes Versioning.md.
LEGEND = (
    "legend: BC=yes: models made for the old version may stop working on the new registry "
    "(backward compatibility); FC=yes: models made for the new version may not run on runtimes "
    "of the old one (forward compatibility)"
)


def gate_report(
    result: GateResult, fail_on: Severity, *, old_commit: str = "", paths: RepoPaths | None = None
) -> Report:
    ref = result.old_label if old_commit else ""
    items = []
    for f in result.findings:
        loc = f.location
        related: tuple[tuple[Place, str], ...] = ()
        if f.old_location is not None:
            old = f.old_location
            what = f"before ({result.old_label})"
            related = ((Place(old.file, old.line, old.column, ref=ref), what),)
        items.append(
            Item(
                f.rule,
                f.severity,
                f.message,
                Place(loc.file, loc.line, loc.column),
                hint=f.hint,
                subject=f.operator,
                flags=flags(f),
                related=related,
                fingerprint=f.fingerprint,
                properties={"operator": f.operator, "subject": f.subject, "bc": f.bc, "fc": f.fc},
                failing=f.severity.rank >= fail_on.rank,
            )
        )
    old_tree = f"the old tree: git ref {result.old_label} at commit {old_commit}" if old_commit else ""
    return Report(
        "diff",
        items,
        result.exit_code(fail_on),
        summary=summary_line(result, fail_on),
        properties={"against": result.old_label, "profile": result.profile, "fail_on": fail_on.value},
        old_tree=old_tree,
        paths=paths,
    )


def summary_line(result: GateResult, fail_on: Severity) -> str:
    counts = result.counts()
    text = f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    if counts["allowed"]:
        text += f", {counts['allowed']} allowlisted"
    verdict = "FAIL" if result.exit_code(fail_on) else "ok"
    return f"opset diff against {result.old_label} [{result.profile}]: {text} -> {verdict} (--fail-on {fail_on.value})"


# --------------------------------------------------------------------------- text


def render_text(result: GateResult, fail_on: Severity) -> str:
    lines = []
    for f in result.findings:
        lines.append(f"{f.location}: {f.severity.value}[{f.rule}]: {f.operator}: {f.message}")
        lines.append(f"  breaks: {flags(f)}")
        if f.old_location is not None:
            lines.append(f"  was: {f.old_location} ({result.old_label})")
        if f.hint:  # continuation lines indented, as a Diagnostic's are
            lines.append("  hint: " + f.hint.replace("\n", "\n        "))
    if result.findings:
        lines.append(LEGEND)
    lines.append(summary_line(result, fail_on))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- json


def _loc_json(loc: Location | None, paths: RepoPaths) -> dict[str, object] | None:
    if loc is None:
        return None
    return {"file": loc.file, "path": paths.repo_path(loc.file), "line": loc.line, "column": loc.column}


def finding_json(f: Finding, paths: RepoPaths | None = None) -> dict[str, object]:
    paths = paths or discover()
    out: dict[str, object] = {
        "rule": f.rule,
        "severity": f.severity.value,
        "operator": f.operator,
        "subject": f.subject,
        "message": f.message,
        "hint": f.hint,
        "location": _loc_json(f.location, paths),
        "old_location": _loc_json(f.old_location, paths),
        "fingerprint": f.fingerprint,
        "bc": f.bc,
        "fc": f.fc,
    }
    if f.allowed_by:
        out["allowed_by"] = f.allowed_by
    return out


def render_json(result: GateResult, fail_on: Severity, paths: RepoPaths | None = None) -> str:
    paths = paths or discover()
    doc = shared.json_envelope(
        against=result.old_label,
        profile=result.profile,
        fail_on=fail_on.value,
        exit_code=result.exit_code(fail_on),
        summary=result.counts(),
        findings=[finding_json(f, paths) for f in result.findings],
        allowed=[finding_json(f, paths) for f in result.allowed],
    )
    return shared.dump_json(doc)


# --------------------------------------------------------------------------- sarif


def sarif_rule(rule: Rule) -> dict[str, object]:
    return shared.sarif_rule(
        rule.id,
        name=rule.name,
        summary=rule.summary,
        full=f"{rule.summary} Breaks: {rule.compat_text}.",
        help_text=_plain(rule.doc),
        help_markdown=rule.doc,
        help_uri=rule.help_uri,
        severity=rule.severity,
        properties={"category": rule.category, "bc": rule.bc, "fc": rule.fc, "tags": [rule.category]},
    )


def _plain(markdown: str) -> str:
    return markdown.replace("**", "")
