"""Argument helpers shared by commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolkit.diagnostics import UsageError
from toolkit.registry import Registry, load_registry

DEFAULT_SPECS = "opsets"


def add_specs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--specs",
        action="append",
        metavar="DIR",
        help=f"spec folder or file (repeatable; default: ./{DEFAULT_SPECS})",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not use or fill the load cache")


def spec_paths(values: list[str] | None) -> list[str]:
    if values:
        return values
    if Path(DEFAULT_SPECS).is_dir():
        return [DEFAULT_SPECS]
    raise UsageError(f"no --specs given and ./{DEFAULT_SPECS} does not exist")


def registry_from_args(args: argparse.Namespace) -> Registry:
    return load_registry(spec_paths(args.specs), cache=not args.no_cache)


def split_operator_ref(text: str) -> tuple[str, str, int | None]:
    """`DOMAIN.OP[:SINCE]` -> (domain, op, since); a bare `OP` is in the default domain."""
    since: int | None = None
    if ":" in text:
        text, _, raw = text.rpartition(":")
        if not raw.isdigit():
            raise UsageError(f"'{raw}' is not a since_version (write DOMAIN.OP:N)")
        since = int(raw)
    domain, _, op = text.rpartition(".")
    if not op:
        raise UsageError(f"'{text}' does not name an operator (write DOMAIN.OP, e.g. com.acme.FusedConv)")
    return domain, op, since
