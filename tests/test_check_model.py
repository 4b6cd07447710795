"""`opset check-model` against onnx 1.23.2: zero false positives on onnx's own test models,
the same verdict as onnx.checker on seeded faults, located findings with stable rule ids."""

from __future__ import annotations

import copy
import glob
import os
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pytest

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402

from toolkit.model.diagnostics import Severity  # noqa: E402
from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.check import CheckResult, check_model, graph_checks  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
KINDS = ("pytorch-converted", "pytorch-operator", "simple", "light", "real")


@pytest.fixture(scope="session")
def registry(onnx_registry: Registry, shipped_registry: Registry) -> Registry:
    return merge_registries(onnx_registry, shipped_registry)


@pytest.fixture(scope="session")
def shipped_models() -> list[tuple[str, Any]]:
    files = sorted(p for kind in KINDS for p in glob.glob(str(DATA / kind / "**" / "*.onnx"), recursive=True))
    return [(os.path.relpath(f, DATA), onnx.load(f)) for f in files]


def onnx_verdict(model: Any) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True, check_custom_domain=True)
    except Exception:  # onnx raises ValidationError, InferenceError, or SchemaError
        return False
    return True


@pytest.fixture(scope="session")
def unchecked() -> frozenset[str]:
    from toolkit.onnx_bridge.catalog import probe_unchecked_attributes

    return frozenset(probe_unchecked_attributes())


_UNCHECKED: frozenset[str] = frozenset({"ai.onnx.LayerNormalization:17"})


def ours(model: Any, registry: Registry) -> CheckResult:
    return check_model(model, registry, unchecked_attributes=_UNCHECKED)


def test_probe_finds_the_schemas_that_allow_unchecked_attributes(unchecked: frozenset[str]) -> None:
    assert unchecked == _UNCHECKED


class Checked(NamedTuple):
    """One model of the corpus: as shipped (`fault` None) or with one seeded fault, checked once
    by both paths (test_check_fastpath.both_paths)."""

    name: str
    fault: str | None
    model: Any
    plain: CheckResult
    fast: CheckResult  # what `ours` returns: the default path, with _UNCHECKED


@pytest.fixture(scope="module")
def corpus(
    registry: Registry, shipped_models: list[tuple[str, Any]], node_models: list[tuple[str, Any]]
) -> list[Checked]:
    """Every onnx test model, as shipped and with each fault `seed` plants, checked once for the
    three corpus tests below (each checked all of them itself: ~27,000 check_model calls where
    ~18,000 are the same work; the shared results are the same calls, made once). Module-scoped:
    the ~9,000 models and their findings are let go when this file's tests are done."""
    from test_check_fastpath import both_paths

    checked: list[Checked] = []
    for name, model in shipped_models + node_models:
        checked.append(Checked(name, None, model, *both_paths(model, registry, _UNCHECKED)))
        for kind in FAULTS:
            faulty = seed(model, kind, registry)
            if faulty is not None:
                checked.append(Checked(name, kind, faulty, *both_paths(faulty, registry, _UNCHECKED)))
    return checked


@pytest.mark.report
def test_zero_false_positives_on_onnx_test_data(
    shipped_models: list[tuple[str, Any]], node_models: list[tuple[str, Any]], corpus: list[Checked]
) -> None:
    checked = nodes = 0
    positives: list[str] = []
    for case in corpus:
        if case.fault is not None or not onnx_verdict(case.model):
            continue  # onnx itself rejects it (test_mvn's function body): not a false-positive candidate
        checked += 1
        nodes += case.fast.nodes
        positives.extend(f.format(case.name) for f in case.fast.findings if f.severity is not Severity.INFO)
    print(f"\ncheck-model on onnx test data: {checked} models, {nodes} nodes, {len(positives)} findings")
    assert len(shipped_models) >= 149 and len(node_models) >= 1800
    assert checked >= len(shipped_models) + len(node_models) - 2
    assert positives == []


def test_fast_path_agrees_on_onnx_test_data(registry: Registry, corpus: list[Checked]) -> None:
    """The fast path calls a node clean only where the reporting checker finds nothing, and the
    findings are the same without it: every test model, as shipped and with each seeded fault."""
    from test_check_fastpath import assert_fast_path_agrees

    for case in corpus:
        label = case.name if case.fault is None else f"{case.name} {case.fault}"
        assert_fast_path_agrees(case.model, registry, _UNCHECKED, label, (case.plain, case.fast))
    assert len(corpus) >= 2000 + 5000


