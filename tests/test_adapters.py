"""Version adapters: step semantics on neutral nodes and NodeProto, ADAPTER-* spec checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolkit.adapters import (
    AdapterContext,
    AdapterError,
    AdapterResult,
    MissingAdapter,
    Node,
    apply_downgrade,
    apply_steps,
    apply_upgrade,
    constant_tensor,
    downgrade_node,
    inverse_steps,
    node_from_onnx,
    node_to_onnx,
    upgrade_node,
)
from toolkit.checks.run import load_specs
from toolkit.model.spec import AdapterStep

VISION = "com.acme.vision"


def python_adapter(node: Node, ctx: AdapterContext) -> Node:
    """Used by a `python` step below: renames the node's output, proving the callable ran."""
    out = node.copy()
    out.attributes["upgraded_from"] = ctx.source.since_version
    return out


def step(kind: str, **args: Any) -> AdapterStep:
    return AdapterStep(kind, tuple(sorted(args.items())))


# --------------------------------------------------------------------------- semantics


def test_attribute_to_input_and_back(shipped_registry) -> None:  # type: ignore[no-untyped-def]
    v1, v3 = shipped_registry.versions("Normalize", VISION)
    node = Node("Normalize", ["X"], ["Y"], {"mean": [0.5, 0.4], "std": [0.2, 0.3]}, VISION, name="norm")
    up = apply_upgrade(node, v1, v3, taken={"norm_mean"})
    assert up.node.inputs == ["X", "norm_mean_1", "norm_std"]
    assert up.node.attributes == {}
    assert [(c.name, c.value, c.element_type, c.like_input, c.dims) for c in up.constants] == [
        ("norm_mean_1", [0.5, 0.4], None, 0, (2,)),  # T is shared with X: same element type as X
        ("norm_std", [0.2, 0.3], None, 0, (2,)),
    ]
    assert node.inputs == ["X"], "the caller's node is never changed"
    # No downgrade list is written: the inverse of the upgrade is used.
    values = {c.name: c.value for c in up.constants}
    down = apply_downgrade(up.node, v3, v1, constants=values)
    assert down.node.inputs == ["X"]
    assert down.node.attributes == {"mean": [0.5, 0.4], "std": [0.2, 0.3]}
    assert sorted(down.dropped_inputs) == ["norm_mean_1", "norm_std"]
    with pytest.raises(
        AdapterError, match=r"input 2 \('norm_std'\) must be a constant to become attribute 'std'"
    ):
        apply_downgrade(up.node, v3, v1, constants={})


def test_set_if_absent_remove_and_type_restriction(shipped_registry) -> None:  # type: ignore[no-untyped-def]
    op = shipped_registry.operator("FusedConv", VISION)
    node = Node("FusedConv", ["X", "W"], ["Y"], {"group": 2}, VISION)
    up = upgrade_node(op, node, 1, 3)
    assert up.node.attributes == {"group": 2, "activation": "none"}
    explicit = Node("FusedConv", ["X", "W"], ["Y"], {"activation": "relu"}, VISION)
    assert upgrade_node(op, explicit, 1, 2).node.attributes == {"activation": "relu"}
    down = downgrade_node(op, up.node, 3, 1, value_types={"X": "tensor(float)", "W": "tensor(float)"})
    assert down.node.attributes == {"group": 2}
    assert down.notes == ["removed attribute 'activation' (was 'none')"]
    with pytest.raises(
        AdapterError, match=r"input 'X' has type tensor\(bfloat16\), which .*FusedConv:1 does not"
    ):
        downgrade_node(op, up.node, 2, 1, value_types={"X": "tensor(bfloat16)"})
    unchecked = downgrade_node(op, up.node, 2, 1)
    assert any("not checked" in note for note in unchecked.notes)


