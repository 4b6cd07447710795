"""Reporters of check-model findings: text, json, github, sarif (and the model tools page's
Rules section). Model findings are located by a graph path inside a model file: text and github
name the file and put the path in the message; SARIF gives the path as a logical location. The
pieces shared with the gate's reporters come from toolkit.reporting.common; `compat` reports
through these too."""

from __future__ import annotations

import os
from collections.abc import Iterable

from toolkit.model.diagnostics import Severity, UsageError
from toolkit.model.rules import CATALOG, Rule
from toolkit.onnx_bridge.check import MODEL_RULES, CheckResult, ModelFinding
from toolkit.onnx_bridge.compat_model import COMPAT_RULES
from toolkit.reporting.common import dump_json, json_envelope
from toolkit.reporting.formats import render as render_machine
from toolkit.reporting.paths import discover
from toolkit.reporting.report import MACHINE_FORMATS, Item, Place, Report


def render_rules_section() -> str:
    """The "Rules" section of docs/guide/model-tools.md, from the unified catalog: a table of the
    MODEL-* rules, one heading per rule (its anchor, the lower-cased id, is what `Rule.help_uri`
    links to), then a table of the rules of compat and model-diff, documented in their sections."""
    lines = [
        "### Rules",
        "",
        "| Id | Severity | Meaning |",
        "| --- | --- | --- |",
    ]
    lines += [f"| [`{r.id}`](#{r.id.lower()}) | {r.severity.value} | {r.name} |" for r in MODEL_RULES]
    for rule in MODEL_RULES:
        fix = f" **Fix:** {rule.hint}." if rule.hint else ""
        lines += ["", f"#### {rule.id}", "", f"*{rule.severity.value}* — {rule.name}. {rule.summary}{fix}"]
        if rule.doc:
            lines += ["", rule.doc]
    # Importing the emitting modules registers their rules (not needed to report model findings).
    import toolkit.onnx_bridge.compat_model
    import toolkit.onnx_bridge.convert_rules
    import toolkit.onnx_bridge.model_diff
    import toolkit.onnx_bridge.runtime_test  # noqa: F401

    others = [rule for family in ("compat", "runtime", "mdiff", "convert") for rule in CATALOG.family(family)]
    lines += [
        "",
        "#### Rules of compat, model-diff, convert and test-runtime",
        "",
        "| Id | Severity | Meaning |",
        "| --- | --- | --- |",
    ]
    lines += [
        f"| [`{r.id}`](#{r.anchor or r.id.lower()}) | {r.severity.value} | {r.summary} |" for r in others
    ]
    return "\n".join(lines) + "\n"


FORMATS = ("text", "json", "github", "sarif", "junit")
JSON_KIND = "check-model"  # documented by schemas/check_model_findings.schema.json


def fingerprint(model: str, finding: ModelFinding) -> str:
    import hashlib

    text = "\0".join((os.path.basename(model), finding.rule, finding.path, finding.operator, finding.message))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def render(
    results: Iterable[CheckResult], fmt: str, fail_on: Severity = Severity.ERROR, tool: str = "check-model"
) -> str:
    """The report of check-model (or of `tool`, whose findings are check-model's: infer-shapes)."""
    items = list(results)
    if fmt == "text":
        return _render_text(items)
    if fmt == "json":
        return _render_json(items)
    if fmt in MACHINE_FORMATS:
        code = 1 if any(f.severity.rank >= fail_on.rank for r in items for f in r.findings) else 0
        located = [(r.model, r.findings) for r in items]
        fired = {f.rule for r in items for f in r.findings}
        rules = [*MODEL_RULES, *(r for r in COMPAT_RULES if r.id in fired)]  # --runtime's findings
        report = model_report(tool, located, rules, code, fail_on, summary=_summary(items))
        return render_machine(report, fmt)
    raise UsageError(f"unknown format '{fmt}' ({', '.join(FORMATS)})")


def _model_summary(result: CheckResult) -> str:
    return (
        f"{result.model}: {result.nodes} node(s) checked, {result.count(Severity.ERROR)} error(s), "
        f"{result.count(Severity.WARNING)} warning(s)"
    )


def _summary(results: list[CheckResult]) -> str:
    return "\n".join(_model_summary(r) for r in results)


def _render_text(results: list[CheckResult]) -> str:
    lines: list[str] = []
    for result in results:
        lines.extend(f.format(result.model) for f in result.findings)
        lines.append(_model_summary(result))
    return "\n".join(lines) + "\n"


def _render_json(results: list[CheckResult]) -> str:
    paths = discover()
    models = [
        {
            "model": r.model,
            "path": paths.repo_path(r.model),
            "nodes": r.nodes,
            "errors": r.count(Severity.ERROR),
            "warnings": r.count(Severity.WARNING),
            "findings": [
                {
                    "rule": f.rule,
                    "severity": f.severity.value,
                    "path": f.path,
                    "operator": f.operator,
                    "message": f.message,
                    "hint": f.hint,
                    "fingerprint": fingerprint(r.model, f),
                }
                for f in r.findings
            ],
        }
        for r in results
    ]
    return dump_json(json_envelope(kind=JSON_KIND, models=models))


ModelFindings = Iterable[tuple[str, Iterable[ModelFinding]]]  # (model file, its findings)


def model_report(
    command: str,
    results: ModelFindings,
    rules: Iterable[Rule],
    exit_code: int,
    fail_on: Severity,
    summary: str = "",
) -> Report:
    """Model findings as a report: each is located at its model file (a SARIF region at line 1:
    the model is binary) with the graph path inside it as a logical location."""
    items = [
        Item(
            f.rule,
            f.severity,
            f.message,
            Place(model, logical=f.path),
            hint=f.hint,
            fingerprint=fingerprint(model, f),
            properties={"operator": f.operator} if f.operator else {},
            failing=f.severity.rank >= fail_on.rank,
        )
        for model, findings in results
        for f in findings
    ]
    return Report(command, items, exit_code, summary=summary, rules=list(rules))
