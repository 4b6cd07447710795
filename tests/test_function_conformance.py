"""Function bodies against onnx: every static `schema.function_body` of the installed onnx,
imported as text, parsed by our own parser and encoded by our codec, equals onnx's body node by
node; our parser agrees with onnx.parser on the syntax; DepthToSpace-13 and -28 now differ."""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
import onnx.defs  # noqa: E402, F811
import onnx.helper  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import onnx.parser  # noqa: E402

from toolkit.model.codec_functions import encode_function  # noqa: E402
from toolkit.model.onnx_text import TextParseError, parse_nodes  # noqa: E402


def _value(attr: Any) -> Any:
    """An attribute's value as plain data (tensors as dtype, shape and values)."""
    if attr.ref_attr_name:
        return ("@", attr.ref_attr_name)
    value = onnx.helper.get_attribute_value(attr)
    if isinstance(value, onnx.TensorProto):
        array = onnx.numpy_helper.to_array(value)
        return ("tensor", value.data_type, tuple(value.dims), array.tolist())
    if isinstance(value, onnx.GraphProto):
        return ("graph", value.name, _decls(value.input), _decls(value.output), _nodes(value.node))
    return value


def _decls(values: Any) -> list[Any]:
    """Name, element type and dims of graph inputs/outputs. onnx.printer writes a rank-0 shape and
    no shape alike (`int64 i`), so the text cannot tell them apart: both compare as no dims."""
    out = []
    for v in values:
        tensor = v.type.tensor_type
        dims = [d.dim_value or d.dim_param for d in tensor.shape.dim]
        out.append((v.name, v.type.HasField("tensor_type"), tensor.elem_type, dims))
    return out


def _nodes(nodes: Any) -> list[Any]:
    return [
        (
            n.op_type,
            n.domain,
            list(n.input),
            list(n.output),
            [(a.name, a.type, a.ref_attr_name, _value(a)) for a in n.attribute],
        )
        for n in nodes
    ]


def _schemas_with_bodies() -> list[Any]:
    return [s for s in onnx.defs.get_all_schemas_with_history() if s.has_function]


@pytest.mark.report
def test_every_static_function_body_round_trips(onnx_registry: Any) -> None:
    compared = 0
    for schema in _schemas_with_bodies():
        ours = onnx_registry.find_schema(schema.name, schema.since_version, schema.domain)
        assert ours is not None and ours.since_version == schema.since_version
        assert ours.function is not None, f"{ours.id}: function body not imported"
        reference = schema.function_body
        encoded = onnx.FunctionProto.FromString(encode_function(ours).SerializeToString())
        assert _nodes(encoded.node) == _nodes(reference.node), ours.id
        assert [(o.domain, o.version) for o in encoded.opset_import] == [
            (o.domain, o.version) for o in reference.opset_import
        ], ours.id
        assert list(encoded.input) == list(reference.input)
        assert list(encoded.output) == list(reference.output)
        compared += 1
    print(f"{compared} static function bodies of onnx {onnx.__version__} round-trip node by node")
    assert compared == len(_schemas_with_bodies()) >= 42


def test_context_dependent_functions_are_marked(onnx_registry: Any) -> None:
    marked = [s for s in onnx.defs.get_all_schemas_with_history() if s.has_context_dependent_function]
    assert len(marked) >= 34
    for schema in marked:
        ours = onnx_registry.find_schema(schema.name, schema.since_version, schema.domain)
        assert ours is not None and ours.context_dependent_function, schema.name


def test_depth_to_space_13_and_28_differ(onnx_registry: Any) -> None:
    old = onnx_registry.find_schema("DepthToSpace", 13)
    new = onnx_registry.find_schema("DepthToSpace", 28)
    assert old.since_version == 13 and new.since_version == 28
    assert not old.context_dependent_function and new.context_dependent_function
    assert old != new