def test_downgrade_refuses_to_drop_a_meaningful_attribute(shipped_registry) -> None:  # type: ignore[no-untyped-def]
    v1, v2 = shipped_registry.versions("FusedConv", VISION)[:2]
    relu = Node("FusedConv", ["X", "W"], ["Y"], {"activation": "relu", "group": 1}, VISION, name="conv")
    with pytest.raises(AdapterError) as info:
        apply_downgrade(relu, v2, v1)
    message = str(info.value)
    assert "node 'conv'" in message and "attribute 'activation' is 'relu'" in message
    assert "default in com.acme.vision.FusedConv:2 is 'none'" in message
    for attrs in ({"activation": "none"}, {}, {"activation": b"none"}):
        node = Node("FusedConv", ["X", "W"], ["Y"], {"group": 1, **attrs}, VISION)
        assert apply_downgrade(node, v2, v1).node.attributes == {"group": 1}
    # An upgrade that drops an attribute refuses a value other than the default just the same
    # (it would change what the node computes); an attribute without a default is dropped.
    with pytest.raises(AdapterError, match=r"attribute 'activation' is 'relu'; .*FusedConv:1 has no such"):
        apply_steps(
            [step("remove_attribute", attribute="activation")], relu, AdapterContext(v2, v1, "upgrade")
        )
    plain = Node("FusedConv", ["X", "W"], ["Y"], {"activation": "none", "group": 1}, VISION)
    up = apply_steps(
        [step("remove_attribute", attribute="activation")], plain, AdapterContext(v2, v1, "upgrade")
    )
    assert up.node.attributes == {"group": 1}


def test_require_attribute_and_remove_input(shipped_registry) -> None:  # type: ignore[no-untyped-def]
    v1, v2 = shipped_registry.versions("FusedConv", VISION)[:2]
    ctx = AdapterContext(v2, v1, "downgrade")
    only = [step("require_attribute", attribute="activation", values=("none", "relu"))]
    for attrs in ({"activation": "relu"}, {}):  # absent: the default of v2, 'none'
        node = Node("FusedConv", ["X", "W"], ["Y"], attrs, VISION)
        assert apply_steps(only, node, ctx).node.attributes == attrs
    with pytest.raises(
        AdapterError, match=r"attribute 'activation' is 'tanh'; .*FusedConv:1 computes the same only"
    ):
        apply_steps(only, Node("FusedConv", ["X", "W"], ["Y"], {"activation": "tanh"}, VISION), ctx)
    least = [step("require_attribute", attribute="group", min=1)]
    assert apply_steps(least, Node("FusedConv", ["X", "W"], ["Y"], {"group": 3}, VISION), ctx)
    with pytest.raises(AdapterError, match=r"attribute 'group' is 0; .* accepts only values >= 1"):
        apply_steps(least, Node("FusedConv", ["X", "W"], ["Y"], {"group": 0}, VISION), ctx)
    drop = [step("remove_input", index=1)]
    assert apply_steps(drop, Node("FusedConv", ["X", ""], ["Y"], {}, VISION), ctx).node.inputs == ["X"]
    with pytest.raises(AdapterError, match=r"input 1 \('W'\) is given; .*FusedConv:1 has no such input"):
        apply_steps(drop, Node("FusedConv", ["X", "W"], ["Y"], {}, VISION), ctx)
    # A type restriction refuses a value whose type is unknown when types are looked up; one
    # known value of the type parameter tells the type of the others (one binding per node).
    banned = [step("type_restriction", param="T", types=("tensor(bfloat16)",))]
    node = Node("FusedConv", ["X", "W"], ["Y"], {}, VISION)
    with pytest.raises(AdapterError, match=r"input 'X' has no known type"):
        apply_steps(banned, node, AdapterContext(v2, v1, "downgrade", value_types={"Z": "tensor(float)"}))
    assert apply_steps(banned, node, AdapterContext(v2, v1, "downgrade", value_types={"W": "tensor(float)"}))


