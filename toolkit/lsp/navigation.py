"""Go to definition, references and document symbols.

Definitions come from the checked model's locations (a type set's entry in domain.yaml, a version's
entry, a constraint, an operator a function body names: `bodies`); references to a type set are
found in the text of the domain's files, the versions based on a version and the inputs and
outputs typed by a type parameter in the buffer's node graph."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from lsprotocol import types as lsp

from toolkit.lsp import bodies
from toolkit.lsp.context import Context, Host
from toolkit.lsp.convert import text_range, uri_of
from toolkit.lsp.yamlpos import Document, Path_, Span, int_value, scalar_text
from toolkit.model.spec import OpSchema


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
    if hit.path[2:3] == ("based_on",):
        number = int_value(hit.node)
        base = op.version(number) if number is not None else None
        return ctx.location(base.location) if base is not None else None
    if hit.path[2:] == ("function", "body"):
        return bodies.definition(ctx, pos)
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


def _span_location(ctx: Context, span: Span) -> lsp.Location:
    where = text_range(ctx.doc.lines, ctx.server.workspace.position_codec, span.start, span.end)
    return lsp.Location(uri=uri_of(ctx.path), range=where)


def based_on_references(ctx: Context, since: int, declaration: bool) -> list[lsp.Location]:
    """Every `based_on: since` of the buffer's versions (and version `since` itself)."""
    op = ctx.operator
    target = op.version(since) if op is not None else None
    found = [ctx.location(target.location)] if declaration and target is not None else []
    entries = ctx.doc.node_at(("versions",))
    for index in range(len(entries.value) if isinstance(entries, yaml.SequenceNode) else 0):
        path: Path_ = ("versions", index, "based_on")
        span = ctx.doc.span_of(path)
        if span is not None and scalar_text(ctx.doc.node_at(path)) == str(since):
            found.append(_span_location(ctx, span))
    return found


def type_parameter_references(
    ctx: Context, schema: OpSchema, param: str, declaration: bool
) -> list[lsp.Location]:
    """Every input and output of the version (inherited ones where they are written) typed by
    the type parameter `param`, and its constraint."""
    constraint = schema.constraint_map.get(param)
    found = [ctx.location(constraint.location)] if declaration and constraint is not None else []
    starts = {(node.start_mark.line, node.start_mark.column): path for node, path in ctx.doc.mappings}
    for formal in (*schema.inputs, *schema.outputs):
        where = formal.location
        if formal.type_str != param or Path(where.file) != ctx.path:
            continue
        path = starts.get((where.line - 1, where.column - 1))
        span = ctx.doc.span_of((*path, "type")) if path is not None else None
        found.append(_span_location(ctx, span) if span is not None else ctx.location(where))
    return found


def references(ctx: Context, pos: lsp.Position, declaration: bool = True) -> list[lsp.Location]:
    hit = ctx.hit(pos)
    if hit is None:
        return []
    value = str(hit.node.value)
    path = hit.path
    if value.startswith("@") and not hit.is_key:
        return type_set_references(ctx, value[1:])
    if hit.is_key and path[:1] == ("type_sets",) and len(path) == 2:
        return type_set_references(ctx, value)
    schema = ctx.version_at(path)
    if schema is None:
        return []
    number = int_value(hit.node)
    if path[2:] == ("based_on",) and not hit.is_key and number is not None:
        return based_on_references(ctx, number, declaration)
    if path[2:] == ("since_version",):
        return based_on_references(ctx, schema.since_version, declaration)
    on_constraint = len(path) == 4 and path[2] == "type_constraints" and hit.is_key
    on_type = len(path) == 5 and path[2] in ("inputs", "outputs") and path[4] == "type" and not hit.is_key
    if (on_constraint or on_type) and value in schema.constraint_map:
        return type_parameter_references(ctx, schema, value, declaration)
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
        if ctx is None:
            return []
        return references(ctx, params.position, params.context.include_declaration)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: Host, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        ctx = ls.context(params.text_document.uri)
        return symbols(ctx) if ctx is not None else []
