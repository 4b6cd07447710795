"""ai.onnx.ml conversions on models skl2onnx writes: TreeEnsembleRegressor (deprecated at
ai.onnx.ml 5) becomes TreeEnsemble with the same outputs in onnxruntime; what does not map is
refused; LabelEncoder 2 <-> 4."""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
pytest.importorskip("onnxruntime")
pytest.importorskip("skl2onnx")
from convert_harness import run  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.catalog import model_registry, onnx_unchecked_attributes  # noqa: E402
from toolkit.onnx_bridge.convert import ConversionError, convert_model  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

X = np.random.default_rng(5).random((60, 3)).astype(np.float32)
Y = X[:, 0] * 2 + X[:, 1] ** 2


@pytest.fixture(scope="module")
def registry() -> Registry:
    return model_registry([], adapters=True)


def convert(registry: Registry, model: Any, targets: dict[str, int]) -> Any:
    return convert_model(model, registry, targets, unchecked_attributes=onnx_unchecked_attributes()).model


def regressor(name: str) -> Any:
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    estimator = {
        "tree": DecisionTreeRegressor(max_depth=4),
        "forest": RandomForestRegressor(5, max_depth=3, random_state=0),
        "boosting": GradientBoostingRegressor(n_estimators=5, random_state=0),
    }[name]
    return estimator.fit(X, Y)


@pytest.mark.parametrize("name", ["tree", "forest", "boosting"])
def test_tree_ensemble_regressor_becomes_tree_ensemble(registry: Registry, name: str) -> None:
    from skl2onnx import to_onnx

    model = to_onnx(regressor(name), X[:1], target_opset={"": 17, "ai.onnx.ml": 3})
    converted = convert(registry, model, {"ai.onnx.ml": 5})
    assert "TreeEnsemble" in [n.op_type for n in converted.graph.node]
    assert "TreeEnsembleRegressor" not in [n.op_type for n in converted.graph.node]
    assert np.allclose(run(model, {"X": X})[0], run(converted, {"X": X})[0], rtol=1e-5, atol=1e-5)


def test_what_does_not_map_is_refused(registry: Registry) -> None:
    from skl2onnx import to_onnx

    model = to_onnx(regressor("tree"), X[:1].astype(np.float64), target_opset={"": 17, "ai.onnx.ml": 3})
    with pytest.raises(ConversionError, match=r"input 'X' is tensor\(double\)"):
        convert(registry, model, {"ai.onnx.ml": 5})


def test_label_encoder_2_and_4(registry: Registry) -> None:
    node = helper.make_node(
        "LabelEncoder",
        ["x"],
        ["y"],
        domain="ai.onnx.ml",
        keys_strings=["a", "b", "c"],
        values_int64s=[1, 2, 3],
        default_int64=-1,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [4])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 2)], ir_version=8
    )
    feeds = {"x": np.array(["a", "c", "z", "b"], dtype=object)}
    up = convert(registry, model, {"ai.onnx.ml": 4})
    assert run(up, feeds)[0].tolist() == run(model, feeds)[0].tolist() == [1, 3, -1, 2]
    down = convert(registry, up, {"ai.onnx.ml": 2})
    assert run(down, feeds)[0].tolist() == [1, 3, -1, 2]
    tensor_keys = helper.make_node(
        "LabelEncoder",
        ["x"],
        ["y"],
        domain="ai.onnx.ml",
        keys_tensor=helper.make_tensor("k", TensorProto.STRING, [1], [b"a"]),
        values_int64s=[1],
    )
    up.graph.node[0].CopyFrom(tensor_keys)
    with pytest.raises(ConversionError, match="keys_tensor"):
        convert(registry, up, {"ai.onnx.ml": 2})