def test_derived_inverse_of_set_if_absent_keeps_only_its_value(tmp_path: Path) -> None:
    """The upgrade writes `precision: 16` (what version 1 did); only 16 may be dropped going back."""
    text = OP.replace("{steps}", "        - {kind: set_attribute_if_absent, attribute: precision, value: 16}")
    registry = _registry(tmp_path, text)
    v1, v2 = registry.versions("Scale", "com.example.adapt")
    (back,) = inverse_steps(v2.adapter.upgrade, v2, v1)  # type: ignore[union-attr]
    assert back == step("remove_attribute", attribute="precision", value=16)
    node = Node("Scale", ["X"], ["Y"], {"precision": 16})
    assert apply_downgrade(node, v2, v1).node.attributes == {}
    with pytest.raises(AdapterError, match=r"attribute 'precision' is 32; only 16 means"):
        apply_downgrade(Node("Scale", ["X"], ["Y"], {"precision": 32}), v2, v1)
    # Absent means version 2's default (32), which is not what version 1 did either.
    with pytest.raises(AdapterError, match=r"absent, so 32 \(the default of com.example.adapt.Scale:2\)"):
        apply_downgrade(Node("Scale", ["X"], ["Y"]), v2, v1)


def test_rename_inverse_and_python_steps(shipped_registry, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPSET_TOOLKIT_ALLOW_PYTHON_ADAPTERS", "1")  # the invoker's opt-in
    v1, v3 = shipped_registry.versions("Normalize", VISION)
    rename = [step("rename_attribute", attribute="mean", to="average")]
    assert inverse_steps(rename, v3, v1)[-1] == step("rename_attribute", attribute="average", to="mean")
    ctx = AdapterContext(v1, v3, "upgrade")
    node = Node("Normalize", ["X"], ["Y"], {"mean": [1.0], "average": [2.0]})
    with pytest.raises(AdapterError, match="cannot rename attribute 'mean' to 'average': the node has both"):
        apply_steps(rename, node, ctx)
    result = apply_steps([step("python", callable="test_adapters:python_adapter")], node, ctx)
    assert result.node.attributes["upgraded_from"] == 1
    with pytest.raises(AdapterError, match="has no inverse"):
        inverse_steps([step("python", callable="test_adapters:python_adapter")], v3, v1)
    with pytest.raises(AdapterError, match="cannot import module 'no_such_pkg"):
        apply_steps([step("python", callable="no_such_pkg.mod:f")], node, ctx)
    with pytest.raises(MissingAdapter, match="declares no adapter"):
        apply_upgrade(node, v1, v1)


def test_reduce_sum_axes_attribute_becomes_input(onnx_registry) -> None:  # type: ignore[no-untyped-def]
    """ONNX's ReduceSum 11 -> 13 (axes attribute -> input), run by onnx's reference evaluator."""
    onnx = pytest.importorskip("onnx")
    np = pytest.importorskip("numpy")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    old, new = onnx_registry.get_schema("ReduceSum", 11), onnx_registry.get_schema("ReduceSum", 13)
    steps = [step("attribute_to_input", attribute="axes", input="axes")]
    proto = helper.make_node("ReduceSum", ["X"], ["Y"], axes=[1], keepdims=0)
    result = apply_steps(steps, node_from_onnx(proto), AdapterContext(old, new, "upgrade"))
    assert result.node.inputs == ["X", "Y_axes"]
    (constant,) = result.constants
    assert constant.element_type == "int64"  # the formal input is tensor(int64)

    def model(node: Any, opset: int, inits: list[Any]) -> Any:
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])],
            initializer=inits,
        )
        built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.checker.check_model(built)
        return built

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = ReferenceEvaluator(model(proto, 11, [])).run(None, {"X": x})[0]
    upgraded = model(node_to_onnx(result.node, new), 13, [constant_tensor(constant)])
    after = ReferenceEvaluator(upgraded).run(None, {"X": x})[0]
    np.testing.assert_array_equal(before, after)
    # And back: the constant input becomes the attribute again.
    back_steps = inverse_steps(steps, new, old)
    back = apply_steps(
        back_steps, result.node, AdapterContext(new, old, "downgrade", {"Y_axes": np.array([1])})
    )
    assert back.node.inputs == ["X"] and back.node.attributes["axes"] == [1]
    assert isinstance(back, AdapterResult) and back.dropped_inputs == ["Y_axes"]


