"""Load errors and usage errors in the format the command was asked for.

When a command cannot do its job (a typo in a spec, an invalid old tree, a missing file, a bad
option) the exit code says so (2, or 1 where a command has always reported spec errors as
findings) and the error must reach the pull request like any finding: in github, sarif and
junit through the shared writers of `report.py`, located at the spec file and line; in json as
an envelope with the diagnostics. Text keeps the terminal form (`file:line:col: ...` on stderr).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from toolkit.model.diagnostics import Diagnostic, Severity, usage_text
from toolkit.reporting import common
from toolkit.reporting.formats import render
from toolkit.reporting.paths import discover
from toolkit.reporting.report import Report, diagnostics_report
from toolkit.reporting.schema_text import diagnostic_dict

JSON_KIND = "error"


def load_errors_text(what: str, diagnostics: Iterable[Diagnostic], command: str) -> str:
    diags = list(diagnostics)
    lines = [d.format() for d in diags]
    lines.append(f"opset {command}: {what} has {_errors(diags)} spec error(s); fix them first")
    return "\n".join(lines) + "\n"


def render_load_errors(
    command: str,
    what: str,
    diagnostics: Iterable[Diagnostic],
    fmt: str,
    exit_code: int,
    *,
    ref: str = "",
    commit: str = "",
) -> str:
    """The diagnostics that stopped `command` from loading `what` (e.g. "the new tree"); `ref`
    and `commit`: the files were read from git at that ref, not from the work tree."""
    diags = list(diagnostics)
    summary = f"opset {command}: {what} has {_errors(diags)} spec error(s); fix them first"
    if fmt == "text":
        return load_errors_text(what, diags, command)
    if fmt == "json":
        paths = discover()
        return common.dump_json(
            common.json_envelope(
                kind=JSON_KIND,
                command=command,
                exit_code=exit_code,
                message=summary,
                diagnostics=[diagnostic_dict(d, paths.repo_path(d.location.file)) for d in diags],
            )
        )
    report: Report = diagnostics_report(command, diags, exit_code, summary=summary, error=exit_code >= 2)
    if ref:
        report.items = [replace(item, place=replace(item.place, ref=ref)) for item in report.items]
        report.old_tree = f"the old tree: git ref {ref} at commit {commit}"
    return render(report, fmt)


def render_usage_error(command: str, message: str, fmt: str, exit_code: int = 2) -> str:
    """The message may quote a path or a value of the tree: each line escaped, in every format."""
    message = usage_text(message)
    if fmt == "text":
        return f"opset: error: {message}\n"
    if fmt == "json":
        return common.dump_json(
            common.json_envelope(
                kind=JSON_KIND, command=command, exit_code=exit_code, message=message, diagnostics=[]
            )
        )
    return render(Report(command, [], exit_code, usage_errors=[message]), fmt)


def _errors(diags: list[Diagnostic]) -> int:
    return sum(1 for d in diags if d.severity is Severity.ERROR)


def render_findings(command: str, diagnostics: Iterable[Diagnostic], fmt: str, *, summary: str) -> str:
    """Located diagnostics that are the command's findings (exit 1), in json or a machine format."""
    diags = list(diagnostics)
    code = 1 if any(d.severity is Severity.ERROR for d in diags) else 0
    if fmt == "json":
        paths = discover()
        return common.dump_json(
            common.json_envelope(
                kind="findings",
                command=command,
                exit_code=code,
                message=summary,
                diagnostics=[diagnostic_dict(d, paths.repo_path(d.location.file)) for d in diags],
            )
        )
    return render(diagnostics_report(command, diags, code, summary=summary, error=False), fmt)
