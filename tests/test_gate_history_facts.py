"""The onnx adapter overlay as facts of the imported catalog, and the adapters it adds (#26).

- `opset import-onnx` writes the overlay's adapters into the imported specs, with the type
  checks the converter adds; the imported catalog validates with 0 errors.
- The gate reads them: each new version of onnx's history that old nodes cannot follow unchanged
  and that the overlay covers gives no ADAPTER-MISSING; without the imported adapter, it does.
- The adapters added for onnx's history convert real nodes: onnxruntime gives the same outputs
  before and after where it runs both versions; where a node cannot move, it is refused.
- The compatible-step check follows a type parameter that a new version renamed or reused.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.catalog import model_registry, onnx_unchecked_attributes  # noqa: E402
from toolkit.onnx_bridge.convert import ConversionError, convert_model  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

# The new versions on onnx's history (1.14.1 ... 1.23.2) that old nodes cannot follow unchanged
# (their signature breaks BC, or did not change) and whose adapter is a fact of the overlay.
HISTORY_ADAPTERS = [
    ("ai.onnx", "DFT", 20),
    ("ai.onnx", "GridSample", 20),
    ("ai.onnx", "QLinearMatMul", 21),
    ("ai.onnx", "GlobalLpPool", 22),
    ("ai.onnx", "QuantizeLinear", 23),
    ("ai.onnx", "DequantizeLinear", 23),
    ("ai.onnx", "ReduceLogSum", 28),
    ("ai.onnx", "ReduceLogSumExp", 28),
    ("ai.onnx", "DepthToSpace", 28),
    ("ai.onnx", "Mod", 28),
    ("ai.onnx.ml", "TreeEnsembleClassifier", 5),
    ("ai.onnx.ml", "TreeEnsembleRegressor", 5),
]


def _onnx_1_17_global_lp_pool(versions: list[dict[str, Any]]) -> None:
    """onnx 1.17 shipped GlobalLpPool 2 with bfloat16 and 22 without it (swapped in place in
    1.18): there version 22 dropped a type of version 2, which an adapter must check."""
    for version in versions:
        if version["since_version"] == 2:
            version["type_constraints"]["T"]["allowed"].append("tensor(bfloat16)")
        if version["since_version"] == 22:
            version["type_constraints"]["T"]["allowed"].remove("tensor(bfloat16)")
        if version["since_version"] == 22 and "adapter" in version:  # as the import of 1.17 writes it
            restriction = {"kind": "type_restriction", "param": "T", "types": ["tensor(bfloat16)"]}
            version["adapter"] = {
                "upgrade": [restriction, {"kind": "compatible"}],
                "downgrade": [{"kind": "compatible"}],
            }


# How a release of the history differed from the installed catalog where the adapter mattered.
AS_RELEASED = {"GlobalLpPool": _onnx_1_17_global_lp_pool}


def _versions(catalog: Path, domain: str, op: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((catalog / domain / f"{op}.yaml").read_text(encoding="utf-8"))
    versions: list[dict[str, Any]] = data["versions"]
    return versions


def _present(catalog: Path, domain: str, op: str, since: int) -> bool:
    path = catalog / domain / f"{op}.yaml"
    return path.exists() and any(v["since_version"] == since for v in _versions(catalog, domain, op))


# -- the imported catalog carries the overlay -----------------------------------------------------


def test_the_imported_catalog_carries_the_overlay_adapters_and_validates(
    onnx_catalog_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dft = {v["since_version"]: v for v in _versions(onnx_catalog_dir, "ai.onnx", "DFT")}
    if 20 not in dft:
        pytest.skip("the installed onnx has no DFT 20")
    assert dft[20]["adapter"]["upgrade"] == [
        {"kind": "attribute_to_input", "attribute": "axis", "input": "axis"}
    ]
    assert "adapter" not in dft[17]  # the first version has nothing to adapt from
    # Erf 13 dropped the integer types: the written adapter checks them, as the converter does.
    erf = {v["since_version"]: v for v in _versions(onnx_catalog_dir, "ai.onnx", "Erf")}
    first = erf[13]["adapter"]["upgrade"][0]
    assert first["kind"] == "type_restriction" and "tensor(int32)" in first["types"]
    capsys.readouterr()
    assert main(["validate", "--specs", str(onnx_catalog_dir), "--no-cache"]) == 0
    assert " 0 error(s)" in capsys.readouterr().out


# -- the gate reads them --------------------------------------------------------------------------


def _pair(catalog: Path, root: Path, domain: str, op: str, since: int, *, adapter: bool) -> tuple[Path, Path]:
    """Two trees holding one operator of the catalog (and the operators its function bodies
    call): `old` up to the version before `since` (opsets below `since`), `new` up to `since`
    (the operator's adapters dropped unless `adapter`)."""
    domain_doc = yaml.safe_load((catalog / domain / "domain.yaml").read_text(encoding="utf-8"))
    called, todo = set(), [op]
    while todo:  # the operators the bodies call, and the ones those call
        text = (catalog / domain / f"{todo.pop()}.yaml").read_text(encoding="utf-8")
        for name in set(re.findall(r"= ([A-Za-z]\w*) [<(]", text)) - called - {op}:
            if not (catalog / domain / f"{name}.yaml").exists():
                continue
            called.add(name)
            todo.append(name)
    trees = []
    for name, top in (("old", since - 1), ("new", since)):
        folder = root / name / domain
        folder.mkdir(parents=True)
        opsets = [o for o in domain_doc["opset_versions"] if o["version"] <= top]
        (folder / "domain.yaml").write_text(yaml.safe_dump({**domain_doc, "opset_versions": opsets}), "utf-8")
        for each in [op, *sorted(called)]:
            kept = [copy.deepcopy(v) for v in _versions(catalog, domain, each) if v["since_version"] <= top]
            if each == op:
                AS_RELEASED.get(op, lambda _: None)(kept)
                for version in kept if not adapter else ():
                    version.pop("adapter", None)
            operator = {"operator": each, "domain": domain, "versions": kept}
            (folder / f"{each}.yaml").write_text(yaml.safe_dump(operator, sort_keys=False), "utf-8")
        trees.append(root / name)
    return trees[0], trees[1]


def _gate_rules(old: Path, new: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    capsys.readouterr()
    code = main(["diff", "--against", str(old), "--specs", str(new), "--format", "json", "--no-cache"])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return [(f["rule"], json.dumps(f)) for f in json.loads(out)["findings"]]


@pytest.mark.parametrize(
    ("domain", "op", "since"), HISTORY_ADAPTERS, ids=[f"{o}:{s}" for _, o, s in HISTORY_ADAPTERS]
)
def test_the_gate_reads_the_imported_adapter(
    onnx_catalog_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    domain: str,
    op: str,
    since: int,
) -> None:
    if not _present(onnx_catalog_dir, domain, op, since):
        pytest.skip(f"the installed onnx has no {op} {since}")
    old, new = _pair(onnx_catalog_dir, tmp_path / "with", domain, op, since, adapter=True)
    mine = f"{op}.yaml"
    assert not [m for rule, m in _gate_rules(old, new, capsys) if rule.startswith("ADAPTER-") and mine in m]
    # The same bump without the imported adapter needs one: the finding the overlay answers.
    old, new = _pair(onnx_catalog_dir, tmp_path / "without", domain, op, since, adapter=False)
    missing = [m for rule, m in _gate_rules(old, new, capsys) if rule == "ADAPTER-MISSING" and mine in m]
    assert len(missing) == 1 and f"{op}:{since}" in missing[0], missing


# -- the adapters convert real nodes --------------------------------------------------------------


@pytest.fixture(scope="module")
def registry() -> Registry:
    return model_registry([], adapters=True)


def _model(node: Any, inputs: list[Any], output: Any, opset: int, inits: list[Any] = ()) -> Any:
    graph = helper.make_graph([node], "g", inputs, [output], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _convert(registry: Registry, model: Any, target: int) -> Any:
    return convert_model(
        model, registry, {"": target}, unchecked_attributes=onnx_unchecked_attributes()
    ).model


def _run(model: Any, feeds: dict[str, Any]) -> Any:
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def _node_of(model: Any) -> Any:
    (node,) = [n for n in model.graph.node if n.op_type not in ("Constant",)]
    return node


def _same(registry: Registry, model: Any, target: int, feeds: dict[str, Any]) -> Any:
    converted = _convert(registry, model, target)
    onnx.checker.check_model(converted)
    want, got = _run(model, feeds), _run(converted, feeds)
    assert want.shape == got.shape and np.allclose(want, got, rtol=1e-5, atol=1e-5)
    return converted


SIGNAL = np.random.default_rng(26).random((2, 8, 6, 1), dtype=np.float32)


@pytest.mark.parametrize("axis", [None, 1, 2, -2])
def test_dft_axis_attribute_becomes_the_axis_input_and_back(registry: Registry, axis: int | None) -> None:
    attrs = {} if axis is None else {"axis": axis}
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SIGNAL.shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 6, 2])
    source = _model(helper.make_node("DFT", ["x"], ["y"], **attrs), [x], y, 19)
    up = _same(registry, source, 20, {"x": SIGNAL})
    node = _node_of(up)
    assert not node.attribute and len(node.input) == 3  # axis is the third input now
    back = _same(registry, up, 19, {"x": SIGNAL})
    restored = {a.name: helper.get_attribute_value(a) for a in _node_of(back).attribute}
    assert restored == {"axis": 1 if axis is None else axis}


def test_dft_20_without_axis_goes_back_as_axis_minus_2(registry: Registry) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SIGNAL.shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 6, 2])
    source = _model(helper.make_node("DFT", ["x"], ["y"]), [x], y, 20)  # rank 4: -2 is not 1
    back = _same(registry, source, 19, {"x": SIGNAL})
    assert {a.name: helper.get_attribute_value(a) for a in _node_of(back).attribute} == {"axis": -2}


