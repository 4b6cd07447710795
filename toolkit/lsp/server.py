"""The language server: documents in, diagnostics out, and the feature requests handed to their
modules (`hover`, `navigation`, `completion`, `actions`).

Checks run on one thread beside the protocol's event loop, one spec tree at a time. Edits that
arrive while a check runs only mark the tree as changed; when the check returns, its findings are
published only if nothing changed meanwhile (else the tree is checked again first), each with the
version of the document it was made from. So a client typing faster than the checks run never
sees findings of a superseded text, and no check is queued behind another.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from toolkit import __version__
from toolkit.load.files import MAX_FILE_BYTES, read_regular_file
from toolkit.lsp import actions, completion, hover, navigation
from toolkit.lsp.context import Context
from toolkit.lsp.convert import path_of, to_lsp, uri_of
from toolkit.lsp.workspace import SpecTree, spec_root_for
from toolkit.lsp.yamlpos import Document
from toolkit.model.diagnostics import Diagnostic, UsageError

log = logging.getLogger(__name__)


@dataclass
class _TreeState:
    tree: SpecTree
    dirty: set[Path] = field(default_factory=set)
    running: asyncio.Task[None] | None = None
    published: dict[Path, tuple[lsp.Diagnostic, ...]] = field(default_factory=dict)


class OpsetServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("opset-lsp", __version__)
        self.trees: dict[Path, _TreeState] = {}
        self.outside: set[Path] = set()  # open files no spec root holds: nothing is reported for them
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="opset-check")
        self.checks = 0  # finished check runs (logged; the benchmark reads the log)

    # ------------------------------------------------------------------ files and trees

    def folders(self) -> list[Path]:
        found = [path_of(f.uri) for f in self.workspace.folders.values()]
        root = self.workspace.root_uri
        if not found and root:
            found = [path_of(root)]
        return [p for p in found if p is not None]

    def state_for(self, path: Path) -> _TreeState | None:
        for state in self.trees.values():
            if state.tree.contains(path):
                return state
        try:
            root = spec_root_for(path, self.folders())
        except UsageError as exc:
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Warning, f"opset: {exc}"))
            return None
        if root is None:
            return None
        state = self.trees.setdefault(root, _TreeState(SpecTree(root)))
        return state

    def buffer_text(self, path: Path) -> str | None:
        """The editor's text of an open file, else None."""
        doc = self.workspace.text_documents.get(uri_of(path))
        return doc.source if doc is not None else None

    def text(self, path: Path) -> str:
        """A file as the editor has it, else as on disk (bounded; '' when unreadable)."""
        found = self.buffer_text(path)
        if found is not None:
            return found
        try:
            return read_regular_file(path, MAX_FILE_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return ""

    def context(self, uri: str) -> Context | None:
        path = path_of(uri)
        state = self.state_for(path) if path is not None else None
        if path is None or state is None:
            return None
        return Context(path, state.tree, Document(self.text(path)), self)

    # ------------------------------------------------------------------ checking

    def changed(self, uri: str) -> None:
        path = path_of(uri)
        if path is None:
            return
        state = self.state_for(path)
        if state is None:
            if path not in self.outside:
                self.outside.add(path)
                self.publish(path, [], None)  # nothing stale from another server or root
            return
        state.dirty.add(path)
        if state.running is None or state.running.done():
            state.running = asyncio.ensure_future(self._run(state))

    async def _run(self, state: _TreeState) -> None:
        loop = asyncio.get_running_loop()
        while state.dirty:
            changed, state.dirty = state.dirty, set()
            buffers, versions = self._snapshot(state.tree)
            state.tree.buffers = buffers
            try:
                findings = await loop.run_in_executor(self.pool, self._check, state.tree, changed)
            except Exception as exc:  # an internal error: say so, keep serving
                log.exception("opset: check failed")
                self.window_log_message(
                    lsp.LogMessageParams(lsp.MessageType.Error, f"opset: check failed: {exc}")
                )
                return
            if state.dirty:
                continue  # superseded: check the newer text before publishing anything
            self.checks += 1
            self._publish_tree(state, findings, changed, versions)

    def _snapshot(self, tree: SpecTree) -> tuple[dict[Path, bytes], dict[Path, int | None]]:
        buffers: dict[Path, bytes] = {}
        versions: dict[Path, int | None] = {}
        for uri, doc in self.workspace.text_documents.items():
            path = path_of(uri)
            if path is not None and tree.contains(path):
                buffers[path] = doc.source.encode("utf-8")
                versions[path] = doc.version
        return buffers, versions

    @staticmethod
    def _check(tree: SpecTree, changed: set[Path]) -> dict[Path, list[Diagnostic]]:
        if len(changed) == 1:
            return tree.update(next(iter(changed)))
        return tree.reload()

    def _publish_tree(
        self,
        state: _TreeState,
        findings: dict[Path, list[Diagnostic]],
        changed: set[Path],
        versions: dict[Path, int | None],
    ) -> None:
        for path in sorted(set(findings) | set(state.published) | changed):
            diags = findings.get(path, [])
            doc = Document(self.text(path)) if diags else None
            converted = tuple(to_lsp(d, doc, self.workspace.position_codec) for d in diags) if doc else ()
            if path not in changed and state.published.get(path, ()) == converted:
                continue
            if converted:
                state.published[path] = converted
            else:
                state.published.pop(path, None)
            self.publish(path, list(converted), versions.get(path))
        self.window_log_message(
            lsp.LogMessageParams(lsp.MessageType.Log, f"opset: checked {len(changed)} file(s)")
        )

    def publish(self, path: Path, diags: list[lsp.Diagnostic], version: int | None) -> None:
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri_of(path), diagnostics=diags, version=version)
        )


def build_server() -> OpsetServer:
    server = OpsetServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: OpsetServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: OpsetServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: OpsetServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: OpsetServer, params: lsp.DidCloseTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is not None and path in ls.outside:
            ls.outside.discard(path)
            return
        ls.changed(params.text_document.uri)  # re-read from disk; a deleted file's findings go

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: OpsetServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            ls.changed(change.uri)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: OpsetServer, params: Any) -> None:
        ls.pool.shutdown(wait=False, cancel_futures=True)

    hover.register(server)
    navigation.register(server)
    completion.register(server)
    actions.register(server)
    return server


def serve() -> int:
    """Run the server on stdin/stdout until the client says `exit`."""
    build_server().start_io()
    return 0
