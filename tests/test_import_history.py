"""The importer on every onnx release since 1.14 and the gate on real release history (#26).

- Function bodies are printed by the toolkit's own printer from the NodeProtos (no
  `onnx.printer.to_text(NodeProto)`, which onnx 1.14-1.21 lack), floats exact as float32.
- FUNCTION-BODY-CHANGED compares bodies as structure and names the first differing node and field.
- A default carrying only a doc (onnx 1.15's LabelEncoder-4) imports; releases older than the
  supported range are refused with exit 2; an empty doc is no DOC-CHANGED.
- The importer in a venv of the oldest supported onnx (1.14.1), built with pip and cached.
"""

from __future__ import annotations

import importlib.util
import math
import struct
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.model.diagnostics import UsageError
from toolkit.model.examples import ExampleTensor
from toolkit.model.function_diff import body_difference
from toolkit.model.onnx_text import parse_nodes
from toolkit.model.onnx_text_print import float32_text, print_nodes

onnx = pytest.importorskip("onnx")
import onnx.helper  # noqa: E402, F811
import onnx.numpy_helper  # noqa: E402
import onnx.printer  # noqa: E402

from toolkit.model.codec_functions import encode_nodes  # noqa: E402
from toolkit.onnx_bridge import importer  # noqa: E402
from toolkit.onnx_bridge.function_nodes import text_nodes  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
T = onnx.TensorProto


def _f32(value: float) -> float:
    result: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return result


# -- the printer --------------------------------------------------------------------------------


def test_float32_text_is_the_shortest_decimal_that_reads_back_as_the_same_float32() -> None:
    import random

    rng = random.Random(26)
    samples = [math.tau, 0.1, 1e-5, 3.4028234663852886e38, 1.401298464324817e-45, -0.0, 2.0, 1 / 3]
    samples += [_f32(rng.uniform(-1e6, 1e6)) for _ in range(300)]
    samples += [_f32(rng.uniform(-1, 1) * 10.0 ** rng.randint(-40, 38)) for _ in range(300)]
    for value in samples:
        text = float32_text(value)
        assert struct.pack("<f", float(text)) == struct.pack("<f", _f32(value)), (value, text)
        mantissa = text.lower().split("e")[0].replace("-", "").replace(".", "")
        digits = len(mantissa.strip("0")) or 1
        if digits > 1:  # one digit fewer never identifies the same float32
            assert _f32(float(f"{_f32(value):.{digits - 1}g}")) != _f32(value), (value, text)
    assert float32_text(math.tau) == "6.2831855"  # onnx 1.22's printer wrote 6.28319, another float32
    assert (float32_text(math.inf), float32_text(-math.inf), float32_text(math.nan)) == ("inf", "-inf", "nan")


def _body_nodes() -> list[Any]:
    """NodeProtos with every kind of value the text syntax holds, built here."""
    import numpy as np

    raw = onnx.numpy_helper.from_array(np.array([[1.5, -2.25], [math.tau, 1e-7]], dtype=np.float32))
    assert raw.raw_data  # from_array stores raw bytes: the printer decodes them
    typed = onnx.helper.make_tensor("t", T.INT64, [3], [1, -2, 2**40])
    strings = onnx.helper.make_tensor("s", T.STRING, [2], [b'quote " back \\ ', b"line\nbreak"])
    double = onnx.helper.make_tensor("d", T.DOUBLE, [], [0.1])
    branch = onnx.helper.make_graph(
        [onnx.helper.make_node("Neg", ["x"], ["y"])],
        "then_branch",
        [onnx.helper.make_tensor_value_info("x", T.FLOAT, ["N", 3])],
        [onnx.helper.make_tensor_value_info("y", T.FLOAT, None)],
    )
    ref = onnx.AttributeProto(name="axis", type=onnx.AttributeProto.INT, ref_attr_name="axis")
    special = onnx.helper.make_node(
        "Custom",
        ["a", "", "c", ""],
        ["out", "weird name"],
        domain="com.example",
        alpha=math.tau,
        floats=[-math.inf, math.nan, 1e-5, 0.1],
        label='tab\tand "q"',
        labels=["a", ""],
    )
    special.attribute.append(ref)
    special.attribute.append(onnx.AttributeProto(name="ints", type=onnx.AttributeProto.INTS))
    return [
        onnx.helper.make_node("Constant", [], ["c0"], value=raw),
        onnx.helper.make_node("Constant", [], ["c1"], value=typed),
        onnx.helper.make_node("Constant", [], ["c2"], value=strings),
        onnx.helper.make_node("Constant", [], ["c3"], value=double),
        onnx.helper.make_node("If", ["cond"], ["r"], then_branch=branch, else_branch=branch),
        special,
    ]