# -- seeded faults ---------------------------------------------------------------------------


def _schema_for(node: Any, model: Any, registry: Registry) -> Any:
    imports = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    domain = "" if node.domain == "ai.onnx" else node.domain
    if domain not in imports or not registry.has_domain(domain):
        return None
    return registry.find_schema(node.op_type, imports[domain], domain)


def seed(model: Any, kind: str, registry: Registry) -> Any | None:
    """A copy of `model` with one fault of `kind` in its first top-level node that admits it."""
    for index, node in enumerate(model.graph.node):
        schema = _schema_for(node, model, registry)
        if schema is None:
            continue
        faulty = copy.deepcopy(model)
        target = faulty.graph.node[index]
        if kind == "missing_required":
            required = {a.name for a in schema.attributes if a.required}
            present = [i for i, a in enumerate(target.attribute) if a.name in required]
            if not present:
                continue
            del target.attribute[present[0]]
        elif kind == "unknown_attribute":
            target.attribute.append(helper.make_attribute("opset_not_an_attribute", 1))
        elif kind == "wrong_attribute_type":
            plain = [i for i, a in enumerate(target.attribute) if not a.name.startswith("__")]
            if not plain:
                continue
            old = target.attribute[plain[0]]
            new = helper.make_attribute(old.name, 1.5 if old.type == onnx.AttributeProto.INT else 7)
            target.attribute[plain[0]].CopyFrom(new)
        elif kind == "too_many_inputs":
            if schema.max_input >= 2**31 - 1 or not any(target.input):
                continue
            name = next(n for n in target.input if n)
            while len(target.input) <= schema.max_input:
                target.input.append(name)
        elif kind == "op_not_in_opset":
            first = registry.versions(node.op_type, schema.domain)[0].since_version
            if first <= 1:
                continue
            for entry in faulty.opset_import:
                if ("" if entry.domain == "ai.onnx" else entry.domain) == schema.domain:
                    entry.version = first - 1
        else:
            raise AssertionError(kind)
        return faulty
    return None


FAULTS = (
    "missing_required",
    "unknown_attribute",
    "wrong_attribute_type",
    "too_many_inputs",
    "op_not_in_opset",
)


@pytest.mark.report
def test_seeded_faults_match_onnx_checker(corpus: list[Checked]) -> None:
    counts: Counter[str] = Counter()
    disagreements: list[str] = []
    rejected = {case.name for case in corpus if case.fault is None and not onnx_verdict(case.model)}
    for case in corpus:
        if case.fault is None or case.name in rejected:
            continue
        kind, result = case.fault, case.fast
        expected = onnx_verdict(case.model)
        got = not result.errors
        counts[kind] += 1
        counts[f"{kind}:onnx-{'pass' if expected else 'fail'}"] += 1
        if got != expected:
            disagreements.append(
                f"{case.name} {kind}: onnx={'pass' if expected else 'fail'} ours={result.findings}"
            )
    print("\nseeded faults:", dict(sorted(counts.items())))
    assert all(counts[kind] >= 50 for kind in FAULTS), counts
    assert disagreements == []


