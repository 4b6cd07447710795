"""check-model's graph-level checks (SSA, order, definitions, names, imports) against onnx.checker.

Each rule is emitted on a small model built with onnx.helper that onnx.checker(full_check=True)
also refuses; then a differential test mutates onnx's backend node test models (and helper-built
models with subgraphs and functions) in graph-level ways and by retyping a graph input or output,
and requires that every mutant onnx.checker rejects is rejected by check-model too (KNOWN_MISSES
lists the exceptions, with why).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.graph import subgraphs  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F = TensorProto.FLOAT


def vi(name: str, elem: int = F, shape: Any = (2,)) -> Any:
    return helper.make_tensor_value_info(name, elem, None if shape is None else list(shape))


def make(
    nodes: list[Any],
    inputs: tuple[str, ...] = ("x",),
    outputs: tuple[str, ...] = ("y",),
    inits: tuple[Any, ...] = (),
    functions: tuple[Any, ...] = (),
    imports: tuple[tuple[str, int], ...] = (),
    extra_inputs: tuple[Any, ...] = (),
) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [*(vi(i) for i in inputs), *extra_inputs],
        [vi(o) for o in outputs],
        initializer=list(inits),
    )
    opsets = [helper.make_opsetid("", 18), *(helper.make_opsetid(d, v) for d, v in imports)]
    return helper.make_model(graph, opset_imports=opsets, functions=list(functions))


def onnx_rejects(model: Any) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception:  # ValidationError, InferenceError
        return True
    return False


def found(model: Any, registry: Registry) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in check_model(model, registry).findings]


CONST = helper.make_tensor("c", F, [2], [1.0, 2.0])
COND = vi("cond", TensorProto.BOOL, ())


def _if(then_nodes: list[Any], then_out: str = "a", pre: tuple[Any, ...] = ()) -> Any:
    then = helper.make_graph(then_nodes, "then", [], [vi(then_out)])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["b"])], "else", [], [vi("b")])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other)
    return make([*pre, node], extra_inputs=(COND,))


def _fn(
    nodes: list[Any], inputs: tuple[str, ...] = ("i",), own: tuple[tuple[str, int], ...] = (("", 18),)
) -> Any:
    function = helper.make_function(
        "local", "F", list(inputs), ["o"], nodes, [helper.make_opsetid(d, v) for d, v in own]
    )
    return make(
        [helper.make_node("F", ["x"], ["y"], domain="local")], functions=(function,), imports=(("local", 1),)
    )


relu, neg = (
    (lambda i, o, **kw: helper.make_node("Relu", [i], [o], **kw)),
    (lambda i, o: helper.make_node("Neg", [i], [o])),
)
no_ir = make([relu("x", "y")])
no_ir.ir_version = 0
no_type = make([relu("x", "y")])
no_type.graph.input[0].ClearField("type")
no_shape = make([relu("x", "y")])
no_shape.graph.output[0].type.tensor_type.ClearField("shape")
dup_function = _fn([relu("i", "o")])
dup_function.functions.append(dup_function.functions[0])

CASES: list[tuple[str, Any, list[tuple[str, str]]]] = [
    ("ir version", no_ir, [("MODEL-IR-VERSION-MISSING", "g")]),
    (
        "empty initializer name",
        make([relu("x", "y")], inits=(helper.make_tensor("", F, [1], [1.0]),)),
        [("MODEL-NAME-EMPTY", "g")],
    ),
    ("graph input twice", make([relu("x", "y")], inputs=("x", "x")), [("MODEL-NAME-DUPLICATE", "g")]),
    (
        "initializer twice",
        make([helper.make_node("Add", ["x", "c"], ["y"])], inits=(CONST, CONST)),
        [("MODEL-NAME-DUPLICATE", "g")],
    ),
    ("function twice", dup_function, [("MODEL-NAME-DUPLICATE", "g")]),
    ("input without type", no_type, [("MODEL-IO-TYPE-INCOMPLETE", "g")]),
    ("output without shape", no_shape, [("MODEL-IO-SHAPE-MISSING", "g")]),
    ("two producers", make([relu("x", "y"), neg("x", "y")]), [("MODEL-VALUE-REDEFINED", "g/Neg/1")]),
    (
        "output is a graph input",
        make([neg("x", "x"), relu("x", "y")]),
        [("MODEL-VALUE-REDEFINED", "g/Neg/0")],
    ),
    ("out of order", make([relu("t", "y"), neg("x", "t")]), [("MODEL-NODE-ORDER", "g/Relu/0")]),
    (
        "undefined",
        make([helper.make_node("Add", ["x", "bias"], ["y"])]),
        [("MODEL-VALUE-UNDEFINED", "g/Add/0")],
    ),
    ("output undefined", make([relu("x", "t")]), [("MODEL-OUTPUT-UNDEFINED", "g")]),
    (
        "subgraph reads a later outer value",
        _if([relu("p", "a")], pre=()),
        [("MODEL-VALUE-UNDEFINED", "g/If/0/then_branch/Relu/0")],
    ),
    (
        "subgraph redefines an outer value",
        _if([neg("x", "x"), relu("x", "a")]),
        [("MODEL-VALUE-REDEFINED", "g/If/0/then_branch/Neg/0")],
    ),
    (
        "subgraph output from outside",
        _if([], then_out="x"),
        [("MODEL-OUTPUT-UNDEFINED", "g/If/0/then_branch")],
    ),
    (
        "function SSA",
        _fn([relu("i", "o"), neg("i", "o")]),
        [("MODEL-VALUE-REDEFINED", "function:local.F/Neg/1")],
    ),
    (
        "function order",
        _fn([relu("t", "o"), neg("i", "t")]),
        [("MODEL-NODE-ORDER", "function:local.F/Relu/0")],
    ),
    ("function undefined", _fn([relu("q", "o")]), [("MODEL-VALUE-UNDEFINED", "function:local.F/Relu/0")]),
    (
        "function input twice",
        _fn([relu("i", "o")], inputs=("i", "i")),
        [("MODEL-NAME-DUPLICATE", "function:local.F")],
    ),
    (
        "function import",
        _fn([relu("i", "o")], own=()),
        [("MODEL-FUNCTION-IMPORT-MISSING", "function:local.F/Relu/0")],
    ),
]


@pytest.mark.parametrize(("name", "model", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_graph_rule_is_reported_where_onnx_rejects(
    name: str, model: Any, expected: list[tuple[str, str]], onnx_registry: Registry
) -> None:
    assert found(model, onnx_registry) == expected
    assert onnx_rejects(model), name  # the judge agrees the model is broken


def test_valid_scoping_passes(onnx_registry: Registry) -> None:
    """What onnx accepts: outer values read before the node, a Loop body input shadowing an outer
    name, an initializer that is also an input, a graph output that is a graph input."""
    ok = [
        _if([relu("p", "a")], pre=(neg("x", "p"),)),
        make([helper.make_node("Add", ["x", "c"], ["y"])], inputs=("x", "c"), inits=(CONST,)),
        make([relu("x", "y")], outputs=("y", "x")),
        _fn([relu("i", "o")]),
    ]
    body = helper.make_graph(
        [helper.make_node("Identity", ["cin"], ["cout"]), helper.make_node("Add", ["x", "x"], ["xo"])],
        "body",
        [vi("i", TensorProto.INT64, ()), vi("cin", TensorProto.BOOL, ()), vi("x")],
        [vi("cout", TensorProto.BOOL, ()), vi("xo")],
    )
    ok.append(
        make(
            [helper.make_node("Loop", ["m", "cond", "x"], ["y"], body=body)],
            extra_inputs=(vi("m", TensorProto.INT64, ()), COND),
        )
    )
    for model in ok:
        assert not onnx_rejects(model)
        assert found(model, onnx_registry) == []


# -- the differential test ---------------------------------------------------------------------


def _graphs(model: Any) -> list[tuple[Any, bool]]:
    """(graph, is the main graph): the main graph, then each subgraph, in walk order."""
    out = [(model.graph, True)]

    def visit(graph: Any) -> None:
        for node in graph.node:
            for _suffix, sub in subgraphs(node):
                out.append((sub, False))
                visit(sub)

    visit(model.graph)
    return out


def _dup_output(g: Any) -> bool:
    if len(g.node) < 2 or not g.node[0].output or not g.node[-1].output:
        return False
    g.node[-1].output[0] = g.node[0].output[0]
    return True


def _reverse(g: Any) -> bool:
    produced = {n for node in g.node for n in node.output}
    if len(g.node) < 2 or not any(n in produced for n in g.node[-1].input):
        return False
    nodes = list(g.node)
    del g.node[:]
    g.node.extend(reversed(nodes))
    return True


def _undefined_input(g: Any) -> bool:
    for node in g.node:
        for i, name in enumerate(node.input):
            if name:
                node.input[i] = "opset_test_undefined"
                return True
    return False


def _output_redefines_input(g: Any) -> bool:
    if not g.input or not g.node or not g.node[-1].output:
        return False
    g.node[-1].output[0] = g.input[0].name
    return True


def _dup_graph_input(g: Any) -> bool:
    if not g.input:
        return False
    g.input.append(g.input[0])
    return True


def _dup_initializer(g: Any) -> bool:
    if not g.initializer:
        return False
    g.initializer.append(g.initializer[0])
    return True


def _output_undefined(g: Any) -> bool:
    if not g.output:
        return False
    g.output[0].name = "opset_test_nowhere"
    return True


def _drop_node(g: Any) -> bool:
    """Remove a producer: its readers (or the graph outputs) are left undefined."""
    if len(g.node) < 2:
        return False
    del g.node[0]
    return True


def _clear_input_type(g: Any) -> bool:
    if not g.input:
        return False
    g.input[0].ClearField("type")
    return True


def _empty_name(g: Any) -> bool:
    if not g.initializer:
        return False
    g.initializer[0].name = ""
    return True


def _retype(info: Any) -> bool:
    """Give a tensor value another element type (float <-> double, anything else -> float)."""
    if not info.type.HasField("tensor_type") or not info.type.tensor_type.elem_type:
        return False
    elem = info.type.tensor_type.elem_type
    info.type.tensor_type.elem_type = TensorProto.DOUBLE if elem == F else F
    return True


def _retype_output(g: Any) -> bool:
    return bool(g.output) and _retype(g.output[0])


def _retype_input(g: Any) -> bool:
    return bool(g.input) and _retype(g.input[0])


GRAPH_MUTATIONS: dict[str, Callable[[Any], bool]] = {
    "retype_output": _retype_output,
    "retype_input": _retype_input,
    "dup_output": _dup_output,
    "reverse": _reverse,
    "undefined_input": _undefined_input,
    "output_redefines_input": _output_redefines_input,
    "dup_graph_input": _dup_graph_input,
    "dup_initializer": _dup_initializer,
    "output_undefined": _output_undefined,
    "drop_node": _drop_node,
    "clear_input_type": _clear_input_type,
    "empty_name": _empty_name,
}


def _drop_import(model: Any) -> bool:
    used = {n.domain for n in model.graph.node}
    for index, entry in enumerate(model.opset_import):
        if entry.domain in used or (entry.domain == "ai.onnx" and "" in used):
            del model.opset_import[index]
            return True
    return False


def mutants(model: Any, salt: int) -> list[tuple[str, Any]]:
    """Each graph mutation on a copy, on the main graph and (in rotation) on a subgraph."""
    out = []
    kinds = list(GRAPH_MUTATIONS)
    graph_count = len(_graphs(model))
    for index, kind in enumerate(kinds):
        target = 0 if graph_count == 1 else (salt + index) % graph_count
        mutant = copy.deepcopy(model)
        graph, _main = _graphs(mutant)[target]
        if GRAPH_MUTATIONS[kind](graph):
            out.append((f"{kind}{'@sub' if target else ''}", mutant))
    mutant = copy.deepcopy(model)
    if _drop_import(mutant):
        out.append(("drop_import", mutant))
    return out


def helper_models() -> list[tuple[str, Any]]:
    """Valid models with what the node test models lack: reads of outer values, functions."""
    return [
        ("helper/if", _if([relu("p", "t"), neg("t", "a")], pre=(neg("x", "p"),))),
        ("helper/function", _fn([relu("i", "t"), neg("t", "o")])),
        (
            "helper/initializer",
            make([helper.make_node("Add", ["x", "c"], ["t"]), relu("t", "y")], inits=(CONST,)),
        ),
    ]


# Mutants onnx.checker rejects that check-model lets through, by (operator, mutation), with why.
# All are retyped inputs or outputs whose rejection needs more than element-type inference.
KNOWN_MISSES: dict[tuple[str, str], str] = {
    (
        "BitCast",
        "retype_input",
    ): "onnx also requires input and output of equal bit width (a size rule, not a type)",
    (
        "LabelEncoder",
        "retype_input",
    ): "the input's type must match the keys_* attribute that is set (attribute-dependent input type)",
    ("OptionalGetElement", "retype_input"): "the output is the optional's element type: type_from cannot say "
    "'element of an input'",
    ("OptionalGetElement", "retype_output"): "as above",
    (
        "SplitToSequence",
        "retype_input",
    ): "the output is seq(<the input's type>): type_from cannot wrap a type",
    ("Adagrad", "retype_output"): "ai.onnx.preview.training: heterogeneous variadic outputs typed pairwise "
    "by the inputs",
    ("Adam", "retype_output"): "as Adagrad",
    ("Momentum", "retype_output"): "as Adagrad",
    ("F", "retype_input"): "a call of a model-local function: inference does not go through function bodies",
    ("F", "retype_output"): "as above",
}


def _excused(model: Any, kind: str) -> bool:
    return any((node.op_type, kind.split("@")[0]) in KNOWN_MISSES for node in model.graph.node)


@pytest.mark.report
def test_every_graph_mutant_onnx_rejects_is_rejected(
    onnx_registry: Registry, node_models: list[tuple[str, Any]]
) -> None:
    counts: Counter[str] = Counter()
    misses: list[str] = []
    models = [(n, m) for n, m in node_models if not onnx_rejects(m)] + helper_models()
    for salt, (name, model) in enumerate(models):
        for kind, mutant in mutants(model, salt):
            if not onnx_rejects(mutant):
                counts[f"{kind.split('@')[0]}:onnx-pass"] += 1
                counts["onnx-pass, check-model rejects"] += bool(check_model(mutant, onnx_registry).errors)
                continue
            counts[kind.split("@")[0]] += 1
            if not check_model(mutant, onnx_registry).errors:
                if _excused(mutant, kind):
                    counts["excused"] += 1
                else:
                    misses.append(f"{name} {kind}")
    print(
        f"\ngraph and type mutants of {len(models)} models rejected by onnx.checker:",
        dict(sorted((k, v) for k, v in counts.items() if "onnx-pass" not in k and k != "excused")),
    )
    print(f"of those, not rejected by check-model for a reason listed in KNOWN_MISSES: {counts['excused']}")
    print(
        "mutants onnx.checker accepts:", dict(sorted((k, v) for k, v in counts.items() if "onnx-pass" in k))
    )
    assert sum(v for k, v in counts.items() if "onnx-pass" not in k and k != "excused") >= 8000
    assert misses == [], misses