IMAGE = np.random.default_rng(20).random((1, 2, 4, 5), dtype=np.float32)
GRID = (np.random.default_rng(21).random((1, 3, 3, 2), dtype=np.float32) * 2 - 1).astype(np.float32)


@pytest.mark.parametrize(
    ("old", "new"), [("bilinear", "linear"), ("bicubic", "cubic"), ("nearest", "nearest"), (None, None)]
)
def test_grid_sample_modes_are_renamed_both_ways(
    registry: Registry, old: str | None, new: str | None
) -> None:
    attrs = {} if old is None else {"mode": old}
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, list(IMAGE.shape)),
        helper.make_tensor_value_info("grid", TensorProto.FLOAT, list(GRID.shape)),
    ]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])
    source = _model(helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs), inputs, y, 19)
    feeds = {"x": IMAGE, "grid": GRID}
    up = _same(registry, source, 20, feeds)
    mode = {a.name: helper.get_attribute_value(a) for a in _node_of(up).attribute}.get("mode")
    assert mode == (None if new is None else new.encode())
    back = _same(registry, up, 19, feeds)
    mode = {a.name: helper.get_attribute_value(a) for a in _node_of(back).attribute}.get("mode")
    assert mode == (None if old is None else old.encode())


def test_grid_sample_20_on_a_volume_cannot_go_back(registry: Registry) -> None:
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 3, 4]),
        helper.make_tensor_value_info("grid", TensorProto.FLOAT, [1, 2, 2, 2, 3]),
    ]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    source = _model(helper.make_node("GridSample", ["x", "grid"], ["y"]), inputs, y, 20)
    with pytest.raises(ConversionError, match="rank 5"):
        _convert(registry, source, 19)


