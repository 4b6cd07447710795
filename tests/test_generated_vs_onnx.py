"""The generated Python builders of the onnx catalog, judged by onnx: a call whose values no
NodeProto can hold is refused with the runtime's BuildError naming the operator and the value,
never with an error from deep inside protobuf (nor accepted into a LightNode without onnx)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from toolkit.generate import GenerateContext
from toolkit.generate.pipeline import run_generators
from toolkit.generate.python import PACKAGE
from toolkit.registry.core import Registry

onnx = pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def catalog(onnx_registry: Registry, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package of the whole onnx catalog, importable for this module's tests."""
    root = tmp_path_factory.mktemp("catalog-python")
    for rel, data in run_generators(
        onnx_registry, GenerateContext(source="onnx-catalog"), ["python"]
    ).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    sys.path.insert(0, str(root / "python"))
    try:
        yield __import__(PACKAGE)
    finally:
        sys.path.remove(str(root / "python"))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _opset(catalog: ModuleType, version: int) -> object:
    return catalog.opset("", version)()


# Each call holds one value a NodeProto cannot carry, with what the error must say.
BAD_CALLS = [
    ("Gather", {"axis": 2**63}, r"ai\.onnx\.Gather-13: attribute 'axis' expects an int within int64"),
    ("Gather", {"axis": -(2**63) - 1}, r"attribute 'axis' expects an int within int64"),
    (
        "Gather",
        {"axis": 10**5000},
        r"attribute 'axis' expects an int within int64 \(int\), got int <16610 bits>",
    ),
    (
        "Transpose",
        {"perm": [0, 2**64]},
        r"ai\.onnx\.Transpose-\d+: attribute 'perm' expects an int within int64",
    ),
    (
        "LeakyRelu",
        {"alpha": 10**400},
        r"attribute 'alpha' expects a float \(an int this large has no float\)",
    ),
    (
        "Pad",
        {"mode": "re\udcffflect"},
        r"ai\.onnx\.Pad-\d+: attribute 'mode' expects a str that UTF-8 can encode",
    ),
    ("Relu", {"_name": 3}, r"ai\.onnx\.Relu-14: the node name must be a str UTF-8 can encode, got 3$"),
    ("Relu", {"_name": "n\udcff"}, r"the node name must be a str UTF-8 can encode, got 'n\\udcff'"),
    ("Relu", {"_outputs": ["y\ud800"]}, r"ai\.onnx\.Relu-14: output 0 is not a name UTF-8 can encode"),
]


def _inputs(op_type: str) -> list[str]:
    return {"Gather": ["data", "indices"], "Pad": ["data", "pads"]}.get(op_type, ["x"])


@pytest.mark.parametrize(("op_type", "kwargs", "message"), BAD_CALLS)
def test_values_no_node_can_hold_are_build_errors(
    catalog: ModuleType, op_type: str, kwargs: dict[str, object], message: str
) -> None:
    runtime = sys.modules[f"{PACKAGE}._runtime"]
    op = _opset(catalog, 21)
    with pytest.raises(runtime.BuildError, match=message):
        getattr(op, op_type)(*_inputs(op_type), **kwargs)
    # an input name too: it is refused before onnx sees it
    with pytest.raises(runtime.BuildError, match=r"input 0 is not a name UTF-8 can encode"):
        getattr(op, op_type)("x\udc80", *_inputs(op_type)[1:])


