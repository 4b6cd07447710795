"""Between the toolkit's findings and positions and the protocol's: ranges in the client's position
encoding, a `Diagnostic` as an LSP diagnostic (rule id as the code, its doc as `codeDescription`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace.position_codec import PositionCodec

from toolkit.lsp.yamlpos import Document
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.rules import CATALOG

SOURCE = "opset"
_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def path_of(uri: str) -> Path | None:
    """The absolute file a `file:` URI names (None for any other scheme)."""
    if not uri.startswith("file:"):
        return None
    found = to_fs_path(uri)
    return Path(found).resolve() if found else None


def position(lines: Sequence[str], codec: PositionCodec, line: int, column: int) -> lsp.Position:
    """A 0-based (line, character index) as the client counts it."""
    return codec.position_to_client_units(lines, lsp.Position(line=max(line, 0), character=max(column, 0)))


def text_range(
    lines: Sequence[str], codec: PositionCodec, start: tuple[int, int], end: tuple[int, int]
) -> lsp.Range:
    return lsp.Range(start=position(lines, codec, *start), end=position(lines, codec, *end))


def to_lsp(diag: Diagnostic, doc: Document, codec: PositionCodec) -> lsp.Diagnostic:
    """One finding: its range runs from its location to the end of the YAML node there (else of
    the word); the hint follows the message, as `opset validate` prints it."""
    line, column = max(diag.location.line - 1, 0), max(diag.location.column - 1, 0)
    end = doc.end_of(line, column)
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    rule = CATALOG.get(diag.rule)
    return lsp.Diagnostic(
        range=text_range(doc.lines, codec, (line, column), end),
        message=message,
        severity=_SEVERITY[diag.severity],
        code=diag.rule,
        code_description=lsp.CodeDescription(href=rule.help_uri) if rule is not None else None,
        source=SOURCE,
        data={"rule": diag.rule, "hint": diag.hint},
    )
