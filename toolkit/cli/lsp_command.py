"""`opset lsp`: the language server over stdio (the `[lsp]` extra: pygls and lsprotocol)."""

from __future__ import annotations

import argparse
from typing import Any

from toolkit.model.diagnostics import UsageError
from toolkit.model.install import install_line


def register(subparsers: Any) -> None:
    lsp = subparsers.add_parser(
        "lsp",
        help="the language server: spec findings, hover, definitions, completion and quick fixes in an editor",
        description="Speak the Language Server Protocol over stdin/stdout (see docs/editors.md). "
        "Needs the `lsp` extra (opset-toolkit[lsp]).",
    )
    lsp.set_defaults(handler=run_lsp)


def run_lsp(args: argparse.Namespace) -> int:
    try:
        from toolkit.lsp.server import serve
    except ImportError as exc:  # the optional extra is not installed
        raise UsageError(
            f"opset lsp needs pygls and lsprotocol ({exc.name} is missing)\n"
            f"  hint: the extra opset-toolkit[lsp] installs them: {install_line('lsp')}"
        ) from None
    return serve()
