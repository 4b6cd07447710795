"""Judging shape inference by onnx's own backend node test cases (#27): each case's expected
outputs give the true output shapes. A model is stripped of its output shapes and value_info,
inferred by a tool, and each tensor output counted right (every dimension known and equal),
wrong (a known rank or dimension that differs) or unknown. `tools/compare_shapes.py` runs onnx's
inference and ours on every case in one run; tests/test_shape_infer.py runs a subset."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Score", "judge", "stripped"]


@dataclass
class Score:
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    wrong_cases: list[str] = field(default_factory=list)
    unknown_cases: list[str] = field(default_factory=list)


def stripped(model: Any) -> Any:
    """A copy with no value_info and graph outputs that declare only their element type."""
    from onnx import ModelProto

    out = ModelProto()
    out.CopyFrom(model)
    del out.graph.value_info[:]
    for output in out.graph.output:
        if output.type.HasField("tensor_type"):
            output.type.tensor_type.ClearField("shape")
    return out


def _verdict(inferred: Any, truth: tuple[int, ...]) -> str:
    if (
        inferred is None
        or not inferred.type.HasField("tensor_type")
        or not inferred.type.tensor_type.HasField("shape")
    ):
        return "unknown"
    dims = inferred.type.tensor_type.shape.dim
    if len(dims) != len(truth):
        return "wrong"
    verdict = "right"
    for dim, want in zip(dims, truth):
        if dim.HasField("dim_value"):
            if dim.dim_value != want:
                return "wrong"
        else:
            verdict = "unknown"
    return verdict


def judge(cases: Iterable[Any], infer: Callable[[Any], Any], score: Score | None = None) -> Score:
    """Score `infer` (model -> inferred model) on onnx backend node test cases."""
    score = score or Score()
    for case in cases:
        _, expected = case.data_sets[0]
        model = stripped(case.model)
        try:
            inferred = infer(model)
        except Exception:
            inferred = model
        known = {v.name: v for v in (*inferred.graph.value_info, *inferred.graph.output)}
        for output, value in zip(case.model.graph.output, expected):
            if not hasattr(value, "shape") or not output.type.HasField("tensor_type"):
                continue
            verdict = _verdict(known.get(output.name), tuple(value.shape))
            setattr(score, verdict, getattr(score, verdict) + 1)
            if verdict == "wrong":
                score.wrong_cases.append(f"{case.name}:{output.name}")
            elif verdict == "unknown":
                score.unknown_cases.append(f"{case.name}:{output.name}")
    return score