def _plain(nodes: Any) -> list[Any]:
    """What a node means: op, domain, inputs, outputs, attributes with their values as onnx reads them."""
    out = []
    for node in nodes:
        attrs = []
        for attr in node.attribute:
            value = onnx.helper.get_attribute_value(attr) if not attr.ref_attr_name else None
            if isinstance(value, onnx.TensorProto):
                array = onnx.numpy_helper.to_array(value)
                value = (value.data_type, tuple(value.dims), repr(array.tolist()))
            elif isinstance(value, onnx.GraphProto):
                value = (str(value.input), str(value.output), _plain(value.node))
            elif isinstance(value, (float, list)):
                value = repr(value)  # nan == nan as text
            attrs.append((attr.name, attr.type, attr.ref_attr_name, value))
        out.append((node.op_type, node.domain, list(node.input), list(node.output), sorted(attrs)))
    return out


def test_printed_nodes_read_back_as_the_same_nodes() -> None:
    nodes = _body_nodes()
    text = print_nodes(text_nodes(nodes, strict=True))
    function = onnx.FunctionProto()
    encode_nodes(function.node, parse_nodes(text))
    assert _plain(function.node) == _plain(nodes), text
    assert "float[2, 2] {1.5, -2.25, 6.2831855, 1e-07}" in text
    # onnx's own parser reads it too (the printer writes onnx's syntax, not a dialect), but for the
    # escapes in strings (onnx's parser reads `\n` as `n`) and a graph value's rank-0 shape
    # (`float[] y`, which onnx's parser reads as no shape): the nodes without those
    plain = [node for index, node in enumerate(nodes) if index not in (2, 4, 5)]
    reread = onnx.parser.parse_function(
        '<domain: "d", opset_import: ["": 18, "com.example": 1]>\nf (cond) => (r) {\n'
        + print_nodes(text_nodes(plain, strict=True))
        + "}"
    )
    assert _plain(reread.node) == _plain(plain)


def test_a_value_without_a_text_syntax_is_named() -> None:
    node = onnx.helper.make_node(
        "Constant", [], ["c"], value=onnx.helper.make_tensor("h", T.FLOAT16, [1], [1.0])
    )
    with pytest.raises(ValueError, match=r"node 0 \(Constant\), attribute 'value': .*float16"):
        text_nodes([node], strict=True)
    assert text_nodes([node])[0].attributes[0].value is not None  # the checker still reads the type


def test_import_without_onnx_printer_to_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """onnx 1.14-1.21 have no `printer.to_text(NodeProto)`: the import must not call it."""

    def missing(*_: Any) -> str:
        raise TypeError("Unsupported argument type.")  # what onnx < 1.22 does with a NodeProto

    monkeypatch.setattr(onnx.printer, "to_text", missing)
    out = tmp_path / "catalog"
    assert main(["import-onnx", "--out", str(out), "--domain", "ai.onnx"]) == 0
    text = (out / "ai.onnx" / "HannWindow.yaml").read_text(encoding="utf-8")
    assert "Tau = Constant <value: tensor = float {6.2831855}> ()" in text


