"""Reporters of `opset model-diff`: text and json."""

from __future__ import annotations

import json

from toolkit.onnx_bridge.model_diff import DiffReport


def render(report: DiffReport, fmt: str) -> str:
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
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
    lines = [f"{c.bump.label:5} [{c.rule}] {c.message}" for c in report.changes]
    lines.append(f"required bump: {report.required.label}")
    lines.append(f"model_version: {report.old_version} -> {report.new_version}")
    status = "ok" if report.version_ok else "error[MDIFF-VERSION]"
    lines.append(f"{status}: {report.version_message}")
    return "\n".join(lines) + "\n"
