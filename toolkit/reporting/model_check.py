"""Reporters of check-model findings: text, json, github, sarif (and the model tools page's
Rules section). Model findings are located by a graph path inside a model file: text and github
name the file and put the path in the message; SARIF gives the path as a logical location. The
pieces shared with the gate's reporters come from toolkit.reporting.common; `compat` reports
through these too."""

from __future__ import annotations

import os
from collections.abc import Iterable

from toolkit.model.diagnostics import Severity, UsageError
from toolkit.model.rules import CATALOG, DOCS_URL, Rule
from toolkit.onnx_bridge.check import MODEL_RULES, CheckResult, ModelFinding
from toolkit.reporting.common import (
    dump_json,
    github_annotation,
    json_envelope,
    sarif_graph_location,
    sarif_log,
    sarif_result,
    sarif_rule,
)


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
    import toolkit.onnx_bridge.model_diff  # noqa: F401

    others = [rule for family in ("compat", "runtime", "mdiff") for rule in CATALOG.family(family)]
    lines += [
        "",
        "#### Rules of compat and model-diff",
        "",
        "| Id | Severity | Meaning |",
        "| --- | --- | --- |",
    ]
    lines += [f"| [`{r.id}`](#{r.anchor or r.id.lower()}) | {r.severity.value} | {r.summary} |" for r in others]
    return "\n".join(lines) + "\n"


FORMATS = ("text", "json", "github", "sarif")
JSON_KIND = "check-model"  # documented by schemas/check_model_findings.schema.json


def fingerprint(model: str, finding: ModelFinding) -> str:
    import hashlib

    text = "\0".join((os.path.basename(model), finding.rule, finding.path, finding.operator, finding.message))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def render(results: Iterable[CheckResult], fmt: str) -> str:
    items = list(results)
    if fmt == "text":
        return _render_text(items)
    if fmt == "json":
        return _render_json(items)
    if fmt == "github":
        return render_github([(r.model, r.findings) for r in items])
    if fmt == "sarif":
        return render_sarif([(r.model, r.findings) for r in items], MODEL_RULES)
    raise UsageError(f"unknown format '{fmt}' ({', '.join(FORMATS)})")


def _render_text(results: list[CheckResult]) -> str:
    lines: list[str] = []
    for result in results:
        lines.extend(f.format(result.model) for f in result.findings)
        lines.append(
            f"{result.model}: {result.nodes} node(s) checked, {result.count(Severity.ERROR)} error(s), "
            f"{result.count(Severity.WARNING)} warning(s)"
        )
    return "\n".join(lines) + "\n"


def _render_json(results: list[CheckResult]) -> str:
    models = [
        {
            "model": r.model,
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


def render_github(results: ModelFindings) -> str:
    lines = []
    for model, findings in results:
        for f in findings:
            message = f"{f.path}: {f.message}" + (f"\n  hint: {f.hint}" if f.hint else "")
            lines.append(github_annotation(f.severity, file=model, title=f.rule, message=message))
    return "\n".join(lines) + ("\n" if lines else "")


def render_sarif(results: ModelFindings, rules: Iterable[Rule]) -> str:
    catalog = list(rules)
    rule_index = {rule.id: index for index, rule in enumerate(catalog)}
    descriptors = [
        sarif_rule(
            rule.id,
            name=rule.name,
            summary=rule.name,
            full=rule.summary,
            help_text=rule.summary + (f" Fix: {rule.hint}." if rule.hint else ""),
            help_uri=rule.help_uri,
            severity=rule.severity,
        )
        for rule in catalog
    ]
    out = []
    for model, findings in results:
        for f in findings:
            message = f.message + (f" (hint: {f.hint})" if f.hint else "")
            out.append(sarif_result(
                f.rule, rule_index[f.rule], f.severity, message,
                [sarif_graph_location(model, f.path)], {"opsetModelFinding/v1": fingerprint(model, f)},
            ))
    return sarif_log(descriptors, out, information_uri=DOCS_URL)
