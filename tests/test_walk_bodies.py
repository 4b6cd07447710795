"""How the model walk feeds a Loop's or Scan's body its inputs (#27's review): a body input
shadows an outer value of its name (its constant contents too), a Loop's body is fed no shapes
(its states may change shape between iterations: the body's declarations hold, as in onnx), and
a Scan body input declared with a shape that contradicts the slice or state the node feeds it is
MODEL-SHAPE-MISMATCH located at the body (onnx's strict inference fails the node).

Each model is built here and judged by onnx in the same test: its full check, and the shapes its
strict inference writes, which ours (`toolkit.infer_shapes`) must not be more specific than.
"""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
import numpy as np  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from test_walk_scopes import _findings, _model, _onnx_accepts, _vi  # noqa: E402

from toolkit.onnx_bridge.shape_write import infer_shapes  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
Dims = list[int | None] | None  # None: no shape (rank unknown)


def _dims(info: Any) -> Dims:
    tensor = info.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]


def _shapes(graph: Any) -> dict[str, Dims]:
    """Every value the graph and its subgraphs declare (after inference: what it wrote), by name
    prefixed with its subgraph's attribute path."""
    found = {info.name: _dims(info) for info in [*graph.value_info, *graph.output]}
    for index, node in enumerate(graph.node):
        for attr in node.attribute:
            if attr.HasField("g"):
                for name, dims in _shapes(attr.g).items():
                    found[f"{index}/{attr.name}/{name}"] = dims
    return found


def _as_onnx(model: Any, registry: Registry) -> None:
    """Every shape our inference writes is implied by the one onnx's strict inference writes:
    unknown, or onnx's rank with each of our static sizes static in onnx's too."""
    theirs = _shapes(onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True).graph)
    ours = _shapes(infer_shapes(model, registry).graph)
    for name, dims in ours.items():
        if dims is None:
            continue
        other = theirs.get(name)
        assert other is not None and len(other) == len(dims), (name, dims, other)
        assert all(d is None or d == o for d, o in zip(dims, other)), (name, dims, other)


def _int64(name: str, values: list[int]) -> Any:
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def _loop_shadow(nested_if: bool) -> Any:
    """A Loop's state 's' shares its name with an outer initializer [2, 3]; the body reshapes
    x: float[6] by its own 's' (the state, contents unknown) and declares the result [3, 2]
    (directly, or from an If in the body that reads 's')."""
    reshape = helper.make_node("Reshape", ["x", "s"], ["r"])
    if nested_if:
        then = helper.make_graph([reshape], "then", [], [_vi("r", F32, [3, 2])])
        other = helper.make_graph(
            [helper.make_node("Reshape", ["x", "s"], ["q"])], "else", [], [_vi("q", F32, [3, 2])]
        )
        reshape = helper.make_node("If", ["c"], ["r"], then_branch=then, else_branch=other)
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c"], ["c_out"]),
            reshape,
            helper.make_node("Identity", ["s"], ["s_out"]),
        ],
        "body",
        [_vi("i", I64, []), _vi("c", BOOL, []), _vi("s", I64, [2])],
        [_vi("c_out", BOOL, []), _vi("s_out", I64, [2]), _vi("r", F32, [3, 2])],
    )
    model = _model(
        [helper.make_node("Loop", ["n", "", "s0"], ["sf", "rs"], body=body)],
        [_vi("x", F32, [6]), _vi("n", I64, []), _vi("s0", I64, [2])],
        [_vi("sf", I64, [2]), _vi("rs", F32, ["t", 3, 2])],
    )
    model.graph.initializer.append(_int64("s", [2, 3]))
    return model


@pytest.mark.parametrize("nested_if", [False, True])
def test_loop_body_input_shadows_outer_constant(onnx_registry: Registry, nested_if: bool) -> None:
    model = _loop_shadow(nested_if)
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []  # not [2, 3] from the outer 's'
    _as_onnx(model, onnx_registry)


def test_loop_body_input_shadows_outer_constant_in_written_shapes(onnx_registry: Registry) -> None:
    """The body's 'r' undeclared: onnx leaves it unknown, so must we (not [2, 3])."""
    model = _loop_shadow(False)
    del model.graph.node[0].attribute[0].g.output[2].type.tensor_type.shape.dim[:]
    model.graph.node[0].attribute[0].g.output[2].type.tensor_type.ClearField("shape")
    _as_onnx(model, onnx_registry)


