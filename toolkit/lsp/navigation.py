"""Go to definition, references and document symbols.

Definitions come from the checked model's locations (a type set's entry in domain.yaml, a version's
entry, a constraint); references to a type set are found in the text of the domain's files."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from lsprotocol import types as lsp

from toolkit.lsp.context import Context, Host
from toolkit.lsp.convert import text_range, uri_of
from toolkit.lsp.yamlpos import Document, scalar_text


def definition(ctx: Context, pos: lsp.Position) -> lsp.Location | None:
    hit = ctx.hit(pos)
    if hit is None or hit.is_key:
        return None
    value = str(hit.node.value)
    domain = ctx.domain
    if value.startswith("@") and domain is not None and value[1:] in dict(domain.type_sets):
        return ctx.location(domain.type_set_location(value[1:]))
    schema = ctx.version_at(hit.path)
    op = ctx.operator
    if schema is None or op is None:
        return None
    if hit.path[2:3] == ("based_on",) and value.isdigit():
        base = op.version(int(value))
        return ctx.location(base.location) if base is not None else None
    if len(hit.path) == 5 and hit.path[2] in ("inputs", "outputs") and hit.path[4] == "type":
        constraint = schema.constraint_map.get(value)
        return ctx.location(constraint.location) if constraint is not None else None
    return None


def type_set_references(ctx: Context, name: str) -> list[lsp.Location]:
    """Every `@name` in the domain's files, and the name's entry under `type_sets:`."""
    domain = ctx.domain
    if domain is None:
        return []
    use = re.compile(rf"@{re.escape(name)}(?![\w.-])")
    files = [
        Path(domain.location.file),
        *(Path(op.location.file) for op in ctx.tree.operators_of(domain.name)),
    ]
    codec = ctx.server.workspace.position_codec
    found = [ctx.location(domain.type_set_location(name))]
    for path in files:
        lines = ctx.server.text(path).split("\n")
        for number, line in enumerate(lines):
            for match in use.finditer(line):
                where = text_range(lines, codec, (number, match.start()), (number, match.end()))
                found.append(lsp.Location(uri=uri_of(path), range=where))
    return found


def references(ctx: Context, pos: lsp.Position) -> list[lsp.Location]:
    hit = ctx.hit(pos)
    if hit is None:
        return []
    value = str(hit.node.value)
    if value.startswith("@") and not hit.is_key:
        return type_set_references(ctx, value[1:])
    if hit.is_key and hit.path[:1] == ("type_sets",) and len(hit.path) == 2:
        return type_set_references(ctx, value)
    return []


def _symbol(
    doc: Document,
    ctx: Context,
    name: str,
    kind: lsp.SymbolKind,
    node: yaml.Node,
    children: list[lsp.DocumentSymbol],
) -> lsp.DocumentSymbol:
    codec = ctx.server.workspace.position_codec
    whole = text_range(
        doc.lines,
        codec,
        (node.start_mark.line, node.start_mark.column),
        (node.end_mark.line, node.end_mark.column),
    )
    return lsp.DocumentSymbol(
        name=name or "?", kind=kind, range=whole, selection_range=whole, children=children
    )


def symbols(ctx: Context) -> list[lsp.DocumentSymbol]:
    """operator -> versions -> inputs, outputs, attributes; a domain file: opset versions, type sets."""
    doc = ctx.doc
    root = doc.root
    if not isinstance(root, yaml.MappingNode):
        return []
    top: dict[str, yaml.Node] = {scalar_text(k): v for k, v in root.value}
    if "operator" in top:
        versions = []
        for item in getattr(top.get("versions"), "value", []):
            if not isinstance(item, yaml.MappingNode):
                continue
            fields = {scalar_text(k): v for k, v in item.value}
            children = []
            for section, kind in (("inputs", lsp.SymbolKind.Variable), ("outputs", lsp.SymbolKind.Variable)):
                for param in getattr(fields.get(section), "value", []):
                    if isinstance(param, yaml.MappingNode):
                        name = next((scalar_text(v) for k, v in param.value if scalar_text(k) == "name"), "")
                        children.append(_symbol(doc, ctx, f"{section[:-1]} {name}", kind, param, []))
            attrs = fields.get("attributes")
            if isinstance(attrs, yaml.MappingNode):
                for key, value in attrs.value:
                    children.append(
                        _symbol(doc, ctx, f"attribute {scalar_text(key)}", lsp.SymbolKind.Property, value, [])
                    )
            since = scalar_text(fields.get("since_version"))
            versions.append(_symbol(doc, ctx, f"version {since}", lsp.SymbolKind.Namespace, item, children))
        return [_symbol(doc, ctx, scalar_text(top["operator"]), lsp.SymbolKind.Class, root, versions)]
    if "domain" in top:
        children = []
        for item in getattr(top.get("opset_versions"), "value", []):
            if isinstance(item, yaml.MappingNode):
                number = next((scalar_text(v) for k, v in item.value if scalar_text(k) == "version"), "")
                children.append(_symbol(doc, ctx, f"opset {number}", lsp.SymbolKind.Namespace, item, []))
        sets = top.get("type_sets")
        if isinstance(sets, yaml.MappingNode):
            for key, value in sets.value:
                children.append(_symbol(doc, ctx, f"@{scalar_text(key)}", lsp.SymbolKind.Enum, value, []))
        return [_symbol(doc, ctx, scalar_text(top["domain"]), lsp.SymbolKind.Module, root, children)]
    return []


def register(server: Host) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: Host, params: lsp.DefinitionParams) -> lsp.Location | None:
        ctx = ls.context(params.text_document.uri)
        return definition(ctx, params.position) if ctx is not None else None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: Host, params: lsp.ReferenceParams) -> list[lsp.Location]:
        ctx = ls.context(params.text_document.uri)
        return references(ctx, params.position) if ctx is not None else []

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: Host, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        ctx = ls.context(params.text_document.uri)
        return symbols(ctx) if ctx is not None else []
