"""What a feature request knows: the file, its spec tree as last checked, the buffer's node graph,
and the model objects the cursor is on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types as lsp
from pygls.workspace import Workspace

from toolkit.lsp.convert import position, text_range, uri_of
from toolkit.lsp.workspace import SpecTree
from toolkit.lsp.yamlpos import Document, Hit, Path_, int_value
from toolkit.model.spec import DomainSpec, Location, OperatorSpec, OpSchema

if TYPE_CHECKING:
    from toolkit.lsp.onnx_catalog import OnnxCatalog

Handler = Callable[..., Any]


class Host(Protocol):
    """What a feature asks of the server (`server.OpsetServer`), so that the feature modules do
    not import the server that registers them."""

    @property
    def workspace(self) -> Workspace: ...

    @property
    def onnx(self) -> OnnxCatalog: ...

    def feature(self, feature_name: str, options: Any = None) -> Callable[[Handler], Handler]: ...

    def command(self, command_name: str) -> Callable[[Handler], Handler]: ...

    def text(self, path: Path) -> str: ...

    def buffer_text(self, path: Path) -> str | None: ...

    def context(self, uri: str) -> Context | None: ...

    def window_show_message(self, params: lsp.ShowMessageParams) -> None: ...

    async def workspace_apply_edit_async(
        self, params: lsp.ApplyWorkspaceEditParams
    ) -> lsp.ApplyWorkspaceEditResult: ...


@dataclass
class Context:
    path: Path
    tree: SpecTree
    doc: Document
    server: Host

    @property
    def operator(self) -> OperatorSpec | None:
        return self.tree.operator_at(self.path)

    @property
    def domain(self) -> DomainSpec | None:
        """The domain of the file: the operator's, else the domain.yaml of its folder."""
        op = self.operator
        if op is not None:
            return self.tree.domain(op.domain)
        return self.tree.domain_of_folder(self.path.parent)

    def hit(self, pos: lsp.Position) -> Hit | None:
        server_pos = self.server.workspace.position_codec.position_from_client_units(self.doc.lines, pos)
        return self.doc.hit(server_pos.line, server_pos.character)

    def version_at(self, path: Path_) -> OpSchema | None:
        """The operator version whose `versions:` entry holds `path`, by its since_version."""
        op = self.operator
        if op is None or len(path) < 2 or path[0] != "versions" or not isinstance(path[1], int):
            return None
        since = int_value(self.doc.node_at(("versions", path[1], "since_version")))
        return op.version(since) if since is not None else None

    def range_of(self, hit: Hit) -> lsp.Range:
        node = hit.node
        start = (node.start_mark.line, node.start_mark.column)
        end = (node.end_mark.line, node.end_mark.column)
        return text_range(self.doc.lines, self.server.workspace.position_codec, start, end)

    def location(self, where: Location) -> lsp.Location:
        """A model location (1-based, characters) as an LSP location of the word there."""
        path = Path(where.file)
        doc = self.doc if path == self.path else Document(self.server.text(path))
        line, column = max(where.line - 1, 0), max(where.column - 1, 0)
        codec = self.server.workspace.position_codec
        end = doc.end_of(line, column)
        return lsp.Location(uri=uri_of(path), range=text_range(doc.lines, codec, (line, column), end))

    def point(self, line: int, column: int) -> lsp.Position:
        return position(self.doc.lines, self.server.workspace.position_codec, line, column)