def test_global_lp_pool_22_moves_both_ways(registry: Registry) -> None:
    """Neither onnxruntime nor onnx's reference evaluator runs GlobalLpPool 22: the node must
    come through unchanged and back, and a bfloat16 node cannot go back."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(IMAGE.shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 1, 1])
    source = _model(helper.make_node("GlobalLpPool", ["x"], ["y"], p=3), [x], y, 21)
    up = _convert(registry, source, 22)
    onnx.checker.check_model(up)
    assert _node_of(up) == _node_of(source)
    assert _node_of(_convert(registry, up, 21)) == _node_of(source)
    source.graph.input[0].type.tensor_type.elem_type = TensorProto.BFLOAT16
    source.graph.output[0].type.tensor_type.elem_type = TensorProto.BFLOAT16
    with pytest.raises(ConversionError, match="bfloat16"):  # GlobalLpPool 2 has no bfloat16
        _convert(registry, _model(_node_of(up), list(source.graph.input), source.graph.output[0], 22), 21)


def _opset_28_moves(registry: Registry, node: Any, elem: int, shape: list[int], out: list[int]) -> Any:
    """onnxruntime runs ai.onnx up to opset 26: a version 28 node is checked by onnx's checker,
    and the round trip must give back the original node."""
    inputs = [helper.make_tensor_value_info(name, elem, shape) for name in node.input]
    y = helper.make_tensor_value_info("y", elem, out)
    source = _model(node, inputs, y, 27)
    up = _convert(registry, source, 28)
    onnx.checker.check_model(up)
    back = _convert(registry, up, 27)
    assert _node_of(back) == _node_of(source)
    return up


def test_depth_to_space_28_and_mod_28_move_their_nodes(registry: Registry) -> None:
    for mode in ("DCR", "CRD"):
        node = helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode=mode)
        _opset_28_moves(registry, node, TensorProto.FLOAT, [1, 8, 2, 3], [1, 2, 4, 6])
    _opset_28_moves(registry, helper.make_node("Mod", ["a", "b"], ["y"]), TensorProto.INT32, [4], [4])
    _opset_28_moves(registry, helper.make_node("Mod", ["a", "b"], ["y"], fmod=1), TensorProto.FLOAT, [4], [4])


@pytest.mark.parametrize(("elem", "fmod"), [(TensorProto.FLOAT, 0), (TensorProto.INT32, 1)])
def test_mod_28_combinations_mod_13_does_not_define_are_refused(
    registry: Registry, elem: int, fmod: int
) -> None:
    inputs = [helper.make_tensor_value_info(name, elem, [4]) for name in ("a", "b")]
    y = helper.make_tensor_value_info("y", elem, None)
    source = _model(helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod), inputs, y, 28)
    with pytest.raises(ConversionError, match=f"fmod={fmod}"):
        _convert(registry, source, 27)


def test_mod_13_nodes_compute_the_same_in_onnx_reference_of_mod_28() -> None:
    """Where onnxruntime cannot run Mod 28, onnx's reference evaluator runs both versions."""
    from onnx.reference import ReferenceEvaluator

    a = np.array([7, -7, 7, -7], dtype=np.int32)
    b = np.array([3, 3, -3, -3], dtype=np.int32)
    fa, fb = a.astype(np.float32) + 0.5, b.astype(np.float32)
    for feeds, elem, fmod in (
        ({"a": a, "b": b}, TensorProto.INT32, 0),
        ({"a": fa, "b": fb}, TensorProto.FLOAT, 1),
    ):
        inputs = [helper.make_tensor_value_info(n, elem, [4]) for n in ("a", "b")]
        y = helper.make_tensor_value_info("y", elem, None)
        outputs = []
        for opset in (13, 28):
            model = _model(helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod), inputs, y, opset)
            outputs.append(ReferenceEvaluator(model).run(None, feeds)[0])
        assert np.array_equal(outputs[0], outputs[1]), outputs


