"""The language server: documents in, diagnostics out, and the feature requests handed to their
modules (`hover`, `navigation`, `completion`, `actions`); the optional gate against a git ref
(`gate`, set by the editor's `opset.gate.against`) adds its findings for the open files.

Checks run on one thread beside the protocol's event loop, one spec tree at a time. Edits that
arrive while a check runs only mark the tree as changed; when the check returns, its findings are
published only if nothing changed meanwhile (else the tree is checked again first), each with the
version of the document it was made from. So a client typing faster than the checks run never
sees findings of a superseded text, and no check is queued behind another.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from toolkit import __version__
from toolkit.load.files import MAX_FILE_BYTES, read_regular_file
from toolkit.load.parallel import JOBS_ENV
from toolkit.lsp import actions, completion, hover, navigation
from toolkit.lsp.context import Context
from toolkit.lsp.convert import path_of, to_lsp, uri_of
from toolkit.lsp.onnx_catalog import OnnxCatalog
from toolkit.lsp.settings import SECTION, GateSetting, gate_setting
from toolkit.lsp.workspace import SpecTree, spec_root_for
from toolkit.lsp.yamlpos import Document
from toolkit.model.diagnostics import Diagnostic, UsageError, sort_key
from toolkit.reporting.catalog import load_catalog

if TYPE_CHECKING:
    from toolkit.lsp.gate import RefGate

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
        self.gate: RefGate | None = None  # the gate against a git ref, when the settings name one
        self.options: object = None  # the client's initializationOptions
        self.told: set[str] = set()  # problems already shown to the user (each once)
        # The client's URI of each open document by its real path: findings and look-ups go
        # through the name the editor knows (a symlinked workspace, another spelling of the URI).
        self.uris: dict[Path, str] = {}
        self.refusals: set[Path] = set()  # project files the server published a refusal on
        self.stamps: dict[Path, tuple[int, int] | None] = {}  # project files as last seen
        self.shut_down = False
        self.exit_code = 0
        self.onnx = OnnxCatalog(self.pool)
        # Every rule registered, so each finding carries its doc link: in the checking thread,
        # before the first check, while the client initializes.
        self.pool.submit(load_catalog)

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
            self.refused(exc)
            return None
        if root is None:
            return None
        state = self.trees.setdefault(root, _TreeState(SpecTree(root)))
        return state

    def refused(self, exc: UsageError) -> None:
        """A project file or setting the server cannot use (the CLI exits 2 on it): told to the
        user once, and published on the project file when the error names a place in it."""
        self.tell(f"opset: {exc}")
        diag = exc.diagnostic
        if diag is None:
            return
        path = Path(os.path.abspath(diag.location.file))
        self.refusals.add(path)
        self.publish(path, [to_lsp(diag, Document(self.text(path)), self.workspace.position_codec)], None)

    def project_changed(self, path: Path) -> None:
        """A project file (opset.toml, pyproject.toml) was opened, saved, closed or changed on
        disk: when its text on disk differs from the last seen, the trees it may configure are
        dropped and every open file is checked again (its spec root, its settings)."""
        try:
            info = path.stat()
            stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        if path in self.stamps and self.stamps[path] == stamp:
            return
        self.stamps[path] = stamp
        for root in [r for r in self.trees if path.parent == r or path.parent in r.parents]:
            state = self.trees.pop(root)
            for gone in state.published:
                self.publish(gone, [], None)
        for refusal in self.refusals:  # published again below if still refused
            self.publish(refusal, [], None)
        self.refusals.clear()
        self.told.clear()
        for uri in list(self.workspace.text_documents):
            if not is_project_file(path_of(uri)):
                self.changed(uri)

    def client_uri(self, path: Path) -> str:
        """The URI the editor knows a file by: its own for an open one, else the path below the
        workspace folder as the editor names that folder (a symlinked folder), else the path's."""
        found = self.uris.get(path)
        if found is not None:
            return found
        for folder in self.workspace.folders.values():
            named: str = folder.uri
            real = path_of(named)
            if real is not None and real in path.parents:
                return named.rstrip("/") + "/" + quote(path.relative_to(real).as_posix())
        return uri_of(path)

    def buffer_text(self, path: Path) -> str | None:
        """The editor's text of an open file, else None."""
        doc = self.workspace.text_documents.get(self.uris.get(path, uri_of(path)))
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
        if is_project_file(path):
            self.project_changed(path)
            return
        state = self.state_for(path)
        if state is None:
            if path not in self.outside:
                self.outside.add(path)
                self.publish(path, [], None)  # nothing stale from another server or root
            return
        self.outside.discard(path)  # (a project file fixed since: the file is checked now)
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
                findings, notes = await loop.run_in_executor(self.pool, self._check, state.tree, changed)
            except Exception as exc:  # an internal error: say so, keep serving
                log.exception("opset: check failed")
                self.window_log_message(
                    lsp.LogMessageParams(lsp.MessageType.Error, f"opset: check failed: {exc}")
                )
                return
            for note in notes:
                self.tell(note)
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

    def _check(self, tree: SpecTree, changed: set[Path]) -> tuple[dict[Path, list[Diagnostic]], list[str]]:
        """The tree's findings after `changed`, plus the gate's for the open files; and what the
        user should be told (the gate cannot run)."""
        findings = tree.update(next(iter(changed))) if len(changed) == 1 else tree.reload()
        gate = self.gate
        if gate is None:
            return findings, []
        try:
            extra = gate.findings(tree, tree.buffers)
        except UsageError as exc:
            return findings, [f"opset: {exc}"]
        except Exception as exc:  # an internal error of the gate: say so, keep the checks' findings
            log.exception("opset: the gate failed")
            return findings, [f"opset: the gate failed: {type(exc).__name__}: {exc}"]
        for path, diags in extra.items():
            findings[path] = sorted([*findings.get(path, []), *diags], key=sort_key)
        return findings, []

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
        gate = self.gate
        if gate is not None:  # how often the ref's tree was read (once per commit; tests read it)
            said = f"opset: gate against {gate.setting.against}: old tree read {gate.loads} time(s)"
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Log, said))

    def tell(self, message: str) -> None:
        """Show a problem to the user once (a check runs per keystroke)."""
        if message not in self.told:
            self.told.add(message)
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))

    # ------------------------------------------------------------------ settings

    async def configure(self, settings: object) -> None:
        """Apply the `opset` settings pushed by the client, else pulled (workspace/configuration)."""
        try:
            setting = gate_setting(settings)
            if setting is None and self._can_pull():
                answers = await asyncio.wait_for(
                    self.workspace_configuration_async(
                        lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section=SECTION)])
                    ),
                    10,
                )
                setting = gate_setting({SECTION: answers[0]}) if answers else None
        except UsageError as exc:
            self.tell(f"opset: {exc}")
            return
        except Exception as exc:  # a client that cannot answer (or times out): keep going
            log.warning("opset: workspace/configuration failed: %s", exc)
            return
        if setting is not None:
            self.set_gate(setting)

    def _can_pull(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace is not None and workspace.configuration)

    def set_gate(self, setting: GateSetting) -> None:
        current = self.gate.setting if self.gate is not None else GateSetting()
        if setting == current:
            return
        from toolkit.lsp.gate import RefGate  # the gate's modules: only when it is asked for

        self.gate = RefGate(setting) if setting.against else None
        self.told.clear()
        for uri in list(self.workspace.text_documents):  # every open file, checked with the gate
            self.changed(uri)

    def publish(self, path: Path, diags: list[lsp.Diagnostic], version: int | None) -> None:
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=self.client_uri(path), diagnostics=diags, version=version)
        )

    async def watch(self) -> None:
        """Ask the client to report spec and project files changed on disk (a checkout, another
        tool), when it can register that dynamically; the incremental check also notices a
        changed file on its own (`SpecTree.update`)."""
        workspace = self.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        options = lsp.DidChangeWatchedFilesRegistrationOptions(
            watchers=[lsp.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED]
        )
        registration = lsp.Registration(
            id="opset-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
        )
        try:
            await self.client_register_capability_async(lsp.RegistrationParams(registrations=[registration]))
        except Exception as exc:  # a client that refuses: the incremental check's own look remains
            log.warning("opset: watching files failed: %s", exc)


