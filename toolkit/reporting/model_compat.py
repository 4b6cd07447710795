"""Reporters of `opset compat`: text and json of their own, github and sarif through the
check-model reporters (a compat finding is located like a model finding)."""

from __future__ import annotations

from toolkit.model.diagnostics import Severity
from toolkit.onnx_bridge.check.runtime import model_finding
from toolkit.onnx_bridge.compat_model import COMPAT_RULES, CompatReport
from toolkit.reporting.common import dump_json, json_envelope
from toolkit.reporting.formats import render as render_machine
from toolkit.reporting.model_check import model_report
from toolkit.reporting.report import MACHINE_FORMATS

FORMATS = ("text", "json", "github", "sarif", "junit")
JSON_KIND = "compat"


def render(report: CompatReport, fmt: str) -> str:
    if fmt == "json":
        findings = [
            {
                "rule": f.rule,
                "severity": f.severity,
                "path": f.path,
                "operator": f.operator,
                "message": f.message,
                "oldest_opset": f.oldest_opset,
                "convert_to": f.convert_to,
            }
            for f in report.findings
        ]
        return dump_json(
            json_envelope(
                kind=JSON_KIND,
                model=report.model,
                runtime=report.runtime,
                nodes=report.nodes,
                compatible=report.compatible,
                runnable_after_inlining=report.runnable_after_inlining,
                findings=findings,
            )
        )
    verdict = "can run" if report.compatible else f"cannot run ({len(report.findings)} finding(s))"
    if report.runnable_after_inlining:
        verdict = f"cannot run as is, can run after inlining ({len(report.findings)} operator(s) to inline)"
    summary = f"{report.model}: {report.nodes} node(s); {verdict} on runtime {report.runtime}"
    if fmt in MACHINE_FORMATS:
        located = [(report.model, [model_finding(f) for f in report.findings])]
        code = 0 if report.compatible else 1
        return render_machine(
            model_report("compat", located, COMPAT_RULES, code, Severity.ERROR, summary), fmt
        )
    lines = [f"{report.model}:{f.path}: {f.severity}[{f.rule}]: {f.message}" for f in report.findings]
    lines.append(summary)
    return "\n".join(lines) + "\n"
