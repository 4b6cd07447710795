"""`opset convert` never silently changes what a model computes (#25 item 1).

An implied downgrade is derived from the upgrade steps and both versions' signatures, and every
move writes the source default of an absent attribute whose meaning would otherwise change. A
hypothesis property per step kind: for random signature pairs and nodes, `downgrade(upgrade(node))`
and `upgrade(downgrade(node))` mean the node they started from (effective values, defaults filled),
or a step refuses. Then the real CLI: the issue's Gain example in a temporary repository, checked
numerically on onnxruntime; the shipped versions with function bodies converted both ways and
run; ADAPTER-NO-INVERSE where no downgrade can be derived.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.adapters import AdapterError, Node, apply_downgrade, apply_upgrade
from toolkit.cli import main
from toolkit.model.adapter_inverse import inverse_table
from toolkit.model.adapter_steps import STEP_KINDS, same_value
from toolkit.model.spec import (
    Adapter,
    AdapterStep,
    Attribute,
    AttrType,
    FormalParameter,
    OpSchema,
    ParamOption,
    TypeConstraint,
)

REPO = Path(__file__).resolve().parent.parent
UNSET = "<unset>"
DEFAULTS = st.sampled_from([None, 1, 2])  # equal or different between the versions, or none
VALUES = st.sampled_from([1, 2, 3])
TYPES = ("tensor(float)", "tensor(double)", "tensor(float16)")


# --------------------------------------------------------------------------- the property


def _attr(name: str, default: int | None) -> Attribute:
    return Attribute(name, AttrType.INT, default=default)


def _input(name: str, optional: bool = True) -> FormalParameter:
    return FormalParameter(name, "T", option=ParamOption.OPTIONAL if optional else ParamOption.SINGLE)


class Pair:
    """Two adjacent versions of `Op` with the upgrade `steps`, and the meaning conventions the
    adapter docs state: an absent attribute without a default means its counterpart's default
    (or the value a step says it means); an omitted input an attribute became means the
    attribute's default."""

    def __init__(self, draw: Any, kind: str) -> None:
        common = [f"k{i}" for i in range(draw(st.integers(0, 2)))]
        old_attrs = [_attr(n, draw(DEFAULTS)) for n in common]
        new_attrs = [_attr(n, draw(DEFAULTS)) for n in common]
        tail = [_input("Z")] if draw(st.booleans()) else []
        old_in, new_in = [_input("X", False)], [_input("X", False)]
        old_types = new_types = ("tensor(float)", "tensor(double)")
        step: dict[str, Any] = {}
        self.claims: dict[tuple[str, str], Any] = {}  # (side, attribute) -> what absence means
        self.meaningless: set[str] = set()  # old attributes the upgrade says mean nothing
        self.paired: dict[str, str] = {}  # old attribute -> new attribute (same meaning)
        self.input_attr: tuple[str, int] | None = None  # attribute <-> input at a position
        if kind == "remove_attribute":
            default = draw(DEFAULTS)
            old_attrs.append(_attr("r", default))
            step = {"attribute": "r"}
            if draw(st.booleans()):
                step["value"] = draw(VALUES)
                self.claims[("old", "r")] = step["value"]
            elif default is None:
                self.meaningless.add("r")
        elif kind == "rename_attribute":
            old_attrs.append(_attr("a", draw(DEFAULTS)))
            new_attrs.append(_attr("b", draw(DEFAULTS)))
            step = {"attribute": "a", "to": "b"}
            self.paired["a"] = "b"
        elif kind == "set_attribute_if_absent":
            new_default = draw(DEFAULTS)
            new_attrs.append(_attr("s", new_default))
            value = draw(VALUES)
            if draw(st.booleans()):
                old_default = draw(DEFAULTS)
                old_attrs.append(_attr("s", old_default))
                value = old_default if old_default is not None else value
                self.paired["s"] = "s"
                self.claims[("old", "s")] = value
            if new_default is None:
                self.claims[("new", "s")] = value
            step = {"attribute": "s", "value": value}
        elif kind in ("attribute_to_input", "input_to_attribute"):
            holder = (old_attrs, new_attrs)[kind == "input_to_attribute"]
            taker = (new_in, old_in)[kind == "input_to_attribute"]
            holder.append(_attr("m", draw(DEFAULTS)))
            taker.append(_input("m"))
            step = {"attribute": "m", "input": "m"}
            self.input_attr = ("m", 1)
        elif kind == "type_restriction":
            old_types = tuple(draw(st.sets(st.sampled_from(TYPES), min_size=1)))
            new_types = tuple(draw(st.sets(st.sampled_from(TYPES), min_size=1)))
            gone = tuple(t for t in old_types if t not in new_types)
            step = {"param": "T", "types": gone or old_types[:1]}
            if not gone:
                new_types = tuple(t for t in new_types if t != old_types[0]) or ("tensor(float16)",)
                if old_types[0] == "tensor(float16)" and new_types == ("tensor(float16)",):
                    new_types = (
                        ("tensor(double)",) if "tensor(double)" not in old_types else ("tensor(float)",)
                    )
        elif kind == "require_attribute":
            default = draw(DEFAULTS)
            old_attrs.append(_attr("q", default))
            new_attrs.append(_attr("q", default))
            self.paired["q"] = "q"
            step = {"attribute": "q", "values": tuple(sorted(draw(st.sets(VALUES, min_size=1))))}
        elif kind == "remove_input":
            old_in.append(_input("o"))
            step = {"input": "o"}
        self.paired.update({n: n for n in common})
        old_in += tail
        new_in += tail
        self.steps = (AdapterStep(kind, tuple(sorted(step.items()))),)
        self.old = self._schema(1, old_in, old_attrs, old_types, None)
        self.new = self._schema(2, new_in, new_attrs, new_types, Adapter(upgrade=self.steps))

    @staticmethod
    def _schema(
        since: int,
        inputs: list[FormalParameter],
        attrs: list[Attribute],
        types: tuple[str, ...],
        adapter: Any,
    ) -> OpSchema:
        return OpSchema(
            "com.example.p",
            "Op",
            since,
            inputs=tuple(inputs),
            outputs=(FormalParameter("Y", "T"),),
            attributes=tuple(attrs),
            type_constraints=(TypeConstraint("T", types),),
            adapter=adapter,
        )

    def node(self, draw: Any, side: str) -> tuple[Node, dict[str, Any], dict[str, str]]:
        """A random valid node of one side: each attribute present or not, each optional input
        given (as a constant) or omitted, X of one of the side's types."""
        schema = self.old if side == "old" else self.new
        attrs = {a.name: draw(VALUES) for a in schema.attributes if draw(st.booleans())}
        inputs, constants = ["X"], {}
        for formal in schema.inputs[1:]:
            if draw(st.booleans()):
                name = f"c_{formal.name}"
                inputs.append(name)
                constants[name] = draw(VALUES)
            else:
                inputs.append("")
        while inputs and not inputs[-1]:
            inputs.pop()
        types = {"X": draw(st.sampled_from(schema.type_constraints[0].allowed)), "Y": "tensor(float)"}
        types.update({name: types["X"] for name in constants})
        return Node("Op", inputs, ["Y"], attrs), constants, types

    def meaning(self, node: Node, side: str, constants: dict[str, Any]) -> dict[str, Any]:
        """The node's effective attribute values and inputs on its side."""
        schema, other = (self.old, self.new) if side == "old" else (self.new, self.old)
        back = {v: k for k, v in self.paired.items()}
        out: dict[str, Any] = {}
        for attr in schema.attributes:
            if side == "old" and attr.name in self.meaningless:
                continue
            out[attr.name] = self._absent(attr, side, other, self.paired if side == "old" else back)
            if attr.name in node.attributes:
                out[attr.name] = node.attributes[attr.name]
        for position, formal in enumerate(schema.inputs):
            given = node.inputs[position] if position < len(node.inputs) else ""
            value = constants.get(given, given) if given else UNSET
            if value is UNSET and self.input_attr and formal.name == self.input_attr[0]:
                attr = (self.old if side == "new" else self.new).attribute(formal.name)
                value = attr.default if attr is not None and attr.default is not None else UNSET
            out[f"input:{formal.name}"] = value
        return out

    def _absent(self, attr: Attribute, side: str, other: OpSchema, mapping: dict[str, str]) -> Any:
        if attr.default is not None:
            return attr.default
        if (side, attr.name) in self.claims:
            return self.claims[(side, attr.name)]
        counterpart = other.attribute(mapping.get(attr.name, "\0"))
        if counterpart is not None and counterpart.default is not None:
            return counterpart.default
        return UNSET


