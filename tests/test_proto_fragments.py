"""The operator set documents assembled from per-operator fragments (toolkit/generate/
proto_fragments.py) equal the plain definition: the whole message serialized deterministically
and printed by protobuf's text_format."""

from __future__ import annotations

from google.protobuf import text_format
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.proto_docs import operator_set_document, render_domain, textproto
from toolkit.generate.proto_fragments import FragmentCache, assemble
from toolkit.proto import FunctionProto, OperatorProto, OperatorSetProto, OperatorStatus

# Text that exercises text_format's escaping: quotes, backslashes, control characters, non-ASCII.
TEXT = st.text(alphabet=st.sampled_from(list("ab Z\"'\\\n\t\x00\x7fé€😀")), max_size=12)


@st.composite
def operators(draw: st.DrawFn) -> OperatorProto:
    op = OperatorProto()
    op.op_type = draw(TEXT)
    if draw(st.booleans()):
        op.since_version = draw(st.integers(0, 2**40))
    op.status = draw(st.sampled_from([OperatorStatus.STABLE, OperatorStatus.EXPERIMENTAL]))
    if draw(st.booleans()):
        op.doc_string = draw(TEXT)
    return op


@st.composite
def documents(draw: st.DrawFn) -> OperatorSetProto:
    doc = OperatorSetProto()
    for name, value in (
        ("magic", TEXT),
        ("ir_version", st.integers(-(2**63), 2**63 - 1)),
        ("ir_version_prerelease", TEXT),
        ("ir_build_metadata", TEXT),
        ("domain", TEXT),
        ("opset_version", st.integers(0, 2**63 - 1)),
        ("doc_string", TEXT),
    ):
        if draw(st.booleans()):
            setattr(doc, name, draw(value))
    return doc


@st.composite
def functions(draw: st.DrawFn) -> FunctionProto:
    function = FunctionProto(name=draw(TEXT), domain=draw(TEXT), input=draw(st.lists(TEXT, max_size=3)))
    for _ in range(draw(st.integers(0, 2))):
        function.node.add(op_type=draw(TEXT), input=draw(st.lists(TEXT, max_size=2)))
    return function


@settings(max_examples=300, deadline=None)
@given(
    documents(),
    st.lists(st.tuples(st.integers(0, 5), operators()), max_size=8),
    st.lists(st.tuples(st.integers(0, 5), functions()), max_size=4),
)
def test_assembled_document_equals_the_whole_message(
    document: OperatorSetProto, entries: list, bodies: list
) -> None:
    # The same key always stands for the same entry (as (name, since_version) does).
    first: dict[int, OperatorProto] = {}
    ops = [first.setdefault(key, op) for key, op in entries]
    first_fn: dict[int, FunctionProto] = {}
    fns = [first_fn.setdefault(key, fn) for key, fn in bodies]
    cache, fn_cache = FragmentCache(), FragmentCache("functions")
    binary, text = assemble(
        document,
        [cache.get(k, lambda op=op: op) for k, op in zip([k for k, _ in entries], ops)],
        [fn_cache.get(k, lambda fn=fn: fn) for k, fn in zip([k for k, _ in bodies], fns)],
    )
    whole = OperatorSetProto()
    whole.CopyFrom(document)
    whole.operator.extend(ops)
    whole.functions.extend(fns)
    assert binary == whole.SerializeToString(deterministic=True)
    assert text == text_format.MessageToString(whole, as_utf8=True)
    parsed = OperatorSetProto()
    parsed.ParseFromString(binary)
    assert parsed == whole


def test_catalog_documents_equal_the_plain_path(onnx_registry) -> None:  # type: ignore[no-untyped-def]
    """Every opset document of the imported onnx catalog, both forms, byte for byte."""
    checked = 0
    for name in onnx_registry.domains():
        domain = onnx_registry.domain(name)
        out = render_domain(
            domain, onnx_registry.operators(name), inventory=lambda v, n=name: onnx_registry.inventory(n, v)
        )
        for version in domain.versions:
            document = operator_set_document(domain, version, onnx_registry.inventory(name, version))
            base = f"proto/{domain.display_name}/opset_{version}"
            assert out[f"{base}.pb"] == document.SerializeToString(deterministic=True), base
            assert out[f"{base}.textproto"] == textproto(document, domain.location.file), base
            checked += 1
    assert checked >= 30  # ai.onnx alone has 28 opsets
