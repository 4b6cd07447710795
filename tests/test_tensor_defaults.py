"""Tensor, sparse-tensor and graph attribute defaults (issue #26 item 3): written as DSL literals,
validated with located ATTR-DEFAULT-TYPE errors, carried to every output (docs pages, Python
docstrings, the schema document in the spec's form and in onnx's AttributeProto, the load cache,
`register_onnx`), compared by the gate, and written by `import-onnx` from a schema registered in
onnx at test time, which round-trips to an equal onnx default."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.model.codec import specset_from_schema_documents
from toolkit.model.examples import ExampleTensor, GraphValue, SparseTensorValue
from toolkit.proto import OperatorSchemaSetProto

DOMAIN = """\
domain: com.test.tdef
opset_versions:
  - {version: 1, ir_version: 9}
"""

# A graph whose string attribute would be live HTML, and would break a table cell, if not escaped.
GRAPH = """\
g (float[N] X) => (float[N] Y) {
  Z = Relu (X)
  Y = com.test.tdef.Tag <label: string = "<script>alert(1)</script>|x"> (Z)
}
"""

ATTRIBUTES = f"""\
      value: {{type: tensor, doc: The value., default: {{dtype: float, shape: [2], data: [1.5, -2.0]}}}}
      sp:
        type: sparse_tensor
        doc: Sparse.
        default:
          values: {{dtype: int64, data: [7, 9]}}
          indices: {{dtype: int64, data: [1, 3]}}
          dims: [2, 2]
      body:
        type: graph
        doc: A body.
        default: |
{textwrap.indent(GRAPH, " " * 10)}"""


def _operator(attributes: str = ATTRIBUTES) -> str:
    return (
        "operator: Op\ndomain: com.test.tdef\nversions:\n"
        "  - since_version: 1\n    doc: Copies X.\n"
        "    inputs:\n      - {name: X, type: T}\n"
        "    outputs:\n      - {name: Y, type: T}\n"
        "    type_constraints:\n      T: {allowed: [tensor(float)]}\n"
        f"    attributes:\n{attributes}"
    )


def _tree(root: Path, operator: str) -> Path:
    folder = root / "com.test.tdef"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    (folder / "Op.yaml").write_text(operator)
    return root


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


TENSOR = ExampleTensor("float", (2,), (1.5, -2.0))
SPARSE = SparseTensorValue(ExampleTensor("int64", (2,), (7, 9)), ExampleTensor("int64", (2,), (1, 3)), (2, 2))


@pytest.fixture
def generated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    specs = _tree(tmp_path / "specs", _operator())
    out = tmp_path / "out"
    code, _, err = _run(["generate", "--specs", str(specs), "--out", str(out)], capsys)
    assert code == 0, err
    return specs, out


def test_docs_page_shows_each_default_readably_and_escaped(generated: tuple[Path, Path]) -> None:
    _, out = generated
    page = (out / "docs" / "com.test.tdef" / "ops" / "Op.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in page.splitlines() if line.startswith("| `")}
    assert "default is `float[2] = [1.5, -2.0]`" in rows["`value`"]
    assert (
        "default is `sparse int64[2, 2]: values int64[2] = [7, 9], indices int64[2] = [1, 3]`" in rows["`sp`"]
    )
    body = rows["`body`"]
    assert "g (float[N] X) => (float[N] Y) { Z = Relu (X) Y = com.test.tdef.Tag" in body
    # the script is inside a code span (text on the page), and the pipe does not split the cell,
    # neither as the site's renderer (Python-Markdown, mkdocs) reads it nor as GitHub's (GFM, which
    # cuts a cell at a `|` even inside a code span: the pipe is written `\|`, which Python-Markdown
    # shows as written inside code, the price of one text both read safely)
    assert "<script>" not in page.replace(body, "")
    import markdown
    from markdown_it import MarkdownIt

    html = markdown.markdown(page, extensions=["tables"])
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;\\|x" in html
    row = next(r for r in html.split("<tr>") if "<code>body</code>" in r)
    assert row.count("<td>") == 4, row  # name, type, default, doc
    gfm = MarkdownIt("commonmark").enable("table").render(page)
    assert "<script>" not in gfm and "&lt;script&gt;alert(1)&lt;/script&gt;|x" in gfm
    row = next(r for r in gfm.split("<tr>") if "<code>body</code>" in r)
    assert row.count("<td>") == 4, row


def test_schema_document_carries_the_literal_and_onnx_attribute(generated: tuple[Path, Path]) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    _, out = generated
    document = (out / "proto" / "com.test.tdef" / "schemas.pb").read_bytes()
    message = OperatorSchemaSetProto.FromString(document)
    attrs = {a.name: a for a in message.operators[0].versions[0].attributes}
    tensor = attrs["value"]
    assert tensor.WhichOneof("default_value") == "default_tensor"
    assert (tensor.default_tensor.dtype, list(tensor.default_tensor.shape)) == ("float", [2])
    assert list(tensor.default_tensor.floats) == [1.5, -2.0]
    # onnx's own form, decoded by the real onnx package
    as_onnx = onnx.AttributeProto.FromString(tensor.default_attribute.SerializeToString())
    assert as_onnx.type == onnx.AttributeProto.TENSOR and as_onnx.name == "value"
    assert numpy_helper.to_array(as_onnx.t).tolist() == [1.5, -2.0]
    sparse = onnx.AttributeProto.FromString(attrs["sp"].default_attribute.SerializeToString())
    assert numpy_helper.to_array(sparse.sparse_tensor.values).tolist() == [7, 9]
    assert numpy_helper.to_array(sparse.sparse_tensor.indices).tolist() == [1, 3]
    assert list(sparse.sparse_tensor.dims) == [2, 2]
    graph = onnx.AttributeProto.FromString(attrs["body"].default_attribute.SerializeToString()).g
    assert [n.op_type for n in graph.node] == ["Relu", "Tag"]
    assert [i.name for i in graph.input] == ["X"] and graph.node[1].attribute[0].s.startswith(b"<script>")
    # and the codec reads the spec's form back exactly
    decoded = specset_from_schema_documents([document]).operators[0].versions[0].attribute_map
    assert decoded["value"].default == TENSOR and decoded["sp"].default == SPARSE
    assert decoded["body"].default == GraphValue(GRAPH)


def test_load_cache_keeps_the_defaults(
    generated: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from toolkit.registry.core import load_registry

    specs, _ = generated
    cold = load_registry([specs])
    assert list((tmp_path / "cache").rglob("registry-*")), "the load cache was not filled"

    def no_load(*args: object, **kwargs: object) -> object:
        raise AssertionError("loaded the specs again instead of reading the cache")

    monkeypatch.setattr("toolkit.checks.run.load_specs", no_load)
    warm = load_registry([specs])
    attrs = warm.operator("Op", "com.test.tdef").versions[0].attribute_map
    assert attrs["value"].default == TENSOR and attrs["sp"].default == SPARSE
    assert attrs["body"].default == GraphValue(GRAPH)
    assert warm.operators("com.test.tdef") == cold.operators("com.test.tdef")


def test_python_docstrings_name_the_defaults(generated: tuple[Path, Path]) -> None:
    _, out = generated
    package = out / "python"
    texts = {p.name: p.read_text(encoding="utf-8") for p in package.rglob("*.py")}
    for text in texts.values():
        ast.parse(text)  # the hostile graph text did not break a string or docstring
    schema = texts["Op.py"]
    assert 'AttrInfo("value", "tensor", doc="The value. (default float[2] = [1.5, -2.0])")' in schema
    assert "default=" not in schema  # a tensor default has no Python literal: it is named in the doc
    opsets = texts["_opsets.py"]
    assert "value: The value. (default float[2] = [1.5, -2.0])" in opsets


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        ("data: [1.5, -2.0]", "data: [1.5, -3.0]", "float[2] = [1.5, -3.0]"),
        ("data: [1, 3]", "data: [0, 3]", "indices int64[2] = [0, 3]"),
        ("Z = Relu (X)", "Z = Sigmoid (X)", "Z = Sigmoid (X)"),
    ],
)
def test_gate_flags_a_changed_default(
    old: str, new: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree(tmp_path / "old", _operator())
    changed = _operator()
    assert old in changed
    after = _tree(tmp_path / "new", changed.replace(old, new, 1))
    args = ["diff", "--against", str(before), "--specs", str(after), "--no-cache", "--format", "json"]
    code, stdout, err = _run(args, capsys)
    findings = json.loads(stdout)["findings"]
    assert [f["rule"] for f in findings] == ["ATTR-DEFAULT-CHANGED"], (findings, err)
    assert shown in findings[0]["message"]
    assert code == 1
    same = ["diff", "--against", str(before), "--specs", str(before), "--no-cache", "--format", "json"]
    assert _run(same, capsys)[0] == 0


# (the attributes block, the text the error points at (its first occurrence), words of the message)
BAD = {
    "count": (
        "      v: {type: tensor, default: {dtype: float, shape: [3], data: [1.0, 2.0]}}\n",
        "[3]",
        "holds 3 elements but `data` has 2",
    ),
    "range": (
        "      v: {type: tensor, default: {dtype: int8, data: [1, 300]}}\n",
        "[1, 300]",
        "300 is outside the range of int8",
    ),
    "dtype": (
        "      v: {type: tensor, default: {dtype: complex64, data: [1]}}\n",
        "complex64",
        'element type "complex64" is not supported in a default tensor',
    ),
    # a default's literal has no JSON Schema check: the reader validates what examples' schema says
    "shape-text": (
        '      v: {type: tensor, default: {dtype: float, shape: "ab", data: [1.0]}}\n',
        '"ab"',
        '`shape` "ab" of a default tensor',
    ),
    "shape-names": (
        "      v: {type: tensor, default: {dtype: float, shape: [a, b], data: [1.0]}}\n",
        "[a, b]",
        "not a list of sizes",
    ),
    "shape-scalar": (
        "      v: {type: tensor, default: {dtype: float, shape: 7, data: [1.0]}}\n",
        "7,",
        "`shape` 7 of a default tensor is",
    ),
    "shape-negative": (
        "      v: {type: tensor, default: {dtype: float, shape: [-1, -2], data: [1.0, 2.0]}}\n",
        "[-1",
        "`shape` [-1, -2] of a default tensor is",
    ),
    "shape-bool": (
        "      v: {type: tensor, default: {dtype: float, shape: [true, 2], data: [1.0, 2.0]}}\n",
        "[true",
        "`shape` [true, 2] of a default tensor is",
    ),
    "dtype-list": (
        "      v: {type: tensor, default: {dtype: [1], data: [1.0]}}\n",
        "[1],",
        "element type [1] is not supported in a default tensor",
    ),
    "unknown-key": (
        "      v: {type: tensor, default: {dtype: float, data: [1.0], extra: 3}}\n",
        "extra",
        "a default tensor has no key `extra`",
    ),
    "sparse-values-key": (
        "      s: {type: sparse_tensor, default: {values: {dtype: float, data: [1.0], shape: [1], fill: 0},"
        " indices: {dtype: int64, data: [0]}, dims: [2]}}\n",
        "fill",
        "has no key `fill`",
    ),
    "file": (
        "      v: {type: tensor, default: {file: x.npy}}\n",
        "x.npy",
        "written inline, not read from a file",
    ),
    "scalar": ("      v: {type: tensor, default: 3}\n", "3}", "is not a tensor literal"),
    "huge-shape": (
        "      v: {type: tensor, default: {dtype: int8, shape: "
        + json.dumps([2**62] * 3000)
        + ", data: [1]}}\n",
        "[4611686018427387904, ",
        "holds more than 18446744073709551616 elements",
    ),
    "sparse-range": (
        "      s: {type: sparse_tensor, default: {values: {dtype: float, data: [1.0]},"
        " indices: {dtype: int64, data: [4]}, dims: [2, 2]}}\n",
        "{dtype: int64",
        "index 4 is outside the 4 elements",
    ),
    "sparse-order": (
        "      s: {type: sparse_tensor, default: {values: {dtype: float, data: [1.0, 2.0]},"
        " indices: {dtype: int64, shape: [2, 2], data: [1, 1, 0, 1]}, dims: [2, 2]}}\n",
        "{dtype: int64",
        "not strictly ascending",
    ),
    "sparse-dense-bomb": (
        "      s: {type: sparse_tensor, default: {values: {dtype: float, data: [1.0]},"
        " indices: {dtype: int64, data: [0]}, dims: [1099511627776, 1099511627776]}}\n",
        "[1099511627776",
        "has more than 1048576 elements",
    ),
    "sparse-keys": (
        "      s: {type: sparse_tensor, default: {values: {dtype: float, data: [1.0]}}}\n",
        "{values",
        "exactly `values`, `indices` and `dims`",
    ),
    "graph": (
        "      g:\n        type: graph\n        default: |\n          g (X) => (Y) {\n            Y = Relu X\n          }\n",
        "X\n          }",
        "expected '('",
    ),
}


def _position(text: str, token: str) -> tuple[int, int]:
    offset = text.index(token)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_literal_is_located(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    attributes, token, words = BAD[case]
    monkeypatch.chdir(tmp_path)
    operator = _operator(attributes)
    specs = _tree(Path("specs"), operator)
    # (a huge shape or dims is refused at the bound, not multiplied out: its message says "more
    # than" the bound, where a product worked out whole would give the exact count)
    code, out, err = _run(["validate", "--specs", str(specs), "--no-cache"], capsys)
    text = out + err
    assert code == 1, text
    line, column = _position(operator, token)
    where = f"specs/com.test.tdef/Op.yaml:{line}:{column}: error[ATTR-DEFAULT-TYPE]: "
    assert where in text and words in text, text
    assert "hint: " in text and "Traceback" not in text


def test_import_onnx_round_trips_to_an_equal_onnx_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx = pytest.importorskip("onnx")
    if not hasattr(onnx.defs, "deregister_schema"):
        pytest.skip("onnx.defs.deregister_schema is new in onnx 1.16")
    import numpy
    import onnx.parser
    from onnx import helper, numpy_helper

    from toolkit.onnx_bridge.register import deregister_onnx, register_onnx
    from toolkit.registry.core import load_registry

    originals = {
        "value": helper.make_attribute(
            "value", numpy_helper.from_array(numpy.array([[0.1, -2.5]], dtype=numpy.float32))
        ),
        "sp": helper.make_attribute(
            "sp",
            helper.make_sparse_tensor(
                numpy_helper.from_array(numpy.array([7, 9], dtype=numpy.int64)),
                numpy_helper.from_array(numpy.array([1, 3], dtype=numpy.int64)),
                [2, 2],
            ),
        ),
        # as onnx.parser writes it (it sets a node's domain even when empty, as the toolkit does)
        "body": helper.make_attribute(
            "body",
            onnx.parser.parse_graph(
                'g (float[N] X) => (float[N] Y) { Y = Relu <alpha: string = "a|b"> (X) }'
            ),
        ),
    }
    S = onnx.defs.OpSchema
    schema = S(
        "TDef",
        "com.test.tdefimport",
        1,
        "An op.",
        inputs=[S.FormalParameter("X", "T")],
        outputs=[S.FormalParameter("Y", "T")],
        type_constraints=[("T", ["tensor(float)"], "")],
        attributes=[S.Attribute(name, proto, "") for name, proto in originals.items()],
    )
    onnx.defs.register_schema(schema)
    try:
        out = tmp_path / "imported"
        code, _, err = _run(["import-onnx", "--out", str(out), "--domain", "com.test.tdefimport"], capsys)
        assert code == 0, err
        spec = (out / "com.test.tdefimport" / "TDef.yaml").read_text(encoding="utf-8")
        assert "- 0.1\n" in spec  # float32 elements written as their shortest decimal
        assert "g (float[N] X) => (float[N] Y) {" in spec
        registry = load_registry([out], cache=False)
    finally:
        onnx.defs.deregister_schema("TDef", 1, "com.test.tdefimport")
    try:
        assert register_onnx(registry, domains=["com.test.tdefimport"]) == [
            ("TDef", 1, "com.test.tdefimport")
        ]
        again = onnx.defs.get_schema("TDef", 1, "com.test.tdefimport").attributes
        for name, original in originals.items():
            assert again[name].default_value == original, name
    finally:
        deregister_onnx()


def test_a_default_without_a_literal_is_refused_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx = pytest.importorskip("onnx")
    if not hasattr(onnx.defs, "deregister_schema"):
        pytest.skip("onnx.defs.deregister_schema is new in onnx 1.16")
    from onnx import helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["W"], ["Y"])],
        "g",
        [],
        [helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, [1])],
        initializer=[helper.make_tensor("W", onnx.TensorProto.FLOAT, [1], [1.0])],
    )
    S = onnx.defs.OpSchema
    schema = S(
        "TDefBad",
        "com.test.tdefbad",
        1,
        "An op.",
        inputs=[],
        outputs=[S.FormalParameter("Y", "tensor(float)")],
        attributes=[S.Attribute("body", helper.make_attribute("body", graph), "")],
    )
    onnx.defs.register_schema(schema)
    try:
        out = tmp_path / "imported"
        code, _, err = _run(["import-onnx", "--out", str(out), "--domain", "com.test.tdefbad"], capsys)
    finally:
        onnx.defs.deregister_schema("TDefBad", 1, "com.test.tdefbad")
    assert code == 2 and "Traceback" not in err
    assert "attribute 'body': its default has no DSL literal" in err and "initializer" in err
    assert not out.exists()


def test_defaults_reach_opset_show_json(
    generated: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    specs, _ = generated
    code, out, err = _run(["show", "com.test.tdef.Op", "--specs", str(specs), "--format", "json"], capsys)
    assert code == 0, err
    shown: Any = json.loads(out)
    text = json.dumps(shown)
    assert '"dims": [2, 2]' in text and '"data": [1.5, -2.0]' in text
