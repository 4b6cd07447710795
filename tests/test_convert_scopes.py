"""`opset convert` reads a value where the node reads it: a graph's own bindings (inputs, node
outputs) hide an outer constant, type or shape of the same name; an initializer that is also a
graph input is only a default; external data and reference attributes are never read; what the
converted model computes is judged by onnxruntime on the same inputs as the source. Each model
is built here; the CLI runs in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from toolkit.cli import main  # noqa: E402

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
X = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)


def info(name: str, shape: list[int] | None, elem: int = FLOAT) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name: str, values: Any) -> Any:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def model(
    nodes: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    opset: int,
    inits: list[Any] = (),  # type: ignore[assignment]
    **extra: Any,
) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    imports = [helper.make_opsetid("", opset), *extra.pop("imports", [])]
    made = helper.make_model(graph, opset_imports=imports, **extra)
    made.ir_version = 8
    return made


def run(proto: Any, feeds: dict[str, Any]) -> list[Any]:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)  # type: ignore[no-any-return]


def convert(tmp_path: Path, proto: Any, target: str, capsys: Any, *extra: str) -> tuple[int, str, Path]:
    source, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(proto, source)
    code = main(["convert", str(source), "--to", target, "--out", str(out), *extra])
    return code, "".join(capsys.readouterr()), out


def assert_refused(
    code: int, text: str, out: Path, path: str, why: str, rule: str = "CONVERT-REFUSED"
) -> None:
    """Exit 1, the finding located at `path` with its rule, its reason and a hint; nothing written."""
    assert code == 1, text
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if f":{path}: error[{rule}]: " in line)
    assert why in lines[at], text
    assert lines[at + 1].startswith("  hint: ") and len(lines[at + 1]) > 10, text
    assert "Traceback" not in text and "internal error" not in text
    assert not out.exists()


def loop_model(body_input: str) -> Any:
    """Loop once over a body reducing x along `body_input` (the Loop's carried value, fed from
    the graph input `axes_in`); an outer initializer is named `ax` too."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", [body_input], ["ax_out"]),
            helper.make_node("ReduceSum", ["x", body_input], ["r"], keepdims=0),
        ],
        "body",
        [info("i", [], INT64), info("cond_in", [], BOOL), info(body_input, [1], INT64)],
        [info("cond_out", [], BOOL), info("ax_out", [1], INT64), info("r", None)],
    )
    nodes = [
        helper.make_node("Loop", ["n", "", "axes_in"], ["ax_final", "y"], body=body),
        helper.make_node("Identity", ["ax"], ["ax_copy"]),
    ]
    return model(
        nodes,
        [info("x", [2, 3, 4]), info("axes_in", [1], INT64)],
        [info("y", None), info("ax_copy", None, INT64)],
        13,
        [ints("n", 1), ints("ax", [2])],
    )


def test_a_body_input_hides_the_outer_constant_of_its_name(tmp_path: Path, capsys: Any) -> None:
    # The body's `ax` is the Loop's carried input (fed [0] here), not the outer initializer [2]:
    # turning it into ReduceSum 11's `axes` attribute needs a constant, and it is none.
    code, text, out = convert(tmp_path, loop_model("ax"), "ai.onnx=12", capsys)
    assert_refused(code, text, out, "g/Loop/0/body/ReduceSum/2", "('ax') must be a constant")
    # Under another name the body input hides nothing, and is no more a constant.
    code, text, out = convert(tmp_path, loop_model("carried"), "ai.onnx=12", capsys)
    assert_refused(code, text, out, "g/Loop/0/body/ReduceSum/2", "('carried') must be a constant")


def test_a_body_reading_an_outer_constant_converts_and_loop_keeps_its_inputs(
    tmp_path: Path, capsys: Any
) -> None:
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("ReduceSum", ["x", "ax"], ["r"], keepdims=0),
        ],
        "body",
        [info("i", [], INT64), info("cond_in", [], BOOL)],
        [info("cond_out", [], BOOL), info("r", None)],
    )
    source = model(
        [helper.make_node("Loop", ["n", ""], ["y"], body=body)],
        [info("x", [2, 3, 4])],
        [info("y", None)],
        13,
        [ints("n", 1), ints("ax", [2])],
    )
    # (Loop's omitted `cond` stays an empty input: Loop 11 requires two inputs.)
    code, text, out = convert(tmp_path, source, "ai.onnx=12", capsys)
    assert code == 0, text
    (want,), (got,) = run(source, {"x": X}), run(onnx.load(out), {"x": X})
    assert want.shape == got.shape == (1, 2, 3) and np.allclose(want, got)


