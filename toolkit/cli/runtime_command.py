"""`opset test-runtime`: run the specs' examples on a runtime."""

from __future__ import annotations

import argparse
import sys

from toolkit.cli.common import add_report_arguments, add_specs_argument, emit_report, registry_from_args


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "test-runtime",
        help="run every example of the specs on a runtime and report pass/fail per example",
        description="Build each example's one-node model (the backend test case `opset generate` "
        "writes) and run it on the runtime through its Python API; compare the outputs with the "
        "expected ones within the example's tolerance. An operator version the runtime has no kernel "
        "for and cannot run through its function body is skipped, with the reason. Exit 0 none "
        "failed (passed or skipped), 1 an example failed or could not run, or every example was "
        "skipped (nothing ran; --allow-all-skipped accepts that), 2 usage problem "
        "(runtime not installed, bad specs).",
    )
    add_specs_argument(parser)
    parser.add_argument(
        "--runtime",
        choices=("onnxruntime",),
        default="onnxruntime",
        help="the runtime to run on (default: onnxruntime, through its Python API)",
    )
    parser.add_argument(
        "--custom-op-library",
        action="append",
        default=[],
        metavar="PATH",
        help="a shared library of vendor kernels to register with the runtime (repeatable)",
    )
    parser.add_argument(
        "--domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="only the examples of this domain (repeatable)",
    )
    parser.add_argument(
        "--op",
        action="append",
        default=[],
        metavar="OP",
        help="only the examples of this operator (repeatable)",
    )
    parser.add_argument(
        "--allow-all-skipped",
        action="store_true",
        help="exit 0 when every example was skipped (by default that is exit 1: nothing was tested)",
    )
    add_report_arguments(parser)
    parser.set_defaults(handler=_test_runtime)


def _test_runtime(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.runtime_test import run_examples, selected
    from toolkit.reporting.runtime_test import NOTHING_RAN, exit_code, nothing_ran, render

    registry = registry_from_args(args)
    for domain in args.domain:
        if not registry.has_domain("" if domain == "ai.onnx" else domain):
            from toolkit.model.diagnostics import UsageError

            raise UsageError(f"--domain {domain}: no such domain in the specs")
    cases = selected(registry, args.domain, args.op)
    results = run_examples(
        registry,
        cases,
        runtime=args.runtime,
        custom_op_libraries=args.custom_op_library,
        use_cache=not args.no_cache,
    )
    code = exit_code(results, allow_all_skipped=args.allow_all_skipped)
    emit_report(args, render(results, args.format, runtime=args.runtime), clean=code == 0)
    if nothing_ran(results) and not args.allow_all_skipped:
        print(NOTHING_RAN, file=sys.stderr)
    return code