def _same_meaning(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)


def _move(pair: Pair, node: Node, constants: dict[str, Any], types: dict[str, str], up: bool) -> Any:
    context = {"constants": constants, "value_types": types}
    if up:
        return apply_upgrade(node, pair.old, pair.new, **context)
    return apply_downgrade(node, pair.new, pair.old, **context)


def _round_trip(pair: Pair, draw: Any, start: str) -> None:
    node, constants, types = pair.node(draw, start)
    first_up = start == "old"
    try:
        there = _move(pair, node, constants, types, first_up)
    except AdapterError:
        return  # refused: not silent
    target_allowed = (pair.new if first_up else pair.old).type_constraints[0].allowed
    assert types["X"] in target_allowed, "a node of a type the target does not accept was moved"
    constants = {**constants, **{c.name: c.value for c in there.constants}}
    types = {**types, **{c.name: types["X"] for c in there.constants}}
    other = "new" if start == "old" else "old"
    # Attributes that mean the same on both sides keep their effective value across the move.
    here_meaning, there_meaning = (
        pair.meaning(node, start, constants),
        pair.meaning(there.node, other, constants),
    )
    mapping = pair.paired if first_up else {v: k for k, v in pair.paired.items()}
    for name, value in here_meaning.items():
        if name in mapping and mapping[name] in there_meaning:
            assert same_value(there_meaning[mapping[name]], value), (name, there.node, node)
    try:
        back = _move(pair, there.node, constants, types, not first_up)
    except AdapterError:
        return
    constants.update({c.name: c.value for c in back.constants})
    assert _same_meaning(pair.meaning(back.node, start, constants), here_meaning), (
        node,
        there.node,
        back.node,
    )