def test_seeded_faults_get_the_right_rule(registry: Registry) -> None:
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3, 4, 4])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)

    def rules(*nodes: Any, opset: int = 18) -> list[str]:
        graph = helper.make_graph(list(nodes), "g", [x], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        # these cases are about the node rules (graph_checks.RULES are tested in test_graph_checks.py)
        return [f.rule for f in ours(model, registry).findings if f.rule not in graph_checks.RULES]

    assert rules(helper.make_node("Flatten", ["x"], ["y"], axis=1)) == []
    assert rules(helper.make_node("Flatten", ["x"], ["y"], axis=1, bogus=2)) == ["MODEL-ATTR-UNKNOWN"]
    assert rules(helper.make_node("Flatten", ["x"], ["y"], axis=1.0)) == ["MODEL-ATTR-TYPE"]
    assert rules(helper.make_node("Flatten", ["x", "x"], ["y"])) == ["MODEL-INPUT-COUNT"]
    assert rules(helper.make_node("Flatten", ["x"], ["y", "z"])) == ["MODEL-OUTPUT-COUNT"]
    assert rules(helper.make_node("Cast", ["x"], ["y"])) == ["MODEL-ATTR-REQUIRED"]
    assert rules(helper.make_node("Gelu", ["x"], ["y"]), opset=18) == ["MODEL-OP-NOT-IN-OPSET"]
    assert rules(helper.make_node("NoSuchOp", ["x"], ["y"])) == ["MODEL-OP-UNKNOWN"]
    assert rules(helper.make_node("Upsample", ["x", "x"], ["y"]), opset=10) == ["MODEL-OP-DEPRECATED"]
    assert rules(helper.make_node("Clip", ["x", "", "x"], ["y"])) == []  # skipped optional input
    assert rules(helper.make_node("Gemm", ["x", "", "x"], ["y"])) == ["MODEL-INPUT-EMPTY"]
    assert rules(helper.make_node("Relu", ["x"], ["y"], domain="com.nowhere")) == [
        "MODEL-DOMAIN-NOT-IMPORTED"
    ]
    flatten = helper.make_node("Flatten", ["x"], ["y"], axis=1)
    flatten.attribute.append(helper.make_attribute("axis", 2))
    assert rules(flatten) == ["MODEL-ATTR-DUPLICATE"]


def test_rarer_rules(registry: Registry) -> None:
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])

    def located(
        *nodes: Any, imports: tuple[tuple[str, int], ...] = (("", 18),), functions: Any = ()
    ) -> list[Any]:
        graph = helper.make_graph(list(nodes), "g", [x], [y])
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports], functions=list(functions)
        )
        return [
            (f.rule, f.path, f.severity.value)
            for f in ours(model, registry).findings
            if f.rule not in graph_checks.RULES
        ]

    empty_value = helper.make_node("ConstantOfShape", ["shape"], ["y"])
    empty_value.attribute.add(name="value", type=onnx.AttributeProto.TENSOR)
    assert located(empty_value) == [("MODEL-ATTR-VALUE-MISSING", "g/ConstantOfShape/0", "error")]
    assert located(helper.make_node("Dropout", ["x"], ["", "mask"])) == [
        ("MODEL-OUTPUT-EMPTY", "g/Dropout/0", "error")
    ]
    vendor = helper.make_node("Op", ["x"], ["y"], domain="com.unknown")
    assert located(vendor, vendor, imports=(("", 18), ("com.unknown", 1))) == [
        ("MODEL-DOMAIN-UNKNOWN", "g/Op/0", "warning")  # once per domain
    ]
    assert located(helper.make_node("Relu", ["x"], ["y"]), imports=(("", 99),))[0] == (
        "MODEL-OPSET-UNKNOWN",
        "g",
        "warning",
    )
    function = helper.make_function(
        "local", "Fn", ["a"], ["b"], [helper.make_node("Relu", ["a"], ["b"])], [helper.make_opsetid("", 18)]
    )
    call = helper.make_node("Fn", ["x", "x"], ["y"], domain="local", gain=2)
    assert located(call, imports=(("", 18), ("local", 1)), functions=[function]) == [
        ("MODEL-FUNCTION-CALL", "g/Fn/0", "error"),
        ("MODEL-FUNCTION-CALL", "g/Fn/0", "error"),
    ]


def test_type_bindings(registry: Registry) -> None:
    def rules(node: Any, a: int, b: int, out: int) -> list[str]:
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info("a", a, [2]), helper.make_tensor_value_info("b", b, [2])],
            [helper.make_tensor_value_info("y", out, [2])],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        return [f.rule for f in ours(model, registry).findings]

    f32, f64, s = onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.STRING
    assert rules(helper.make_node("Add", ["a", "b"], ["y"]), f32, f32, f32) == []
    assert rules(helper.make_node("Add", ["a", "b"], ["y"]), f32, f64, f32) == ["MODEL-TYPE-INCONSISTENT"]
    assert rules(helper.make_node("Add", ["a", "b"], ["y"]), s, s, s) == ["MODEL-TYPE-NOT-ALLOWED"] * 3
    # Cast's T1 and T2 bind independently; its output type is a different parameter.
    assert rules(helper.make_node("Cast", ["a"], ["y"], to=s), f32, f32, s) == []


