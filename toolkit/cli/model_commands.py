"""Model tools: `opset check-model`, `opset compat`, `opset model-diff`, `opset convert`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit.cli.common import add_report_arguments, add_specs_argument, emit_report, model_registry_from_args
from toolkit.model.diagnostics import Severity, UsageError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    check = subparsers.add_parser(
        "check-model",
        help="check an ONNX model against the onnx catalog (or a runtime's) and vendor specs",
        description="Check every node of an ONNX model (subgraphs and functions included) against "
        "the operator schemas: the default and ai.onnx.ml domains from the installed onnx (or the "
        "whole operator table of --runtime), vendor domains from --specs. Exit 0 clean, 1 errors "
        "found, 2 usage problem.",
    )
    check.add_argument("models", nargs="+", metavar="MODEL.onnx")
    check.add_argument(
        "--runtime",
        metavar="RUNTIME",
        help="check against a runtime's operator table instead of the ONNX standard: "
        "'onnxruntime' (the installed one) or a catalog folder (e.g. written by "
        "`opset import-onnx --source onnxruntime`)",
    )
    add_specs_argument(check, vendor=True)
    add_report_arguments(check)
    check.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default="error",
        help="lowest severity that makes the exit code 1 (default: error)",
    )
    check.set_defaults(handler=_check_model)

    _register_compat(subparsers)
    _register_model_diff(subparsers)
    _register_convert(subparsers)


def _check_model(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.catalog import onnx_unchecked_attributes
    from toolkit.onnx_bridge.check import check_model_file, exit_code
    from toolkit.reporting.model_check import render

    models = [Path(m) for m in args.models]
    for model in models:
        if not model.is_file():
            raise UsageError(f"{model}: no such model file")
    registry = model_registry_from_args(args, runtime=args.runtime)
    runtime = None
    if args.runtime is not None:  # can it run there? the answer of `opset compat`
        from toolkit.onnx_bridge.compat_model import load_runtime

        runtime = load_runtime(args.runtime, registry, use_cache=not args.no_cache)
    unchecked = onnx_unchecked_attributes()
    results = [
        check_model_file(model, registry, unchecked_attributes=unchecked, runtime=runtime) for model in models
    ]
    clean = not any(result.findings for result in results)
    emit_report(args, render(results, args.format, Severity(args.fail_on)), clean=clean)
    return exit_code(results, Severity(args.fail_on))


def _register_convert(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    convert = subparsers.add_parser(
        "convert",
        help="convert a model to other opset versions with the declarative adapters",
        description="Move every node of the named domains one opset version at a time, up or down, "
        "using the adapters of the specs (the default domain's come with the toolkit). "
        "Every node that cannot move is reported (node, opset step, operator, why) and nothing is written. "
        "Exit 0 converted, 1 a node cannot be moved, 2 usage.",
    )
    convert.add_argument("model", metavar="MODEL.onnx")
    convert.add_argument(
        "--to",
        action="append",
        default=[],
        metavar="DOMAIN=N",
        help="target opset version of a domain (repeatable), e.g. ai.onnx=13",
    )
    convert.add_argument(
        "--inline-missing",
        metavar="RUNTIME",
        help="then replace each node RUNTIME lacks by its operator's function body "
        "(RUNTIME as for `opset compat --runtime`)",
    )
    convert.add_argument(
        "--out",
        metavar="OUT.onnx",
        help="the converted model (required; `-o/--output OUT.onnx` without --out: the deprecated "
        "spelling, read as the model with a warning)",
    )
    add_specs_argument(convert, vendor=True)
    add_report_arguments(convert, aliases=("--report",))
    convert.set_defaults(handler=_convert)


def _convert(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.convert import ConversionError, convert_file, parse_targets
    from toolkit.reporting.model_convert import render

    args.output, args.report_file = _convert_outputs(args)  # first: a usage error's report goes there
    if not args.to and not args.inline_missing:
        raise UsageError("give --to DOMAIN=N and/or --inline-missing RUNTIME")
    targets = parse_targets(args.to)
    if not Path(args.model).is_file():
        raise UsageError(f"{args.model}: no such model file")
    if args.inline_missing:
        from toolkit.onnx_bridge.runtimes import KNOWN_RUNTIMES

        if args.inline_missing not in KNOWN_RUNTIMES and not Path(args.inline_missing).exists():
            raise UsageError(
                f"--inline-missing {args.inline_missing}: not a known runtime "
                f"({', '.join(KNOWN_RUNTIMES)}) and no such file or folder"
            )
    registry = model_registry_from_args(args, adapters=True)
    machine = args.format != "text"
    runtime = None
    if args.inline_missing:
        from toolkit.onnx_bridge.compat_model import load_runtime

        runtime = load_runtime(args.inline_missing, registry, use_cache=not args.no_cache)
    try:
        result = convert_file(args.model, args.output, registry, targets, inline_for=runtime)
    except ConversionError as exc:
        # The blockers as a compiler's error list on stderr, and in the machine format as well.
        sys.stderr.write(render(args.model, args.output, None, exc.blockers, "text"))
        if machine:
            emit_report(args, render(args.model, args.output, None, exc.blockers, args.format))
        elif args.report_file:  # the text report goes into the file too
            emit_report(args, render(args.model, args.output, None, exc.blockers, "text"))
        return 1
    text = render(args.model, args.output, result, (), "text")
    if machine:  # a machine report owns stdout: the steps go to stderr
        sys.stderr.write(text)
        emit_report(args, render(args.model, args.output, result, (), args.format))
    elif args.report_file:  # the text log is the report: into the file, as the other formats
        emit_report(args, text)
    elif not args.quiet:
        sys.stdout.write(text)
    return 0


def _convert_outputs(args: argparse.Namespace) -> tuple[str, str | None]:
    """(converted model, report file). The model is `--out`; `-o/--output` is the report file as
    in every command, except in the old spelling, which named the model with `-o/--output` (then
    without `--out`): read so, with a warning, so an old script neither breaks nor has its model
    path overwritten by a report. `--report` is the old spelling of the report file."""
    given = getattr(args, "report_file_given", None) or []
    report = [value for option, value in given if option == "--report"]
    output = [value for option, value in given if option != "--report"]
    if args.out is not None:
        return args.out, str(given[-1][1]) if given else None
    if output:
        print(
            "opset: warning: `convert -o/--output OUT.onnx` is the deprecated spelling of `--out OUT.onnx`"
            " (-o/--output names the report file, as in every other command)",
            file=sys.stderr,
        )
        return str(output[-1]), str(report[-1]) if report else None
    raise UsageError("give the converted model's path: --out OUT.onnx")


def _register_compat(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    compat = subparsers.add_parser(
        "compat",
        help="can a model run on a runtime with a known operator table?",
        description="List every node whose (domain, op, since_version) the runtime lacks, and the oldest "
        "opset that would satisfy it. RUNTIME: 'onnxruntime' (the installed one's catalog), a catalog "
        "folder (spec tree), a folder of generated opset_<N>.pb documents or a YAML manifest. "
        "Exit 0 compatible, 1 not, 2 usage.",
    )
    compat.add_argument("model", metavar="MODEL.onnx")
    compat.add_argument("--runtime", required=True, metavar="RUNTIME")
    add_report_arguments(compat)
    add_specs_argument(compat, vendor=True)
    compat.set_defaults(handler=_compat)


def _compat(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.check.model_io import load_model
    from toolkit.onnx_bridge.compat_model import analyse, load_runtime
    from toolkit.onnx_bridge.runtimes import KNOWN_RUNTIMES
    from toolkit.reporting.model_compat import render

    if args.runtime not in KNOWN_RUNTIMES and not Path(args.runtime).exists():
        raise UsageError(
            f"--runtime {args.runtime}: not a known runtime ({', '.join(KNOWN_RUNTIMES)}) and no such "
            "file or folder"
        )
    model = load_model(args.model)
    registry = model_registry_from_args(args)
    runtime = load_runtime(args.runtime, registry, use_cache=not args.no_cache)
    report = analyse(model, registry, runtime, name=args.model)
    emit_report(args, render(report, args.format), clean=report.compatible and not report.findings)
    return 0 if report.compatible else 1


def _register_model_diff(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    diff = subparsers.add_parser(
        "model-diff",
        help="required model_version bump between two versions of a model",
        description="Compare graph input/output signatures (Versioning.md, model versioning), print the "
        "required MAJOR/MINOR/PATCH bump and check NEW's model_version against OLD's. "
        "Exit 0 version ok, 1 insufficient bump, 2 usage.",
    )
    diff.add_argument("old", metavar="OLD.onnx")
    diff.add_argument("new", metavar="NEW.onnx")
    add_report_arguments(diff)
    diff.set_defaults(handler=_model_diff)


def _model_diff(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.check.model_io import load_model
    from toolkit.onnx_bridge.model_diff import diff_models
    from toolkit.reporting.model_diff import render

    old, new = load_model(args.old), load_model(args.new)
    report = diff_models(old, new, old_name=args.old, new_name=args.new)
    emit_report(args, render(report, args.format), clean=report.version_ok and not report.changes)
    return 0 if report.version_ok else 1