@pytest.mark.parametrize("kind", [k for k in STEP_KINDS if k != "python"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trips_mean_the_same_node(kind: str, data: st.DataObject) -> None:
    pair = Pair(data.draw, kind)
    _round_trip(pair, data.draw, "old")
    _round_trip(pair, data.draw, "new")


def test_the_property_sees_the_old_implied_downgrade_as_wrong() -> None:
    """The issue's case through the property's own checker: the node that it must keep."""
    # draws: no common attribute, no tail input, new default 2, a value, the old version has `s`
    # with default 1
    fixed: list[Any] = [0, False, 2, 3, True, 1]
    pair = Pair(lambda strategy: fixed.pop(0), "set_attribute_if_absent")
    node = Node("Op", ["X"], ["Y"], {})
    down = apply_downgrade(node, pair.new, pair.old, value_types={"X": "tensor(float)"})
    assert down.node.attributes == {"s": 2}
    assert pair.meaning(down.node, "old", {})["s"] == pair.meaning(node, "new", {})["s"] == 2
    up = apply_upgrade(Node("Op", ["X"], ["Y"], {}), pair.old, pair.new)
    assert up.node.attributes == {"s": 1}


def test_the_docs_table_of_implied_downgrades_is_the_code() -> None:
    """docs/guide/authoring.md shows `inverse_table()`, one row per step kind."""
    page = (REPO / "docs" / "guide" / "authoring.md").read_text(encoding="utf-8")
    for kind, text in inverse_table():
        assert f"| `{kind}` | {text} |" in page, f"regenerate the implied-downgrade table: {kind}"
    assert [kind for kind, _ in inverse_table()] == list(STEP_KINDS)


# --------------------------------------------------------------------------- the CLI

GAIN_DOMAIN = (
    "domain: com.newco.audio\nopset_versions: [{version: 1, ir_version: 9}, {version: 2, ir_version: 9}]\n"
)
GAIN_BODY = """    function:
      opset_imports: {ai.onnx: 19}
      body: |
        g = Constant <value_float: float = @gain> ()
        gx = CastLike (g, X)
        Y = Mul (X, gx)
"""
GAIN = (
    """operator: Gain
domain: com.newco.audio
versions:
  - since_version: 1
    doc: Multiplies by `gain`.
    inputs: [{name: X, type: T}]
    outputs: [{name: Y, type: T}]
    attributes:
      gain: {type: float, default: 1.0}
    type_constraints:
      T: {allowed: [tensor(float)]}
"""
    + GAIN_BODY
    + """  - since_version: 2
    based_on: 1
    attributes:
      gain: {type: float, default: 2.0}
    adapter:
      upgrade:
{upgrade}
"""
    + GAIN_BODY
)


def _gain_repo(tmp_path: Path, upgrade: str) -> Path:
    tree = tmp_path / "opsets" / "com.newco.audio"
    tree.mkdir(parents=True)
    (tree / "domain.yaml").write_text(GAIN_DOMAIN, encoding="utf-8")
    (tree / "Gain.yaml").write_text(GAIN.replace("{upgrade}", upgrade), encoding="utf-8")
    return tmp_path / "opsets"


def _model(op: str, domain: str, version: int, inputs: dict[str, Any], **attrs: Any) -> Any:
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    node = helper.make_node(op, list(inputs), ["Y"], domain=domain, name="n", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, list(v.shape)) for n, v in inputs.items()],
        [helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, None)],
    )
    imports = [helper.make_opsetid(domain, version), helper.make_opsetid("", 19)]
    return helper.make_model(graph, opset_imports=imports, ir_version=10)


