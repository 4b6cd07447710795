"""`render(report, fmt)`: a `Report` (toolkit.reporting.report) in one of the machine formats."""

from __future__ import annotations

from toolkit.reporting.junit import render_junit
from toolkit.reporting.report import Report, render_github
from toolkit.reporting.sarif import render_sarif


def render(report: Report, fmt: str) -> str:
    if fmt == "github":
        return render_github(report)
    if fmt == "sarif":
        return render_sarif(report)
    if fmt == "junit":
        return render_junit(report)
    raise ValueError(f"not a machine format: {fmt}")
