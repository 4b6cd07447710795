"""Reference pages that cannot drift: the DSL reference from the JSON Schemas the loader
validates against, and the CLI reference from the `opset` argparse parser itself.

Both are rendered from structure (schema keywords, parser actions), never from argparse's
terminal-width-dependent help text, so the bytes are the same on every machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.generate.mdsafe import escape_pipes, inline

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
SCHEMA_FILES = (
    ("domain", "domain.schema.json", "opsets/<domain>/domain.yaml"),
    ("operator", "operator.schema.json", "opsets/<domain>/<Operator>.yaml"),
    ("releases", "releases.schema.json", "opsets/releases.yaml"),
)


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else f"`` {text} ``"


def _cell(text: str) -> str:
    return inline(text) or escape_pipes(" ".join(text.split()))


# --------------------------------------------------------------------------- DSL reference


@dataclass
class Section:
    anchor: str
    title: str
    description: str
    rows: list[tuple[str, str, str, str]]  # key, type, required, description


class _SchemaWalker:
    """Flattens one JSON Schema into sections: the document, each object $def, nested objects."""

    def __init__(self, prefix: str, schema: dict[str, Any]) -> None:
        self.prefix = prefix
        self.schema = schema
        self.sections: list[Section] = []
        self.scalars: list[tuple[str, str, str]] = []  # non-object $defs: name, type, description

    def walk(self) -> None:
        self.object_section(self.prefix, self.schema.get("title", self.prefix), self.schema)
        for name, node in sorted(self.schema.get("$defs", {}).items()):
            if node.get("type") == "object" and "properties" in node:
                self.object_section(f"{self.prefix}-{name}", f"`{name}`", node, name)
            else:
                self.scalars.append((name, self.type_text(node, name), node.get("description", "")))

    def object_section(self, anchor: str, title: str, node: dict[str, Any], path: str = "") -> None:
        section = Section(anchor, title, node.get("description", ""), [])
        self.sections.append(section)
        required = set(node.get("required", ()))
        for key, child in node.get("properties", {}).items():
            kind = self.type_text(child, f"{path}.{key}" if path else key)
            section.rows.append((_code(key), kind, "yes" if key in required else "", self.description(child)))

    def description(self, node: dict[str, Any]) -> str:
        text = node.get("description", "")
        if not text and "$ref" in node:
            text = self.resolve(node["$ref"]).get("description", "")
        limits = [f"{word} {node[key]}" for key, word in _LIMITS if key in node]
        if "pattern" in node:
            limits.append(f"pattern {_code(node['pattern'])}")
        if limits:
            text += (" " if text else "") + "(" + ", ".join(limits) + ")"
        return _cell(text)

    def resolve(self, ref: str) -> dict[str, Any]:
        node: Any = self.schema
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        result: dict[str, Any] = node
        return result

    def type_text(self, node: dict[str, Any], path: str) -> str:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            target = self.resolve(node["$ref"])
            if target.get("type") == "object" and "properties" in target:
                return f"[{name}](#{self.prefix}-{name})"
            return f"[{name}](#{self.prefix}-defs)"
        if "enum" in node:
            return "one of " + ", ".join(_code(json.dumps(v)) for v in node["enum"])
        if "oneOf" in node:
            return " or ".join(self.type_text(option, path) for option in node["oneOf"])
        kind = node.get("type")
        if kind == "array":
            return "list of " + self.type_text(node.get("items", {}), path + "[]")
        if kind == "object":
            if "properties" in node:
                anchor = f"{self.prefix}-{path.replace('.', '-').replace('[]', '')}"
                self.object_section(anchor, f"`{path}`", node, path)
                return f"[object](#{anchor})"
            values = node.get("additionalProperties")
            if isinstance(values, dict):
                return "map of name to " + self.type_text(values, path + ".*")
            return "object"
        if isinstance(kind, str):
            return kind
        return "any"


_LIMITS = (("minimum", "minimum"), ("minItems", "at least"), ("maxItems", "at most"))


def dsl_sections() -> Iterator[tuple[str, str, dict[str, Any], _SchemaWalker]]:
    for prefix, filename, where in SCHEMA_FILES:
        schema = json.loads((SCHEMA_DIR / filename).read_text(encoding="utf-8"))
        walker = _SchemaWalker(prefix, schema)
        walker.walk()
        yield filename, where, schema, walker


def dsl_page(header: str) -> str:
    lines = [
        header.rstrip("\n"),
        "# DSL reference",
        "",
        "Every key of the spec files, generated from the JSON Schemas in `schemas/` that `opset validate`",
        "checks every file against (this page cannot drift from them). Markdown is allowed in every `doc`.",
        "",
    ]
    for filename, where, schema, walker in dsl_sections():
        lines += [
            f"## {schema.get('title', filename)}",
            "",
            f"File: `{where}`, schema: `schemas/{filename}`.",
            "",
        ]
        if schema.get("description"):
            lines += [_cell(schema["description"]), ""]
        for section in walker.sections:
            lines += [f'### <a id="{section.anchor}"></a>{section.title}', ""]
            if section.description and section.anchor != walker.prefix:
                lines += [_cell(section.description), ""]
            lines += ["| Key | Type | Required | Description |", "|---|---|---|---|"]
            lines += ["| " + " | ".join(row) + " |" for row in section.rows]
            lines.append("")
        if walker.scalars:
            lines += [f'### <a id="{walker.prefix}-defs"></a>Definitions', ""]
            lines += ["| Name | Type | Description |", "|---|---|---|"]
            for name, kind, text in walker.scalars:
                lines.append(f"| {_code(name)} | {kind} | {_cell(text)} |")
            lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI reference


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                out.append((name, helps.get(name, ""), sub))
    return sorted(out, key=lambda item: item[0])


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:
        values = dict(vars(action), prog=prog)
        for key in ("choices",):
            if values.get(key) is not None:
                values[key] = ", ".join(str(c) for c in values[key])
        with contextlib.suppress(KeyError, TypeError, ValueError):
            text = text % values
    return text


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def _usage(name: str, parser: argparse.ArgumentParser) -> str:
    parts = ["opset", name]
    options = [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
    if options:
        parts.append("[OPTIONS]")
    for action in parser._actions:
        if action.option_strings:
            continue
        metavar = _metavar(action)
        if action.nargs in ("*",):
            parts.append(f"[{metavar} ...]")
        elif action.nargs == "+":
            parts.append(f"{metavar} [{metavar} ...]")
        elif action.nargs == "?":
            parts.append(f"[{metavar}]")
        else:
            parts.append(metavar)
    return " ".join(parts)


def _argument_row(action: argparse.Action, prog: str) -> tuple[str, str, str]:
    if action.option_strings:
        takes_value = action.nargs != 0
        spelled = ", ".join(
            f"{option} {_metavar(action)}" if takes_value else option for option in action.option_strings
        )
    else:
        spelled = _metavar(action)
    details = []
    if action.required and action.option_strings:
        details.append("required")
    if isinstance(action, argparse._AppendAction):
        details.append("repeatable")
    if action.choices is not None and action.metavar is not None:
        details.append("one of " + ", ".join(_code(str(c)) for c in action.choices))
    default = action.default
    if default not in (None, False, [], argparse.SUPPRESS) and action.nargs != 0:
        details.append("default " + _code(str(default)))
    return _code(spelled), _cell(_help(action, prog)), "; ".join(details)


def cli_page(header: str, parser: argparse.ArgumentParser) -> str:
    """The CLI reference, from the command's own parser (the CLI layer passes it down through
    `GenerateContext.cli_parser`; generators never import the CLI)."""
    lines = [
        header.rstrip("\n"),
        "# CLI reference",
        "",
        "Generated from the `opset` command's own argument parser (this page cannot drift from it).",
        "Exit codes: 0 success, 1 findings or errors in the specs, 2 usage or I/O problem (an internal error too).",
        "",
        "| Command | Purpose |",
        "|---|---|",
    ]
    commands = _subcommands(parser)
    lines += [f"| [`{name}`](#opset-{name}) | {_cell(text)} |" for name, text, _ in commands]
    lines.append("")
    for name, text, sub in commands:
        lines += [f'## <a id="opset-{name}"></a>opset {name}', ""]
        description = sub.description or text
        if description:
            lines += [_cell(description), ""]
        lines += ["```text", _usage(name, sub), "```", ""]
        rows = [
            _argument_row(action, sub.prog)
            for action in sub._actions
            if not isinstance(action, argparse._HelpAction)
        ]
        if rows:
            lines += ["| Argument | Description | Details |", "|---|---|---|"]
            lines += ["| " + " | ".join(row) + " |" for row in rows]
            lines.append("")
    return "\n".join(lines)
