"""bump, semver and releases: the authoring workflow's commands (logic in toolkit.authoring)."""

from __future__ import annotations

import argparse
from typing import Any

from toolkit import semver
from toolkit.diagnostics import UsageError


def register(subparsers: Any) -> None:
    sem = subparsers.add_parser(
        "semver",
        help="convert a model version between MAJOR.MINOR.PATCH and its packed 64-bit form",
        description="1.2.345 prints 0x0001000200000159 and 0x0001000200000159 prints 1.2.345 "
        "(Versioning.md: MAJOR 16 bits, MINOR 16 bits, PATCH 32 bits).",
    )
    sem.add_argument("value", help="MAJOR.MINOR.PATCH, or a packed value in hex (0x...) or decimal")
    sem.set_defaults(handler=run_semver)


def run_semver(args: argparse.Namespace) -> int:
    try:
        print(semver.convert(args.value))
    except semver.SemVerError as exc:
        raise UsageError(str(exc)) from None
    return 0