def _run(model: Any, registry: Any, feeds: dict[str, Any]) -> Any:
    """onnxruntime on a copy of `model` with its vendor operators' bodies attached as model-local
    functions (onnxruntime inlines them)."""
    ort = pytest.importorskip("onnxruntime")
    from toolkit.onnx_bridge.local_functions import attach_functions

    copy = type(model)()
    copy.CopyFrom(model)
    assert attach_functions(copy, registry)
    session = ort.InferenceSession(copy.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def _convert(
    tmp_path: Path, model: Any, specs: Path, domain: str, to: int, capsys: Any
) -> tuple[int, str, Any]:
    onnx = pytest.importorskip("onnx")
    source, out = tmp_path / "in.onnx", tmp_path / "out.onnx"
    out.unlink(missing_ok=True)
    onnx.save(model, source)
    code = main(["convert", str(source), "--to", f"{domain}={to}", "-o", str(out), "--specs", str(specs)])
    text = "".join(capsys.readouterr())
    return code, text, onnx.load(out) if out.exists() else None


def _attrs(model: Any) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in model.graph.node[-1].attribute}


@pytest.mark.parametrize(
    "upgrade",
    [
        "        - {kind: set_attribute_if_absent, attribute: gain, value: 1.0}",  # what `opset bump` suggests
        "        - {kind: compatible}",  # a default that changed with no step at all
    ],
)
def test_gain_keeps_its_meaning_both_ways(
    tmp_path: Path, upgrade: str, capsys: pytest.CaptureFixture[str]
) -> None:
    np = pytest.importorskip("numpy")
    from toolkit.registry.core import load_registry

    specs = _gain_repo(tmp_path, upgrade)
    assert main(["validate", str(specs)]) == 0, capsys.readouterr().out
    registry = load_registry([specs], cache=False)
    x = np.array([1.0, -3.0, 0.5], dtype=np.float32)
    # v2 without gain (2.0) -> v1: gain 2.0 written, outputs equal on onnxruntime.
    v2 = _model("Gain", "com.newco.audio", 2, {"X": x})
    code, text, v1 = _convert(tmp_path, v2, specs, "com.newco.audio", 1, capsys)
    assert code == 0, text
    assert _attrs(v1) == {"gain": 2.0}
    assert "wrote attribute 'gain' = 2.0 explicitly" in text
    np.testing.assert_array_equal(_run(v1, registry, {"X": x}), _run(v2, registry, {"X": x}))
    np.testing.assert_array_equal(_run(v1, registry, {"X": x}), 2 * x)
    # v1 without gain (1.0) -> v2: gain 1.0 written.
    old = _model("Gain", "com.newco.audio", 1, {"X": x})
    code, text, up = _convert(tmp_path, old, specs, "com.newco.audio", 2, capsys)
    assert code == 0, text
    assert _attrs(up) == {"gain": 1.0}
    np.testing.assert_array_equal(_run(up, registry, {"X": x}), _run(old, registry, {"X": x}))


