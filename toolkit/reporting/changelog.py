"""`opset changelog` as Markdown (release notes) or JSON; deterministic output only.

Markdown: a title naming the old tree, one line of counts per level, then a section per domain
and a list per operator, breaking entries first, each `**level** `KIND` subject: message` (a
new version's changes as a nested list). Every text from the trees (messages carry names,
types and default values) goes through the docs' Markdown sanitizer, so a default value cannot
inject HTML, a link or a heading into the notes.

JSON: the report envelope (`format_version`, `tool`) with `kind: changelog`, `against`, the
counts and the domains, each with its own entries and its operators' entries.
"""

from __future__ import annotations

from toolkit.compat.changelog import LEVELS, Changelog, Entry
from toolkit.generate.mdsafe import sanitize
from toolkit.reporting import common
from toolkit.reporting.paths import discover

FORMATS = ("markdown", "json")


def render(log: Changelog, fmt: str) -> str:
    if fmt == "json":
        return render_json(log)
    return render_markdown(log)


def _text(text: str) -> str:
    """Tree text made safe for one Markdown line."""
    return " ".join(sanitize(text).text.split())


def render_markdown(log: Changelog) -> str:
    counts = log.counts()
    lines = [f"# Changes since {_text(log.against)}", ""]
    if not log.domains:
        return "\n".join([*lines, "No changes.", ""])
    lines += [", ".join(f"{counts[level]} {level}" for level in LEVELS) + ".", ""]
    for domain in log.domains:
        lines += [f"## {_text(domain.name)}", ""]
        lines += [line for entry in domain.entries for line in _entry_lines(entry)]
        if domain.entries:
            lines.append("")
        for op in domain.operators:
            lines += [f"### {_text(op.name)}", ""]
            lines += [line for entry in op.entries for line in _entry_lines(entry)]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _entry_lines(entry: Entry) -> list[str]:
    head = f"- **{entry.level}** `{entry.kind}` {_text(entry.subject)}: {_text(entry.message)}"
    return [head, *(f"  - {_text(detail)}" for detail in entry.details)]


def render_json(log: Changelog) -> str:
    paths = discover()

    def entry(e: Entry) -> dict[str, object]:
        loc = e.location
        return {
            "kind": e.kind,
            "level": e.level,
            "subject": e.subject,
            "message": e.message,
            "bc": e.bc,
            "fc": e.fc,
            "details": list(e.details),
            "location": {
                "file": paths.repo_path(loc.file) if loc.file else "",
                "line": loc.line,
                "column": loc.column,
            },
        }

    domains = [
        {
            "domain": d.name,
            "changes": [entry(e) for e in d.entries],
            "operators": [
                {"operator": o.name, "changes": [entry(e) for e in o.entries]} for o in d.operators
            ],
        }
        for d in log.domains
    ]
    document = common.json_envelope(
        kind="changelog", against=log.against, summary=log.counts(), domains=domains
    )
    return common.dump_json(document)
