"""check-model's type inference (`type_from` in the specs, bindings of type parameters) against
onnx's own: `onnx.shape_inference.infer_shapes(strict_mode=True)` over onnx's node test models,
the imported `type_from` facts version by version, a float16 conversion by onnxconverter-common
that onnxruntime refuses to load, and a vendor spec using `type_from`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, shape_inference  # noqa: E402

from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.check import check_model, type_string  # noqa: E402
from toolkit.onnx_bridge.shape_infer import infer_types  # noqa: E402
from toolkit.registry.core import Registry, load_registry  # noqa: E402


def onnx_types(model: Any) -> dict[str, str] | None:
    """onnx's inferred type of every value of the main graph; None when strict inference fails."""
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=True)
    except Exception:  # InferenceError
        return None
    out = {}
    for info in (*inferred.graph.value_info, *inferred.graph.output):
        found = type_string(info.type)
        if found is not None:
            out[info.name] = found
    return out


# Values where our element type differs from onnx's, with why: none today.
KNOWN_DISAGREEMENTS: dict[str, str] = {}


@pytest.mark.report
def test_inferred_types_agree_with_onnx_on_node_test_models(
    onnx_registry: Registry, node_models: list[tuple[str, Any]]
) -> None:
    counts: Counter[str] = Counter()
    disagreements: list[str] = []
    for name, model in node_models:
        theirs = onnx_types(model)
        if theirs is None:
            counts["models onnx cannot infer"] += 1
            continue
        counts["models"] += 1
        ours = infer_types(model, onnx_registry)
        for value, their_type in theirs.items():
            mine = ours.get(value)
            if mine is None:
                counts["values only onnx types"] += 1
            elif mine == their_type:
                counts["values agreeing"] += 1
            elif f"{name}:{value}" not in KNOWN_DISAGREEMENTS:
                disagreements.append(f"{name}: '{value}' ours {mine}, onnx {their_type}")
        counts["values only we type"] += sum(1 for value in ours if value not in theirs)
    print(
        "\ntype inference vs onnx.shape_inference(strict_mode=True):",
        dict(sorted(counts.items())),
        f"disagreements: {len(disagreements)}",
    )
    assert counts["values agreeing"] >= 2500, counts
    assert disagreements == [], disagreements[:30]


# -- every imported type_from, version by version, against onnx's inference -------------------

ELEM = {
    TensorProto.FLOAT: "float",
    TensorProto.DOUBLE: "double",
    TensorProto.INT32: "int32",
    TensorProto.INT64: "int64",
    TensorProto.FLOAT16: "float16",
    TensorProto.INT8: "int8",
    TensorProto.UINT8: "uint8",
    TensorProto.BOOL: "bool",
    TensorProto.STRING: "string",
}


def _probe(op: str, version: int, domain: str, inputs: list[tuple[str, int]], attrs: dict[str, Any]) -> Any:
    values = [helper.make_tensor_value_info(n, t, [2]) for n, t in inputs if n]
    node = helper.make_node(op, [n for n, _ in inputs], ["out"], domain=domain, **attrs)
    graph = helper.make_graph([node], "g", values, [helper.make_empty_tensor_value_info("out")])
    imports = [helper.make_opsetid(domain, version)] + ([helper.make_opsetid("", 21)] if domain else [])
    return helper.make_model(graph, opset_imports=imports)


PROBES: list[tuple[str, str, list[tuple[str, int]], dict[str, Any]]] = [
    ("", "Cast", [("x", TensorProto.FLOAT)], {"to": TensorProto.INT64}),
    ("", "Cast", [("x", TensorProto.INT64)], {"to": TensorProto.FLOAT16}),
    ("", "CastLike", [("x", TensorProto.FLOAT), ("t", TensorProto.DOUBLE)], {}),
    ("", "EyeLike", [("x", TensorProto.FLOAT)], {}),
    ("", "EyeLike", [("x", TensorProto.FLOAT)], {"dtype": TensorProto.INT32}),
    ("", "RandomNormalLike", [("x", TensorProto.DOUBLE)], {}),
    ("", "RandomUniformLike", [("x", TensorProto.FLOAT)], {"dtype": TensorProto.DOUBLE}),
    ("", "Bernoulli", [("x", TensorProto.DOUBLE)], {}),
    ("", "Bernoulli", [("x", TensorProto.FLOAT)], {"dtype": TensorProto.INT32}),
    ("", "RandomNormal", [], {"shape": [2]}),
    ("", "RandomUniform", [], {"shape": [2], "dtype": TensorProto.DOUBLE}),
    ("", "Multinomial", [("x", TensorProto.FLOAT)], {}),
    ("", "Multinomial", [("x", TensorProto.FLOAT)], {"dtype": TensorProto.INT64}),
    ("", "ConstantOfShape", [("s", TensorProto.INT64)], {}),
    (
        "",
        "ConstantOfShape",
        [("s", TensorProto.INT64)],
        {"value": helper.make_tensor("v", TensorProto.INT32, [1], [3])},
    ),
    ("", "Constant", [], {"value_ints": [1, 2]}),
    ("", "Constant", [], {"value_float": 1.0}),
    ("", "Constant", [], {"value_strings": ["a"]}),
    ("", "Constant", [], {"value": helper.make_tensor("v", TensorProto.DOUBLE, [1], [3.0])}),
    ("", "HannWindow", [("n", TensorProto.INT64)], {}),
    ("", "BlackmanWindow", [("n", TensorProto.INT64)], {"output_datatype": TensorProto.DOUBLE}),
    ("", "QuantizeLinear", [("x", TensorProto.FLOAT), ("s", TensorProto.FLOAT)], {}),
    ("", "QuantizeLinear", [("x", TensorProto.FLOAT), ("s", TensorProto.FLOAT), ("z", TensorProto.INT8)], {}),
    ("", "DequantizeLinear", [("x", TensorProto.INT8), ("s", TensorProto.FLOAT16)], {}),
    (
        "ai.onnx.ml",
        "LabelEncoder",
        [("x", TensorProto.STRING)],
        {"keys_strings": ["a"], "values_int64s": [1]},
    ),
    (
        "ai.onnx.ml",
        "LinearClassifier",
        [("x", TensorProto.FLOAT)],
        {"coefficients": [1.0, 2.0], "classlabels_strings": ["a", "b"]},
    ),
]