def test_light_nodes_hold_only_what_a_node_proto_could(
    catalog: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without onnx the same checks run, so a LightNode never holds a value onnx would refuse."""
    runtime = sys.modules[f"{PACKAGE}._runtime"]
    monkeypatch.setattr(runtime, "_onnx_checked", True)
    monkeypatch.setattr(runtime, "_onnx_helper", None)
    op = _opset(catalog, 21)
    with pytest.raises(runtime.BuildError, match=r"expects an int within int64"):
        op.Gather("data", "indices", axis=2**63)
    with pytest.raises(
        runtime.BuildError, match=r"the node name must be a str UTF-8 can encode, got b'relu'"
    ):
        op.Relu("x", _name=b"relu")
    # the edges of the range are values, kept as given
    node = op.Gather("data", "indices", axis=2**63 - 1).node
    assert isinstance(node, runtime.LightNode) and node.attribute[0].value == 2**63 - 1

    # With onnx, what the checks let through is what onnx holds (the int64 bounds, text that is
    # not ASCII, a large int for a float attribute), and the node passes onnx's checker.
    monkeypatch.undo()
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version, ctx.opset_imports = onnx.IR_VERSION, {"": 21}
    for axis in (2**63 - 1, -(2**63)):
        node = op.Gather("data", "indices", axis=axis, _name="gather \u00e9").node
        assert onnx.helper.get_attribute_value(node.attribute[0]) == axis and node.name == "gather \u00e9"
        onnx.checker.check_node(node, ctx)
    leaky = op.LeakyRelu("x", alpha=2**100).node
    assert onnx.helper.get_attribute_value(leaky.attribute[0]) == pytest.approx(2.0**100)
    pad = op.Pad("x", "p", mode="reflect", _outputs=["\u00ff"]).node
    assert list(pad.output) == ["\u00ff"]
    onnx.checker.check_node(pad, ctx)


def test_numpy_numbers_and_arrays_are_values_as_onnx_takes_them(catalog: ModuleType) -> None:
    """A producer computes attribute values with numpy: the builder takes what onnx's own
    `helper.make_node` takes (any Integral, any Real, a 1-D array) and builds the node onnx
    builds from the same numbers as plain Python values (an int for a float attribute is a float:
    the schema says so); what no node can hold stays a BuildError."""
    np = pytest.importorskip("numpy")
    runtime = sys.modules[f"{PACKAGE}._runtime"]
    op = _opset(catalog, 21)
    # (operator, inputs, numpy values, the same values as onnx's helper is given them)
    calls = [
        ("LeakyRelu", ["x"], {"alpha": np.float32(0.1)}, {"alpha": 0.1}),
        ("LeakyRelu", ["x"], {"alpha": np.int8(3)}, {"alpha": 3.0}),
        ("Gather", ["data", "indices"], {"axis": np.int64(-1)}, {"axis": -1}),
        ("Gather", ["data", "indices"], {"axis": np.uint8(1)}, {"axis": 1}),
        ("Transpose", ["x"], {"perm": np.array([1, 0, 2])}, {"perm": [1, 0, 2]}),
        ("Transpose", ["x"], {"perm": [np.int32(2), np.int64(0), 1]}, {"perm": [2, 0, 1]}),
        (
            "Resize",
            ["x", "", "scales"],
            {"axes": np.arange(2, dtype=np.int16), "cubic_coeff_a": np.float16(-0.5)},
            {"axes": [0, 1], "cubic_coeff_a": -0.5},
        ),
    ]
    for op_type, inputs, given, plain in calls:
        built = getattr(op, op_type)(*inputs, **given, _name="n", _outputs=["y"]).node
        expected = onnx.helper.make_node(op_type, inputs, ["y"], name="n", domain="", **plain)
        assert built == expected, (op_type, given)
    refused = [
        ("Gather", {"axis": np.uint64(2**64 - 1)}, r"attribute 'axis' expects an int within int64"),
        ("Gather", {"axis": np.float64(1.0)}, r"attribute 'axis' expects an int \(int\), got float64"),
        ("Transpose", {"perm": {1, 0}}, r"attribute 'perm' expects a list, a tuple or a 1-D array"),
        ("Transpose", {"perm": np.array(3)}, r"attribute 'perm' expects a list, a tuple or a 1-D array"),
        ("Transpose", {"perm": np.array([[1, 0]])}, r"attribute 'perm' expects an int \(ints\), got list"),
        ("LeakyRelu", {"alpha": np.bool_(True)}, r"attribute 'alpha' expects a float \(float\), got bool"),
    ]
    for op_type, kwargs, message in refused:
        with pytest.raises(runtime.BuildError, match=message):
            getattr(op, op_type)(*_inputs(op_type), **kwargs)