WATCHED = ("**/*.yaml", "**/opset.toml", "**/pyproject.toml")
PROJECT_FILES = ("opset.toml", "pyproject.toml")


def is_project_file(path: Path | None) -> bool:
    return path is not None and path.name in PROJECT_FILES


def build_server() -> OpsetServer:
    server = OpsetServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: OpsetServer, params: lsp.InitializeParams) -> None:
        ls.options = params.initialization_options

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: OpsetServer, params: lsp.InitializedParams) -> None:
        await ls.watch()
        await ls.configure(ls.options)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: OpsetServer, params: lsp.DidChangeConfigurationParams) -> None:
        await ls.configure(params.settings)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: OpsetServer, params: lsp.DidOpenTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is not None:
            ls.uris[path] = params.text_document.uri
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
            ls.uris.pop(path, None)
            return
        ls.changed(params.text_document.uri)  # re-read from disk; a deleted file's findings go
        if path is not None:  # after its findings went out under the editor's URI
            ls.uris.pop(path, None)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: OpsetServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            ls.changed(change.uri)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: OpsetServer, params: Any) -> None:
        ls.shut_down = True
        ls.pool.shutdown(wait=False, cancel_futures=True)

    @server.feature(lsp.EXIT)
    def exit_(ls: OpsetServer, params: Any) -> None:
        ls.exit_code = 0 if ls.shut_down else 1  # the protocol's rule: exit without shutdown is 1

    hover.register(server)
    navigation.register(server)
    completion.register(server)
    actions.register(server)
    return server


def serve() -> int:
    """Run the server on stdin/stdout until the client says `exit`."""
    # The server is threaded (the protocol's loop, the checking thread), and forking a threaded
    # process may deadlock the child: every load it runs (a git ref, the onnx catalog) stays in
    # this process.
    os.environ[JOBS_ENV] = "1"
    server = build_server()
    server.start_io()
    return server.exit_code
