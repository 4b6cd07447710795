"""The model walk (#27 speed, #24 one definition): one traversal gives check-model's inferred
types, its MODEL-SHAPE-* findings, `toolkit.infer_shapes`' value_info and convert's types.

What it must keep while it got faster: a node's types and shapes are evaluated once per distinct
(plan, input types, input shapes, attributes read, constants, output count), never reused across
nodes that differ in any of them; each graph's declarations are read once per check; infer-shapes
walks the model once; the value_info entries written as protobuf wire form read back as onnx's
own; graphs of operators other than If, Loop and Scan are walked for their types only, as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge import shape_infer, shape_write  # noqa: E402
from toolkit.onnx_bridge.check import check_model, checker  # noqa: E402
from toolkit.onnx_bridge.check.inference import TypeInference  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], value_info: tuple[Any, ...] = ()) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _chain(count: int) -> Any:
    """`count` nodes cycling through Add, Relu, Cast (to float16 and back), Transpose."""
    nodes: list[Any] = []
    last = "x"
    for index in range(count):
        out = f"v{index}"
        kind = index % 4
        if kind == 0:
            nodes.append(helper.make_node("Add", [last, last], [out]))
        elif kind == 1:
            nodes.append(helper.make_node("Relu", [last], [out]))
        elif kind == 2:
            nodes.append(helper.make_node("Cast", [last], [out], to=TensorProto.FLOAT16))
        else:
            nodes.append(helper.make_node("Cast", [last], [out], to=TensorProto.FLOAT))
        last = out
    return _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(last, TensorProto.FLOAT, [2, 3])],
    )


def test_a_node_is_evaluated_once_per_distinct_signature(
    onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """800 nodes of four kinds: a handful of type and shape evaluations, and every value typed."""
    calls = {"types": 0, "shapes": 0}
    type_node, infer = TypeInference.node, shape_infer.infer

    def counted_types(*args: Any, **kwargs: Any) -> Any:
        calls["types"] += 1
        return type_node(*args, **kwargs)

    def counted_shapes(*args: Any, **kwargs: Any) -> Any:
        calls["shapes"] += 1
        return infer(*args, **kwargs)

    monkeypatch.setattr(TypeInference, "node", counted_types)
    monkeypatch.setattr(shape_infer, "infer", counted_shapes)
    result = shape_infer.infer_model_shapes(_chain(800), onnx_registry)
    assert calls["types"] <= 8 and calls["shapes"] <= 8, calls
    assert {result.types[f"v{i}"] for i in range(0, 800, 4)} == {"tensor(float)"}
    assert {result.types[f"v{i}"] for i in range(2, 800, 4)} == {"tensor(float16)"}
    assert all(result.shapes[f"v{i}"] == (2, 3) for i in range(800))


def test_reused_results_never_cross_attributes_or_input_types(onnx_registry: Registry) -> None:
    """Nodes of one operator that differ only in an attribute a type or shape rule reads, or in
    their inputs' element types, get their own results: the same types and shapes onnx infers."""
    nodes = [
        helper.make_node("Cast", ["x"], ["c16"], to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["x"], ["c64"], to=TensorProto.INT64),
        helper.make_node("Add", ["x", "x"], ["af"]),
        helper.make_node("Add", ["c64", "c64"], ["ai"]),
        helper.make_node("Transpose", ["x"], ["t01"], perm=[0, 1, 2]),
        helper.make_node("Transpose", ["x"], ["t21"], perm=[2, 1, 0]),
        helper.make_node(
            "Constant", [], ["kf"], value=helper.make_tensor("kf_v", TensorProto.FLOAT, [2], [1.0, 2.0])
        ),
        helper.make_node(
            "Constant", [], ["ki"], value=helper.make_tensor("ki_v", TensorProto.INT64, [3], [1, 2, 3])
        ),
        helper.make_node("Reshape", ["x", "ki"], ["r"]),
    ]
    outputs = ["c16", "c64", "af", "ai", "t01", "t21", "kf", "ki", "r"]
    model = _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None) for name in outputs],
    )
    ours = shape_write.infer_shapes(model, onnx_registry)
    theirs = onnx.shape_inference.infer_shapes(model, strict_mode=True)

    def typed(out: Any) -> dict[str, str]:
        return {
            info.name: str(info.type).replace("\n", " ")
            for info in (*out.graph.value_info, *out.graph.output)
        }

    assert typed(ours) == typed(theirs)
    assert shape_infer.infer_types(model, onnx_registry)["c64"] == "tensor(int64)"


@pytest.mark.parametrize(
    "name", ["y", "n" * 127, "n" * 128, "é名" * 100, "long" * 5000], ids=["1", "127", "128", "utf8", "20000"]
)
def test_value_info_wire_form_reads_back_as_onnx_builds_it(onnx_registry: Registry, name: str) -> None:
    """The value_info entries infer_shapes writes as wire form (one- to three-byte lengths,
    non-ASCII names, symbolic dimensions) are the messages onnx's helper builds."""
    model = _model(
        [helper.make_node("Relu", ["x"], [name]), helper.make_node("Relu", [name], ["z"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 3])],
    )
    out = shape_write.infer_shapes(model, onnx_registry)
    expected = helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", 3])
    assert list(out.graph.value_info) == [expected]
    onnx.checker.check_model(out, full_check=True)
    assert onnx.ModelProto.FromString(out.SerializeToString()) == out


