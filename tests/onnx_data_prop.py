"""What onnx's own shape inference says of a model, with data propagation (the judge of the value
rules and the float constants: tests/test_shape_values.py, tests/test_shape_floats.py)."""

from __future__ import annotations

from typing import Any


def dims(shape: Any) -> tuple[Any, ...]:
    """A TensorShapeProto's dimensions: sizes, symbols, None for an unknown one."""
    return tuple(d.dim_value if d.HasField("dim_value") else d.dim_param or None for d in shape.dim)


def onnx_shapes(model: Any) -> dict[str, tuple[Any, ...]]:
    """The shapes `onnx.shape_inference.infer_shapes(strict_mode, data_prop)` gives the model's
    values and outputs."""
    import onnx

    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    return {
        v.name: dims(v.type.tensor_type.shape)
        for v in (*inferred.graph.value_info, *inferred.graph.output)
        if v.type.tensor_type.HasField("shape")
    }


def complete(shape: tuple[Any, ...]) -> bool:
    """Every dimension a size or one of the model's own symbols (onnx names its unknowns unk__N)."""
    return all(isinstance(d, int) or (isinstance(d, str) and not d.startswith("unk__")) for d in shape)
