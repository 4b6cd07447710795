"""Shape inference benchmark (#27): ours next to onnx's C++ inference on the same 10,000-node
model, in the same run, interleaved.

The model is bench_check_model.py's (a chain of Add, Mul, Relu, Sigmoid, Reshape with an
initializer shape, Transpose, Cast, Concat, and an If every 500 nodes), with its value_info
stripped so that both tools infer every shape.

Prints median seconds of:
- `toolkit.onnx_bridge.shape_infer.infer_model_shapes` (the model walk: element type and shape
  of every value, in-process, registry loaded) and `toolkit.infer_shapes` (the same, written into
  a copy of the model as value_info: what users call) next to `onnx.shape_inference.infer_shapes`;
- check-model with its shape findings (`check_model`, value_info declared, as bench_check_model.py
  runs it) next to `onnx.checker.check_model(full_check=True)`;
the model walk alone on the declared model (check_model's types and shapes); and the ratios
against the issue's targets (`toolkit.infer_shapes` within 2x of onnx; check-model with shapes
at least as fast as onnx's full check).

Run: python benchmarks/bench_shapes.py [NODES]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check_model import build_model, interleaved_medians


def stripped(model: Any) -> Any:
    import onnx

    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.value_info[:]
    return out


def main() -> None:
    import onnx

    from toolkit.onnx_bridge.catalog import onnx_registry, onnx_unchecked_attributes
    from toolkit.onnx_bridge.check import check_model
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes
    from toolkit.onnx_bridge.shape_write import infer_shapes

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    declared = build_model(count)
    bare = stripped(declared)
    registry = onnx_registry(adapters=False)
    unchecked = onnx_unchecked_attributes()

    # the same answer from both before timing anything
    ours = infer_model_shapes(bare, registry)
    theirs = onnx.shape_inference.infer_shapes(bare)
    known = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in theirs.graph.value_info}
    agree = sum(1 for name, dims in known.items() if ours.shapes.get(name) == tuple(dims))
    print(f"model: {len(bare.graph.node)} nodes; values onnx shapes: {len(known)}, ours agree on {agree}")
    assert not check_model(declared, registry, unchecked_attributes=unchecked).findings

    shapes_only, written, onnx_infer, checked, shape_pass, onnx_full = interleaved_medians(
        [
            lambda: infer_model_shapes(bare, registry),
            lambda: infer_shapes(bare, registry),
            lambda: onnx.shape_inference.infer_shapes(bare),
            lambda: check_model(declared, registry, unchecked_attributes=unchecked),
            lambda: infer_model_shapes(declared, registry),  # check_model's types and shapes
            lambda: onnx.checker.check_model(declared, full_check=True),
        ],
        repeat=7,
    )
    print("median seconds, interleaved (7 rounds):")
    print(
        f"  ours: infer_model_shapes               {shapes_only:8.4f}  ({shapes_only / onnx_infer:.2f}x onnx)"
    )
    print(f"  ours: toolkit.infer_shapes (+types, write) {written:8.4f}  ({written / onnx_infer:.2f}x onnx)")
    print(f"  onnx.shape_inference.infer_shapes       {onnx_infer:8.4f}")
    print(f"  ours: check_model (shapes included)     {checked:8.4f}  ({checked / onnx_full:.2f}x onnx full)")
    print(f"    of which the model walk (declared model) {shape_pass:8.4f}")
    print(f"  onnx.checker.check_model(full_check)    {onnx_full:8.4f}")
    print(
        f"targets: toolkit.infer_shapes within 2x of onnx: {'met' if written <= 2 * onnx_infer else 'NOT met'}; "
        f"check-model at least as fast as onnx's full check: {'met' if checked <= onnx_full else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
