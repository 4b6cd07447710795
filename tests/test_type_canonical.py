"""One type, one spelling: a bare element type inside `seq`/`optional`/`map` is a tensor of it
(`seq(map(int64, float))` is `seq(map(int64, tensor(float)))`), as in onnx's type language.

The canonical form (toolkit.model.types.canonical_type) is checked against TypeProtos built by
onnx.helper, and used by check-model (real skl2onnx ZipMap and DictVectorizer models, which
onnx.checker and onnxruntime accept), by the gate and by the generated Python builders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.compat.gate import run_gate
from toolkit.generate import GenerateContext
from toolkit.generate.pipeline import run_generators
from toolkit.model.types import ELEMENT_TYPES, MAP_KEY_TYPES, TypeStringError, canonical_type
from toolkit.registry.core import Registry, load_registry

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.check import check_model, type_string  # noqa: E402

# -- a random type, as a tree: ("tensor", e) | ("sparse", e) | ("seq", t) | ("opt", t) | ("map", k, t)

_leaf = st.sampled_from(ELEMENT_TYPES).map(lambda e: ("tensor", e))
_sparse = st.sampled_from(ELEMENT_TYPES).map(lambda e: ("sparse", e))
types = st.recursive(
    _leaf | _sparse,
    lambda inner: st.one_of(
        inner.filter(lambda t: t[0] != "opt").map(lambda t: ("opt", t)),
        inner.map(lambda t: ("seq", t)),
        st.tuples(st.just("map"), st.sampled_from(sorted(MAP_KEY_TYPES)), inner),
    ),
    max_leaves=4,
)


def spell(tree: tuple[Any, ...], draw_bare: Any, space: Any, nested: bool = False) -> str:
    """Any accepted spelling: a nested tensor bare or explicit, spaces anywhere between tokens."""
    s = space
    kind = tree[0]
    if kind == "tensor":
        if nested and draw_bare():
            return f"{s()}{tree[1]}{s()}"
        return f"{s()}tensor{s()}({s()}{tree[1]}{s()}){s()}"
    if kind == "sparse":
        return f"{s()}sparse_tensor({s()}{tree[1]}{s()}){s()}"
    if kind in ("seq", "opt"):
        word = "seq" if kind == "seq" else "optional"
        return f"{s()}{word}({spell(tree[1], draw_bare, space, True)}){s()}"
    return f"{s()}map({s()}{tree[1]}{s()},{spell(tree[2], draw_bare, space, True)}){s()}"


def explicit(tree: tuple[Any, ...]) -> str:
    kind = tree[0]
    if kind == "tensor":
        return f"tensor({tree[1]})"
    if kind == "sparse":
        return f"sparse_tensor({tree[1]})"
    if kind == "seq":
        return f"seq({explicit(tree[1])})"
    if kind == "opt":
        return f"optional({explicit(tree[1])})"
    return f"map({tree[1]}, {explicit(tree[2])})"


def proto(tree: tuple[Any, ...]) -> Any:
    kind = tree[0]
    if kind == "tensor":
        return helper.make_tensor_type_proto(getattr(TensorProto, _proto_name(tree[1])), None)
    if kind == "sparse":
        return helper.make_sparse_tensor_type_proto(getattr(TensorProto, _proto_name(tree[1])), None)
    if kind == "seq":
        return helper.make_sequence_type_proto(proto(tree[1]))
    if kind == "opt":
        return helper.make_optional_type_proto(proto(tree[1]))
    return helper.make_map_type_proto(getattr(TensorProto, _proto_name(tree[1])), proto(tree[2]))


def _proto_name(elem: str) -> str:
    return elem.upper()  # TensorProto.DataType names are the DSL's element names upper-cased


@settings(max_examples=300, deadline=None)
@given(types, st.data())
def test_every_spelling_of_a_type_has_one_canonical_form(tree: tuple[Any, ...], data: st.DataObject) -> None:
    spelled = spell(tree, lambda: data.draw(st.booleans()), lambda: data.draw(st.sampled_from(["", "", " "])))
    canonical = canonical_type(spelled)
    assert canonical == explicit(tree)
    assert canonical_type(canonical) == canonical  # idempotent
    # and it is what a model's TypeProto of that type reads as (onnx.helper builds the proto)
    assert type_string(proto(tree)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("seq(map(int64, float))", "seq(map(int64, tensor(float)))"),
        ("seq(map(int64,tensor(float)))", "seq(map(int64, tensor(float)))"),
        ("map(string, seq(double))", "map(string, seq(tensor(double)))"),
        ("optional(int8)", "optional(tensor(int8))"),
        ("seq(float)", "seq(tensor(float))"),
    ],
)
def test_bare_elements_inside_containers_are_tensors(text: str, canonical: str) -> None:
    assert canonical_type(text) == canonical


@pytest.mark.parametrize(
    "text", ["float", "seq(map(float, float))", "map(int64, flaot)", "seq(tensor(float)"]
)
def test_bad_spellings_stay_errors(text: str) -> None:
    with pytest.raises(TypeStringError):
        canonical_type(text)


# -- check-model on real skl2onnx models -----------------------------------------------------


@pytest.fixture(scope="module")
def skl_models() -> dict[str, Any]:
    np = pytest.importorskip("numpy")
    pytest.importorskip("sklearn")
    pytest.importorskip("skl2onnx")
    from skl2onnx import convert_sklearn, to_onnx
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, Int64TensorType, StringTensorType
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.RandomState(0)
    x = rng.rand(40, 3).astype(np.float32)
    opsets = {"": 18, "ai.onnx.ml": 3}
    models = {
        "logreg-zipmap-int64": to_onnx(
            LogisticRegression().fit(x, (x[:, 0] > 0.5).astype(np.int64)), x[:1], target_opset=opsets
        ),
        "tree-zipmap-string": to_onnx(
            DecisionTreeClassifier(max_depth=2).fit(x, np.where(x[:, 1] > 0.5, "yes", "no")),
            x[:1],
            target_opset=opsets,
        ),
    }
    records = [{"a": 1.0, "b": 2.0}, {"a": 0.0, "c": 1.0}] * 5
    pipe = make_pipeline(DictVectorizer(sparse=False), LogisticRegression()).fit(records, [0, 1] * 5)
    models["dictvectorizer-string-float"] = convert_sklearn(
        pipe,
        initial_types=[("input", DictionaryType(StringTensorType([1]), FloatTensorType([1])))],
        target_opset=opsets,
    )
    int_records = [{1: 1.0, 2: 2.0}, {1: 0.0, 3: 1.0}] * 5
    pipe = make_pipeline(DictVectorizer(sparse=False), LogisticRegression()).fit(int_records, [0, 1] * 5)
    models["dictvectorizer-int64-float"] = convert_sklearn(
        pipe,
        initial_types=[("input", DictionaryType(Int64TensorType([1]), FloatTensorType([1])))],
        target_opset=opsets,
    )
    return models


def test_zipmap_and_dictvectorizer_models_pass(skl_models: dict[str, Any], onnx_registry: Registry) -> None:
    ort = pytest.importorskip("onnxruntime")
    maps = 0
    for name, model in skl_models.items():
        onnx.checker.check_model(model, full_check=True)  # the judges accept them
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        declared = [type_string(v.type) for v in (*model.graph.input, *model.graph.output)]
        maps += any("map(" in (t or "") for t in declared)
        result = check_model(model, onnx_registry, name=name)
        assert result.errors == (), [f.format(name) for f in result.errors]
    assert maps == len(skl_models)  # each model really has a map-typed input or output


def test_a_wrong_map_value_type_is_still_rejected(
    skl_models: dict[str, Any], onnx_registry: Registry
) -> None:
    model = onnx.ModelProto()
    model.CopyFrom(skl_models["logreg-zipmap-int64"])
    probabilities = next(o for o in model.graph.output if o.type.HasField("sequence_type"))
    value = probabilities.type.sequence_type.elem_type.map_type.value_type
    value.tensor_type.elem_type = TensorProto.DOUBLE  # ZipMap makes float values only
    result = check_model(model, onnx_registry)
    assert [(f.rule, "seq(map(int64, tensor(double)))" in f.message) for f in result.errors] == [
        ("MODEL-TYPE-INFERRED-MISMATCH", True),  # ZipMap with int64 labels makes float values
        ("MODEL-TYPE-NOT-ALLOWED", True),
    ]


# -- the gate and the builders -----------------------------------------------------------------


def _tree(root: Path, allowed: list[str]) -> Registry:
    root = root / "com.test"
    root.mkdir(parents=True)
    domain = {"domain": "com.test", "opset_versions": [{"version": 1, "ir_version": 8}]}
    op = {
        "operator": "Zip",
        "domain": "com.test",
        "versions": [
            {
                "since_version": 1,
                "doc": "Zips.",
                "inputs": [{"name": "X", "type": "tensor(float)", "doc": "x"}],
                "outputs": [{"name": "Z", "type": "T", "doc": "z"}],
                "type_constraints": {"T": {"allowed": allowed, "doc": "maps"}},
            }
        ],
    }
    (root / "domain.yaml").write_text(yaml.safe_dump(domain))
    (root / "Zip.yaml").write_text(yaml.safe_dump(op))
    return load_registry([root], cache=False)


def test_gate_sees_one_type_in_two_spellings(tmp_path: Path) -> None:
    old = _tree(tmp_path / "old", ["seq(map(int64, float))", "map(string, float)"])
    same = _tree(tmp_path / "same", ["seq(map(int64, tensor(float)))", "map(string,tensor(float))"])
    narrowed = _tree(tmp_path / "narrowed", ["seq(map(int64, tensor(float)))"])
    assert run_gate(old, same).findings == ()
    assert {f.rule for f in run_gate(old, narrowed).findings} == {"TYPE-REMOVED"}


def test_builders_and_docs_print_the_canonical_form(tmp_path: Path) -> None:
    registry = _tree(tmp_path / "spec", ["seq(map(int64, float))"])
    files = run_generators(registry, GenerateContext(source="spec"), ["python", "docs"])
    python = b"".join(data for rel, data in files.items() if rel.endswith(".py") and "zip" in rel.lower())
    docs = b"".join(data for rel, data in files.items() if rel.endswith(".md") and "dsl" not in rel)
    assert b"seq(map(int64, tensor(float)))" in python and b"seq(map(int64, tensor(float)))" in docs
    assert b"map(int64, float)" not in python + docs