def test_tree_ensemble_classifier_is_not_moved_onto_deprecated_5(registry: Registry) -> None:
    attrs = {
        "nodes_treeids": [0, 0, 0],
        "nodes_nodeids": [0, 1, 2],
        "nodes_featureids": [0, 0, 0],
        "nodes_modes": ["BRANCH_LEQ", "LEAF", "LEAF"],
        "nodes_values": [0.5, 0.0, 0.0],
        "nodes_truenodeids": [1, 0, 0],
        "nodes_falsenodeids": [2, 0, 0],
        "class_treeids": [0, 0],
        "class_nodeids": [1, 2],
        "class_ids": [0, 1],
        "class_weights": [1.0, 1.0],
        "classlabels_int64s": [0, 1],
    }
    node = helper.make_node(
        "TreeEnsembleClassifier", ["x"], ["label", "scores"], domain="ai.onnx.ml", **attrs
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 1])],
        [
            helper.make_tensor_value_info("label", TensorProto.INT64, [3]),
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, [3, 2]),
        ],
    )
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 3)]
    source = helper.make_model(graph, opset_imports=opsets, ir_version=10)
    # Version 5 has version 3's signature but is deprecated: onnxruntime refuses to load it, so
    # the node is not moved there (no step rewrites a classifier into TreeEnsemble).
    with pytest.raises(ConversionError) as refused:
        convert_model(source, registry, {"ai.onnx.ml": 5}, unchecked_attributes=onnx_unchecked_attributes())
    (blocker,) = refused.value.blockers
    assert blocker.finding.rule == "CONVERT-REFUSED" and "deprecated" in blocker.finding.message
    up = convert_model(
        source, registry, {"ai.onnx.ml": 4}, unchecked_attributes=onnx_unchecked_attributes()
    ).model
    assert up.graph.node[0] == source.graph.node[0]


