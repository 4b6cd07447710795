"""Code actions: the mechanical fixes the findings' hints describe, and `opset bump` as a command.

- A hint "did you mean 'X'?" (the loader's SCHEMA-UNKNOWN-KEY, SCHEMA-ENUM, TYPE-SET-UNKNOWN: the
  one phrase their hints share, written and read by `model.suggest`) replaces the text the finding
  covers.
- VERSION-NOT-IN-DOMAIN adds the opset version to domain.yaml (`authoring.bump.add_opset_text`,
  comments and layout kept), with the IR version of the newest opset.
- YAML-DUPLICATE-KEY (the located YAML reader's, at the second key) removes that second entry,
  key and value (`remove_entry`).
- `opset.bump` runs `opset bump` for the operator of the file (`authoring.bump.plan_bump`) and hands
  the new texts to the editor as a workspace edit: the server itself writes nothing, and the editor
  keeps the change undoable. It refuses while a file it would change has unsaved edits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from toolkit.authoring.bump import BumpRefused, add_opset_text, plan_bump
from toolkit.lsp.context import Context, Host
from toolkit.lsp.convert import text_range, uri_of
from toolkit.lsp.yamlpos import Document
from toolkit.model.diagnostics import SpecError, UsageError
from toolkit.model.suggest import suggested

BUMP = "opset.bump"


def _whole(text: str) -> lsp.Range:
    lines = text.split("\n")
    return lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(len(lines), 0))


def _replace_all(path: Path, old: str, new: str) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={uri_of(path): [lsp.TextEdit(range=_whole(old), new_text=new)]})


def fixes(ctx: Context, diagnostics: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    out = []
    for diag in diagnostics:
        data: Any = diag.data if isinstance(diag.data, dict) else {}
        rule = str(diag.code or data.get("rule", ""))
        word = suggested(str(data.get("hint", "")))
        if word is not None:
            edit = lsp.WorkspaceEdit(
                changes={uri_of(ctx.path): [lsp.TextEdit(range=diag.range, new_text=word)]}
            )
            out.append(
                lsp.CodeAction(
                    title=f"Replace with '{word}'",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    edit=edit,
                    is_preferred=True,
                )
            )
        action = None
        if rule == "VERSION-NOT-IN-DOMAIN":
            action = _add_opset(ctx, diag)
        elif rule == "YAML-DUPLICATE-KEY":
            action = _remove_duplicate(ctx, diag)
        if action is not None:
            out.append(action)
    op = ctx.operator
    if op is not None:
        out.append(
            lsp.CodeAction(
                title=f"opset bump {op.name}: start a new version",
                kind=lsp.CodeActionKind.RefactorRewrite,
                command=lsp.Command(title="opset bump", command=BUMP, arguments=[uri_of(ctx.path)]),
            )
        )
    return out


def _add_opset(ctx: Context, diag: lsp.Diagnostic) -> lsp.CodeAction | None:
    domain = ctx.domain
    line = diag.range.start.line
    version = next(
        (v for v in (ctx.operator.versions if ctx.operator else ()) if v.location.line - 1 == line), None
    )
    if domain is None or version is None or not domain.opset_versions:
        return None
    path = Path(domain.location.file)
    old = ctx.server.text(path)
    try:
        new, _ = add_opset_text(old, path, version.since_version, domain.opset_versions[-1].ir_version)
    except BumpRefused:
        return None
    return lsp.CodeAction(
        title=f"Add opset version {version.since_version} to domain.yaml",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=_replace_all(path, old, new),
    )


def remove_entry(doc: Document, line: int, column: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The text to delete to remove the mapping entry whose key starts at (line, column), 0-based
    characters: a block entry's whole lines (its value's included), a flow entry with the comma
    before it. None: no key starts there, or it is the mapping's first (never a duplicate)."""
    for mapping, _ in doc.mappings:
        keys = [key.start_mark for key, _ in mapping.value]
        index = next((i for i, m in enumerate(keys) if (m.line, m.column) == (line, column)), None)
        if not index:
            continue
        value = mapping.value[index][1]
        end = (value.end_mark.line, value.end_mark.column)
        if mapping.flow_style:
            before = mapping.value[index - 1][1].end_mark
            return (before.line, before.column), end
        text = doc.lines[end[0]] if end[0] < len(doc.lines) else ""
        if end[0] > line and not text[: end[1]].strip():
            return (line, 0), (end[0], 0)  # a block value ends where the next entry starts
        return (line, 0), (end[0] + 1, 0)
    return None


def _remove_duplicate(ctx: Context, diag: lsp.Diagnostic) -> lsp.CodeAction | None:
    codec = ctx.server.workspace.position_codec
    start = codec.position_from_client_units(ctx.doc.lines, diag.range.start)
    span = remove_entry(ctx.doc, start.line, start.character)
    if span is None:
        return None
    edit = lsp.TextEdit(range=text_range(ctx.doc.lines, codec, *span), new_text="")
    return lsp.CodeAction(
        title="Remove the duplicate key",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=lsp.WorkspaceEdit(changes={uri_of(ctx.path): [edit]}),
        is_preferred=True,
    )


async def bump(ls: Host, uri: str) -> str:
    """Plan the bump from the files on disk and ask the editor to apply it; the outcome in words."""
    ctx = ls.context(uri)
    op = ctx.operator if ctx is not None else None
    if ctx is None or op is None:
        return "opset bump: no operator in this file (is it valid?)"
    try:
        plan = plan_bump([ctx.tree.root], op.domain, op.name)
    except (SpecError, UsageError) as exc:
        return f"opset bump refused: {exc}"
    for path in plan.texts:
        buffered = ls.buffer_text(path)
        if buffered is not None and buffered != path.read_text(encoding="utf-8"):
            return f"opset bump refused: {path.name} has unsaved changes; save it first"
    changes = {
        uri_of(path): [lsp.TextEdit(range=_whole(path.read_text(encoding="utf-8")), new_text=text)]
        for path, text in plan.texts.items()
    }
    result = await ls.workspace_apply_edit_async(
        lsp.ApplyWorkspaceEditParams(edit=lsp.WorkspaceEdit(changes=changes), label="opset bump")
    )
    return (
        plan.report()
        if result.applied
        else f"opset bump: the editor did not apply the edit ({result.failure_reason})"
    )


def register(server: Host) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite]
        ),
    )
    def on_code_action(ls: Host, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        ctx = ls.context(params.text_document.uri)
        return fixes(ctx, list(params.context.diagnostics)) if ctx is not None else []

    @server.command(BUMP)
    async def on_bump(
        ls: Any, uri: str
    ) -> str:  # pygls reads this signature at run time: no forward reference
        message = await bump(ls, uri)
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Info, message=message))
        return message
