"""The MODEL-SHAPE-* rules: what check-model finds by inferring shapes through the graph from the
operators' `shape:` rules and `shape_requires:` constraints (#27, docs/guide/shapes.md).

The shapes come from `toolkit.onnx_bridge.shape_infer.infer_model_shapes`, the model walk that
also gives check-model its inferred types, and that `opset infer-shapes` runs; this module only turns what it reports into located findings. Inference
never guesses (an unknown dimension agrees with everything), so a finding needs two static sizes
that cannot both hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkit.model.rules import Rule, register
from toolkit.onnx_bridge.check.findings import CheckResult, ModelFinding, finding

if TYPE_CHECKING:
    from toolkit.onnx_bridge.shape_infer import ShapeResult

__all__ = ["RULES", "SHAPE_RULES", "report_shapes", "shape_check_result"]

SHAPE_RULES: tuple[Rule, ...] = (
    register(
        "MODEL-SHAPE-CONSTRAINT",
        "model",
        "error",
        "A node's input shapes break a constraint of its operator's shape rules (MatMul's inner "
        "dimensions differ, inputs that do not broadcast, ...).",
        name="shape constraint violated",
        hint="fix the shapes feeding the node (or the node's attributes) so the operator's constraint holds",
        doc="""\
**Why:** an operator's spec states what its input shapes must satisfy (`shape_requires:`, and
the built-ins of its `shape:` rules such as `broadcast` or `matmul`). A node whose inputs break
it fails at run time, usually only when the model is first run. check-model infers shapes
through the graph (graph inputs, initializers, Constant nodes, declared value_info) and reports
the node; unknown and symbolic sizes never produce a finding.

**Before:** `MatMul(a, b) -> y` with `a: float[2, 3]` and `b: float[4, 5]` (3 != 4).

**After:** `b: float[3, 5]`, or a `Transpose` of the right operand so the inner dimensions
agree.""",
    ),
    register(
        "MODEL-SHAPE-MISMATCH",
        "model",
        "error",
        "The shape inferred for a node's output (from its operator's shape rule) contradicts the "
        "shape declared for that value (value_info or a graph output), or the shape a Scan feeds "
        "a body input contradicts the body's declaration of it: another rank, or another static "
        "size of a dimension.",
        name="declared shape contradicts inference",
        hint="fix the declaration (or the node) so both agree; a dimension not known statically can be left as a dim_param",
        doc="""\
**Why:** runtimes and `onnx.shape_inference.infer_shapes(strict_mode=True)` refuse a model whose
declared shapes contradict the operators (onnx: "Inferred shape and existing shape differ").
check-model compares the shape each node's rule gives with the declaration of the value it
produces. A symbol (`dim_param`) or an unknown size agrees with anything; later nodes see the
declared shape, so one wrong declaration is one finding. A Scan's body input is checked the same
way against the slice or state the node feeds it (located at the body, as onnx fails the node).

**Before:** `Transpose(x) -> y` with `x: float[2, 3]` and the graph output `y: float[2, 3]`.

**After:** the graph output declared `y: float[3, 2]`.""",
    ),
)

# located at nodes but found over the whole graph, not by the node walk (so not the fast path's)
RULES = frozenset(rule.id for rule in SHAPE_RULES)

Add = Callable[..., None]  # checker._Walk.add: (rule, path, message, hint="", operator="")


def _shown(shape: tuple[Any, ...]) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def report_shapes(result: ShapeResult, add: Add) -> None:
    """What one inference found, as MODEL-SHAPE-* findings through `add` (check-model's and
    infer-shapes' one reading of it)."""
    for path, message in result.findings:
        add("MODEL-SHAPE-CONSTRAINT", path, message, operator=result.operators.get(path, ""))
    for conflict in result.conflicts:
        if conflict.fed:
            add(
                "MODEL-SHAPE-MISMATCH",
                conflict.path,
                f"body input '{conflict.value}' is declared {_shown(conflict.declared)}, but the node "
                f"feeds it {_shown(conflict.inferred)}",
            )
            continue
        add(
            "MODEL-SHAPE-MISMATCH",
            conflict.path,
            f"output '{conflict.value}' of {conflict.operator} is inferred as {_shown(conflict.inferred)} "
            f"but declared {_shown(conflict.declared)}",
            operator=conflict.operator,
        )


def shape_check_result(model: str, result: ShapeResult) -> CheckResult:
    """`opset infer-shapes`' findings as check-model's result, for check-model's reporter."""
    rules = {rule.id: rule for rule in SHAPE_RULES}
    found: list[ModelFinding] = []

    def add(rule: str, path: str, message: str, hint: str = "", operator: str = "") -> None:
        found.append(finding(rules[rule], path, message, hint, operator))

    report_shapes(result, add)
    return CheckResult(model, tuple(found), result.nodes)