# -- the compatible-step check follows renamed type parameters -------------------------------------

_DOMAIN = (
    "domain: com.example\nopset_versions:\n  - {version: 1, ir_version: 9}\n  - {version: 2, ir_version: 9}\n"
)
_OP = """\
operator: Scale
domain: com.example
versions:
  - since_version: 1
    doc: Scales x.
    inputs: [{name: x, type: T1}, {name: s, type: T1}, {name: z, type: T2, option: optional}]
    outputs: [{name: y, type: T2}]
    type_constraints:
      T1: {allowed: ["tensor(float)", "tensor(double)"]}
      T2: {allowed: ["tensor(int8)", "tensor(uint8)"]}
  - since_version: 2
    doc: Scales x.
    inputs: [{name: x, type: T1}, {name: s, type: T2}, {name: z, type: T3, option: optional}]
    outputs: [{name: y, type: T3}]
    type_constraints:
      T1: {allowed: ["tensor(float)", "tensor(double)"]}
      T2: {allowed: [{scale}]}
      T3: {allowed: ["tensor(int8)", "tensor(uint8)", "tensor(int4)"]}
    adapter:
      upgrade: [{kind: compatible}]
"""


@pytest.mark.parametrize(
    ("scale", "kept"),
    [('"tensor(float)", "tensor(double)"', True), ('"tensor(float)"', False)],
    ids=["renamed-and-reused", "narrowed"],
)
def test_compatible_follows_a_reused_type_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scale: str, kept: bool
) -> None:
    folder = tmp_path / "com.example"
    folder.mkdir()
    (folder / "domain.yaml").write_text(_DOMAIN, "utf-8")
    (folder / "Scale.yaml").write_text(_OP.replace("{scale}", scale), "utf-8")
    capsys.readouterr()
    code = main(["validate", "--specs", str(tmp_path), "--no-cache"])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    if kept:  # T2 now binds the scale with T1's types, T3 the zero point with more: every node moves
        assert code == 0 and "ADAPTER-NOT-COMPATIBLE" not in out, out
    else:  # the scale lost double: a version-1 node with a double scale is not valid as it is
        assert code == 1 and "Scale.yaml:" in out and "error[ADAPTER-NOT-COMPATIBLE]" in out, out
        assert "input `s` type changed from `T1` to `T2`" in out


# -- the history script's cached / uncached comparison ---------------------------------------------


def test_the_history_script_compares_runs_pair_by_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_history", REPO / "tools" / "bench_history.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    finding = {"rule": "TYPE-REMOVED", "severity": "error", "message": "m", "location": {"line": 3}}
    pairs = [{"package": "onnx", "old": "1.19.1", "new": "1.20.1", "findings": [finding]}]
    earlier = tmp_path / "cached.json"
    earlier.write_text(json.dumps({"pairs": pairs}), "utf-8")
    assert bench.compare(pairs, earlier) == 0
    moved = [{**pairs[0], "findings": [{**finding, "location": {"line": 4}}]}]
    assert bench.compare(moved, earlier) == 1
    assert "onnx 1.19.1 -> 1.20.1" in capsys.readouterr().out
