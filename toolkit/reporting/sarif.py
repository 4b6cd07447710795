"""A `Report` as SARIF 2.1.0, the way GitHub code scanning takes it.

- Every artifact URI is relative to the repository root, percent-encoded (RFC 3986), with
  `uriBaseId` `%SRCROOT%`, which `run.originalUriBaseIds` defines as the root's `file:` URI. A
  file outside the root is an absolute `file:` URI.
- Every result has a region: its line and column, or line 1 when the finding is about a whole
  file (a model, a generated file); a graph path inside a model is a logical location.
- A related location names its own file: the old tree's file is given relative to `OLDTREE`,
  a base described in `originalUriBaseIds` by its git ref and commit (GitHub ties `%SRCROOT%`
  paths to the analysed commit, so an old line number must never sit under it).
- Usage errors and load failures are `invocations[0]`: `executionSuccessful: false` and each usage error as a tool execution notification.
- The driver lists the rules reported (or the command's whole catalog), each with a name,
  descriptions, help text, its default level and a URI of its doc that exists (the docs page in
  the repository, `toolkit.model.rules.docs_link`).
"""

from __future__ import annotations

from toolkit import __version__
from toolkit.model.rules import REPOSITORY_URL, Rule
from toolkit.reporting import common
from toolkit.reporting.paths import SRCROOT, RepoPaths, file_uri, uri_encode
from toolkit.reporting.report import Item, Place, Report

OLDTREE = "OLDTREE"
FINGERPRINT_KEYS = {
    "diff": "opsetFinding/v1",
    "check-model": "opsetModelFinding/v1",
    "compat": "opsetModelFinding/v1",
}


def artifact_location(place: Place, paths: RepoPaths) -> dict[str, object]:
    path, inside = paths.locate(place.file)
    if place.ref:
        return {"uri": uri_encode(path), "uriBaseId": OLDTREE}
    if not inside:
        return {"uri": file_uri(path)}
    return {"uri": uri_encode(path), "uriBaseId": SRCROOT}


def region(place: Place) -> dict[str, object]:
    if place.line > 0:
        return {"startLine": place.line, "startColumn": max(place.column, 1)}
    return {"startLine": 1}


def location(place: Place, paths: RepoPaths) -> dict[str, object]:
    out: dict[str, object] = {
        "physicalLocation": {"artifactLocation": artifact_location(place, paths), "region": region(place)}
    }
    if place.logical:
        out["logicalLocations"] = [{"fullyQualifiedName": place.logical, "kind": "member"}]
    return out


def rule_descriptor(rule: Rule) -> dict[str, object]:
    properties: dict[str, object] = {"tags": [rule.family] + ([rule.category] if rule.category else [])}
    if rule.bc is not None or rule.fc is not None:
        properties.update({"category": rule.category, "bc": rule.bc, "fc": rule.fc})
    full = rule.summary + (f" Breaks: {rule.compat_text}." if rule.family == "gate" else "")
    help_text = (rule.doc or rule.summary).replace("**", "")
    if rule.hint:
        help_text += f"\nFix: {rule.hint}."
    return common.sarif_rule(
        rule.id,
        name=rule.name or rule.id,
        summary=rule.summary,
        full=full,
        help_text=help_text,
        help_markdown=rule.doc or None,
        help_uri=rule.help_uri,
        severity=rule.severity,
        properties=properties,
    )


def _result(item: Item, index: dict[str, int], paths: RepoPaths, key: str) -> dict[str, object]:
    message = item.body(paths)
    result: dict[str, object] = {
        "ruleId": item.rule,
        "level": common.sarif_level(item.severity),
        "message": {"text": message},
        "locations": [location(item.place, paths)],
    }
    if item.rule in index:
        result["ruleIndex"] = index[item.rule]
    if item.fingerprint:
        result["partialFingerprints"] = {key: item.fingerprint}
    if item.related:
        related = []
        for number, (place, what) in enumerate(item.related, start=1):
            entry = location(place, paths)
            entry["id"] = number
            entry["message"] = {"text": f"{what}: {place.label(paths)}"}
            related.append(entry)
        result["relatedLocations"] = related
    properties = dict(item.properties)
    if item.flags:
        properties["flags"] = item.flags
    if properties:
        result["properties"] = properties
    return result


def render_sarif(report: Report) -> str:
    paths = report.repo()
    rules = report.catalog()
    index = {rule.id: i for i, rule in enumerate(rules)}
    key = FINGERPRINT_KEYS.get(report.command, f"opset{report.command.title().replace('-', '')}/v1")
    bases: dict[str, object] = {
        SRCROOT: {"uri": paths.root_uri, "description": {"text": "the repository root"}},
    }
    if report.old_tree:
        bases[OLDTREE] = {"description": {"text": report.old_tree}}
    invocation: dict[str, object] = {"executionSuccessful": not report.tool_failed}
    if report.usage_errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": message}} for message in report.usage_errors
        ]
    run: dict[str, object] = {
        "tool": {
            "driver": {
                "name": common.TOOL_NAME,
                "version": __version__,
                "informationUri": REPOSITORY_URL,
                "rules": [rule_descriptor(r) for r in rules],
            }
        },
        "invocations": [invocation],
        "originalUriBaseIds": bases,
        "results": [_result(item, index, paths, key) for item in report.items],
        "properties": {"command": f"opset {report.command}", **report.properties},
    }
    return common.dump_json({"$schema": common.SARIF_SCHEMA, "version": common.SARIF_VERSION, "runs": [run]})
