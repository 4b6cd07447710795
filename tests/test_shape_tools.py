"""Shapes where users meet them (#27): check-model's MODEL-SHAPE-* findings in every output format
and none on real producers' models; `toolkit.register_onnx` judged by the real onnx (its checker
and its shape inference); the gate's SHAPE-RULE-CHANGED and the changelog; the shipped vendor
domain's rules; and hypothesis-built shapes compared with onnx's own inference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def _value(name: str, shape: Any, elem: int = TensorProto.FLOAT) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(
    nodes: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    value_info: tuple[Any, ...] = (),
    imports: tuple[tuple[str, int], ...] = (("", 18),),
    initializers: tuple[Any, ...] = (),
) -> Any:
    graph = helper.make_graph(
        nodes, "g", inputs, outputs, initializer=list(initializers), value_info=list(value_info)
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports])


# -- check-model: MODEL-SHAPE-* ------------------------------------------------------------------


@pytest.fixture(scope="module")
def shape_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("shape-models")
    models = {
        # inner dimensions 3 and 4
        "matmul": _model(
            [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")],
            [_value("a", [2, 3]), _value("b", [4, 5])],
            [_value("y", [2, 5])],
        ),
        # the graph output is declared as the input's shape, Transpose gives [3, 2]
        "output": _model(
            [helper.make_node("Transpose", ["x"], ["y"])],
            [_value("x", [2, 3])],
            [_value("y", [2, 3])],
        ),
        # a value_info of another rank; the graph output after it agrees with the declaration
        "value_info": _model(
            [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Abs", ["t"], ["y"])],
            [_value("x", [2, 3])],
            [_value("y", [2, 3, 1])],
            value_info=(_value("t", [2, 3, 1]),),
        ),
        # symbols and unknown sizes agree with anything: no finding
        "clean": _model(
            [
                helper.make_node("MatMul", ["a", "b"], ["t"]),
                helper.make_node("Add", ["t", "c"], ["y"]),
            ],
            [_value("a", ["N", 3]), _value("b", [3, None]), _value("c", [1, "M"])],
            [_value("y", ["N", "K"])],
        ),
    }
    paths = {}
    for name, model in models.items():
        paths[name] = folder / f"{name}.onnx"
        paths[name].write_bytes(model.SerializeToString())
    return paths


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["check-model", *argv])
    return code, capsys.readouterr().out


def test_check_model_reports_a_broken_constraint_and_contradicted_declarations(
    shape_models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _check(capsys, str(shape_models["matmul"]))
    assert code == 1
    assert (
        f"{shape_models['matmul']}:g/mm/0: error[MODEL-SHAPE-CONSTRAINT]: inner dimensions differ: 3 and 4"
        in out
    )
    code, out = _check(capsys, str(shape_models["output"]))
    assert code == 1
    assert (
        f"{shape_models['output']}:g/Transpose/0: error[MODEL-SHAPE-MISMATCH]: output 'y' of "
        "ai.onnx.Transpose:13 is inferred as [3, 2] but declared [2, 3]"
    ) in out
    code, out = _check(capsys, str(shape_models["value_info"]))
    assert code == 1
    # one wrong declaration, one finding: Abs after it sees the declared [2, 3, 1]
    assert out.count("MODEL-SHAPE-MISMATCH") == 1
    assert "g/Relu/0: error[MODEL-SHAPE-MISMATCH]: output 't' of ai.onnx.Relu:14 is inferred as [2, 3]" in out
    code, out = _check(capsys, str(shape_models["clean"]))
    assert code == 0 and "MODEL-SHAPE" not in out


def test_shape_findings_in_every_format(
    shape_models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = str(shape_models["matmul"])
    code, out = _check(capsys, bad, "--format", "json")
    finding = json.loads(out)["models"][0]["findings"][0]
    assert code == 1
    assert (finding["rule"], finding["path"], finding["operator"]) == (
        "MODEL-SHAPE-CONSTRAINT",
        "g/mm/0",
        "ai.onnx.MatMul:13",
    )
    code, out = _check(capsys, bad, "--format", "github")
    assert code == 1 and "title=MODEL-SHAPE-CONSTRAINT::g/mm/0" in out
    code, out = _check(capsys, bad, "--format", "sarif")
    result = json.loads(out)["runs"][0]["results"][0]
    assert result["ruleId"] == "MODEL-SHAPE-CONSTRAINT"
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "g/mm/0"
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert any(
        r["id"] == "MODEL-SHAPE-CONSTRAINT" and r["helpUri"].endswith("#model-shape-constraint")
        for r in rules
    )
    code, out = _check(capsys, str(shape_models["output"]), "--format", "junit")
    assert code == 1 and "MODEL-SHAPE-MISMATCH" in out and "<failure" in out


def test_no_shape_finding_on_real_producers_models(producer_corpus: list[Any]) -> None:
    """Every model the producers of tests/producer_corpus.py wrote (skl2onnx, onnxconverter-common's
    float16 conversion, onnxruntime's quantizer and optimizers, ...), the ones onnxruntime refuses
    included: check-model infers their shapes and finds nothing to report about them."""
    from toolkit.onnx_bridge.catalog import onnx_registry
    from toolkit.onnx_bridge.check import check_model
    from toolkit.onnx_bridge.shape_infer import infer_model_shapes

    registry = onnx_registry(adapters=False)
    found, inferred = [], 0
    for produced in producer_corpus:
        model = onnx.load(str(produced.path))
        inferred += sum(1 for s in infer_model_shapes(model, registry).shapes.values() if s is not None)
        result = check_model(model, registry, name=produced.name)
        found += [
            (produced.name, f.path, f.message) for f in result.findings if f.rule.startswith("MODEL-SHAPE")
        ]
    assert found == []
    assert len(producer_corpus) >= 80 and inferred > 1000  # the shapes were really inferred


def test_hostile_constants_and_attributes_are_unknown_never_read_or_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Reshape shape stored as external data naming a file next to the working directory, a
    tensor whose bytes do not fit its dims, a negative dim and a reference attribute in the main
    graph: check-model reports what is wrong with the model and never reads the file or crashes."""
    planted = tmp_path / "planted.bin"
    planted.write_bytes((2).to_bytes(8, "little") + (3).to_bytes(8, "little"))
    external = helper.make_tensor("shape", TensorProto.INT64, [2], [0, 0])
    external.ClearField("int64_data")
    external.data_location = TensorProto.EXTERNAL
    external.external_data.add(key="location", value="planted.bin")
    broken = helper.make_tensor("shape2", TensorProto.INT64, [2], [0, 0])
    broken.ClearField("int64_data")
    broken.raw_data = b"\x01\x02\x03"
    negative = TensorProto(name="neg", data_type=TensorProto.INT64, dims=[-4])
    squeeze = helper.make_node("Flatten", ["x"], ["f"])
    squeeze.attribute.add(name="axis", type=onnx.AttributeProto.INT, ref_attr_name="outer")
    model = _model(
        [
            helper.make_node("Reshape", ["x", "shape"], ["r"]),
            helper.make_node("Reshape", ["x", "shape2"], ["r2"]),
            helper.make_node("Reshape", ["x", "neg"], ["r3"]),
            squeeze,
        ],
        [_value("x", [6])],
        [_value("r", [3, 2]), _value("r2", [3, 2]), _value("r3", [3, 2]), _value("f", [1, 6])],
        initializers=(external, broken, negative),
    )
    path = tmp_path / "hostile.onnx"
    path.write_bytes(model.SerializeToString())
    monkeypatch.chdir(tmp_path)
    code, out = _check(capsys, str(path))
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in out + err
    # read as [2, 3] the planted file would contradict the declared [3, 2]: it was never read
    assert "MODEL-SHAPE" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.onnx", "planted.bin"]


# -- the gate: SHAPE-RULE-CHANGED, SHAPE-RULE-ADDED, and the changelog ---------------------------

VISION = REPO / "opsets" / "com.acme.vision"
FUSED = '[X[0], W[0]] ++ conv_out(X[2:], W[2:], @pads, @strides, [], \\"NOTSET\\")'


def _gate_trees(tmp_path: Path, edit: Any, file: str = "FusedConv.yaml") -> tuple[Path, Path]:
    import shutil

    roots = []
    for name in ("old", "new"):
        folder = tmp_path / name / "com.acme.vision"
        shutil.copytree(VISION, folder)
        shutil.copy(REPO / "opsets" / "releases.yaml", tmp_path / name / "releases.yaml")
        roots.append(folder.parent)
    target = roots[1] / "com.acme.vision" / file
    text = target.read_text(encoding="utf-8")
    new_text = edit(text)
    assert new_text != text
    target.write_text(new_text, encoding="utf-8")
    return roots[0], roots[1]


def _gate(
    tmp_path: Path, edit: Any, capsys: pytest.CaptureFixture[str], file: str = "FusedConv.yaml"
) -> tuple[int, list[dict[str, Any]]]:
    old, new = _gate_trees(tmp_path, edit, file)
    code = main(["diff", "--specs", str(new), "--against", str(old), "--no-cache", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    return code, [f for f in findings if f["rule"].startswith("SHAPE-RULE")]


def test_changing_a_released_rule_is_breaking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = _gate(tmp_path, lambda t: t.replace(FUSED, FUSED.replace("@strides", "[1, 1]")), capsys)
    assert code == 1
    assert {(f["rule"], f["severity"]) for f in found} == {("SHAPE-RULE-CHANGED", "error")}
    assert "shape rule of output 'Y' changed" in found[0]["message"] and "FusedConv:1" in found[0]["message"]
    assert [f["operator"] for f in found] == ["com.acme.vision.FusedConv:1", "com.acme.vision.FusedConv:2"]


def test_removing_a_released_constraint_is_breaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found = _gate(tmp_path, lambda t: t.replace("'X[1] == W[1] * @group'", "'X.rank == 4'"), capsys)
    assert code == 1
    assert {f["rule"] for f in found} == {"SHAPE-RULE-CHANGED"}
    assert "constraint `X[1] == W[1] * @group` removed; constraint `X.rank == 4` added" in found[0]["message"]


def test_layout_of_a_rule_is_no_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = _gate(
        tmp_path,
        lambda t: t.replace(FUSED, "(" + FUSED.replace("[X[0], W[0]]", "[ (X[0]),W[0] ]") + ")"),
        capsys,
    )
    assert (code, found) == (0, [])


def test_a_rule_where_there_was_none_is_allowed_info(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The released ColorConvert versions had no rule in the old tree: giving one is info, exit 0."""

    def drop_rule(text: str) -> str:
        return text.replace(", shape: image}  # every space has three channels", "}")

    import shutil

    for name in ("old", "new"):
        folder = tmp_path / name / "com.acme.vision"
        shutil.copytree(VISION, folder)
        shutil.copy(REPO / "opsets" / "releases.yaml", tmp_path / name / "releases.yaml")
    spec = tmp_path / "old" / "com.acme.vision" / "ColorConvert.yaml"
    spec.write_text(drop_rule(spec.read_text(encoding="utf-8")), encoding="utf-8")
    args = ["--specs", str(tmp_path / "new"), "--against", str(tmp_path / "old"), "--no-cache"]
    assert main(["diff", *args, "--format", "json"]) == 0
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"].startswith("SHAPE-RULE")]
    assert [(f["rule"], f["severity"], f["operator"]) for f in found] == [
        ("SHAPE-RULE-ADDED", "info", "com.acme.vision.ColorConvert:1"),
        ("SHAPE-RULE-ADDED", "info", "com.acme.vision.ColorConvert:2"),
    ]
    # the changelog, from the same engine: the addition is non-breaking, a change breaking
    assert main(["changelog", *args, "--format", "json"]) == 0
    log = capsys.readouterr().out
    assert (
        "SHAPE-RULE-ADDED" in log
        and "gained the shape rule `image`" in log
        and "SHAPE-RULE-CHANGED" not in log
    )
    old_rule = "{name: converted, type: T, shape: '[image[0]]'}"
    spec.write_text(spec.read_text(encoding="utf-8").replace("{name: converted, type: T}", old_rule))
    main(["changelog", *args, "--format", "json"])
    entries = [e for e in _entries(json.loads(capsys.readouterr().out)) if e["kind"] == "SHAPE-RULE-CHANGED"]
    assert entries and all(e["level"] == "breaking" for e in entries)


def _entries(data: Any) -> list[dict[str, Any]]:
    """Every changelog entry of the json, wherever it is nested."""
    if isinstance(data, dict):
        own = [data] if "kind" in data and "level" in data else []
        return own + [e for v in data.values() for e in _entries(v)]
    if isinstance(data, list):
        return [e for v in data for e in _entries(v)]
    return []


def test_vendor_examples_agree_with_the_vendor_rules(shipped_registry: Any) -> None:
    """Every operator version of the shipped vendor domain has a rule on every output, and each
    example's inputs, through the rules, give its outputs' shapes (symbols agree with any size)."""
    import itertools

    from toolkit.shapes.engine import bind_inputs, infer
    from toolkit.shapes.values import ABSENT, Sym

    counter = itertools.count()
    checked = 0
    for op in shipped_registry.operators("com.acme.vision"):
        for version in op.versions:
            assert all(p.shape is not None for p in version.outputs), version.id
            for example in version.examples:
                given = [t.shape if t is not None else ABSENT for t in example.inputs]
                values = {
                    p.name: tuple(int(x) for x in t.data)
                    for p, t in zip(version.inputs, example.inputs)
                    if t is not None and t.dtype.startswith("int")
                }
                attrs = {a.name: a.value for a in example.attributes}
                result = infer(
                    version,
                    bind_inputs(version, given),
                    attrs,
                    values,
                    lambda: Sym(f"s{next(counter)}"),
                    outputs=len(example.outputs),
                )
                assert result.findings == (), (version.id, example.name)
                assert len(result.outputs) == len(example.outputs), (version.id, example.name)
                for got, want in zip(result.outputs, example.outputs):
                    assert got is not None and len(got) == len(want.shape), (version.id, example.name)
                    assert all(not isinstance(g, int) or g == w for g, w in zip(got, want.shape)), (
                        version.id,
                        example.name,
                    )
                checked += 1
    assert checked >= 19


# -- toolkit.register_onnx, judged by the real onnx -------------------------------------------------


@pytest.fixture
def registered(shipped_registry: Any) -> Any:
    import toolkit
    from toolkit.onnx_bridge.register import deregister_onnx

    added = toolkit.register_onnx(shipped_registry)
    yield added
    deregister_onnx()


def _vendor_model(value_info: tuple[Any, ...] = ()) -> Any:
    fused = helper.make_node("FusedConv", ["x", "w"], ["y"], domain="com.acme.vision", pads=[1, 1, 1, 1])
    concat = helper.make_node("ConcatFeatures", ["y", "y"], ["z"], domain="com.acme.vision")
    return _model(
        [fused, concat],
        [_value("x", ["N", 3, 32, 32]), _value("w", [8, 3, 3, 3])],
        [_value("z", ["N", None, None, None])],
        value_info,
        imports=(("", 18), ("com.acme.vision", 2)),
    )


def test_register_onnx_lets_onnx_check_and_infer_vendor_nodes(registered: Any, shipped_registry: Any) -> None:
    import toolkit

    assert ("FusedConv", 2, "com.acme.vision") in registered
    assert {d for _n, _s, d in registered} == {"com.acme.vision", "org.example.abc"}
    assert toolkit.register_onnx(shipped_registry) == []  # again: nothing new, no error
    model = _vendor_model()
    onnx.checker.check_model(model, full_check=True, check_custom_domain=True)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    shapes = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in (*inferred.graph.value_info, *inferred.graph.output)
    }
    assert shapes["y"] == ["N", 8, 32, 32]  # pads 1 around a 3x3 kernel keep the size
    assert shapes["z"] == ["N", 16, 32, 32]
    elem = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
    assert elem["y"] == TensorProto.FLOAT
    # a node onnx's checker refuses for its signature (an undeclared attribute)
    bad = _vendor_model()
    bad.graph.node[0].attribute.append(helper.make_attribute("bogus", 1))
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(bad, check_custom_domain=True)


def test_register_onnx_reports_broken_constraints_as_inference_errors(registered: Any) -> None:
    from toolkit.onnx_bridge.register import deregister_onnx, register_onnx

    model = _vendor_model()
    model.graph.input[1].CopyFrom(_value("w", [8, 4, 3, 3]))  # 4 channels per filter, 3 given
    with pytest.raises(onnx.shape_inference.InferenceError, match="channels times group"):
        onnx.shape_inference.infer_shapes(model, strict_mode=True)
    assert deregister_onnx() == len(registered)
    from toolkit import load_registry

    register_onnx(load_registry([REPO / "opsets"], cache=False), fail_on_constraint=False)
    out = onnx.shape_inference.infer_shapes(model)
    # no exception; the output rule itself still gives y (the constraint is a separate finding)
    assert [len(v.type.tensor_type.shape.dim) for v in out.graph.value_info if v.name == "y"] == [4]


def test_register_onnx_refuses_a_schema_onnx_already_has(shipped_registry: Any) -> None:
    from toolkit.onnx_bridge.register import deregister_onnx, register_onnx

    schema = onnx.defs.OpSchema("Blur", "com.acme.vision", 1, "someone else's")
    onnx.defs.register_schema(schema)
    try:
        with pytest.raises(
            ValueError, match=r"cannot register com\.acme\.vision\.Blur:1: onnx already has it"
        ):
            register_onnx(shipped_registry, domains=["com.acme.vision"])
    finally:
        deregister_onnx()
        onnx.defs.deregister_schema("Blur", 1, "com.acme.vision")
    assert not onnx.defs.has("Blur", "com.acme.vision")


def test_register_onnx_gives_each_value_of_a_variadic_output_its_shape(registered: Any) -> None:
    node = helper.make_node("SplitChannels", ["x"], ["a", "b", "c"], domain="com.acme.vision")
    model = _model(
        [node],
        [_value("x", [2, 6, 5, 5])],
        [_value(n, [None, None, None, None]) for n in "abc"],
        imports=(("", 18), ("com.acme.vision", 1)),
    )
    out = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in out.graph.output}
    assert shapes == {"a": [2, 2, 5, 5], "b": [2, 2, 5, 5], "c": [2, 2, 5, 5]}