def test_scan_body_input_shadows_outer_constant(onnx_registry: Registry) -> None:
    body = helper.make_graph(
        [helper.make_node("Reshape", ["xs", "k"], ["r"]), helper.make_node("Identity", ["k"], ["ko"])],
        "body",
        [_vi("k", I64, [2]), _vi("xs", F32, [6])],
        [_vi("ko", I64, [2]), _vi("r", F32, [3, 2])],
    )
    model = _model(
        [helper.make_node("Scan", ["k0", "x"], ["kf", "y"], num_scan_inputs=1, body=body)],
        [_vi("k0", I64, [2]), _vi("x", F32, [4, 6])],
        [_vi("kf", I64, [2]), _vi("y", F32, [4, 3, 2])],
    )
    model.graph.initializer.append(_int64("k", [2, 3]))
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []
    _as_onnx(model, onnx_registry)


def _loop_state(declared: list[Any] | None, out: list[Any] | None, grow: bool) -> Any:
    """A Loop whose state v0: float[3] enters a body declaring it `declared`, the iteration
    number declared [1] (onnx feeds the body no shapes); the body concatenates it to itself
    (`grow`: its shape changes every iteration) or passes it on."""
    step = (
        helper.make_node("Concat", ["v", "v"], ["vo"], axis=0)
        if grow
        else helper.make_node("Identity", ["v"], ["vo"])
    )
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["co"]), step, helper.make_node("Relu", ["vo"], ["w"])],
        "body",
        [_vi("i", I64, [1]), _vi("c", BOOL, []), _vi("v", F32, declared)],
        [_vi("co", BOOL, []), _vi("vo", F32, out)],
    )
    return _model(
        [helper.make_node("Loop", ["n", "", "v0"], ["vf"], body=body)],
        [_vi("n", I64, []), _vi("v0", F32, [3])],
        [_vi("vf", F32, ["m"])],
    )


def test_loop_state_that_grows_is_not_its_first_shape(onnx_registry: Registry) -> None:
    model = _loop_state(None, None, grow=True)
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []
    _as_onnx(model, onnx_registry)  # the body's 'vo' and 'w' not [6]
    written = _shapes(infer_shapes(model, onnx_registry).graph)
    assert written.get("0/body/w") is None


def test_loop_state_declaration_is_not_overridden_by_the_fed_shape(onnx_registry: Registry) -> None:
    """The body declares its state [5] where the first iteration's is [3]: onnx accepts it (a
    state's shape may change), the body's declaration holds: no finding at the Identity."""
    model = _loop_state([5], [5], grow=False)
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []
    _as_onnx(model, onnx_registry)


def _scan(state: list[int], scanned: list[int], declared_state: list[int], declared_slice: list[int]) -> Any:
    body = helper.make_graph(
        [helper.make_node("Identity", ["st"], ["sto"]), helper.make_node("Identity", ["xs"], ["so"])],
        "body",
        [_vi("st", F32, declared_state), _vi("xs", F32, declared_slice)],
        [_vi("sto", F32, None), _vi("so", F32, None)],
    )
    return _model(
        [helper.make_node("Scan", ["s", "x"], ["sf", "y"], num_scan_inputs=1, body=body)],
        [_vi("s", F32, state), _vi("x", F32, scanned)],
        [_vi("sf", F32, ["a"]), _vi("y", F32, ["b", "c"])],
    )


@pytest.mark.parametrize(
    ("model_args", "value", "declared", "fed"),
    [
        (([3], [4, 3], [3], [5]), "xs", "[5]", "[3]"),  # the slice of x: float[4, 3]
        (([4], [4, 3], [3], [3]), "st", "[3]", "[4]"),  # the state
        (([3], [4, 3], [3], [3, 1]), "xs", "[3, 1]", "[3]"),  # another rank
    ],
)
def test_scan_body_input_contradicting_what_is_fed(
    onnx_registry: Registry, model_args: tuple[Any, ...], value: str, declared: str, fed: str
) -> None:
    model = _scan(*model_args)
    assert not _onnx_accepts(model)
    assert _findings(model, onnx_registry) == [
        (
            "MODEL-SHAPE-MISMATCH",
            "g/Scan/0/body",
            f"body input '{value}' is declared {declared}, but the node feeds it {fed}",
        )
    ]


def test_scan_body_input_agreeing_with_what_is_fed(onnx_registry: Registry) -> None:
    """The control: declarations that agree (a symbol agrees with anything) are no finding."""
    model = _scan([3], [4, 3], ["d"], [3])
    assert _onnx_accepts(model)
    assert _findings(model, onnx_registry) == []
    _as_onnx(model, onnx_registry)
