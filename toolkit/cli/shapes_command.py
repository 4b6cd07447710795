"""`opset infer-shapes MODEL -o OUT`: the model with the shapes its operators' shape rules give (#27)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit.cli.common import add_specs_argument, model_registry_from_args
from toolkit.model.diagnostics import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "infer-shapes",
        help="write an ONNX model with the element types and shapes the spec's shape rules infer",
        description="Infer shapes through the main graph of an ONNX model from the operators' shape "
        "rules (the onnx catalog's shape overlay, vendor domains from --specs) and write the model with "
        "them in value_info, like onnx.shape_inference.infer_shapes. Constraints a node breaks are "
        "printed as findings. Exit 0 clean, 1 findings, 2 usage problem.",
    )
    parser.add_argument("model", metavar="MODEL.onnx")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.onnx", help="where to write the model")
    add_specs_argument(parser, vendor=True)
    parser.set_defaults(handler=_infer_shapes)


def _infer_shapes(args: argparse.Namespace) -> int:
    from toolkit.model.diagnostics import escape
    from toolkit.onnx_bridge.shape_infer import infer_shapes_file

    if not Path(args.model).is_file():
        raise UsageError(f"{args.model}: no such model file")
    registry = model_registry_from_args(args)
    result = infer_shapes_file(args.model, args.output, registry)
    for path, message in result.findings:
        sys.stdout.write(f"{escape(args.model)}: {escape(path)}: error: {escape(message)}\n")
    return 1 if result.findings else 0
