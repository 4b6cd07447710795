"""Shape inference (#27), fourth step, besides its property tests (tests/test_shape_props.py): the
walk reuses a node's result for another node that depends on the same things (and never one that
minted a fresh symbol); `opset infer-shapes` reports as check-model does; the generated Python
package's register_onnx goes through the toolkit."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402


def _model(nodes: list[Any], inputs: list[Any], initializers: Sequence[Any] = ()) -> Any:
    outputs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes]
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _shapes(model: Any, registry: Any) -> dict[str, Any]:
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    return infer_model_shapes(model, registry).shapes


def test_memo_reuses_equal_nodes_and_keeps_apart_what_the_rules_read(
    onnx_registry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolkit.onnx_bridge.shape_infer as walk

    calls: list[str] = []
    real = walk.infer

    def counted(schema: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(schema.name)
        return real(schema, *args, **kwargs)

    monkeypatch.setattr(walk, "infer", counted)
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])
    shape_a = helper.make_tensor("sa", TensorProto.INT64, [2], [6, 4])
    shape_b = helper.make_tensor("sb", TensorProto.INT64, [2], [4, 6])
    nodes = [helper.make_node("Relu", ["X"], [f"r{i}"]) for i in range(50)]
    nodes += [
        helper.make_node("Transpose", ["X"], ["t1"], perm=[2, 1, 0]),
        helper.make_node("Transpose", ["X"], ["t2"], perm=[1, 0, 2]),  # same input, another perm
        helper.make_node("Transpose", ["X"], ["t3"], perm=[2, 1, 0], name="unread"),
        helper.make_node("Reshape", ["X", "sa"], ["s1"]),
        helper.make_node("Reshape", ["X", "sb"], ["s2"]),  # same input shape, another constant
        helper.make_node("NonZero", ["X"], ["n1"]),
        helper.make_node("NonZero", ["X"], ["n2"]),
    ]
    shapes = _shapes(_model(nodes, [x], [shape_a, shape_b]), onnx_registry)
    assert all(shapes[f"r{i}"] == (2, 3, 4) for i in range(50))
    assert shapes["t1"] == shapes["t3"] == (4, 3, 2) and shapes["t2"] == (3, 2, 4)
    assert shapes["s1"] == (6, 4) and shapes["s2"] == (4, 6)
    # a data-dependent size is a fresh symbol on each node, never one node's symbol reused
    assert shapes["n1"][0] == 3 and shapes["n2"][0] == 3 and shapes["n1"][1] != shapes["n2"][1]
    assert calls.count("Relu") == 1 and calls.count("Transpose") == 2 and calls.count("Reshape") == 2
    assert calls.count("NonZero") == 2


# -- opset infer-shapes reports as check-model does ----------------------------------------------


def test_infer_shapes_reports_check_models_findings_in_its_formats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken constraint and a contradicted declaration: infer-shapes reports both with the
    rule ids, node paths, messages and hints of check-model, in text, json and sarif (it printed
    the constraint alone, without a rule id, and exited 0 on the contradiction)."""
    import json

    from toolkit.cli import main

    x = helper.make_tensor_value_info
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["a", "b"], ["m"], name="mm"),
            helper.make_node("Transpose", ["x"], ["y"]),
        ],
        "g",
        [
            x("a", TensorProto.FLOAT, [2, 3]),
            x("b", TensorProto.FLOAT, [4, 5]),
            x("x", TensorProto.FLOAT, [2, 3]),
        ],
        [x("m", TensorProto.FLOAT, [2, 5]), x("y", TensorProto.FLOAT, [2, 3])],
    )
    model = tmp_path / "bad.onnx"
    model.write_bytes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    )

    def run(command: str, *argv: str) -> tuple[int, str]:
        extra = ["-o", str(tmp_path / "out.onnx")] if command == "infer-shapes" else []
        code = main([command, str(model), *extra, *argv])
        return code, capsys.readouterr().out

    code, text = run("infer-shapes")
    assert code == 1
    assert (
        f"{model}:g/mm/0: error[MODEL-SHAPE-CONSTRAINT]: inner dimensions differ: 3 and 4\n  hint: " in text
    )
    assert (
        f"{model}:g/Transpose/1: error[MODEL-SHAPE-MISMATCH]: output 'y' of ai.onnx.Transpose:13 is "
        "inferred as [3, 2] but declared [2, 3]\n  hint: "
    ) in text
    ours = json.loads(run("infer-shapes", "--format", "json")[1])["models"][0]["findings"]
    checked = json.loads(run("check-model", "--format", "json")[1])["models"][0]["findings"]
    assert ours == [f for f in checked if f["rule"].startswith("MODEL-SHAPE")] and len(ours) == 2
    code, sarif = run("infer-shapes", "--format", "sarif")
    results = json.loads(sarif)["runs"][0]["results"]
    assert code == 1 and [r["ruleId"] for r in results] == ["MODEL-SHAPE-CONSTRAINT", "MODEL-SHAPE-MISMATCH"]
    assert (tmp_path / "out.onnx").is_file()  # the model is written all the same


# -- the generated Python package's register_onnx --------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "generated" / "python"


def test_generated_package_register_onnx_goes_through_the_toolkit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped generated package's register_onnx(specs) registers its domains into onnx with
    shape inference (the toolkit's, on the tree it was generated from); a tree that lacks its
    versions is refused before anything is registered."""
    import importlib
    import sys

    from toolkit.onnx_bridge.register import deregister_onnx

    monkeypatch.syspath_prepend(str(GENERATED))
    package = importlib.import_module("opset_toolkit_generated")
    try:
        with pytest.raises(ValueError, match=r"do not define \d+ operator version\(s\) of this package"):
            package.register_onnx(tmp_path)  # a tree without this package's domains
        added = package.register_onnx(REPO / "opsets")
        assert {d for _n, _s, d in added} == set(package.DOMAINS) and (
            "FusedConv",
            2,
            "com.acme.vision",
        ) in added
        x = helper.make_tensor_value_info
        node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain="com.acme.vision", pads=[1, 1, 1, 1])
        graph = helper.make_graph(
            [node],
            "g",
            [x("x", TensorProto.FLOAT, ["N", 3, 32, 32]), x("w", TensorProto.FLOAT, [8, 3, 3, 3])],
            [x("y", TensorProto.FLOAT, None)],
        )
        opsets = [helper.make_opsetid("", 18), helper.make_opsetid("com.acme.vision", 2)]
        inferred = onnx.shape_inference.infer_shapes(
            helper.make_model(graph, opset_imports=opsets), strict_mode=True
        )
        dims = [d.dim_param or d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim]
        assert dims == ["N", 8, 32, 32]
    finally:
        deregister_onnx()
        # forget the package: other tests import generated trees of the same name
        for name in [m for m in sys.modules if m.split(".")[0] == "opset_toolkit_generated"]:
            del sys.modules[name]


def test_generated_package_without_the_toolkit_says_what_to_install(tmp_path: Path) -> None:
    """Without opset-toolkit importable the package still imports (it never imports the toolkit
    at import time), and register_onnx raises an ImportError naming opset-toolkit and its extra."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['toolkit'] = None\n"  # the toolkit cannot be imported
        "import opset_toolkit_generated as p\n"
        "assert 'toolkit' not in [m.split('.')[0] for m in sys.modules if sys.modules[m] is not None]\n"
        "try:\n    p.register_onnx('specs')\nexcept ImportError as exc:\n    print(exc.name, '|', exc)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(GENERATED), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("toolkit | register_onnx needs opset-toolkit")
    assert "opset-toolkit[onnx]" in done.stdout