BODIES = [
    "y = Add (x, c)",
    't = com.x.Foo <a = @alpha, b: int = @k, c = 3, d = -1.5e3, e = "s\\"q", l = [1, 2], fl = [1.0, 2]> (X, , B)',
    "c = Constant <value = float[2,1] {1, 2}> ()\nd = Constant <value: tensor = int64[2] {-1, 2}> ()",
    'a, b = Split <axis = 0> (x, "")  # a comment\nz = Identity (a)',
    "y = Loop (n, c) <body = g (int64 i, bool[] cond, float[N,3] v) => (bool co, v2) {\n co = Identity (cond)\n v2 = Neg (v)\n}>",
    'y = Cast <to = 1, s: strings = ["a", "b"], f: float = 2> (x)',
]


@pytest.mark.parametrize("body", BODIES)
def test_parser_agrees_with_onnx_parser(body: str) -> None:
    text = f'<domain: "d", opset_import: ["" : 18, "com.x" : 1]>\nF <alpha, k> (X, B) => (Y)\n{{\n{body}\n}}'
    reference = onnx.parser.parse_function(text)
    ours = parse_nodes(body)
    from toolkit.model.codec_functions import encode_nodes
    from toolkit.proto import GraphProto

    graph = GraphProto()
    encode_nodes(graph.node, ours)
    decoded = onnx.GraphProto.FromString(graph.SerializeToString())
    assert _nodes(decoded.node) == _nodes(reference.node)


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("y = Add (x, c", (1, 14)),
        ("y = Relu <alpha = > (x)", (1, 19)),
        ("y Relu (x)", (1, 3)),
        ('y = Cast <to: float = "a"> (x)', (1, 23)),
    ],
)
def test_syntax_errors_are_located_like_onnx_rejects_them(body: str, where: tuple[int, int]) -> None:
    with pytest.raises(TextParseError) as info:
        parse_nodes(body)
    assert (info.value.pos.line, info.value.pos.column) == where
    text = f'<domain: "d", opset_import: ["" : 18]>\nF (x, c) => (y)\n{{\n{body}\n}}'
    with pytest.raises(Exception):  # noqa: B017 - onnx raises its own ParseError type
        onnx.parser.parse_function(text)


# -- random bodies: our parser and onnx.parser build the same nodes ---------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_INTS = st.integers(-(2**40), 2**40)
_FLOATS = st.floats(-1e6, 1e6, allow_nan=False, width=32).map(lambda f: repr(float(f)))
_STRINGS = st.text("abc xyz_-", max_size=6).map(lambda s: '"' + s + '"')


def _attribute_text(draw: Any, name: str) -> str:
    kind = draw(st.sampled_from(["int", "float", "string", "ints", "floats", "strings", "ref", "tensor"]))
    if kind == "int":
        return f"{name} = {draw(_INTS)}"
    if kind == "float":
        return f"{name}: float = {draw(_FLOATS)}"
    if kind == "string":
        return f"{name} = {draw(_STRINGS)}"
    if kind == "ints":
        return f"{name}: ints = [{', '.join(str(v) for v in draw(st.lists(_INTS, max_size=4)))}]"
    if kind == "floats":
        return f"{name}: floats = [{', '.join(draw(st.lists(_FLOATS, max_size=4)))}]"
    if kind == "strings":
        return f"{name}: strings = [{', '.join(draw(st.lists(_STRINGS, max_size=3)))}]"
    if kind == "ref":
        return f"{name}: {draw(st.sampled_from(['int', 'float', 'ints']))} = @{draw(_NAMES)}"
    values = draw(st.lists(st.integers(-100, 100), min_size=1, max_size=4))
    return f"{name} = int64[{len(values)}] {{{', '.join(map(str, values))}}}"


@st.composite
def _bodies(draw: Any) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        outputs = draw(st.lists(_NAMES, min_size=1, max_size=2, unique=True))
        inputs = draw(st.lists(st.one_of(_NAMES, st.just('""')), max_size=3))
        names = draw(st.lists(_NAMES, max_size=3, unique=True))
        attrs = ", ".join(_attribute_text(draw, n) for n in names)
        op = draw(st.sampled_from(["Relu", "Foo", "com.x.Bar"]))
        lines.append(
            f"{', '.join(outputs)} = {op}{' <' + attrs + '>' if attrs else ''} ({', '.join(inputs)})"
        )
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(_bodies())
def test_random_bodies_parse_like_onnx_parser(body: str) -> None:
    test_parser_agrees_with_onnx_parser(body)
