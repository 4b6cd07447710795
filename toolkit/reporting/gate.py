"""Reporters for gate results: text, json, github, sarif, junit. Deterministic output only.

- text: `file:line:col: severity[RULE-ID]: operator: message`, the old location, a hint.
- json: documented by `schemas/findings.schema.json` (format version 1).
- github: workflow commands (`::error file=...,line=...,col=...,title=RULE::message`).
- sarif: SARIF 2.1.0 with the rule catalog as `tool.driver.rules` (help text, help URI),
  results with locations, the old location as a related location, and partialFingerprints.
- junit: one test case per active rule; findings at or above the threshold are failures.

The pieces shared with the model tools' reporters (envelope, escaping, levels, SARIF skeleton)
live in `toolkit.reporting.common`.
"""

from __future__ import annotations

from collections.abc import Callable

from toolkit.compat.engine import Finding
from toolkit.compat.gate import GateResult
from toolkit.compat.rules import all_rules
from toolkit.model.diagnostics import Severity
from toolkit.model.rules import DOCS_URL, Rule
from toolkit.model.spec import Location
from toolkit.reporting import common as shared

FINGERPRINT_KEY = "opsetFinding/v1"
FORMATS = shared.GATE_FORMATS


def render(result: GateResult, fmt: str, fail_on: Severity) -> str:
    renderers: dict[str, Callable[[GateResult, Severity], str]] = {
        "text": render_text,
        "json": render_json,
        "github": render_github,
        "sarif": render_sarif,
        "junit": render_junit,
    }
    return renderers[fmt](result, fail_on)


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
        if f.old_location is not None:
            lines.append(f"  was: {f.old_location} ({result.old_label})")
        if f.hint:
            lines.append(f"  hint: {f.hint}")
    lines.append(summary_line(result, fail_on))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- json


def _loc_json(loc: Location | None) -> dict[str, object] | None:
    if loc is None:
        return None
    return {"file": loc.file, "line": loc.line, "column": loc.column}


def finding_json(f: Finding) -> dict[str, object]:
    out: dict[str, object] = {
        "rule": f.rule,
        "severity": f.severity.value,
        "operator": f.operator,
        "subject": f.subject,
        "message": f.message,
        "hint": f.hint,
        "location": _loc_json(f.location),
        "old_location": _loc_json(f.old_location),
        "fingerprint": f.fingerprint,
        "bc": f.bc,
        "fc": f.fc,
    }
    if f.allowed_by:
        out["allowed_by"] = f.allowed_by
    return out


def render_json(result: GateResult, fail_on: Severity) -> str:
    doc = shared.json_envelope(
        against=result.old_label,
        profile=result.profile,
        fail_on=fail_on.value,
        exit_code=result.exit_code(fail_on),
        summary=result.counts(),
        findings=[finding_json(f) for f in result.findings],
        allowed=[finding_json(f) for f in result.allowed],
    )
    return shared.dump_json(doc)


# --------------------------------------------------------------------------- github


def render_github(result: GateResult, fail_on: Severity) -> str:
    lines = []
    for f in result.findings:
        body = f"{f.operator}: {f.message}"
        if f.old_location is not None:
            body += f"\nwas: {f.old_location} ({result.old_label})"
        if f.hint:
            body += f"\nhint: {f.hint}"
        loc = f.location
        lines.append(shared.github_annotation(
            f.severity, file=loc.file, line=loc.line, column=loc.column, title=f.rule, message=body
        ))
    lines.append(summary_line(result, fail_on))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- sarif


def _physical(loc: Location) -> dict[str, object]:
    return shared.sarif_physical(loc.file, loc.line, loc.column)


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


def render_sarif(result: GateResult, fail_on: Severity) -> str:
    rules = all_rules()
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for f in result.findings:
        message = f"{f.operator}: {f.message}" + (f" (hint: {f.hint})" if f.hint else "")
        entry = shared.sarif_result(
            f.rule, index[f.rule], f.severity, message, [_physical(f.location)], {FINGERPRINT_KEY: f.fingerprint}
        )
        entry["properties"] = {"operator": f.operator, "subject": f.subject, "bc": f.bc, "fc": f.fc}
        if f.old_location is not None:
            related = _physical(f.old_location)
            related["id"] = 1
            related["message"] = {"text": f"before ({result.old_label})"}
            entry["relatedLocations"] = [related]
        results.append(entry)
    return shared.sarif_log([sarif_rule(r) for r in rules], results, information_uri=DOCS_URL)


def _plain(markdown: str) -> str:
    return markdown.replace("**", "")


# --------------------------------------------------------------------------- junit


def render_junit(result: GateResult, fail_on: Severity) -> str:
    by_rule: dict[str, list[Finding]] = {}
    for f in result.findings:
        by_rule.setdefault(f.rule, []).append(f)
    cases = []
    failures = 0
    for rule in result.rules:
        found = by_rule.get(rule.id, [])
        failing = [f for f in found if f.severity.rank >= fail_on.rank]
        body = ""
        if failing:
            failures += 1
            text = "\n".join(_finding_line(f) for f in failing)
            body += (
                f"<failure message={_xml_attr(f'{len(failing)} finding(s)')} type={_xml_attr(rule.id)}>"
                f"{_xml_text(text)}</failure>"
            )
        quiet = [f for f in found if f not in failing]
        if quiet:
            body += f"<system-out>{_xml_text(chr(10).join(_finding_line(f) for f in quiet))}</system-out>"
        name = _xml_attr(f"{rule.id} {rule.name}")
        cases.append(f'    <testcase classname="opset.diff" name={name}>{body}</testcase>')
    head = (
        f"  <testsuite name={_xml_attr('opset diff against ' + result.old_label)} tests=\"{len(result.rules)}\" "
        f'failures="{failures}" errors="0" skipped="0">'
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
        + head
        + "\n"
        + "\n".join(cases)
        + ("\n" if cases else "")
        + "  </testsuite>\n</testsuites>\n"
    )


def _finding_line(f: Finding) -> str:
    line = f"{f.location}: {f.severity.value}[{f.rule}]: {f.operator}: {f.message}"
    return line + (f" (hint: {f.hint})" if f.hint else "")


# xml.sax.saxutils would do, but importing it pulls in urllib/http/email (~25 ms per command).
_XML_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_XML_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _xml_text(text: str) -> str:
    return text.translate(_XML_TEXT)


def _xml_attr(text: str) -> str:
    return '"' + text.translate(_XML_ATTR) + '"'