def test_subgraphs_and_functions_are_located(registry: Registry) -> None:
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    cond = helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, [])
    bad = helper.make_node("Relu", ["x"], ["t"], name="inner_relu", alpha=1.0)
    branch = helper.make_graph(
        [bad], "then", [], [helper.make_tensor_value_info("t", onnx.TensorProto.FLOAT, [2])]
    )
    ok = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", onnx.TensorProto.FLOAT, [2])],
    )
    if_node = helper.make_node("If", ["c"], ["y"], name="branch", then_branch=branch, else_branch=ok)
    call = helper.make_node("MyFn", ["y"], ["z"], domain="local", name="call")
    function = helper.make_function(
        "local",
        "MyFn",
        ["a"],
        ["b"],
        [helper.make_node("Cast", ["a"], ["b"])],
        [helper.make_opsetid("", 18)],
    )
    graph = helper.make_graph(
        [if_node, call], "main", [x, cond], [helper.make_tensor_value_info("z", 1, [2])]
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
        functions=[function],
    )
    result = ours(model, registry)
    located = [(f.rule, f.path) for f in result.findings]
    assert located == [
        ("MODEL-ATTR-UNKNOWN", "main/branch/0/then_branch/inner_relu/0"),
        ("MODEL-ATTR-REQUIRED", "function:local.MyFn/Cast/0"),
    ]
    assert onnx_verdict(model) is False
    assert result.nodes == 5


def test_vendor_domain_model_onnx_passes_unchecked(registry: Registry) -> None:
    """onnx.checker skips an unregistered domain; we check it against our specs."""
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
    node = helper.make_node("A", ["x"], ["y"], domain="org.example.abc", scale=2)  # int, A:3 wants float
    model = helper.make_model(
        helper.make_graph([node], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("org.example.abc", 3)],
    )
    onnx.checker.check_model(model, full_check=True)  # passes: the domain is not checked
    assert [f.rule for f in ours(model, registry).findings] == ["MODEL-ATTR-TYPE"]
    model.opset_import[1].version = 4
    del node.attribute[:]
    model.graph.node[0].CopyFrom(helper.make_node("A", ["x"], ["y"], domain="org.example.abc"))
    onnx.checker.check_model(model, full_check=True)
    findings = ours(model, registry).findings
    assert [f.rule for f in findings] == ["MODEL-OP-REMOVED"]
    assert "replaced by C" in findings[0].hint


def test_a_catalog_is_imported_again_when_the_toolkit_code_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an imported catalog holds is made by the toolkit's code (importer, overlays, the shape
    checker choosing an overlay's alternative): a catalog of other code is never reused."""
    from toolkit.onnx_bridge import catalog

    filled: list[str] = []

    def fill(folder: Path) -> None:
        filled.append(catalog.toolkit_stamp())
        (folder / "x").write_text("x", encoding="utf-8")

    first = catalog.imported_dir("probe", "1", fill, tmp_path)
    assert catalog.imported_dir("probe", "1", fill, tmp_path) == first and len(filled) == 1
    monkeypatch.setattr(catalog, "toolkit_stamp", lambda: "an edited toolkit")
    second = catalog.imported_dir("probe", "1", fill, tmp_path)
    assert second != first and filled == [filled[0], "an edited toolkit"]


def test_catalog_is_imported_once_per_onnx_version(tmp_path: Path) -> None:
    from toolkit.onnx_bridge.catalog import (
        catalog_dir,
        code_digest,
        data_digest,
        onnx_unchecked_attributes,
    )

    first = catalog_dir(tmp_path)
    name = f"onnx-catalog-{onnx.__version__}-d{data_digest()}-c{code_digest()}"
    assert first.name == name and (first / ".complete").exists()
    stamp = (first / ".complete").stat().st_mtime_ns
    assert catalog_dir(tmp_path) == first and (first / ".complete").stat().st_mtime_ns == stamp
    assert onnx_unchecked_attributes(tmp_path) == _UNCHECKED
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no temp folders left behind
