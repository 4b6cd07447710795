"""check-model's fast path (toolkit/onnx_bridge/check/fastpath.py) agrees with the reporting
checker: it calls a node clean only when the checker reports nothing at that node, and
`check_model` finds the same with and without it, on randomly mutated models (hypothesis) and on
onnx's own test models (tests/test_check_model.py runs the corpus through `assert_fast_path_agrees`).
"""

from __future__ import annotations

import glob
import os
from collections import ChainMap, defaultdict
from collections.abc import Container, MutableMapping
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from onnx import helper  # noqa: E402

from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.check import (  # noqa: E402
    CheckResult,
    check_model,
    declared_types,
    graph_checks,
    inference,
    type_string,
)
from toolkit.onnx_bridge.check.fastpath import DIRTY, FAST, clean, plan  # noqa: E402
from toolkit.onnx_bridge.check.schema_facts import FACTS, facts_of  # noqa: E402
from toolkit.onnx_bridge.check.shape_rules import RULES as SHAPE_RULE_IDS  # noqa: E402
from toolkit.onnx_bridge.graph import (  # noqa: E402
    function_imports,
    function_path,
    graph_path,
    node_path,
    opset_imports,
    subgraphs,
)
from toolkit.onnx_bridge.shape_infer import infer_types  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
UNCHECKED: frozenset[str] = frozenset({"ai.onnx.LayerNormalization:17"})
ABC = "org.example.abc"


def fast_verdicts(model: Any, registry: Registry, unchecked: Container[str]) -> dict[str, list[int]]:
    """Node path -> the fast path's verdicts (DIRTY, or clean) for the node(s) at that path, with
    the schema caches `check_model` uses (so state left by earlier models is exercised too)."""
    out: dict[str, list[int]] = defaultdict(list)
    functions = {(f.domain, f.name) for f in model.functions}
    facts, compiled = FACTS.get(registry), FAST.get(registry)

    def visit(
        graph: Any, path: str, imports: dict[str, int], types: MutableMapping[str, str | None] | None
    ) -> None:
        for index, node in enumerate(graph.node):
            here = node_path(path, node, index)
            fast = plan(
                registry,
                functions,
                imports,
                node.domain,
                node.op_type,
                unchecked,
                lambda schema: facts_of(schema, facts),
                compiled,
            )
            out[here].append(
                DIRTY if fast is None else clean(node, fast, None if types is None else types.get)
            )
            for suffix, sub in subgraphs(node):
                inner = None if types is None else ChainMap(declared_types(sub), types)
                visit(sub, f"{here}/{suffix}", imports, inner)

    imports = opset_imports(model.opset_import)
    # the types check_model checks against: declared ones, inferred ones where none is declared
    visit(
        model.graph,
        graph_path(model),
        imports,
        {**infer_types(model, registry), **declared_types(model.graph)},
    )
    for function in model.functions:
        visit(function, function_path(function), function_imports(function, imports), None)
    return out


def both_paths(model: Any, registry: Registry, unchecked: Container[str]) -> tuple[CheckResult, CheckResult]:
    """`model` checked without the fast path and with it (the default, what `opset check-model` runs)."""
    plain = check_model(model, registry, unchecked_attributes=unchecked, fast=False)
    return plain, check_model(model, registry, unchecked_attributes=unchecked, fast=True)


def assert_fast_path_agrees(
    model: Any,
    registry: Registry,
    unchecked: Container[str],
    name: str = "",
    checked: tuple[CheckResult, CheckResult] | None = None,
) -> None:
    """`checked`: `both_paths` of the model when the caller has them already (tests/test_check_model.py
    checks its corpus once for all its tests)."""
    plain, fast = checked or both_paths(model, registry, unchecked)
    assert fast.findings == plain.findings, name
    assert fast.nodes == plain.nodes, name
    # the node checks' findings (graph-level ones are located at nodes too but not the fast path's)
    reported = {
        f.path for f in plain.findings if f.rule not in graph_checks.RULES | inference.RULES | SHAPE_RULE_IDS
    }
    for path, verdicts in fast_verdicts(model, registry, unchecked).items():
        if DIRTY not in verdicts:
            assert path not in reported, (name, path, [f for f in plain.findings if f.path == path])


# -- random models ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def registry(onnx_registry: Registry, shipped_registry: Registry) -> Registry:
    return merge_registries(onnx_registry, shipped_registry)


