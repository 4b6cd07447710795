"""`opset lsp` driven by a real LSP client over stdio (pytest-lsp, VS Code's client capabilities):
diagnostics (ranges, rule links, affected files, unsaved buffers, edits faster than the checks,
files outside the spec root, created and deleted), hover, definition, references, symbols,
completion, quick fixes, `opset bump` as a command, shutdown/exit, and the engine's incremental
re-check against a full load."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from vision_copy import operator_older_than

from toolkit import load_registry
from toolkit.model.released import open_opset
from toolkit.model.rules import CATALOG
from toolkit.reporting.catalog import all_rules

REPO = Path(__file__).resolve().parent.parent


def _client() -> LanguageClient:
    """pytest-lsp's client, also recording every publishDiagnostics (with its version) and
    answering workspace/applyEdit (recorded, applied=True) and client/registerCapability
    (recorded) as an editor does."""
    client = LanguageClient()
    client.published = []  # type: ignore[attr-defined]
    client.applied = []  # type: ignore[attr-defined]
    client.registered = []  # type: ignore[attr-defined]

    def publish(c: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
        c.diagnostics[params.uri] = params.diagnostics
        c.published.append(params)  # type: ignore[attr-defined]

    def apply_edit(c: LanguageClient, params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        c.applied.append(params.edit)  # type: ignore[attr-defined]
        return lsp.ApplyWorkspaceEditResult(applied=True)

    def register(c: LanguageClient, params: lsp.RegistrationParams) -> None:
        c.registered.extend(params.registrations)  # type: ignore[attr-defined]

    features = {
        **DEFAULT_CLIENT_FEATURES,
        lsp.CLIENT_REGISTER_CAPABILITY: register,
        lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
        lsp.WORKSPACE_APPLY_EDIT: apply_edit,
    }
    register_lsp_features(client, features)
    return client


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    return tmp_path


def _digest(top: Path) -> dict[str, str]:
    return {
        str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(top.rglob("*"))
        if p.is_file()
    }


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "toolkit", "lsp"], client_factory=_client)
)
async def client(lsp_client: LanguageClient, tree: Path) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=tree.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=tree.as_uri(), name="specs")],
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def _until(condition: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    for _ in range(int(timeout / 0.02)):
        found = condition()
        if found:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _published(
    client: LanguageClient, uri: str, version: int | None = None
) -> list[lsp.PublishDiagnosticsParams]:
    return [p for p in client.published if p.uri == uri and (version is None or p.version == version)]  # type: ignore[attr-defined]


async def _diagnostics(client: LanguageClient, uri: str, version: int | None = None) -> list[lsp.Diagnostic]:
    found = await _until(lambda: _published(client, uri, version), f"diagnostics of {uri} v{version}")
    return list(found[-1].diagnostics)


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    item = lsp.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
    return uri


def _change(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _at(text: str, needle: str, offset: int = 0) -> lsp.Position:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return lsp.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


FUSED = "opsets/com.acme.vision/FusedConv.yaml"
DOMAIN = "opsets/com.acme.vision/domain.yaml"


@pytest.mark.asyncio
async def test_unsaved_typo_is_a_diagnostic_with_exact_range_rule_link_and_a_quick_fix(
    client: LanguageClient, tree: Path
) -> None:
    path = tree / FUSED
    on_disk = path.read_text()
    text = on_disk.replace('"@float_types"', '"@float_typs"', 1)
    uri = _open(client, path, text)
    diags = await _diagnostics(client, uri, 1)
    [found] = [d for d in diags if d.code == "TYPE-SET-UNKNOWN"]
    start = _at(text, '"@float_typs"')
    assert found.range == lsp.Range(
        start=start, end=lsp.Position(start.line, start.character + len('"@float_typs"'))
    )
    assert found.severity == lsp.DiagnosticSeverity.Error
    assert found.code_description is not None
    all_rules()
    assert found.code_description.href == CATALOG.get("TYPE-SET-UNKNOWN").help_uri  # type: ignore[union-attr]
    assert "hint: did you mean '@float_types'?" in found.message
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=found.range,
            context=lsp.CodeActionContext(diagnostics=[found]),
        )
    )
    fixes = [a for a in actions or [] if isinstance(a, lsp.CodeAction) and a.edit is not None]
    [edit] = fixes[0].edit.changes[uri]  # type: ignore[index,union-attr]
    assert (edit.range, edit.new_text) == (found.range, "@float_types")
    # the fix applied in the buffer: the finding goes, for that version of the text
    lines = text.split("\n")
    line = lines[start.line]
    lines[start.line] = line[: start.character] + "@float_types" + line[edit.range.end.character :]
    _change(client, uri, "\n".join(lines), 2)
    assert not [d for d in await _diagnostics(client, uri, 2) if d.code == "TYPE-SET-UNKNOWN"]
    assert path.read_text() == on_disk  # the buffer was checked, the file never written


@pytest.mark.asyncio
async def test_editing_domain_rechecks_the_operators_using_its_type_sets(
    client: LanguageClient, tree: Path
) -> None:
    fused = _open(client, tree / FUSED, (tree / FUSED).read_text())
    assert not await _diagnostics(client, fused, 1)
    domain_path = tree / DOMAIN
    text = domain_path.read_text()
    domain = _open(client, domain_path, text)
    await _diagnostics(client, domain, 1)
    _change(client, domain, text.replace("  float_types:", "  float_tipes:", 1), 2)
    diags = await _until(
        lambda: [d for d in client.diagnostics.get(fused, []) if d.code == "TYPE-SET-UNKNOWN"],
        "FusedConv re-checked",
    )
    assert diags[0].range.start == _at((tree / FUSED).read_text(), '"@float_types"')


@pytest.mark.asyncio
async def test_broken_yaml_is_one_located_syntax_error(client: LanguageClient, tree: Path) -> None:
    text = (tree / FUSED).read_text().replace("versions:", "versions: [", 1)
    diags = await _diagnostics(client, _open(client, tree / FUSED, text), 1)
    assert [d.code for d in diags] == ["YAML-SYNTAX"]
    assert diags[0].range.start.line > 0


@pytest.mark.asyncio
async def test_a_file_outside_the_spec_root_gets_no_diagnostics(client: LanguageClient, tree: Path) -> None:
    stray = tree / "notes" / "Op.yaml"
    stray.parent.mkdir()
    stray.write_text("operator: [\n")
    uri = _open(client, stray, stray.read_text())
    assert await _diagnostics(client, uri) == []
    assert (
        await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 1))
        )
    ) is None


@pytest.mark.asyncio
async def test_a_file_created_then_deleted_has_its_diagnostics_cleared(
    client: LanguageClient, tree: Path
) -> None:
    path = tree / "opsets/com.acme.vision/Fresh.yaml"
    text = "operator: Fresh\ndomain: com.acme.vision\nversions:\n  - since_version: 9\n"
    uri = _open(client, path, text)  # exists only in the editor
    diags = await _diagnostics(client, uri, 1)
    assert "VERSION-NOT-IN-DOMAIN" in [d.code for d in diags]
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    await _until(lambda: _published(client, uri) and not _published(client, uri)[-1].diagnostics, "cleared")
    assert not path.exists()


@pytest.mark.asyncio
async def test_edits_faster_than_checks_leave_only_the_last_texts_findings(
    client: LanguageClient, tree: Path
) -> None:
    path = tree / FUSED
    good = path.read_text()
    uri = _open(client, path, good)
    await _diagnostics(client, uri, 1)
    last = 40
    for version in range(2, last + 1):  # every other text has an unknown type set
        _change(
            client,
            uri,
            good.replace('"@float_types"', f'"@nope{version}"', 1) if version % 2 else good,
            version,
        )
    final = await _diagnostics(client, uri, last)
    assert final == []
    await asyncio.sleep(0.5)
    later = _published(client, uri)[-1]
    assert later.version == last and not later.diagnostics
    versions = [p.version for p in _published(client, uri)]
    assert versions == sorted(versions)  # never a superseded text's findings after a newer one
    assert len(versions) < last  # superseded runs were skipped, not all published


@pytest.mark.asyncio
async def test_hover_definition_references(client: LanguageClient, tree: Path) -> None:
    path = tree / FUSED
    text = path.read_text()
    uri = _open(client, path, text)
    await _diagnostics(client, uri, 1)
    doc = lsp.TextDocumentIdentifier(uri=uri)
    hover = await client.text_document_hover_async(lsp.HoverParams(doc, _at(text, '"@float_types"', 2)))
    assert hover is not None and "tensor(float16)" in hover.contents.value  # type: ignore[union-attr]
    hover = await client.text_document_hover_async(lsp.HoverParams(doc, _at(text, "based_on: 1", 10)))
    assert hover is not None and "FusedConv-1" in hover.contents.value  # type: ignore[union-attr]
    assert "input X" in hover.contents.value  # type: ignore[union-attr]
    hover = await client.text_document_hover_async(lsp.HoverParams(doc, _at(text, "group:", 1)))
    assert hover is not None and "attribute group: int" in hover.contents.value  # type: ignore[union-attr]
    target = await client.text_document_definition_async(
        lsp.DefinitionParams(doc, _at(text, '"@float_types"', 2))
    )
    assert isinstance(target, lsp.Location) and target.uri == (tree / DOMAIN).as_uri()
    domain_text = (tree / DOMAIN).read_text()
    assert target.range.start == _at(domain_text, "float_types:")
    target = await client.text_document_definition_async(
        lsp.DefinitionParams(doc, _at(text, "based_on: 1", 10))
    )
    assert isinstance(target, lsp.Location) and target.range.start.line == _at(text, "since_version: 1").line
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(
            context=lsp.ReferenceContext(include_declaration=True),
            text_document=doc,
            position=_at(text, '"@float_types"', 2),
        )
    )
    uses = {(r.uri, r.range.start.line) for r in refs or []}
    assert (uri, _at(text, '"@float_types"').line) in uses
    assert any(u == (tree / DOMAIN).as_uri() for u, _ in uses) and len(uses) > 3


@pytest.mark.asyncio
async def test_symbols_and_completion(client: LanguageClient, tree: Path) -> None:
    path = tree / FUSED
    text = path.read_text()
    uri = _open(client, path, text)
    await _diagnostics(client, uri, 1)
    doc = lsp.TextDocumentIdentifier(uri=uri)
    [op] = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc)) or []
    assert op.name == "FusedConv" and [v.name for v in op.children or []][:2] == ["version 1", "version 2"]  # type: ignore[union-attr]
    assert "input X" in [c.name for c in op.children[0].children or []]  # type: ignore[union-attr,index]
    # a key typed in a version entry: the schema's keys of a version
    typing = text.replace("    based_on: 1\n", "    based_on: 1\n    dep\n", 1)
    _change(client, uri, typing, 2)
    at = _at(typing, "    dep\n", 7)
    items = await client.text_document_completion_async(lsp.CompletionParams(doc, at))
    labels = {i.label for i in items.items}  # type: ignore[union-attr]
    assert {"deprecated", "attributes", "type_constraints"} <= labels and "operator" not in labels
    typing = text.replace("\n    outputs:\n", "\n    outputs:\n      - name: Z\n        type: \n", 1)
    _change(client, uri, typing, 3)
    items = await client.text_document_completion_async(
        lsp.CompletionParams(doc, _at(typing, "        type: \n", 14))
    )
    labels = {i.label for i in items.items}  # type: ignore[union-attr]
    assert {"T", "@float_types", "tensor(float)"} <= labels


@pytest.mark.asyncio
async def test_missing_opset_version_fix_and_bump_command_write_nothing(
    client: LanguageClient, tree: Path
) -> None:
    before = _digest(tree)
    path = tree / FUSED
    text = (
        path.read_text()
        .replace("since_version: 2", "since_version: 7", 1)
        .replace("based_on: 1", "based_on: 1", 1)
    )
    uri = _open(client, path, text)
    diags = await _diagnostics(client, uri, 1)
    [found] = [d for d in diags if d.code == "VERSION-NOT-IN-DOMAIN"]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), found.range, lsp.CodeActionContext(diagnostics=[found])
        )
    )
    add = [
        a
        for a in actions or []
        if isinstance(a, lsp.CodeAction) and a.title.startswith("Add opset version 7")
    ]
    [edit] = add[0].edit.changes[(tree / DOMAIN).as_uri()]  # type: ignore[index,union-attr]
    assert "version: 7" in edit.new_text and "# A realistic vendor extension domain" in edit.new_text
    # opset bump for the operator: the edit is handed to the editor, nothing is written by the server.
    # The operator is one with no version in the open opset yet (whatever the newest opset is).
    registry = load_registry([tree / "opsets"], cache=False)
    target = open_opset(registry.domain("com.acme.vision"), registry.releases)
    name = operator_older_than(tree / "opsets", target, besides=("FusedConv",))
    other = tree / f"opsets/com.acme.vision/{name}.yaml"
    other_uri = _open(client, other, other.read_text())
    await _diagnostics(client, other_uri, 1)
    message = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="opset.bump", arguments=[other_uri])
    )
    assert f"bumped com.acme.vision.{name} to version {target} " in str(message)
    [applied] = client.applied  # type: ignore[attr-defined]
    assert "based_on:" in applied.changes[other_uri][0].new_text
    assert _digest(tree) == before


@pytest.mark.asyncio
async def test_shutdown_and_exit_end_the_server_cleanly(tree: Path) -> None:
    """A server of its own, so the test sees the exit code."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "toolkit", "lsp", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    import json

    def message(payload: dict[str, Any]) -> bytes:
        body = json.dumps(payload).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    assert process.stdin is not None
    process.stdin.write(
        message(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"capabilities": {}, "rootUri": tree.as_uri()},
            }
        )
    )
    process.stdin.write(message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    process.stdin.write(message({"jsonrpc": "2.0", "method": "exit"}))
    await process.stdin.drain()
    assert await asyncio.wait_for(process.wait(), 20) == 0


def test_incremental_recheck_equals_a_full_load(tree: Path) -> None:
    """The engine's fast path (one operator file re-read against the cached load) against a full
    load of the same texts, for edits that change the file's own and other files' findings."""
    from toolkit.lsp.workspace import SpecTree

    root = (tree / "opsets").resolve()
    path = root / "com.acme.vision/FusedConv.yaml"
    good = path.read_text()
    edits = [
        good.replace('"@float_types"', '"@float_typs"', 1),
        good.replace("since_version: 2", "since_version: 9", 1),
        good.replace("versions:", "versions: [", 1),
        good.replace("operator: FusedConv", "operator: GaussianBlur", 1),  # a name another file defines
        good,
    ]
    fast = SpecTree(root)
    fast.reload()
    for text in edits:
        fast.buffers = {path: text.encode()}
        incremental = fast.update(path)
        full = SpecTree(root, buffers={path: text.encode()}).reload()
        assert {k: v for k, v in incremental.items() if v} == {k: v for k, v in full.items() if v}
    assert fast.full_loads == 3  # the first load, the duplicate name and the edit that ends it
