"""bump, new, semver and releases: the authoring workflow's commands (logic in toolkit.authoring)."""

from __future__ import annotations

import argparse
from typing import Any

from toolkit.cli.common import add_specs_argument, registry_from_args, spec_paths, split_operator_ref
from toolkit.model import semver
from toolkit.model.diagnostics import UsageError
from toolkit.model.spec import display_domain


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
        "--opset",
        type=int,
        metavar="N",
        help="opset version of the new version (default: the open opset: the newest one if no "
        "release of the release table ships it, else newest + 1)",
    )
    bump.add_argument(
        "--ir-version", type=int, metavar="V", help="IR version of a new opset (default: the newest's)"
    )
    bump.add_argument(
        "--unreleased",
        action="store_true",
        help="without a release table: the newest existing opset version has not been released, so "
        "the bump joins it (bump several operators into one new opset over several commits)",
    )
    bump.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    add_specs_argument(bump)
    bump.set_defaults(handler=run_bump)

    new = subparsers.add_parser(
        "new",
        help="start a new operator: a spec file whose skeleton validates at once",
        description="Writes <spec root>/<DOMAIN>/<OP>.yaml with one version at the open opset (as "
        "`opset bump` picks it) or --since N: one input X, one output Y, a type parameter T bound to "
        "a type set of the domain, TODO docs. Refuses an existing operator (use `opset bump`).",
    )
    new.add_argument("operator", metavar="DOMAIN.OP", help="e.g. com.acme.vision.Sharpen")
    new.add_argument(
        "--since",
        type=int,
        metavar="N",
        help="since_version (default: the open opset: the newest one if no release of the release "
        "table ships it, else newest + 1)",
    )
    new.add_argument(
        "--add-opset",
        action="store_true",
        help="add opset version N to domain.yaml when it is not declared (IR version of the newest)",
    )
    new.add_argument(
        "--unreleased",
        action="store_true",
        help="without a release table: the newest opset version has not been released yet",
    )
    new.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    add_specs_argument(new)
    new.set_defaults(handler=run_new)

    rel = subparsers.add_parser(
        "releases",
        help="print a release table, or look up releases and IR versions for opsets",
        description="Without options: the release table (oldest first). With --min-ir: the least IR version "
        "a model importing those opsets needs. With --release-for: the first release shipping the opset.",
    )
    rel.add_argument(
        "--onnx", action="store_true", help="use the shipped ONNX table instead of the specs' one"
    )
    rel.add_argument(
        "--min-ir", nargs="+", metavar="DOMAIN:N", help="opset imports, e.g. ai.onnx:13 ai.onnx.ml:3"
    )
    rel.add_argument("--release-for", metavar="DOMAIN:N", help="opset, e.g. ai.onnx:21")
    add_specs_argument(rel)
    rel.set_defaults(handler=run_releases)

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
    from toolkit.authoring.bump import apply_bump, plan_bump

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
    print(plan.report(dry_run=args.dry_run) + ("\n(dry run: nothing written)" if args.dry_run else ""))
    return 0


def run_new(args: argparse.Namespace) -> int:
    domain, op, since = split_operator_ref(args.operator)
    if since is not None:
        raise UsageError("write DOMAIN.OP without :SINCE; use --since N")
    if args.since is not None and args.since < 1:
        raise UsageError(f"--since {args.since}: opset versions start at 1")
    from toolkit.authoring.new import apply_new, check_name, plan_new

    check_name(domain, op)
    plan = plan_new(
        spec_paths(args.specs),
        domain,
        op,
        since=args.since,
        add_opset=args.add_opset,
        unreleased=args.unreleased,
    )
    if not args.dry_run:
        apply_new(plan)
    print(plan.report(dry_run=args.dry_run) + ("\n(dry run: nothing written)" if args.dry_run else ""))
    return 0


def _opset_ref(text: str) -> tuple[str, int]:
    domain, sep, raw = text.rpartition(":")
    if not sep or not raw.isdigit():
        raise UsageError(f"'{text}' is not DOMAIN:N (e.g. ai.onnx:13)")
    return domain, int(raw)


def run_releases(args: argparse.Namespace) -> int:
    from toolkit.registry import releases as release_table

    rows = release_table.onnx_releases() if args.onnx else registry_from_args(args).releases
    if not rows:
        raise UsageError("no release table (releases.yaml) in the specs; use --onnx for ONNX's")
    aliases = release_table.ONNX_DOMAIN_ALIASES if args.onnx else None
    if args.min_ir:
        try:
            print(
                release_table.min_ir_version_for(rows, [_opset_ref(t) for t in args.min_ir], aliases=aliases)
            )
        except release_table.UnknownOpset as exc:
            raise UsageError(str(exc)) from None
        return 0
    if args.release_for:
        domain, version = _opset_ref(args.release_for)
        found = release_table.release_for_opset(rows, domain, version)
        if found is None:
            raise UsageError(f"no release ships opset {args.release_for}")
        print(found.name)
        return 0
    for row in rows:
        opsets = ", ".join(f"{display_domain(d)} {v}" for d, v in row.opsets)
        print(f"{row.name}\tIR {row.ir_version}\t{opsets}")
    return 0


def run_semver(args: argparse.Namespace) -> int:
    try:
        print(semver.convert(args.value))
    except semver.SemVerError as exc:
        raise UsageError(str(exc)) from None
    return 0