def _synthetic() -> list[Any]:
    """Small models with what the corpus lacks: subgraphs, functions, a vendor domain, types."""
    f32 = onnx.TensorProto.FLOAT
    x = helper.make_tensor_value_info("x", f32, [2])
    c = helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, [])
    then = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"])], "then", [], [helper.make_tensor_value_info("t", f32, [2])]
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"]), helper.make_node("Abs", ["e"], ["e2"])],
        "else",
        [],
        [helper.make_tensor_value_info("e2", f32, [2])],
    )
    function = helper.make_function(
        "local",
        "Fn",
        ["a"],
        ["b"],
        [helper.make_node("Cast", ["a"], ["m"], to=f32), helper.make_node("Relu", ["m"], ["b"])],
        [helper.make_opsetid("", 18)],
    )
    nodes = [
        helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other),
        helper.make_node("Add", ["y", "x"], ["s"]),
        helper.make_node("Fn", ["s"], ["z"], domain="local"),
        helper.make_node("A", ["z"], ["w"], domain=ABC, scale=2.0),
        helper.make_node("Clip", ["w", "", "x"], ["v"]),
        helper.make_node("Concat", ["v", "x", "w"], ["u"], axis=0),
        helper.make_node("Cast", ["u"], ["k"], to=onnx.TensorProto.INT64),
        helper.make_node("ConstantOfShape", ["k"], ["q"], value=helper.make_tensor("v", f32, [1], [0.5])),
        helper.make_node("LayerNormalization", ["q", "x"], ["n"], epsilon=1e-5, custom=1),
    ]
    infos = [helper.make_tensor_value_info(n, f32, None) for n in ("y", "s", "z", "w", "v", "q")]
    graph = helper.make_graph(
        nodes,
        "main",
        [x, c],
        [helper.make_tensor_value_info("n", f32, None)],
        value_info=[*infos, helper.make_tensor_value_info("k", onnx.TensorProto.INT64, [1])],
    )
    model = helper.make_model(
        graph,
        functions=[function],
        opset_imports=[
            helper.make_opsetid("", 18),
            helper.make_opsetid("local", 1),
            helper.make_opsetid(ABC, 3),
        ],
    )
    return [model]


@pytest.fixture(scope="module")
def pool() -> tuple[list[Any], list[Any]]:
    """(synthetic models, small models of onnx's backend test data)."""
    files = sorted(
        p
        for kind in ("pytorch-converted", "pytorch-operator", "simple", "light")
        for p in glob.glob(str(DATA / kind / "**" / "*.onnx"), recursive=True)
        if os.path.getsize(p) < 300_000
    )
    models = [onnx.load(f) for f in files]
    assert len(models) >= 100
    return _synthetic(), models


OPS = (
    "Relu",
    "Add",
    "Cast",
    "Gemm",
    "Clip",
    "Concat",
    "Upsample",
    "LayerNormalization",
    "NoSuchOp",
    "If",
    "Conv",
    "Reshape",
    "Gelu",
    "A",
    "B",
    "C",
    "Fn",
    "Identity",
    "ConstantOfShape",
    "Loop",
    "Scan",
)
DOMAINS = ("", "ai.onnx", "com.nowhere", ABC, "local", "ai.onnx.ml")
ATTR_NAMES = (
    "axis",
    "to",
    "alpha",
    "beta",
    "then_branch",
    "value",
    "bogus",
    "__internal",
    "scale",
    "epsilon",
    "kernel_shape",
    "perm",
)
ELEM_TYPES = (
    onnx.TensorProto.FLOAT,
    onnx.TensorProto.DOUBLE,
    onnx.TensorProto.INT64,
    onnx.TensorProto.STRING,
    onnx.TensorProto.BOOL,
    onnx.TensorProto.FLOAT16,
    0,
)


def _graphs(graph: Any) -> list[Any]:
    found = [graph]
    for node in graph.node:
        for _suffix, sub in subgraphs(node):
            found.extend(_graphs(sub))
    return found


def _is_function(graph: Any) -> bool:
    return isinstance(graph, onnx.FunctionProto)


def _values(graph: Any) -> list[Any]:
    """The ValueInfoProtos of a graph or function (a function's inputs and outputs are names)."""
    if _is_function(graph):
        return list(graph.value_info)
    return [*graph.value_info, *graph.input, *graph.output]


def _names(graph: Any) -> list[str]:
    names = [v.name for v in _values(graph)]
    if _is_function(graph):
        names += [*graph.input, *graph.output]
    else:
        names += [i.name for i in graph.initializer]
    for node in graph.node:
        names.extend(node.input)
        names.extend(node.output)
    return [n for n in names if n] or ["x"]


def _attribute(data: st.DataObject, name: str) -> Any:
    attr = onnx.AttributeProto()
    attr.name = name
    attr.type = data.draw(st.integers(0, 14))
    if data.draw(st.booleans()):  # a value of the declared type (or not, for a missing value)
        if attr.type == 1:
            attr.f = 1.5
        elif attr.type == 2:
            attr.i = 1
        elif attr.type == 3:
            attr.s = b"s"
        elif attr.type == 4:
            attr.t.CopyFrom(helper.make_tensor("t", onnx.TensorProto.FLOAT, [1], [1.0]))
        elif attr.type == 5:
            attr.g.CopyFrom(
                helper.make_graph(
                    [helper.make_node("Identity", ["x"], ["gi"])],
                    "g",
                    [],
                    [helper.make_tensor_value_info("gi", onnx.TensorProto.FLOAT, [2])],
                )
            )
        elif attr.type == 7:
            attr.ints.extend([1, 0])
        elif attr.type == 13:
            attr.tp.CopyFrom(helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [1]))
    if data.draw(st.integers(0, 9)) == 0:
        attr.ref_attr_name = "outer"
    return attr


