"""`opset generate`: argument handling only; the work is in `toolkit.generate.pipeline`."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from toolkit.cli.common import add_specs_argument, spec_paths
from toolkit.model.diagnostics import UsageError

DEFAULT_OUT = "generated"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="generate protobuf documents, Python classes and docs from the specs",
        description=(
            "Load and check the specs, run every generator in memory, then write the outputs "
            "atomically (only changed files; stale files of the generated kinds are removed)."
        ),
    )
    add_specs_argument(parser)
    parser.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default: ./{DEFAULT_OUT})"
    )
    parser.add_argument(
        "--only", metavar="KIND,...", help="comma-separated generator kinds (default: all registered kinds)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; print a diff of stale files and exit 1 if any"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    parser.set_defaults(handler=run_generate)


def _kinds(text: str | None) -> list[str] | None:
    from toolkit.generate import available_kinds

    if text is None:
        return None
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    known = available_kinds()
    unknown = [k for k in kinds if k not in known]
    if unknown or not kinds:
        raise UsageError(
            f"unknown generator kind(s) {', '.join(unknown) or repr(text)} (known: {', '.join(known)})"
        )
    return kinds


def run_generate(args: argparse.Namespace) -> int:
    from toolkit.generate.pipeline import GeneratorError, diff_text, generate_tree

    kinds = _kinds(args.only)
    paths = spec_paths(args.specs)
    try:
        result = generate_tree(
            paths, args.out, kinds=kinds, check=args.check, cache=not args.no_cache, cli_parser=args.build_parser
        )
    except GeneratorError as exc:
        if exc.diagnostic is not None:
            hint = f"nothing was written; {args.out}/ is unchanged"
            print(replace(exc.diagnostic, hint=hint).format(), file=sys.stderr)
        else:
            print(f"opset: error: {exc}", file=sys.stderr)
            print(f"  hint: nothing was written; {args.out}/ is unchanged", file=sys.stderr)
        return 1
    if not args.quiet:
        for diagnostic in result.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
    out = args.out.rstrip("/") or "."
    if args.check:
        if result.changes:
            sys.stdout.write(diff_text(result.changes, out))
            print(
                f"{len(result.changes)} generated file(s) in {out}/ are stale; run `opset generate`",
                file=sys.stderr,
            )
            return 1
        if not args.quiet:
            print(f"{out}/ is up to date ({len(result.files)} files, kinds: {', '.join(result.kinds)})")
        return 0
    if not args.quiet:
        added = sum(1 for c in result.changes if c.old is None)
        removed = sum(1 for c in result.changes if c.new is None)
        changed = len(result.changes) - added - removed
        print(
            f"{out}/: {len(result.files)} files ({', '.join(result.kinds)}); "
            f"{added} added, {changed} changed, {removed} removed"
        )
    return 0