# --------------------------------------------------------------------------- checks

DOMAIN = """domain: com.example.adapt
opset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 9}]
"""
OP = """operator: Scale
domain: com.example.adapt
versions:
  - since_version: 1
    inputs: [{name: X, type: T}]
    outputs: [{name: Y, type: T}]
    attributes:
      factor: {type: float, default: 1.0}
      mode: {type: string, default: fast}
    type_constraints:
      T: {allowed: [tensor(float), tensor(double)]}
  - since_version: 2
    based_on: 1
    inputs: [{name: X, type: T}, {name: factor, type: T, option: optional}]
    attributes:
      factor: null
      precision: {type: int, default: 32}
    type_constraints:
      T: {allowed: [tensor(float)]}
    adapter:
      upgrade:
{steps}
"""


def _registry(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    from toolkit import load_registry

    folder = tmp_path / "com.example.adapt"
    folder.mkdir(exist_ok=True)
    (folder / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    (folder / "Scale.yaml").write_text(text, encoding="utf-8")
    return load_registry([tmp_path], cache=False)


def _adapter_findings(
    tmp_path: Path, steps: str, first_version_adapter: bool = False
) -> list[tuple[str, int]]:
    folder = tmp_path / "com.example.adapt"
    folder.mkdir(exist_ok=True)
    (folder / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    text = OP.replace("{steps}", steps)
    if first_version_adapter:
        text = text.replace(
            "    type_constraints:\n      T: {allowed: [tensor(float), tensor(double)]}\n",
            "    type_constraints:\n      T: {allowed: [tensor(float), tensor(double)]}\n"
            "    adapter: {upgrade: [{kind: compatible}]}\n",
            1,
        )
    (folder / "Scale.yaml").write_text(text, encoding="utf-8")
    result = load_specs([tmp_path])
    return sorted((d.rule, d.location.line) for d in result.diagnostics)


GOOD_STEPS = """        - {kind: attribute_to_input, attribute: factor, input: factor, index: 1}
        - {kind: set_attribute_if_absent, attribute: precision, value: 32}
        - {kind: type_restriction, param: T, types: [tensor(double)]}
        - {kind: python, callable: "my_pkg.adapters:scale_v2"}
      downgrade:  # a python upgrade has no derived inverse (ADAPTER-NO-INVERSE without it)
        - {kind: python, callable: "my_pkg.adapters:scale_v1"}
"""


def test_good_adapter_is_clean(tmp_path: Path) -> None:
    assert _adapter_findings(tmp_path, GOOD_STEPS) == []


def test_shipped_specs_have_no_adapter_findings(shipped_registry) -> None:  # type: ignore[no-untyped-def]
    assert not [d for d in shipped_registry.diagnostics if d.rule.startswith("ADAPTER-")]


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ("        - {kind: remove_attribute, attribute: precision}", "ADAPTER-UNKNOWN-ATTRIBUTE"),
        ("        - {kind: rename_attribute, attribute: mode, to: style}", "ADAPTER-UNKNOWN-ATTRIBUTE"),
        ("        - {kind: rename_attribute, attribute: mode}", "ADAPTER-ARGS"),
        ("        - {kind: set_attribute_if_absent, attribute: mode}", "ADAPTER-ARGS"),
        (
            "        - {kind: set_attribute_if_absent, attribute: precision, value: high}",
            "ADAPTER-VALUE-TYPE",
        ),
        ("        - {kind: attribute_to_input, attribute: factor, input: scale}", "ADAPTER-UNKNOWN-INPUT"),
        ("        - {kind: attribute_to_input, attribute: factor, index: 5}", "ADAPTER-UNKNOWN-INPUT"),
        (
            "        - {kind: attribute_to_input, attribute: factor, input: factor, index: 0}",
            "ADAPTER-UNKNOWN-INPUT",
        ),
        (
            "        - {kind: attribute_to_input, attribute: precision, input: factor}",
            "ADAPTER-UNKNOWN-ATTRIBUTE",
        ),
        (
            "        - {kind: input_to_attribute, input: factor, attribute: precision}",
            "ADAPTER-UNKNOWN-INPUT",
        ),
        ("        - {kind: type_restriction, param: U, types: [tensor(double)]}", "ADAPTER-UNKNOWN-PARAM"),
        (
            "        - {kind: type_restriction, param: T, types: [tensor(float)]}",
            "ADAPTER-TYPE-STILL-ALLOWED",
        ),
        ("        - {kind: type_restriction, param: T, types: [tensor(int8)]}", "ADAPTER-TYPE-UNKNOWN"),
        ('        - {kind: python, callable: "my_pkg.class:f"}', "ADAPTER-CALLABLE"),
        ("        - {kind: compatible, attribute: factor}", "ADAPTER-ARGS ADAPTER-NOT-COMPATIBLE"),
        ("        - {kind: remove_attribute, attribute: mode, value: 3}", "ADAPTER-VALUE-TYPE"),
        ("        - {kind: require_attribute, attribute: mode}", "ADAPTER-ARGS"),
        ("        - {kind: require_attribute, attribute: nope, min: 0}", "ADAPTER-UNKNOWN-ATTRIBUTE"),
        ("        - {kind: require_attribute, attribute: mode, values: [3]}", "ADAPTER-VALUE-TYPE"),
        ("        - {kind: remove_input, index: 7}", "ADAPTER-UNKNOWN-INPUT"),
        ("        - {kind: remove_input}", "ADAPTER-ARGS"),
    ],
)
def test_bad_steps_are_located(tmp_path: Path, steps: str, expected: str) -> None:
    assert _adapter_findings(tmp_path, steps) == [(rule, 22) for rule in expected.split()]


COMPAT_DOMAIN = """domain: com.example.compat
opset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 9}]
"""
COMPAT_OP = """operator: Shift
domain: com.example.compat
versions:
  - since_version: 1
    inputs: [{name: X, type: T}, {name: amount, type: T, option: optional}]
    outputs: [{name: Y, type: T}]
    attributes:
      mode: {type: string, default: wrap}
    type_constraints:
      T: {allowed: [tensor(float), tensor(double)]}
  - since_version: 2
    based_on: 1
{change}
    adapter:
      upgrade:
        - {kind: compatible}
"""


@pytest.mark.parametrize(
    ("change", "why", "step"),
    [
        (
            "    attributes: {alpha: {type: float, required: true}}",
            "attribute `alpha` added",
            "set_attribute_if_absent, attribute: alpha",
        ),
        (
            "    attributes: {mode: {type: string, required: true}}",
            "attribute `mode` became required",
            "set_attribute_if_absent, attribute: mode",
        ),
        ("    attributes: {mode: null}", "attribute `mode` removed", "remove_attribute, attribute: mode"),
        (
            "    inputs: [{name: X, type: T}, {name: amount, type: T}]",
            "input `amount` is no longer optional",
            "a `python` step",
        ),
        (
            "    inputs: [{name: X, type: T}, {name: amount, type: T}, {name: scale, type: T}]",
            "input `scale` added",
            "attribute_to_input, attribute: ..., input: scale",
        ),
        ("    inputs: [{name: X, type: T}]", "input `amount` removed", "remove_input, input: amount"),
        (
            "    type_constraints: {T: {allowed: [tensor(float)]}}",
            "tensor(double)",
            "type_restriction, param: T",
        ),
    ],
)
def test_compatible_step_on_an_invalidating_change(tmp_path: Path, change: str, why: str, step: str) -> None:
    folder = tmp_path / "com.example.compat"
    folder.mkdir()
    (folder / "domain.yaml").write_text(COMPAT_DOMAIN, encoding="utf-8")
    (folder / "Shift.yaml").write_text(COMPAT_OP.replace("{change}", change), encoding="utf-8")
    diags = load_specs([tmp_path]).diagnostics
    assert [(d.rule, d.severity.value, d.location.line) for d in diags] == [
        ("ADAPTER-NOT-COMPATIBLE", "error", 16)
    ]
    assert why in diags[0].message and "com.example.compat.Shift:1 node is not a valid" in diags[0].message
    # the hint proposes the step for the change found (`node_moves.step_for`), not a fixed list
    assert diags[0].hint.startswith("write the steps that move the node instead of `compatible`: ")
    assert step in diags[0].hint, diags[0].hint


@pytest.mark.parametrize(
    "change",
    [
        "    attributes: {alpha: {type: float, default: 1.0}}",  # optional with a default: old nodes stay valid
        "    inputs: [{name: X, type: T}, {name: amount, type: T, option: optional}, "
        "{name: scale, type: T, option: optional}]",
        "    type_constraints: {T: {allowed: [tensor(float), tensor(double), tensor(float16)]}}",
    ],
)
def test_compatible_step_on_a_widening_change_is_fine(tmp_path: Path, change: str) -> None:
    folder = tmp_path / "com.example.compat"
    folder.mkdir()
    (folder / "domain.yaml").write_text(COMPAT_DOMAIN, encoding="utf-8")
    (folder / "Shift.yaml").write_text(COMPAT_OP.replace("{change}", change), encoding="utf-8")
    assert load_specs([tmp_path]).diagnostics == []


def test_compatible_next_to_steps_that_handle_the_change(tmp_path: Path) -> None:
    folder = tmp_path / "com.example.compat"
    folder.mkdir()
    (folder / "domain.yaml").write_text(COMPAT_DOMAIN, encoding="utf-8")
    text = COMPAT_OP.replace("{change}", "    type_constraints: {T: {allowed: [tensor(float)]}}").replace(
        "        - {kind: compatible}\n",
        "        - {kind: compatible}\n        - {kind: type_restriction, param: T, types: [tensor(double)]}\n",
    )
    (folder / "Shift.yaml").write_text(text, encoding="utf-8")
    assert load_specs([tmp_path]).diagnostics == []


def test_empty_upgrade_passes_schema_and_checks(tmp_path: Path) -> None:
    """The stub `opset bump` writes is valid spec text; the gate and convert treat it as no adapter."""
    assert _adapter_findings(tmp_path, "        []") == []
    text = OP.replace("    adapter:\n      upgrade:\n{steps}\n", "    adapter: {upgrade: []}\n")
    registry = _registry(tmp_path, text)
    v1, v2 = registry.versions("Scale", "com.example.adapt")
    assert v2.adapter is not None and v2.adapter.upgrade == () and v2.adapter.downgrade is None
    node = Node("Scale", ["X"], ["Y"], {"factor": 2.0})
    with pytest.raises(MissingAdapter, match=r"its `upgrade` list is empty"):
        apply_upgrade(node, v1, v2)
    with pytest.raises(MissingAdapter, match=r"its `upgrade` list is empty"):
        apply_downgrade(node, v2, v1)


def test_adapter_on_first_version(tmp_path: Path) -> None:
    findings = _adapter_findings(tmp_path, GOOD_STEPS, first_version_adapter=True)
    assert findings == [("ADAPTER-NO-PREVIOUS", 12)]


def test_bad_callable_rejected_by_schema(tmp_path: Path) -> None:
    findings = _adapter_findings(tmp_path, "        - {kind: python, callable: not-a-callable}")
    assert findings and findings[0][1] == 22 and findings[0][0].startswith("SCHEMA-")
