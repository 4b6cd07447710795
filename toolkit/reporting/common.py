"""The reporter pieces every command that reports findings shares: the docs site's address,
severity -> level mappings, GitHub workflow-command escaping, the JSON envelope and the SARIF
2.1.0 skeleton (driver with its rule catalog, physical and logical locations).

Spec findings (the BC gate) are located by `file:line:col`; model findings (`check-model`,
`compat`) by a graph path inside a model file, which SARIF carries as a logical location next
to the model file's physical location. Output is deterministic: no timestamps, fixed key order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from toolkit import __version__
from toolkit.load import writer
from toolkit.model.diagnostics import Severity, UsageError, escape

# Output formats of `opset diff` (toolkit.reporting.gate renders them); here so that the CLI
# can offer them without importing the gate.
GATE_FORMATS = ("text", "json", "github", "sarif", "junit")

TOOL_NAME = "opset-toolkit"
JSON_FORMAT_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"

_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def sarif_level(severity: Severity) -> str:
    return _SARIF_LEVELS[severity]


def write_report(path: str | os.PathLike[str], text: str) -> None:
    """Write a report file atomically (`toolkit.load.writer.write_file`): a reader (a CI upload
    step, a concurrent run) sees the old file or the whole new one, never half of one."""
    target = Path(path)
    if not target.parent.is_dir():
        raise UsageError(f"cannot write {target}: no such directory {target.parent}")
    writer.write_file(target, text.encode("utf-8"))


# --------------------------------------------------------------------------- json


def json_envelope(**fields: object) -> dict[str, object]:
    """The head of every JSON report: format version and tool, then the command's own fields."""
    return {
        "format_version": JSON_FORMAT_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        **fields,
    }


def dump_json(document: object, *, sort_keys: bool = False) -> str:
    """`document` as JSON, one line per value. JSON escapes line breaks and controls itself; a
    `##[` inside a string (the only place JSON text can hold one) is written `##\\u005b`, the same
    string to every JSON reader, so that no line of the report printed in a CI log is a GitHub
    workflow command (the runner reads `##[name]` anywhere in a line: `diagnostics.escape`)."""
    text = json.dumps(document, indent=2, sort_keys=sort_keys) + "\n"
    return text.replace("##[", "##\\u005b") if "##[" in text else text


# --------------------------------------------------------------------------- github


def gh_data(text: str) -> str:
    """Escape a workflow command's message (after the second `::`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_prop(text: str) -> str:
    """Escape a workflow command's property value (`file=`, `title=`)."""
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(
    severity: Severity, *, file: str, title: str, message: str, line: int = 0, column: int = 0
) -> str:
    """One `::error file=...,line=...,col=...,title=...::message` line; line 0 = the whole file,
    no file = an annotation of the run (a usage error)."""
    props = [f"file={gh_prop(escape(file))}"] if file else []  # the path as one line of text, shown
    if file and line > 0:
        props += [f"line={line}", f"col={max(column, 1)}"]
    props.append(f"title={gh_prop(title)}")
    return f"::{_GITHUB_COMMANDS[severity]} {','.join(props)}::{gh_data(message)}"


# --------------------------------------------------------------------------- sarif


def sarif_physical(file: str, line: int = 0, column: int = 0) -> dict[str, object]:
    physical: dict[str, object] = {"artifactLocation": {"uri": file.replace("\\", "/")}}
    if line > 0:
        physical["region"] = {"startLine": line, "startColumn": max(column, 1)}
    return {"physicalLocation": physical}


def sarif_graph_location(model: str, path: str) -> dict[str, object]:
    """A model file plus the graph path inside it (`graph/node/index`) as a logical location."""
    location = sarif_physical(model)
    location["logicalLocations"] = [{"fullyQualifiedName": path, "kind": "member"}]
    return location


def sarif_rule(
    rule_id: str,
    *,
    name: str,
    summary: str,
    full: str,
    help_text: str,
    help_uri: str,
    severity: Severity,
    help_markdown: str | None = None,
    properties: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """One `reportingDescriptor` of the driver's rule catalog."""
    help_: dict[str, str] = {"text": help_text}
    if help_markdown is not None:
        help_["markdown"] = help_markdown
    rule: dict[str, object] = {
        "id": rule_id,
        "name": pascal_case(name),
        "shortDescription": {"text": summary},
        "fullDescription": {"text": full},
        "help": help_,
        "helpUri": help_uri,
        "defaultConfiguration": {"level": sarif_level(severity)},
    }
    if properties:
        rule["properties"] = dict(properties)
    return rule


def sarif_result(
    rule_id: str,
    rule_index: int,
    severity: Severity,
    message: str,
    locations: Sequence[Mapping[str, object]],
    fingerprints: Mapping[str, str],
) -> dict[str, object]:
    return {
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "level": sarif_level(severity),
        "message": {"text": message},
        "locations": [dict(loc) for loc in locations],
        "partialFingerprints": dict(fingerprints),
    }


def sarif_log(
    rules: Iterable[Mapping[str, object]], results: Iterable[Mapping[str, object]], *, information_uri: str
) -> str:
    """A SARIF 2.1.0 log of one run of the tool."""
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "informationUri": information_uri,
                        "rules": [dict(r) for r in rules],
                    }
                },
                "results": [dict(r) for r in results],
            }
        ],
    }
    return dump_json(doc)


def pascal_case(name: str) -> str:
    """`attribute-added` / `domain not imported` -> `AttributeAdded` / `DomainNotImported`."""
    return "".join(part.capitalize() for part in name.replace("_", " ").replace("-", " ").split())