def mutate(model: Any, data: st.DataObject) -> None:
    """A few random edits: node inputs, outputs, attributes, op types and domains, declared types,
    imported opset versions."""
    graphs = _graphs(model.graph) + list(model.functions)
    for _ in range(data.draw(st.integers(1, 4))):
        graph = data.draw(st.sampled_from(graphs))
        kind = data.draw(st.sampled_from(("inputs", "outputs", "attrs", "op", "types", "opset")))
        if kind == "opset":
            entries = list(model.opset_import)
            if entries:
                data.draw(st.sampled_from(entries)).version = data.draw(st.integers(1, 25))
            continue
        if kind == "types":
            values = _values(graph)
            if values:
                info = data.draw(st.sampled_from(values))
                elem = data.draw(st.sampled_from(ELEM_TYPES))
                if elem:
                    info.type.tensor_type.elem_type = elem
                else:
                    info.ClearField("type")
            else:
                graph.value_info.append(
                    helper.make_tensor_value_info(
                        data.draw(st.sampled_from(_names(graph))),
                        data.draw(st.sampled_from(ELEM_TYPES[:-1])),
                        None,
                    )
                )
            continue
        if not len(graph.node):
            continue
        node = graph.node[data.draw(st.integers(0, len(graph.node) - 1))]
        if kind in ("inputs", "outputs"):
            values = node.input if kind == "inputs" else node.output
            action = data.draw(st.sampled_from(("add", "empty", "drop", "rename")))
            if action == "add":
                values.append(data.draw(st.sampled_from(["", "fresh", *_names(graph)])))
            elif action == "empty" and len(values):
                values[data.draw(st.integers(0, len(values) - 1))] = ""
            elif action == "drop" and len(values):
                del values[data.draw(st.integers(0, len(values) - 1))]
            elif action == "rename" and len(values):
                values[data.draw(st.integers(0, len(values) - 1))] = data.draw(st.sampled_from(_names(graph)))
        elif kind == "attrs":
            action = data.draw(st.sampled_from(("add", "drop", "duplicate", "retype", "clear")))
            if action == "add":
                node.attribute.append(_attribute(data, data.draw(st.sampled_from(ATTR_NAMES))))
            elif action == "drop" and len(node.attribute):
                del node.attribute[data.draw(st.integers(0, len(node.attribute) - 1))]
            elif action == "duplicate" and len(node.attribute):
                node.attribute.append(node.attribute[data.draw(st.integers(0, len(node.attribute) - 1))])
            elif action == "retype" and len(node.attribute):
                node.attribute[data.draw(st.integers(0, len(node.attribute) - 1))].type = data.draw(
                    st.integers(0, 14)
                )
            elif action == "clear" and len(node.attribute):  # the value goes, the declared type stays
                attr = node.attribute[data.draw(st.integers(0, len(node.attribute) - 1))]
                for value_field in ("f", "i", "s", "t", "g", "sparse_tensor", "tp"):
                    attr.ClearField(value_field)
        else:
            if data.draw(st.booleans()):
                node.op_type = data.draw(st.sampled_from(OPS))
            else:
                node.domain = data.draw(st.sampled_from(DOMAINS))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_path_agrees_on_mutated_models(
    registry: Registry, pool: tuple[list[Any], list[Any]], data: st.DataObject
) -> None:
    # half of the examples start from the synthetic models, which hold what the corpus rarely has
    base = data.draw(st.sampled_from(pool[0]) | st.sampled_from(pool[1]))
    model = onnx.ModelProto()
    model.CopyFrom(base)
    mutate(model, data)
    unchecked = data.draw(st.sampled_from((UNCHECKED, frozenset())))
    assert_fast_path_agrees(model, registry, unchecked)


def test_function_bodies_and_unchecked_attributes(registry: Registry) -> None:
    """Function bodies are checked (types aside) and LayerNormalization-17 takes any attribute,
    by both paths."""
    (model,) = _synthetic()
    function = model.functions[0]
    function.node[1].attribute.append(helper.make_attribute("bogus", 1))
    found = check_model(model, registry, unchecked_attributes=UNCHECKED).findings
    assert [(f.rule, f.path) for f in found if f.rule not in graph_checks.RULES] == [
        ("MODEL-ATTR-UNKNOWN", "function:local.Fn/Relu/1")
    ]
    found = [f for f in check_model(model, registry).findings if f.rule not in graph_checks.RULES]
    assert (found[0].rule, found[0].path) == ("MODEL-ATTR-UNKNOWN", "main/LayerNormalization/8")
    assert type_string(model.graph.input[0].type) == "tensor(float)"
    assert_fast_path_agrees(model, registry, UNCHECKED)


def test_registry_without_weak_references_gets_fresh_caches(registry: Registry) -> None:
    """A registry-like object that cannot be weakly referenced still checks (per-call caches)."""

    class Plain:
        __slots__ = ("inner",)

        def __init__(self, inner: Registry) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

    (model,) = _synthetic()
    shim: Any = Plain(registry)
    assert FAST.get(shim) is not FAST.get(shim)
    assert check_model(model, shim).findings == check_model(model, registry).findings
