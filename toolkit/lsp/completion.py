"""Completion: the keys the JSON Schema allows at the cursor (with their descriptions), and values:
an enum of the schema, the domain's `@type_set` names and opset versions, the version's type
parameters, type strings, the versions a `based_on` may name.

Where the cursor is comes from the indentation of the lines above it, not from a parse, so it works
while the line being typed (and so the file) is not valid YAML yet."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types as lsp

from toolkit.load.schema_files import json_schema
from toolkit.lsp.context import Context, Host
from toolkit.model.types import ELEMENT_TYPES

ITEM = "[]"  # a step into a list's items
_LINE = re.compile(r"^(?P<indent> *)(?P<dashes>(?:- +)*)(?:(?P<key>[A-Za-z_][\w.-]*)\s*:(?P<rest>.*))?$")
_TYPED = re.compile(
    r"^(?P<indent> *)(?P<dashes>(?:- +)*)(?:(?P<key>[A-Za-z_][\w.-]*)\s*:\s*)?(?P<word>[\w@()\[\],.-]*)$"
)


def _parts(line: str) -> tuple[int, int, str | None, str] | None:
    """(column of the first dash or the key, column of the key, key, what follows the colon);
    None for a blank or comment line."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None
    found = _LINE.match(line.rstrip())
    if found is None:
        return len(line) - len(line.lstrip()), len(line) - len(line.lstrip()), None, ""
    start = len(found["indent"])
    return start, start + len(found["dashes"]), found["key"], (found["rest"] or "").split("#")[0].strip()


def context_path(lines: list[str], line: int, column: int, dashed: bool, dash_column: int) -> list[str]:
    """The schema path (keys, ITEM) of the mapping a key at `column` of `line` belongs to."""
    path: list[str] = []
    target = column
    if dashed:
        path.append(ITEM)
        target = dash_column
    for text in reversed(lines[:line]):
        parts = _parts(text)
        if parts is None:
            continue
        start, key_column, key, rest = parts
        if key_column == target and start < key_column:  # a sibling that opens the same list item
            path.append(ITEM)
            target = start
        elif key_column < target and key is not None and rest in ("", "|", ">", "|-", ">-"):
            path.append(key)
            target = key_column
            if start < key_column:
                path.append(ITEM)
                target = start
        if target == 0:
            break
    return list(reversed(path))


def _resolve(node: Any, top: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema objects `node` stands for ($ref followed, allOf/anyOf/oneOf spread)."""
    if not isinstance(node, dict):
        return []
    out = []
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        out += _resolve(top.get("$defs", {}).get(ref.split("/")[-1]), top)
    out.append(node)
    for combiner in ("allOf", "anyOf", "oneOf"):
        for part in node.get(combiner, []):
            out += _resolve(part, top)
    return out


def schema_at(kind: str, path: list[str]) -> list[dict[str, Any]]:
    top = json_schema(kind)
    nodes = _resolve(top, top)
    for step in path:
        following: list[dict[str, Any]] = []
        for node in nodes:
            if step == ITEM:
                following += _resolve(node.get("items"), top)
            elif step in node.get("properties", {}):
                following += _resolve(node["properties"][step], top)
            elif isinstance(node.get("additionalProperties"), dict):
                following += _resolve(node["additionalProperties"], top)
            else:
                for sub in node.get("patternProperties", {}).values():
                    following += _resolve(sub, top)
        nodes = following
    return nodes


def _kind(ctx: Context) -> str:
    return (
        "domain"
        if ctx.path.name == "domain.yaml"
        else "releases"
        if ctx.path.name == "releases.yaml"
        else "operator"
    )


def key_items(ctx: Context, path: list[str]) -> list[lsp.CompletionItem]:
    items: dict[str, lsp.CompletionItem] = {}
    for node in schema_at(_kind(ctx), path):
        for name, sub in node.get("properties", {}).items():
            described = next(
                (
                    n.get("description")
                    for n in _resolve(sub, json_schema(_kind(ctx)))
                    if n.get("description")
                ),
                "",
            )
            items.setdefault(
                name,
                lsp.CompletionItem(
                    label=name,
                    kind=lsp.CompletionItemKind.Property,
                    insert_text=f"{name}: ",
                    documentation=described or None,
                ),
            )
    return list(items.values())


def value_items(ctx: Context, path: list[str], key: str, line: int) -> list[lsp.CompletionItem]:
    values: list[tuple[str, lsp.CompletionItemKind]] = []
    for node in schema_at(_kind(ctx), [*path, key]):
        values += [(str(v), lsp.CompletionItemKind.EnumMember) for v in node.get("enum", [])]
    domain = ctx.domain
    sets = [(f"@{name}", lsp.CompletionItemKind.Enum) for name, _ in domain.type_sets] if domain else []
    types = [(f"tensor({t})", lsp.CompletionItemKind.TypeParameter) for t in ELEMENT_TYPES]
    section = next((step for step in reversed(path) if step != ITEM), "")
    if key == "type" and section in ("inputs", "outputs"):
        params = [(name, lsp.CompletionItemKind.TypeParameter) for name in _type_params(ctx, line)]
        values += params + types + sets
    elif key == "allowed" or section == "allowed" or (key == ITEM and "type_sets" in path):
        values += sets + types
    elif key == "since_version" and domain is not None:
        values += [(str(v), lsp.CompletionItemKind.Value) for v in domain.versions]
    elif key == "based_on" and ctx.operator is not None:
        values += [(str(v.since_version), lsp.CompletionItemKind.Value) for v in ctx.operator.versions]
    seen: set[str] = set()
    return [
        lsp.CompletionItem(label=label, kind=kind)
        for label, kind in values
        if not (label in seen or seen.add(label))  # type: ignore[func-returns-value]
    ]


def _type_params(ctx: Context, line: int) -> list[str]:
    """The type parameters of the version entry holding `line`: those its text declares (the
    buffer may not build while it is typed) and, as last checked, those it inherits."""
    entries = [
        (node.start_mark.line, path[1])
        for node, path in ctx.doc.mappings
        if len(path) == 2 and path[0] == "versions" and node.start_mark.line <= line
    ]
    if not entries:
        return []
    index = max(entries)[1]
    declared = ctx.doc.node_at(("versions", index, "type_constraints"))
    names = [str(key.value) for key, _ in getattr(declared, "value", [])]
    schema = ctx.version_at(("versions", index))
    return names + [c.param for c in schema.type_constraints] if schema else names


def complete(ctx: Context, pos: lsp.Position) -> list[lsp.CompletionItem]:
    server_pos = ctx.server.workspace.position_codec.position_from_client_units(ctx.doc.lines, pos)
    lines = ctx.doc.lines
    if server_pos.line >= len(lines):
        return []
    before = lines[server_pos.line][: server_pos.character]
    typed = _TYPED.match(before)
    if typed is None:
        return []
    indent, dashes = len(typed["indent"]), typed["dashes"]
    column = indent + len(dashes)
    path = context_path(lines, server_pos.line, column, bool(dashes), indent)
    if typed["key"] is None:
        return key_items(ctx, path) + (value_items(ctx, path, ITEM, server_pos.line) if dashes else [])
    return value_items(ctx, path, typed["key"], server_pos.line)


def register(server: Host) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["@", ":", " "]))
    def on_completion(ls: Host, params: lsp.CompletionParams) -> lsp.CompletionList:
        ctx = ls.context(params.text_document.uri)
        items = complete(ctx, params.position) if ctx is not None else []
        return lsp.CompletionList(is_incomplete=False, items=items)