def _shipped_cases() -> list[tuple[str, int, int, dict[str, Any], dict[str, Any]]]:
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(25)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    norm_x = rng.standard_normal((1, 2, 1, 3)).astype(np.float32)
    mean, std = np.array([0.5, -1.0], np.float32), np.array([2.0, 4.0], np.float32)
    return [
        ("FusedConv", 1, 2, {"X": x, "W": w}, {"group": 1}),  # activation appears with default 'none'
        ("FusedConv", 2, 1, {"X": x, "W": w}, {}),  # absent activation means 'none' in both
        ("FusedConv", 2, 1, {"X": x, "W": w}, {"activation": "none"}),
        ("Normalize", 1, 3, {"X": norm_x}, {"mean": mean.tolist(), "std": std.tolist()}),
        ("Normalize", 3, 1, {"X": norm_x, "mean": mean, "std": std}, {}),
    ]


@pytest.mark.parametrize("case", range(5))
def test_shipped_bodies_compute_the_same_after_convert(
    tmp_path: Path, case: int, capsys: pytest.CaptureFixture[str], shipped_registry: Any
) -> None:
    np = pytest.importorskip("numpy")
    op, start, to, feeds, attrs = _shipped_cases()[case]
    specs = REPO / "opsets"
    inputs = dict(feeds)
    model = _model(op, "com.acme.vision", start, inputs, **attrs)
    if start == 3:  # the statistics as initializers: constants the downgrade reads
        from onnx import numpy_helper

        graph = model.graph
        graph.initializer.extend(numpy_helper.from_array(feeds[n], n) for n in ("mean", "std"))
        keep = [i for i in graph.input if i.name == "X"]
        del graph.input[:]
        graph.input.extend(keep)
        inputs = {"X": feeds["X"]}
    code, text, converted = _convert(tmp_path, model, specs, "com.acme.vision", to, capsys)
    assert code == 0, text
    want = _run(model, shipped_registry, inputs)
    got = _run(converted, shipped_registry, inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


NO_INVERSE_UPGRADES = {
    "python": ('        - {kind: python, callable: "gain_adapters:upgrade"}', 10),
    "remove_input": ("        - {kind: remove_input, input: bias}", 10),
}


@pytest.mark.parametrize("kind", sorted(NO_INVERSE_UPGRADES))
def test_validate_requires_a_downgrade_where_none_can_be_derived(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade, _ = NO_INVERSE_UPGRADES[kind]
    text = GAIN.replace("{upgrade}", upgrade)
    if kind == "remove_input":  # v1 has an optional `bias` before `Z`; v2 drops it
        text = text.replace(
            "    inputs: [{name: X, type: T}]\n    outputs",
            "    inputs: [{name: X, type: T}, {name: bias, type: T, option: optional}, "
            "{name: Z, type: T, option: optional}]\n    outputs",
        ).replace(
            "    attributes:\n      gain: {type: float, default: 2.0}",
            "    inputs: [{name: X, type: T}, {name: Z, type: T, option: optional}]\n"
            "    attributes:\n      gain: {type: float, default: 2.0}",
        )
    specs = _gain_repo(tmp_path, "")
    path = specs / "com.newco.audio" / "Gain.yaml"
    path.write_text(text, encoding="utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row == upgrade)
    assert main(["validate", str(specs)]) == 1
    out = "".join(capsys.readouterr())
    assert (
        f"Gain.yaml:{line}:11: error[ADAPTER-NO-INVERSE]: com.newco.audio.Gain:2 writes no `downgrade`" in out
    )
    assert "hint: write the downgrade to com.newco.audio.Gain:1 under `adapter:`: downgrade: [" in out
    assert '{kind: python, callable: "your_module:gain_2_to_1"}' in out
    # With the downgrade written, the tree validates.
    path.write_text(
        text.replace(
            upgrade, upgrade + '\n      downgrade:\n        - {kind: python, callable: "gain_adapters:down"}'
        ),
        encoding="utf-8",
    )
    assert main(["validate", str(specs)]) == 0, capsys.readouterr().out


def test_convert_refuses_a_tree_whose_downgrade_cannot_be_derived(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The specs are checked before any node moves: the located finding, exit 1, nothing written."""
    np = pytest.importorskip("numpy")
    specs = _gain_repo(tmp_path, '        - {kind: python, callable: "gain_adapters:upgrade"}')
    model = _model("Gain", "com.newco.audio", 2, {"X": np.ones(2, np.float32)})
    code, text, out = _convert(tmp_path, model, specs, "com.newco.audio", 1, capsys)
    assert code == 1 and out is None
    assert "Gain.yaml:24:11: error[ADAPTER-NO-INVERSE]" in text