def test_check_model_reads_each_graphs_declarations_once(
    onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check-model's types and shapes come from one walk: the main graph's declared types are read
    once (they were read by the checker and again by a type walk of its own)."""
    read: list[str] = []
    declarations, declared_types = shape_infer.declarations, checker.declared_types

    def counted(graph: Any, *memo: Any) -> Any:
        read.append(graph.name)
        return (declarations if memo else declared_types)(graph, *memo)

    monkeypatch.setattr(shape_infer, "declarations", counted)
    monkeypatch.setattr(checker, "declared_types", counted)
    result = check_model(_chain(40), onnx_registry)
    assert not result.findings
    assert read == ["g"]


def _flagged(tmp_path: Path) -> Path:
    """A model with a wrong declared type (Cast to int64 declared float) and, after it, a wrong
    declared shape (Transpose of [2, 3] declared [2, 3])."""
    model = _model(
        [
            helper.make_node("Cast", ["x"], ["c"], to=TensorProto.INT64, name="cast"),
            helper.make_node("Transpose", ["x"], ["t"], name="transpose"),
        ],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 3]),
        ],
    )
    path = tmp_path / "flagged.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def test_check_model_reports_types_then_shapes_from_the_one_walk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _flagged(tmp_path)
    code = main(["check-model", str(path)])
    out = capsys.readouterr().out
    assert code == 1
    lines = [line for line in out.splitlines() if "error[MODEL-" in line]
    assert [line.split("error[")[1].split("]")[0] for line in lines] == [
        "MODEL-TYPE-INFERRED-MISMATCH",
        "MODEL-SHAPE-MISMATCH",
    ], out
    assert f"{path}:g/cast/0: " in lines[0] and f"{path}:g/transpose/1: " in lines[1], out
    assert "is declared tensor(float), but ai.onnx.Cast:13 makes it tensor(int64)" in out
    assert "inferred as [3, 2] but declared [2, 3]" in out


def test_infer_shapes_command_walks_the_model_once(
    tmp_path: Path,
    onnx_registry: Registry,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`opset infer-shapes` writes what one walk found (it walked the model twice) and reports
    its findings; nothing is written beside the output."""
    walks = []
    walk = shape_write.infer_model_shapes

    def counted(*args: Any, **kwargs: Any) -> Any:
        walks.append(1)
        return walk(*args, **kwargs)

    monkeypatch.setattr(shape_write, "infer_model_shapes", counted)
    source = _flagged(tmp_path)
    out = tmp_path / "out" / "inferred.onnx"
    out.parent.mkdir()
    code = main(["infer-shapes", str(source), "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 1 and "MODEL-SHAPE-MISMATCH" in printed
    assert len(walks) == 1
    assert sorted(p.name for p in out.parent.iterdir()) == ["inferred.onnx"]
    model = onnx.load(str(source))
    assert onnx.load(str(out)) == shape_write.infer_shapes(model, onnx_registry)


def test_graphs_of_other_operators_are_typed_not_shaped(
    onnx_registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A graph attribute of an operator other than If, Loop and Scan (a vendor operator's here):
    its types are checked (a wrong declaration inside is reported), its shapes depend on how the
    operator runs it, so none is written or judged there."""
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["b"], ["bc"], to=TensorProto.INT64, name="inner_cast"),
            helper.make_node("Transpose", ["b"], ["bt"], name="inner_transpose"),
        ],
        "body",
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("bc", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("bt", TensorProto.FLOAT, [2, 3]),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Apply", ["x"], ["y"], domain="com.example", body=body, name="apply")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1)]
    )
    result = check_model(model, onnx_registry)
    found = [(f.rule, f.path) for f in result.findings if f.rule.startswith(("MODEL-TYPE", "MODEL-SHAPE"))]
    assert found == [("MODEL-TYPE-INFERRED-MISMATCH", "g/apply/0/body/inner_cast/0")]
    out = shape_write.infer_shapes(model, onnx_registry)
    assert list(out.graph.node[0].attribute[0].g.value_info) == []


def test_a_node_met_first_in_a_typed_only_graph_is_still_shaped_later(onnx_registry: Registry) -> None:
    """A node with no inputs (RandomNormal) has the same input types and shapes wherever it is:
    whether its shape rules run (not in a graph attribute of an operator other than If, Loop and
    Scan) is part of what its result depends on, so the rule-less result of the first one, in a
    vendor operator's graph, is not handed to the same node in the main graph (it was, once)."""
    random = {"shape": [2, 3], "dtype": TensorProto.FLOAT}
    body = helper.make_graph(
        [helper.make_node("RandomNormal", [], ["inner"], **random)],
        "body",
        [],
        [helper.make_tensor_value_info("inner", TensorProto.FLOAT, None)],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Apply", ["x"], ["y"], domain="com.example", body=body, name="apply"),
            helper.make_node("RandomNormal", [], ["outer"], **random),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("outer", TensorProto.FLOAT, None),
        ],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1)]
    )
    walked = shape_infer.infer_model_shapes(model, onnx_registry)
    assert walked.shapes.get("outer") == (2, 3)
    assert walked.shapes.get("inner") is None
