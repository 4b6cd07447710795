"""Reporters of `opset compat`: text and json of their own, github and sarif through the
check-model reporters (a compat finding is located like a model finding)."""

from __future__ import annotations

from toolkit.model.diagnostics import Severity
from toolkit.onnx_bridge.check import ModelFinding
from toolkit.onnx_bridge.compat_model import COMPAT_RULES, CompatFinding, CompatReport
from toolkit.reporting.common import dump_json, json_envelope
from toolkit.reporting.model_check import render_github, render_sarif

FORMATS = ("text", "json", "github", "sarif")
JSON_KIND = "compat"


def render(report: CompatReport, fmt: str) -> str:
    if fmt == "json":
        findings = [
            {"rule": f.rule, "path": f.path, "operator": f.operator, "message": f.message,
             "oldest_opset": f.oldest_opset, "convert_to": f.convert_to}
            for f in report.findings
        ]
        return dump_json(json_envelope(
            kind=JSON_KIND, model=report.model, runtime=report.runtime, nodes=report.nodes,
            compatible=report.compatible, findings=findings,
        ))
    if fmt in ("github", "sarif"):
        located = [(report.model, [_model_finding(f) for f in report.findings])]
        return render_github(located) if fmt == "github" else render_sarif(located, COMPAT_RULES)
    lines = [f"{report.model}:{f.path}: error[{f.rule}]: {f.message}" for f in report.findings]
    verdict = "can run" if report.compatible else f"cannot run ({len(report.findings)} finding(s))"
    lines.append(f"{report.model}: {report.nodes} node(s); {verdict} on runtime {report.runtime}")
    return "\n".join(lines) + "\n"


def _model_finding(finding: CompatFinding) -> ModelFinding:
    return ModelFinding(finding.rule, finding.message, finding.path, Severity.ERROR, operator=finding.operator)
