"""Reporters of `opset convert`: text and json of their own; github, sarif and junit through the
shared report model (a blocker is located like a model finding: model file + graph path)."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.model.diagnostics import Severity, UsageError
from toolkit.onnx_bridge.convert import ConversionResult
from toolkit.onnx_bridge.convert_rules import CONVERT_RULES, Blocker
from toolkit.reporting.common import dump_json, json_envelope

FORMATS = ("text", "json", "github", "sarif", "junit")
JSON_KIND = "convert"


def render(
    model: str, output: str, result: ConversionResult | None, blockers: Sequence[Blocker], fmt: str
) -> str:
    """The report of one conversion: what moved (`result`), or every blocker (nothing written)."""
    if fmt == "json":
        return dump_json(
            json_envelope(
                kind=JSON_KIND,
                model=model,
                output=output if result is not None else None,
                converted=result is not None,
                steps=list(result.steps) if result is not None else [],
                moves=result.converted if result is not None else 0,
                ir_version=result.model.ir_version if result is not None else None,
                notes=list(result.notes) if result is not None else [],
                findings=[
                    {
                        "rule": b.finding.rule,
                        "step": b.step,
                        "path": b.finding.path,
                        "operator": b.finding.operator,
                        "message": b.finding.message,
                        "hint": b.finding.hint,
                    }
                    for b in blockers
                ],
            )
        )
    if fmt in ("github", "sarif", "junit"):
        from toolkit.reporting.formats import render as render_report
        from toolkit.reporting.model_check import model_report

        findings = [b.finding for b in blockers]
        summary = (
            f"wrote {output} ({result.converted} node move(s))"
            if result is not None
            else f"opset convert: {model} was not converted ({len(blockers)} blocker(s)); nothing was written"
        )
        report = model_report(
            "convert",
            [(model, findings)],
            CONVERT_RULES,
            1 if blockers else 0,
            Severity.ERROR,
            summary=summary,
        )
        return render_report(report, fmt)
    if fmt != "text":
        raise UsageError(f"unknown format '{fmt}' ({', '.join(FORMATS)})")
    if result is None:
        lines = [b.finding.format(model) for b in blockers]
        lines.append(f"{model}: {len(blockers)} blocker(s); nothing written")
        return "\n".join(lines) + "\n"
    lines = [*result.steps, *(f"note: {note}" for note in result.notes)]
    lines.append(f"wrote {output} ({result.converted} node move(s), ir_version {result.model.ir_version})")
    return "\n".join(lines) + "\n"
