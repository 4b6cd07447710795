"""bump, semver and releases: the authoring workflow's commands (logic in toolkit.authoring)."""

from __future__ import annotations

import argparse
from typing import Any

from toolkit import semver
from toolkit.authoring.bump import apply_bump, plan_bump
from toolkit.cli.common import spec_paths, split_operator_ref
from toolkit.diagnostics import UsageError


def register(subparsers: Any) -> None:
    bump = subparsers.add_parser(
        "bump",
        help="start a new version of an operator: new opset version, based_on entry, adapter stub",
        description="Adds opset version N to the domain if missing, appends `since_version: N` with "
        "`based_on: <previous>` and an adapter stub to the operator file (old versions untouched, "
        "comments and layout kept), and prints what to edit next.",
    )
    bump.add_argument("operator", metavar="DOMAIN.OP", help="e.g. com.acme.vision.FusedConv")
    bump.add_argument(
        "--opset", type=int, metavar="N", help="opset version of the new version (default: newest + 1)"
    )
    bump.add_argument(
        "--ir-version", type=int, metavar="V", help="IR version of a new opset (default: the newest's)"
    )
    bump.add_argument(
        "--unreleased",
        action="store_true",
        help="N is the newest existing opset version and has not been released (bump several operators into it)",
    )
    bump.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    bump.add_argument(
        "--specs", action="append", metavar="DIR", help="spec folder (repeatable; default: ./opsets)"
    )
    bump.set_defaults(handler=run_bump)

    sem = subparsers.add_parser(
        "semver",
        help="convert a model version between MAJOR.MINOR.PATCH and its packed 64-bit form",
        description="1.2.345 prints 0x0001000200000159 and 0x0001000200000159 prints 1.2.345 "
        "(Versioning.md: MAJOR 16 bits, MINOR 16 bits, PATCH 32 bits).",
    )
    sem.add_argument("value", help="MAJOR.MINOR.PATCH, or a packed value in hex (0x...) or decimal")
    sem.set_defaults(handler=run_semver)


def run_bump(args: argparse.Namespace) -> int:
    domain, op, since = split_operator_ref(args.operator)
    if since is not None:
        raise UsageError("write DOMAIN.OP without :SINCE; use --opset N for the new version")
    if args.opset is not None and args.opset < 1:
        raise UsageError(f"--opset {args.opset}: opset versions start at 1")
    if args.ir_version is not None and args.ir_version < 1:
        raise UsageError(f"--ir-version {args.ir_version}: IR versions start at 1")
    plan = plan_bump(
        spec_paths(args.specs),
        domain,
        op,
        opset=args.opset,
        ir_version=args.ir_version,
        unreleased=args.unreleased,
    )
    if not args.dry_run:
        apply_bump(plan)
    print(plan.report() + ("\n(dry run: nothing written)" if args.dry_run else ""))
    return 0


def run_semver(args: argparse.Namespace) -> int:
    try:
        print(semver.convert(args.value))
    except semver.SemVerError as exc:
        raise UsageError(str(exc)) from None
    return 0