def test_older_onnx_is_refused_with_the_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(onnx, "__version__", "1.13.1")
    assert main(["import-onnx", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "onnx 1.13.1 is installed" in err and "onnx 1.14 and later" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    with pytest.raises(
        UsageError, match=r"onnxruntime 1\.15\.1 is installed; .* onnxruntime 1\.16 and later"
    ):
        importer.check_release("onnxruntime", "1.15.1")
    importer.check_release("onnxruntime", "1.16.3")
    importer.check_release("onnx", "1.23.2")


# -- defaults onnx 1.15 wrote -------------------------------------------------------------------


def _fake_schema(attributes: dict[str, Any]) -> Any:
    param = SimpleNamespace(
        name="X",
        type_str="T",
        description="",
        option="FormalParameterOption.Single",
        is_homogeneous=True,
        min_arity=1,
        differentiation_category="DifferentiationCategory.Unknown",
    )
    return SimpleNamespace(
        name="LabelEncoder",
        domain="ai.onnx.ml",
        since_version=4,
        support_level="SupportType.COMMON",
        deprecated=False,
        doc="Maps each element.",
        inputs=(param,),
        outputs=(SimpleNamespace(**{**vars(param), "name": "Y"}),),
        attributes=attributes,
        type_constraints=(
            SimpleNamespace(type_param_str="T", allowed_type_strs=("tensor(float)",), description=""),
        ),
        has_function=False,
        has_context_dependent_function=False,
    )


def _tensor_attribute(default: Any) -> Any:
    return SimpleNamespace(
        type="AttrType.TENSOR", required=False, default_value=default, description="A default tensor."
    )


def test_a_default_with_only_a_doc_imports_as_doc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """onnx 1.15.0's LabelEncoder-4 `default_tensor`: a TENSOR default with no tensor, its doc only."""
    default = onnx.AttributeProto(
        name="default_tensor",
        type=onnx.AttributeProto.TENSOR,
        doc_string='{"_Unused"} if values_* has string type.',
    )
    schema = _fake_schema({"default_tensor": _tensor_attribute(default)})
    monkeypatch.setattr(
        importer, "_collect", lambda source: ([schema], {"ai.onnx.ml": (1, 4)}, lambda d, v: 3)
    )
    out = tmp_path / "catalog"
    assert main(["import-onnx", "--out", str(out)]) == 0
    from toolkit.checks.run import load_specs

    result = load_specs([out])
    assert result.errors == []
    (attr,) = result.specs.operators[0].versions[0].attributes
    assert (attr.name, attr.default) == ("default_tensor", None)
    assert attr.doc == 'A default tensor. {"_Unused"} if values_* has string type.'  # onnx 1.16's wording


def test_a_tensor_default_with_a_value_is_written_as_a_literal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = onnx.helper.make_attribute("default_tensor", onnx.helper.make_tensor("t", T.FLOAT, [1], [-0.0]))
    schema = _fake_schema({"default_tensor": _tensor_attribute(default)})
    monkeypatch.setattr(
        importer, "_collect", lambda source: ([schema], {"ai.onnx.ml": (1, 4)}, lambda d, v: 3)
    )
    out = tmp_path / "out"
    assert main(["import-onnx", "--out", str(out)]) == 0
    from toolkit.checks.run import load_specs

    result = load_specs([out])
    assert result.errors == []
    (attr,) = result.specs.operators[0].versions[0].attributes
    assert attr.default == ExampleTensor("float", (1,), (-0.0,))
    assert str(attr.default.data[0]) == "-0.0"  # type: ignore[union-attr]


def test_a_tensor_default_without_a_literal_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    default = onnx.helper.make_attribute(
        "default_tensor", onnx.helper.make_tensor("t", T.COMPLEX64, [1], [complex(1, 0)])
    )
    schema = _fake_schema({"default_tensor": _tensor_attribute(default)})
    monkeypatch.setattr(
        importer, "_collect", lambda source: ([schema], {"ai.onnx.ml": (1, 4)}, lambda d, v: 3)
    )
    assert main(["import-onnx", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "ai.onnx.ml.LabelEncoder-4" in err and "'default_tensor': its default has no DSL literal" in err
    assert "complex64" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


# -- the gate: bodies as structure ----------------------------------------------------------------

_OP = """operator: Window
domain: com.example
versions:
  - since_version: 1
    doc: {doc}
    inputs:
      - {{name: X, type: T}}
    outputs:
      - {{name: Y, type: T}}
    attributes:
      alpha: {{type: float, default: 1.0}}
    type_constraints:
      T: {{allowed: ["tensor(float)"]}}
    function:
      opset_imports: {{ai.onnx: {opset}}}
      body: |
{body}"""
_DOMAIN = """domain: com.example
opset_versions:
  - {version: 1, ir_version: 8}
"""
BODY = (
    "Tau = Constant <value: tensor = float {{{tau}}}> ()\n"
    "Scaled = Mul <> (X, Tau)\n"
    "Y = Loop <body: graph = g (int64 i, bool c, float x) => (bool c2, float y) {{ c2 = Identity (c) y = Identity (x) }}> (, , Scaled)\n"
)


def _tree(root: Path, body: str, *, opset: int = 18, doc: str = "A window.") -> Path:
    folder = root / "com.example"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(_DOMAIN, encoding="utf-8")
    indented = "".join(f"        {line}\n" for line in body.splitlines())
    text = _OP.format(body=indented, opset=opset, doc=doc or '""')
    (folder / "Window.yaml").write_text(text, encoding="utf-8")
    return root


def _gate(tmp_path: Path, old: Path, new: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["diff", "--against", str(old), "--specs", str(new), "--no-cache"])
    return code, capsys.readouterr().out


def _simple(body: str) -> str:
    return body.replace("Mul <> (X, Tau)", "Mul (X, Tau)")


def test_the_same_float32_spelled_differently_is_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _tree(tmp_path / "old", _simple(BODY.format(tau="6.283185482025146")))
    relaid = BODY.format(tau="6.2831855").replace("Mul <> (X, Tau)", "Mul (X,Tau)  # layout only")
    new = _tree(tmp_path / "new", relaid)
    code, out = _gate(tmp_path, old, new, capsys)
    assert code == 0 and "FUNCTION-BODY-CHANGED" not in out, out


def test_a_different_float32_names_the_node_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _tree(tmp_path / "old", _simple(BODY.format(tau="6.28319")))  # what onnx 1.22's printer wrote
    new = _tree(tmp_path / "new", _simple(BODY.format(tau="6.2831855")))
    code, out = _gate(tmp_path, old, new, capsys)
    assert code == 1
    line = next(x for x in out.splitlines() if "FUNCTION-BODY-CHANGED" in x)
    assert "new/com.example/Window.yaml:14:5: error[FUNCTION-BODY-CHANGED]" in line, line  # `function:`
    assert "has a different function body: node 0 (Constant): attribute `value`" in line
    assert "float {6.28319} -> value: tensor = float {6.2831855}" in line


@pytest.mark.parametrize(
    ("edit", "detail"),
    [
        (
            ("c2 = Identity (c)", "c2 = Not (c)"),
            "node 2 (Loop): attribute `body`: node 0 (Identity): operator Identity -> Not",
        ),
        (("(bool c2,", "(bool[] c2,"), "node 2 (Loop): attribute `body`: the graph's outputs differ"),
        (("Mul (X, Tau)", "Mul (Tau, X)"), "node 1 (Mul): inputs (X, Tau) -> (Tau, X)"),
        (("(, , Scaled)", "(, , Scaled)\nZ = Identity (Y)"), "node 3 (Identity) added (3 -> 4 nodes)"),
    ],
)
def test_structural_differences_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], detail: str
) -> None:
    body = _simple(BODY.format(tau="6.2831855"))
    assert edit[0] in body
    old = _tree(tmp_path / "old", body)
    new = _tree(tmp_path / "new", body.replace(*edit))
    code, out = _gate(tmp_path, old, new, capsys)
    assert code == 1 and f"has a different function body: {detail}" in out, out


def test_opset_imports_difference_is_named() -> None:
    nodes = parse_nodes("Y = Relu (X)")
    assert body_difference(nodes, [("", 18)], nodes, [("", 18)]) is None
    assert (
        body_difference(nodes, [("", 18)], nodes, [("", 19)])
        == "opset imports {ai.onnx: 18} -> {ai.onnx: 19}"
    )
    attrs = parse_nodes("Y = F <a: float = 0, b: floats = [1, 2.5], c: int = 3> (X)")
    reordered = parse_nodes("Y = F <c: int = 3, b: floats = [1.0, 2.5e0], a: float = 0.0> (X)")
    assert body_difference(attrs, [], reordered, []) is None
    assert body_difference(
        attrs, [], parse_nodes("Y = F <a: float = -0.0, b: floats = [1, 2.5], c: int = 3> (X)"), []
    ) == ("node 0 (F): attribute `a`: a: float = 0.0 -> a: float = -0.0")


def test_an_empty_doc_is_unknown_not_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """onnxruntime before 1.22 has no operator docs: an imported old catalog has none."""
    body = _simple(BODY.format(tau="6.2831855"))
    without = _tree(tmp_path / "without", body, doc="")
    with_doc = _tree(tmp_path / "with", body, doc="A window.")
    changed = _tree(tmp_path / "changed", body, doc="Another window.")
    for old, new in ((without, with_doc), (with_doc, without)):
        code, out = _gate(tmp_path, old, new, capsys)
        assert code == 0 and "DOC-CHANGED" not in out, out
    code, out = _gate(tmp_path, with_doc, changed, capsys)
    assert code == 0 and "info[DOC-CHANGED]" in out, out


# -- the oldest supported onnx, in a venv of its own ----------------------------------------------

OLDEST = "1.14.1"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_history", REPO / "tools" / "bench_history.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def oldest_catalog() -> Path:
    """onnx 1.14.1's catalog, imported in a venv built with pip (first run: about a minute) and
    kept in the history cache (OPSET_TOOLKIT_HISTORY_CACHE, else
    ~/.cache/opset-toolkit-history); later runs import again only when the import code changed."""
    bench = _bench()
    cache = bench.default_cache()
    folder = cache / f"onnx-{OLDEST}"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        python = bench.ensure_venv(folder, "onnx", OLDEST, lambda _: None)
    except RuntimeError as error:
        reach = subprocess.run(
            [sys.executable, "-m", "pip", "index", "versions", "onnx"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if reach.returncode:
            pytest.skip(f"PyPI is unreachable (pip index versions onnx: {reach.stderr.strip()[-200:]})")
        raise AssertionError(str(error)) from None
    catalog: Path = bench.ensure_catalog(folder, python, "onnx", OLDEST, lambda _: None)
    return catalog


def test_oldest_supported_onnx_imports_and_validates(oldest_catalog: Path, onnx_registry: Any) -> None:
    from toolkit.checks.run import load_specs
    from toolkit.registry.core import load_registry

    result = load_specs([oldest_catalog])
    assert result.errors == []
    assert sum(len(op.versions) for op in result.specs.operators) == 486
    registry = load_registry([oldest_catalog], cache=False)
    for domain, name, since in [
        ("", "HannWindow", 17),
        ("", "Add", 14),
        ("ai.onnx.ml", "LabelEncoder", 2),
        ("", "Col2Im", 18),
    ]:
        found = registry.find_schema(name, since, domain)
        assert found is not None and found.since_version == since, (name, since)
    assert (
        registry.find_schema("LabelEncoder", 4, "ai.onnx.ml").since_version == 2
    )  # ml opset 4 came with 1.15
    for name, since in [("HannWindow", 17), ("HammingWindow", 17), ("BlackmanWindow", 17), ("HardSwish", 14)]:
        old, new = registry.find_schema(name, since, ""), onnx_registry.find_schema(name, since, "")
        assert old.function is not None and new.function is not None
        assert body_difference(
            parse_nodes(old.function.text), old.function.opset_imports,
            parse_nodes(new.function.text), new.function.opset_imports,
        ) is None, name  # fmt: skip
    assert "6.2831855" in registry.find_schema("HannWindow", 17, "").function.text
