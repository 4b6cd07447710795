"""Hover: what the name under the cursor resolves to, from the checked model (type sets expanded,
`based_on` versions resolved, a parameter's constraint, an attribute's type and default, a rule's
doc, an operator in a function body: `bodies`). Texts from the specs are shown inside code spans or fences, never as live Markdown."""

from __future__ import annotations

from lsprotocol import types as lsp

from toolkit.lsp import bodies
from toolkit.lsp.context import Context, Host
from toolkit.lsp.yamlpos import int_value
from toolkit.model.attr_defaults import describe_value
from toolkit.model.rules import CATALOG
from toolkit.model.spec import OpSchema


def fenced(text: str) -> str:
    """`text` as a fenced block the text cannot close (a longer fence than any run in it)."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text}\n{fence}"


def signature(schema: OpSchema) -> str:
    """A version's resolved signature, one line per input, output, attribute and constraint."""
    lines = [
        f"{schema.name}-{schema.since_version}"
        + (f" (based_on {schema.based_on})" if schema.based_on else "")
    ]
    for title, params in (("input", schema.inputs), ("output", schema.outputs)):
        for p in params:
            option = "" if p.option.value == "single" else f" [{p.option.value}]"
            lines.append(f"  {title} {p.name}: {p.type_str}{option}")
    for attr in schema.attributes:
        default = (
            " (required)"
            if attr.required
            else (f" = {describe_value(attr.default)}" if attr.default is not None else "")
        )
        lines.append(f"  attribute {attr.name}: {attr.type.value}{default}")
    for constraint in schema.type_constraints:
        lines.append(f"  {constraint.param} in {', '.join(constraint.allowed)}")
    return "\n".join(lines)


def hover_text(ctx: Context, pos: lsp.Position) -> tuple[str, lsp.Range] | None:
    hit = ctx.hit(pos)
    if hit is None:
        return None
    value = str(hit.node.value)
    path = hit.path
    domain = ctx.domain
    schema = ctx.version_at(path)
    if value.startswith("@") and not hit.is_key and domain is not None:
        types = dict(domain.type_sets).get(value[1:])
        if types is not None:
            return f"type set `{value}`\n\n" + fenced("\n".join(types)), ctx.range_of(hit)
    if domain is not None and hit.is_key and path[:1] == ("type_sets",) and len(path) == 2:
        types = dict(domain.type_sets).get(value)
        if types is not None:
            return f"type set `@{value}`\n\n" + fenced("\n".join(types)), ctx.range_of(hit)
    in_suppress = (len(path) >= 2 and path[-2] == "suppress") or (
        path[-1:] == ("suppress",) and not hit.is_key
    )
    if in_suppress:
        rule = CATALOG.get(value)
        if rule is not None:
            return f"**{rule.id}**: {rule.summary}\n\n{rule.doc}", ctx.range_of(hit)
    if schema is None:
        return None
    if path[2:] == ("function", "body"):
        return body_hover(ctx, pos)
    op = ctx.operator
    number = int_value(hit.node)
    if path[2:3] == ("based_on",) and not hit.is_key and number is not None and op is not None:
        base = op.version(number)
        if base is not None:
            return fenced(signature(base)), ctx.range_of(hit)
    if path[2:3] == ("since_version",) or (path[2:3] == ("based_on",) and hit.is_key):
        return fenced(signature(schema)), ctx.range_of(hit)
    constraints = schema.constraint_map
    if len(path) == 4 and path[2] == "type_constraints" and hit.is_key and value in constraints:
        c = constraints[value]
        return f"type parameter `{c.param}`\n\n" + fenced("\n".join(c.allowed)), ctx.range_of(hit)
    if len(path) >= 4 and path[2] in ("inputs", "outputs") and isinstance(path[3], int):
        params = schema.inputs if path[2] == "inputs" else schema.outputs
        name = str(getattr(ctx.doc.node_at((*path[:4], "name")), "value", ""))
        param = next((p for p in params if p.name == name), None)
        if param is None:
            return None
        if path[-1] == "type" and not hit.is_key and param.type_str in constraints:
            c = constraints[param.type_str]
            return f"type parameter `{c.param}`\n\n" + fenced("\n".join(c.allowed)), ctx.range_of(hit)
        text = f"{path[2][:-1]} {param.name}: {param.type_str} [{param.option.value}]"
        return fenced(text + (f"\n\n{param.doc}" if param.doc else "")), ctx.range_of(hit)
    if len(path) >= 4 and path[2] == "attributes":
        attr = schema.attribute(str(path[3]))
        if attr is None:
            return None
        default = "required" if attr.required else f"default {describe_value(attr.default)}"
        text = f"attribute {attr.name}: {attr.type.value} ({default})"
        return fenced(text + (f"\n\n{attr.doc}" if attr.doc else "")), ctx.range_of(hit)
    return None


def body_hover(ctx: Context, pos: lsp.Position) -> tuple[str, lsp.Range] | None:
    """An operator a body's node names: the version in effect at the body's opset import."""
    op = bodies.body_op_at(ctx, pos)
    if op is None:
        return None
    where = lsp.Range(start=ctx.point(op.line, op.start), end=ctx.point(op.line, op.end))
    found = bodies.resolve(ctx, op)
    head = f"`{op.qualified}`" + (f" at opset {op.opset}" if op.opset is not None else "")
    if isinstance(found, str):
        return f"{head}: {found}", where
    return f"{head}: version {found.since_version}\n\n" + fenced(signature(found)), where


def register(server: Host) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: Host, params: lsp.HoverParams) -> lsp.Hover | None:
        ctx = ls.context(params.text_document.uri)
        found = hover_text(ctx, params.position) if ctx is not None else None
        if found is None:
            return None
        text, where = found
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text), range=where)
