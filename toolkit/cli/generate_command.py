"""`opset generate`: argument handling only; the work is in `toolkit.generate.pipeline`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolkit.cli.common import add_report_arguments, add_specs_argument, emit_report, spec_paths
from toolkit.model.diagnostics import Diagnostic, UsageError

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
        "--out", metavar="DIR", help=f"output folder (default: `out` of opset.toml, else ./{DEFAULT_OUT})"
    )
    parser.add_argument(
        "--only", metavar="KIND,...", help="comma-separated generator kinds (default: all registered kinds)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; print a diff of stale files and exit 1 if any"
    )
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="overwrite files in the output folder that opset did not write (others stay); "
        "without it such files stop the run before anything is written",
    )
    add_report_arguments(parser)
    parser.set_defaults(handler=run_generate)


def _kinds(text: str | None) -> list[str] | None:
    from toolkit.generate import available_kinds
    from toolkit.model.suggest import close_names, did_you_mean

    if text is None:
        return None
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    known = available_kinds()
    unknown = [k for k in kinds if k not in known]
    if unknown or not kinds:
        close = [name for word in unknown for name in close_names(word, known, 1)]
        raise UsageError(
            f"unknown generator kind(s) {', '.join(unknown) or repr(text)} (known: {', '.join(known)})"
            + (f"; {did_you_mean(close)}" if close else "")
        )
    return kinds


def run_generate(args: argparse.Namespace) -> int:
    from toolkit.generate.pipeline import GeneratorError, diff_text, generate_tree
    from toolkit.load.output_folder import check_path, check_setting
    from toolkit.load.project import load_project

    kinds = _kinds(args.only)
    paths = spec_paths(args.specs)
    project = load_project()
    try:
        if args.out is None:
            # The tree's own setting (or the default): it may not leave the project folder.
            setting = project.key_location("out")
            if setting is not None:
                check_setting("out", project.out, project.folder, setting, "--out")
            args.out = project.out_path if project.source is not None else DEFAULT_OUT
            check_path(Path(args.out), project.folder, setting)
        else:
            check_path(Path(args.out), project.folder, None)
        result = generate_tree(
            paths,
            args.out,
            kinds=kinds,
            check=args.check,
            cache=not args.no_cache,
            cli_parser=args.build_parser,
            options=project.generator_options(),
            adopt=args.adopt,
            on_wait=lambda timeout: print(
                f"opset: waiting for another `opset generate` on {args.out}/ (up to {timeout:g} s)",
                file=sys.stderr,
            ),
        )
    except OSError as exc:
        # Named by the writer (`toolkit.load.writer._naming`); nothing half-written is left behind.
        raise UsageError(
            f"{exc.filename or args.out}: {exc.strerror or exc}\n  hint: the outputs in {args.out}/ are as they "
            "were (a commit that had begun is finished by the next `opset generate`)"
        ) from None
    except GeneratorError as exc:
        if exc.diagnostic is not None:
            hint = f"nothing was written; {args.out}/ is unchanged"
            print(replace(exc.diagnostic, hint=hint).format(), file=sys.stderr)
            if args.format != "text" or args.report_file:
                from toolkit.reporting.errors import render_load_errors

                diagnostic = replace(exc.diagnostic, hint=hint)
                emit_report(args, render_load_errors("generate", "a generator", [diagnostic], args.format, 1))
        else:
            from toolkit.model.diagnostics import usage_text

            print(f"opset: error: {usage_text(str(exc))}", file=sys.stderr)
            print(f"  hint: nothing was written; {args.out}/ is unchanged", file=sys.stderr)
        return 1
    out = args.out.rstrip("/") or "."
    for step in result.left_alone:  # even with --quiet: a journal named files opset does not own
        print(f"opset: warning: {out}/{step} (an interrupted commit's journal named it)", file=sys.stderr)
    if not args.quiet:
        for line in warning_summary(result.diagnostics):
            print(line, file=sys.stderr)
    if args.check and args.format != "text":
        emit_report(args, _check_report(result.changes, out, args.format))
        return 1 if result.changes else 0
    if args.check:
        if result.changes:
            emit_report(args, diff_text(result.changes, out))
            print(
                f"{len(result.changes)} generated file(s) in {out}/ are stale; run `opset generate`",
                file=sys.stderr,
            )
            return 1
        up_to_date = f"{out}/ is up to date ({len(result.files)} files, kinds: {', '.join(result.kinds)})\n"
        if args.report_file:
            emit_report(args, up_to_date)  # a CI step that reads the file finds the verdict
        elif not args.quiet:
            sys.stdout.write(up_to_date)
        return 0
    if not args.quiet:
        from toolkit.load.manifest import MANIFEST

        # The counts are of the generated files, as `result.files` is: the manifest is opset's record.
        generated = [c for c in result.changes if c.path != MANIFEST]
        added = sum(1 for c in generated if c.old is None)
        removed = sum(1 for c in generated if c.new is None)
        changed = len(generated) - added - removed
        print(
            f"{out}/: {len(result.files)} files ({', '.join(result.kinds)}); "
            f"{added} added, {changed} changed, {removed} removed"
        )
    return 0


def _check_report(changes: Any, out: str, fmt: str) -> str:
    """`generate --check` in a report format: each stale file is a GEN-STALE finding at its
    first differing line."""
    from toolkit.checks.python_names import GENERATED_STALE
    from toolkit.model.diagnostics import Diagnostic
    from toolkit.model.spec import Location
    from toolkit.reporting.errors import render_findings
    from toolkit.reporting.paths import discover

    paths = discover()
    diagnostics = []
    for change in changes:
        what = (
            "is missing" if change.old is None else "should be removed" if change.new is None else "is stale"
        )
        path = f"{out}/{change.path}"
        # The message names the file as the annotation does (from the repository root), not `../`.
        diagnostics.append(
            Diagnostic(
                GENERATED_STALE,
                f"{paths.repo_path(path)} {what}",
                Location(path, _first_difference(change.old, change.new), 1),
                "run `opset generate` and commit the result",
            )
        )
    summary = (
        f"{len(diagnostics)} generated file(s) in {out}/ are stale; run `opset generate`"
        if diagnostics
        else (f"{out}/ is up to date")
    )
    return render_findings("generate", diagnostics, fmt, summary=summary)


def _first_difference(old: bytes | None, new: bytes | None) -> int:
    if old is None or new is None:
        return 1
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    for number, (a, b) in enumerate(zip(old_lines, new_lines), start=1):
        if a != b:
            return number
    return min(len(old_lines), len(new_lines)) + (0 if len(old_lines) == len(new_lines) else 1)


SHOWN_PER_GROUP = 3


def warning_summary(diagnostics: Sequence[Diagnostic]) -> list[str]:
    """The specs' warnings as `generate` prints them: every one when there are few, else the first
    few of each rule in each folder and a count. Generated pages already carry a visible note
    where a doc was repaired (DOC-*), and an imported catalog (`opset import-onnx`: ONNX's own
    doc text, kept verbatim) would otherwise print one line per doc; `opset validate` lists all."""
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    for diag in diagnostics:
        groups.setdefault((diag.rule, os.path.dirname(diag.location.file)), []).append(diag)
    lines = []
    for (rule, folder), members in groups.items():
        lines += [d.format() for d in members[:SHOWN_PER_GROUP]]
        rest = len(members) - SHOWN_PER_GROUP
        if rest > 0:
            lines.append(f"... and {rest} more {rule} in {folder or '.'}/ (`opset validate` lists every one)")
    return lines