@pytest.mark.report
def test_imported_type_from_agrees_with_onnx_version_by_version(onnx_registry: Registry) -> None:
    """Each probe at every version of its operator whose schema onnx's inference handles."""
    compared = 0
    problems = []
    for domain, op, inputs, attrs in PROBES:
        for schema in onnx_registry.versions(op, domain):
            if not schema.outputs[0].type_from:
                continue  # e.g. Cast-1, whose `to` is a string
            model = _probe(op, schema.since_version, domain, inputs, attrs)
            theirs = onnx_types(model)
            if theirs is None or "out" not in theirs:
                continue  # the probe does not fit this version (an attribute it lacks, ...)
            compared += 1
            ours = infer_types(model, onnx_registry).get("out")
            if ours != theirs["out"]:
                problems.append(f"{schema.id} {attrs}: ours {ours}, onnx {theirs['out']}")
    print(f"\ntype_from probes compared with onnx: {compared}")
    assert compared >= 40
    assert problems == []


# -- the float16 conversion onnxruntime refuses -----------------------------------------------


def test_float16_conversion_with_a_stale_cast_is_rejected(onnx_registry: Registry) -> None:
    float16 = pytest.importorskip("onnxconverter_common.float16")
    ort = pytest.importorskip("onnxruntime")
    x = helper.make_tensor_value_info("x", TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph(
        [
            helper.make_node("Cast", ["x"], ["c"], to=TensorProto.FLOAT),
            helper.make_node("Relu", ["c"], ["y"]),
        ],
        "g",
        [x],
        [y],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    assert check_model(model, onnx_registry).findings == ()
    ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    converted = float16.convert_float_to_float16(model, keep_io_types=False)
    with pytest.raises(
        Exception, match=r"Type \(tensor\(float16\)\) of output arg \(c\)"
    ):  # onnxruntime refuses it
        ort.InferenceSession(converted.SerializeToString(), providers=["CPUExecutionProvider"])
    findings = [(f.rule, f.path, f.message) for f in check_model(converted, onnx_registry).errors]
    assert findings == [
        (
            "MODEL-TYPE-INFERRED-MISMATCH",
            "g/Cast/0",
            "output 0 'c' is declared tensor(float16), but ai.onnx.Cast:13 makes it tensor(float)",
        )
    ]


def test_inferred_types_feed_the_type_constraints(onnx_registry: Registry) -> None:
    """A value nobody declares is checked by its inferred type (onnx's strict inference agrees)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph(
        [
            helper.make_node("Cast", ["x"], ["s"], to=TensorProto.STRING),
            helper.make_node("Relu", ["s"], ["y"]),
        ],
        "g",
        [x],
        [y],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    assert onnx_types(model) is None
    assert [(f.rule, f.path) for f in check_model(model, onnx_registry).errors] == [
        ("MODEL-TYPE-NOT-ALLOWED", "g/Relu/1")  # reported once: the binding does not carry it on
    ]


# -- a vendor spec with type_from ----------------------------------------------------------------


def test_vendor_type_from_drives_inference(tmp_path: Path, onnx_registry: Registry) -> None:
    root = tmp_path / "com.acme"
    root.mkdir()
    (root / "domain.yaml").write_text(
        yaml.safe_dump({"domain": "com.acme", "opset_versions": [{"version": 1, "ir_version": 8}]})
    )
    (root / "Quantize.yaml").write_text(
        yaml.safe_dump(
            {
                "operator": "Quantize",
                "domain": "com.acme",
                "versions": [
                    {
                        "since_version": 1,
                        "doc": "Quantizes X.",
                        "inputs": [{"name": "X", "type": "T1", "doc": "x"}],
                        "outputs": [
                            {
                                "name": "Y",
                                "type": "T2",
                                "doc": "y",
                                "type_from": [{"attribute": "to"}, {"type": "tensor(int8)"}],
                            }
                        ],
                        "attributes": {"to": {"type": "int", "doc": "the element type of Y"}},
                        "type_constraints": {
                            "T1": {"allowed": ["tensor(float)"], "doc": "in"},
                            "T2": {"allowed": ["tensor(int8)", "tensor(uint8)"], "doc": "out"},
                        },
                    }
                ],
            }
        )
    )
    registry = merge_registries(onnx_registry, load_registry([tmp_path], cache=False))

    def model(declared: int, **attrs: Any) -> Any:
        graph = helper.make_graph(
            [helper.make_node("Quantize", ["x"], ["y"], domain="com.acme", **attrs)],
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y", declared, [2])],
        )
        return helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.acme", 1)]
        )

    assert check_model(model(TensorProto.INT8), registry).findings == ()  # the default applies
    assert check_model(model(TensorProto.UINT8, to=TensorProto.UINT8), registry).findings == ()
    assert [f.rule for f in check_model(model(TensorProto.UINT8), registry).findings] == [
        "MODEL-TYPE-INFERRED-MISMATCH"
    ]
