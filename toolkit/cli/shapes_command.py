"""`opset infer-shapes MODEL -o OUT`: the model with the shapes its operators' shape rules give (#27)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit.cli.common import add_format_argument, add_specs_argument, model_registry_from_args
from toolkit.model.diagnostics import Severity, UsageError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "infer-shapes",
        help="write an ONNX model with the element types and shapes the spec's shape rules infer",
        description="Infer shapes through the main graph of an ONNX model from the operators' shape "
        "rules (the onnx catalog's shape overlay, vendor domains from --specs) and write the model with "
        "them in value_info, like onnx.shape_inference.infer_shapes. Constraints a node breaks and "
        "declared shapes inference contradicts are reported as check-model reports them "
        "(MODEL-SHAPE-CONSTRAINT, MODEL-SHAPE-MISMATCH, located by node path) in --format. "
        "Exit 0 clean, 1 findings, 2 usage problem.",
    )
    parser.add_argument("model", metavar="MODEL.onnx")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.onnx", help="where to write the model")
    add_specs_argument(parser, vendor=True)
    add_format_argument(parser)
    parser.set_defaults(handler=_infer_shapes)


def _infer_shapes(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.check import exit_code
    from toolkit.onnx_bridge.check.shape_rules import shape_check_result
    from toolkit.onnx_bridge.shape_write import infer_shapes_file
    from toolkit.reporting.model_check import render

    if not Path(args.model).is_file():
        raise UsageError(f"{args.model}: no such model file")
    registry = model_registry_from_args(args)
    result = shape_check_result(args.model, infer_shapes_file(args.model, args.output, registry))
    sys.stdout.write(render([result], args.format, Severity.ERROR, tool="infer-shapes"))
    return exit_code([result], Severity.ERROR)