def test_an_initializer_that_is_an_input_is_only_a_default(tmp_path: Path, capsys: Any) -> None:
    # Clip 11 -> 10 would bake `lo` into the `min` attribute: the caller may feed another `lo`.
    lo = numpy_helper.from_array(np.array(0.0, np.float32), "lo")
    source = model(
        [helper.make_node("Clip", ["x", "lo"], ["y"]), helper.make_node("Identity", ["lo"], ["lo_out"])],
        [info("x", [2, 3, 4]), info("lo", [])],
        [info("y", [2, 3, 4]), info("lo_out", [])],
        11,
        [lo],
    )
    fed = {"x": X, "lo": np.array(0.5, np.float32)}
    assert run(source, fed)[0].min() == pytest.approx(0.5)  # what a converted model must keep
    code, text, out = convert(tmp_path, source, "ai.onnx=10", capsys)
    assert_refused(code, text, out, "g/Clip/0", "('lo') must be a constant")
    # Alone, the input stays an input too (it was dropped as an unused constant before).
    source.graph.node.pop()
    source.graph.output.pop()
    code, text, out = convert(tmp_path, source, "ai.onnx=10", capsys)
    assert_refused(code, text, out, "g/Clip/0", "('lo') must be a constant")


def branch(name: str, size: int) -> Any:
    """A branch splitting its own `t` (x's first `size` elements) in two with num_outputs."""
    return helper.make_graph(
        [
            helper.make_node("Constant", [], ["t"], value_floats=[float(v) for v in range(size)]),
            helper.make_node("Split", ["t"], ["a", "b"], axis=0, num_outputs=2),
            helper.make_node("ReduceSum", ["a"], ["s"], keepdims=0),
        ],
        name,
        [],
        [info("s", [])],
    )


def test_sibling_branches_keep_their_own_shapes(tmp_path: Path, capsys: Any) -> None:
    # Both branches name their value `t`: 4 elements in one (splits evenly), 3 in the other
    # (Split 18 splits [2, 1]; Split 13 only equally): only the odd one is refused.
    source = model(
        [
            helper.make_node("Identity", ["c"], ["c2"]),  # a node that moves before the If
            helper.make_node(
                "If", ["c2"], ["y"], then_branch=branch("even", 4), else_branch=branch("odd", 3)
            ),
        ],
        [info("c", [], BOOL)],
        [info("y", [])],
        18,
    )
    code, text, out = convert(tmp_path, source, "ai.onnx=13", capsys)
    assert_refused(code, text, out, "g/If/1/else_branch/Split/1", "splits a dimension of 3 unevenly")
    assert "then_branch" not in text
    odd = next(a for a in source.graph.node[1].attribute if a.name == "else_branch")
    odd.g.CopyFrom(branch("odd", 6))  # now even on both sides
    code, text, out = convert(tmp_path, source, "ai.onnx=13", capsys)
    assert code == 0, text
    for c in (True, False):
        feeds = {"c": np.array(c)}
        assert np.allclose(run(source, feeds)[0], run(onnx.load(out), feeds)[0])


def external_model(location: str) -> Any:
    tensor = TensorProto(name="axes", data_type=INT64, dims=[1], data_location=TensorProto.EXTERNAL)
    for key, value in (("location", location), ("offset", "0"), ("length", "8")):
        tensor.external_data.add(key=key, value=value)
    return model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        [info("x", [2, 3, 4])],
        [info("y", None)],
        13,
        [tensor],
    )


