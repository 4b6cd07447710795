"""Reporters of `opset model-diff`: text and json of its own; github, sarif and junit through
the check-model reporters (a signature change is located at NEW's graph, as a model finding)."""

from __future__ import annotations

from toolkit.model.diagnostics import Severity, escape
from toolkit.model.rules import CATALOG
from toolkit.onnx_bridge.check import ModelFinding
from toolkit.onnx_bridge.model_diff import MDIFF_RULES, DiffReport
from toolkit.reporting.common import dump_json
from toolkit.reporting.formats import render as render_machine
from toolkit.reporting.model_check import model_report
from toolkit.reporting.report import MACHINE_FORMATS

VERSION_RULE = "MDIFF-VERSION"


def render(report: DiffReport, fmt: str) -> str:
    if fmt in MACHINE_FORMATS:
        return _render_machine(report, fmt)
    if fmt == "json":
        data = {
            "old": report.old,
            "new": report.new,
            "required_bump": report.required.label,
            "changes": [{"rule": c.rule, "bump": c.bump.label, "message": c.message} for c in report.changes],
            "old_version": report.old_version,
            "new_version": report.new_version,
            "version_ok": report.version_ok,
            "version_message": report.version_message,
        }
        return dump_json(data, sort_keys=True)
    lines = [f"{c.bump.label:5} [{c.rule}] {c.message}" for c in report.changes]
    lines.append(f"required bump: {report.required.label}")
    lines.append(f"model_version: {report.old_version} -> {report.new_version}")
    status = "ok" if report.version_ok else f"error[{VERSION_RULE}]"
    lines.append(f"{status}: {report.version_message}")
    return "\n".join(escape(line) for line in lines) + "\n"  # the versions are the models' text


def _render_machine(report: DiffReport, fmt: str) -> str:
    """Each signature change at its rule's severity (MAJOR: warning, else info: advice), and the
    version verdict as MDIFF-VERSION (an error, the exit code's reason) when the bump is too small."""
    findings = [
        ModelFinding(c.rule, f"{c.bump.label}: {c.message}", "graph", _severity(c.rule))
        for c in report.changes
    ]
    if not report.version_ok:
        findings.append(ModelFinding(VERSION_RULE, report.version_message, "graph", Severity.ERROR))
    summary = (
        f"required bump: {report.required.label}; model_version: {report.old_version} -> {report.new_version}"
    )
    rules = [rule for rule in (*MDIFF_RULES, CATALOG.get(VERSION_RULE)) if rule is not None]
    code = 0 if report.version_ok else 1
    return render_machine(
        model_report("model-diff", [(report.new, findings)], rules, code, Severity.ERROR, summary), fmt
    )


def _severity(rule: str) -> Severity:
    known = CATALOG.get(rule)
    return known.severity if known is not None else Severity.INFO