@pytest.mark.parametrize("where", ["cwd", "parent", "absolute", "missing"])
def test_external_data_is_never_read(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    secret = tmp_path / "secret.bin"
    secret.write_bytes(np.array([1], np.int64).tobytes() + b"SECRET-MARKER")
    inner = tmp_path / "inner"
    inner.mkdir()
    monkeypatch.chdir(tmp_path)
    location = {
        "cwd": "secret.bin",
        "parent": "../secret.bin",
        "absolute": str(secret),
        "missing": "nope.bin",
    }
    code, text, out = convert(inner, external_model(location[where]), "ai.onnx=12", capsys)
    assert_refused(code, text, out, "g/ReduceSum/0", "keeps its data in an external file")
    assert "save_as_external_data=False" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inner", "secret.bin"]
    # Up to 14 no step needs the value (Relu moves, ReduceSum stays 13): it stays external, unread.
    source = external_model(location[where])
    source.graph.node.insert(0, helper.make_node("Relu", ["x"], ["r"]))
    source.graph.node[1].input[0] = "r"
    code, text, out = convert(inner, source, "ai.onnx=14", capsys)
    assert code == 0 and "ai.onnx 13 -> 14: 1 node(s) moved" in text, text
    (kept,) = onnx.load(out, load_external_data=False).graph.initializer
    assert kept.data_location == TensorProto.EXTERNAL and not kept.raw_data
    assert b"SECRET-MARKER" not in out.read_bytes()


def reference_function(node: Any, attribute: str) -> Any:
    return helper.make_function(
        "local", "F", ["X"], ["Y"], [node], [helper.make_opsetid("", 12)], attributes=[attribute]
    )


def test_reference_attributes_are_refused_not_crashed(tmp_path: Path, capsys: Any) -> None:
    reduce = helper.make_node("ReduceSum", ["X"], ["Y"], keepdims=0)
    reduce.attribute.append(
        onnx.AttributeProto(name="axes", ref_attr_name="axes", type=onnx.AttributeProto.INTS)
    )
    source = model(
        [helper.make_node("F", ["x"], ["y"], domain="local", axes=[1])],
        [info("x", [2, 3, 4])],
        [info("y", None)],
        12,
        functions=[reference_function(reduce, "axes")],
        imports=[helper.make_opsetid("local", 1)],
    )
    code, text, out = convert(tmp_path, source, "ai.onnx=13", capsys)
    assert_refused(
        code, text, out, "function:local.F/ReduceSum/0", "refers to the function's attribute 'axes'"
    )
    # A Constant taking its value by reference is no constant an adapter can read.
    constant = helper.make_node("Constant", [], ["A"])
    constant.attribute.append(
        onnx.AttributeProto(name="value_ints", ref_attr_name="axes", type=onnx.AttributeProto.INTS)
    )
    body = [constant, helper.make_node("ReduceSum", ["X", "A"], ["Y"], keepdims=0)]
    function = helper.make_function(
        "local", "F", ["X"], ["Y"], body, [helper.make_opsetid("", 13)], attributes=["axes"]
    )
    source.functions[0].CopyFrom(function)
    source.opset_import[0].version = 13
    code, text, out = convert(tmp_path, source, "ai.onnx=12", capsys)
    assert_refused(
        code, text, out, "function:local.F/ReduceSum/1", "takes its value from the function's attribute"
    )


def test_strings_that_are_not_utf8_are_refused_not_crashed(tmp_path: Path, capsys: Any) -> None:
    encoder = helper.make_node(
        "LabelEncoder", ["s"], ["y"], domain="ai.onnx.ml", keys_strings=[b"a\xff", b"b"], values_int64s=[1, 2]
    )
    source = model(
        [encoder],
        [info("s", [3], TensorProto.STRING)],
        [info("y", None, INT64)],
        13,
        imports=[helper.make_opsetid("ai.onnx.ml", 2)],
    )
    code, text, out = convert(tmp_path, source, "ai.onnx.ml=4", capsys)
    assert_refused(code, text, out, "g/LabelEncoder/0", "'keys_strings' holds a string that is not UTF-8")


@pytest.mark.parametrize(("opset", "target", "reader"), [(10, 9, "Where"), (9, 10, "Mul")])
def test_a_dropout_mask_keeps_the_type_its_readers_read(
    tmp_path: Path, capsys: Any, opset: int, target: int, reader: str
) -> None:
    # Dropout 10's mask is bool, Dropout 7's has the data's type.
    x = X[0]
    inputs = ["m", "d", "x"] if reader == "Where" else ["m", "d"]
    source = model(
        [helper.make_node("Dropout", ["x"], ["d", "m"]), helper.make_node(reader, inputs, ["y"])],
        [info("x", [3, 4])],
        [info("y", [3, 4])],
        opset,
    )
    code, text, out = convert(tmp_path, source, f"ai.onnx={target}", capsys)
    assert code == 0, text
    assert np.allclose(run(source, {"x": x})[0], run(onnx.load(out), {"x": x})[0])


def resize_model(mode: str) -> Any:
    scales = numpy_helper.from_array(np.array([1, 1, 2, 1.5], np.float32), "sc")
    roi = numpy_helper.from_array(np.array([], np.float32), "roi")
    node = helper.make_node(
        "Resize", ["x", "roi", "sc"], ["y"], mode="nearest", coordinate_transformation_mode=mode
    )
    return model([node], [info("x", [1, 2, 3, 4])], [info("y", None)], 11, [roi, scales])


def test_resize_13_refuses_the_mode_it_removed(tmp_path: Path, capsys: Any) -> None:
    code, text, out = convert(tmp_path, resize_model("tf_half_pixel_for_nn"), "ai.onnx=13", capsys)
    assert_refused(
        code, text, out, "g/Resize/0", "'coordinate_transformation_mode' is 'tf_half_pixel_for_nn'"
    )
    source = resize_model("asymmetric")
    code, text, out = convert(tmp_path, source, "ai.onnx=13", capsys)
    assert code == 0, text
    x = np.random.RandomState(1).randn(1, 2, 3, 4).astype(np.float32)
    assert np.array_equal(run(source, {"x": x})[0], run(onnx.load(out), {"x": x})[0])


def tree_classifier() -> Any:
    node = helper.make_node(
        "TreeEnsembleClassifier",
        ["X"],
        ["label", "scores"],
        domain="ai.onnx.ml",
        classlabels_int64s=[0, 1],
        nodes_treeids=[0, 0, 0],
        nodes_nodeids=[0, 1, 2],
        nodes_featureids=[0, 0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
        nodes_values=[0.0, 0.0, 0.0],
        nodes_truenodeids=[1, 0, 0],
        nodes_falsenodeids=[2, 0, 0],
        class_treeids=[0, 0],
        class_nodeids=[1, 2],
        class_ids=[0, 1],
        class_weights=[1.0, 1.0],
    )
    return model(
        [node],
        [info("X", [None, 2])],  # type: ignore[list-item]
        [info("label", [None], INT64), info("scores", [None, 2])],  # type: ignore[list-item]
        13,
        imports=[helper.make_opsetid("ai.onnx.ml", 3)],
    )


def test_no_node_lands_on_a_deprecated_version(tmp_path: Path, capsys: Any) -> None:
    code, text, out = convert(tmp_path, tree_classifier(), "ai.onnx.ml=5", capsys, "--format", "json")
    assert code == 1 and not out.exists()
    report, _end = json.JSONDecoder().raw_decode(text)  # the text report follows on stderr
    (finding,) = report["findings"]
    assert finding["rule"] == "CONVERT-REFUSED" and finding["path"] == "g/TreeEnsembleClassifier/0"
    assert "TreeEnsembleClassifier:5 is deprecated" in finding["message"]
    assert "keep ai.onnx.ml below opset 5" in finding["hint"]
    code, text, out = convert(tmp_path, tree_classifier(), "ai.onnx.ml=4", capsys)
    assert code == 0, text
    x = np.array([[-1.0, 0.0], [1.0, 0.0]], np.float32)
    assert [a.tolist() for a in run(tree_classifier(), {"X": x})] == [
        a.tolist() for a in run(onnx.load(out), {"X": x})
    ]


def test_the_converted_model_is_checked_for_errors_the_source_did_not_have(onnx_registry: Any) -> None:
    from toolkit.onnx_bridge.convert_rules import output_blockers

    def where_reading(mask_type: int) -> Any:
        return model(
            [helper.make_node("Where", ["m", "x", "x"], ["y"])],
            [info("m", [3], mask_type), info("x", [3])],
            [info("y", [3])],
            9,
        )

    good, bad = where_reading(BOOL), where_reading(FLOAT)
    (blocker,) = output_blockers(good, bad, onnx_registry, frozenset(), "ai.onnx -> 9")
    assert blocker.finding.rule == "CONVERT-INVALID-NODE" and blocker.finding.path == "g/Where/0"
    assert "[MODEL-TYPE-NOT-ALLOWED]" in blocker.finding.message and blocker.finding.hint
    assert output_blockers(bad, bad, onnx_registry, frozenset(), "ai.onnx -> 9") == []  # not new
    assert output_blockers(good, good, onnx_registry, frozenset(), "ai.onnx -> 9") == []
