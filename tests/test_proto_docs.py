"""toolkit.generate.proto_docs with hand-built model objects."""

from __future__ import annotations

import dataclasses

import pytest
from google.protobuf import text_format

from toolkit.generate import proto_docs
from toolkit.model import codec, resolution
from toolkit.model.spec import (
    NOWHERE,
    Adapter,
    AdapterStep,
    Attribute,
    AttrType,
    Differentiability,
    DomainSpec,
    FormalParameter,
    Location,
    OperatorSpec,
    OpSchema,
    OpsetVersion,
    ParamOption,
    Status,
    TypeConstraint,
)
from toolkit.proto import OperatorSchemaSetProto, OperatorSetProto, OperatorStatus

F = "opsets/ai.onnx/ops/{}.yaml"


def loc(name: str, line: int, column: int = 1) -> Location:
    return Location(F.format(name), line, column)


# The A/B/C example of Versioning.md: opsets 1-4, A removed in 4.
DEFAULT = DomainSpec(
    name="",
    opset_versions=(
        OpsetVersion(1, 3, "first", loc("domain", 2)),
        OpsetVersion(2, 3),
        OpsetVersion(3, 4, "", loc("domain", 4)),
        OpsetVersion(4, 5),
    ),
    type_sets=(("float_types", ("tensor(float16)", "tensor(float)")), ("empty", ())),
    doc="The default domain.",
    location=loc("domain", 1),
)

A1 = OpSchema(
    domain="",
    name="A",
    since_version=1,
    doc="A version 1.",
    inputs=(
        FormalParameter("X", "T", "input", location=loc("A", 5, 7)),
        FormalParameter("B", "tensor(int64)", option=ParamOption.OPTIONAL, homogeneous=False, min_arity=0),
    ),
    outputs=(
        FormalParameter(
            "Y",
            "T",
            option=ParamOption.VARIADIC,
            min_arity=2,
            differentiability=Differentiability.NON_DIFFERENTIABLE,
        ),
    ),
    attributes=(
        Attribute("alpha", AttrType.FLOAT, "scale", default=0.1, location=loc("A", 9)),
        Attribute("axis", AttrType.INT, default=-1),
        Attribute("mode", AttrType.STRING, default="constant ü"),
        Attribute("pads", AttrType.INTS, default=(0, 1, 2**40)),
        Attribute("scales", AttrType.FLOATS, default=(1.5, 1.0)),
        Attribute("names", AttrType.STRINGS, default=()),
        Attribute("empty_ints", AttrType.INTS, default=()),
        Attribute("body", AttrType.GRAPH, required=True),
        Attribute("t", AttrType.TENSOR),
    ),
    type_constraints=(
        TypeConstraint("T", ("tensor(float16)", "tensor(float)"), "floats", ("float_types",), loc("A", 12)),
    ),
    location=loc("A", 3),
)
A2 = dataclasses.replace(
    A1,
    since_version=2,
    deprecated=True,
    doc="A version 2.",
    based_on=1,
    adapter=Adapter(
        upgrade=(
            AdapterStep(
                "set_attribute",
                (
                    ("name", "axis"),
                    ("value", 0),
                    ("ratio", 0.5),
                    ("flag", True),
                    ("nothing", None),
                    ("tuple", (1, "a", (2.5,))),
                    ("list", [1, [2], ()]),
                    ("map", {"k": [1], "$list": 2}),
                    ("tricky", {"$list": (1,)}),
                ),
                loc("A", 30),
            ),
        ),
        downgrade=(),
        location=loc("A", 29),
    ),
    location=loc("A", 25),
)
A = OperatorSpec("", "A", (A1, A2), removed_in=4, replaced_by="C", location=loc("A", 1))
B1 = OpSchema("", "B", 1, doc="", location=loc("B", 3))
B = OperatorSpec("", "B", (B1,), location=loc("B", 1))
C1 = OpSchema("", "C", 3, status=Status.EXPERIMENTAL, doc="C doc", adapter=Adapter(), location=loc("C", 3))
C = OperatorSpec("", "C", (C1,))
OPERATORS = (C, A, B)


def test_operator_set_document_fields() -> None:
    inventory = resolution.inventory(OPERATORS, 3)
    assert {k: v.since_version for k, v in inventory.items()} == {"A": 2, "B": 1, "C": 3}
    doc = proto_docs.operator_set_document(DEFAULT, 3, inventory)
    assert doc.magic == "ONNXOPSET"
    assert doc.ir_version == 4
    assert doc.HasField("domain") and doc.domain == ""
    assert doc.opset_version == 3
    assert doc.doc_string == "The default domain."  # opset 3 has no doc of its own
    assert [(o.op_type, o.since_version, o.status) for o in doc.operator] == [
        ("A", 2, OperatorStatus.STABLE),
        ("B", 1, OperatorStatus.STABLE),
        ("C", 3, OperatorStatus.EXPERIMENTAL),
    ]
    assert doc.operator[0].doc_string == f"{proto_docs.DEPRECATED_MARKER}\n\nA version 2."
    assert not doc.operator[1].HasField("doc_string")
    assert proto_docs.split_deprecated_marker(doc.operator[0].doc_string) == (True, "A version 2.")
    assert proto_docs.split_deprecated_marker("plain") == (False, "plain")
    assert proto_docs.operator_set_document(DEFAULT, 1, {}).doc_string == "first"


def test_versioning_md_since_version_table() -> None:
    table = {
        v: {k: s.since_version for k, s in resolution.inventory(OPERATORS, v).items()}
        for v in DEFAULT.versions
    }
    assert table == {
        1: {"A": 1, "B": 1},
        2: {"A": 2, "B": 1},
        3: {"A": 2, "B": 1, "C": 3},
        4: {"B": 1, "C": 3},
    }


def test_deprecated_marker_with_empty_doc() -> None:
    schema = dataclasses.replace(B1, deprecated=True)
    assert proto_docs.operator_doc_string(schema) == proto_docs.DEPRECATED_MARKER
    assert proto_docs.split_deprecated_marker(proto_docs.DEPRECATED_MARKER) == (True, "")


def test_unknown_opset_version_is_an_error() -> None:
    with pytest.raises(ValueError, match="no opset version 9"):
        proto_docs.operator_set_document(DEFAULT, 9, {})


def _deep_equal_with_locations(left: object, right: object) -> None:
    """Dataclass equality ignores locations (compare=False); compare them too."""
    assert type(left) is type(right)
    if dataclasses.is_dataclass(left) and not isinstance(left, type):
        for f in dataclasses.fields(left):
            _deep_equal_with_locations(getattr(left, f.name), getattr(right, f.name))
    elif isinstance(left, (tuple, list)):
        assert isinstance(right, (tuple, list)) and len(left) == len(right)
        for a, b in zip(left, right, strict=True):
            _deep_equal_with_locations(a, b)
    elif isinstance(left, dict):
        assert isinstance(right, dict) and list(left) == list(right)
        for key in left:
            _deep_equal_with_locations(left[key], right[key])
    else:
        assert left == right


def test_schema_document_round_trip_exact() -> None:
    document = codec.schema_set_document(DEFAULT, OPERATORS)
    assert document.magic == codec.SCHEMAS_MAGIC
    data = document.SerializeToString(deterministic=True)
    specset = codec.specset_from_schema_documents([data])
    assert specset.domains == (DEFAULT,)
    assert specset.operators == OPERATORS
    _deep_equal_with_locations(specset.domains, (DEFAULT,))
    _deep_equal_with_locations(specset.operators, OPERATORS)
    # Also from a message, and deterministic.
    again = codec.specset_from_schema_documents([document])
    assert again == specset
    assert codec.schema_set_document(DEFAULT, again.operators).SerializeToString(deterministic=True) == data


def test_round_trip_preserves_container_kinds_and_none() -> None:
    (doc,) = (
        codec.specset_from_schema_documents([codec.schema_set_document(DEFAULT, OPERATORS)])
        .operators[1]
        .versions[1:]
    )
    assert doc.adapter is not None and doc.adapter.downgrade == ()
    step = doc.adapter.upgrade[0]
    assert isinstance(step.arg("list"), list)
    assert isinstance(step.arg("tuple"), tuple)
    assert step.arg("tricky") == {"$list": (1,)}
    assert step.arg("nothing") is None and step.arg("flag") is True
    a1 = codec.specset_from_schema_documents([codec.schema_set_document(DEFAULT, OPERATORS)]).operators[1]
    attrs = a1.versions[0].attribute_map
    assert attrs["t"].default is None and attrs["body"].required
    assert attrs["pads"].default == (0, 1, 2**40)
    assert attrs["alpha"].default == 0.1  # exact: stored as double
    c = codec.specset_from_schema_documents([codec.schema_set_document(DEFAULT, OPERATORS)]).operators[0]
    assert c.versions[0].adapter == Adapter() and c.versions[0].adapter.downgrade is None
    assert c.location == NOWHERE and c.removed_in is None and c.replaced_by is None


def test_other_domain_and_foreign_documents() -> None:
    vision = DomainSpec("com.example.vision", (OpsetVersion(1, 9),))
    op = OperatorSpec("com.example.vision", "FusedConv", (OpSchema("com.example.vision", "FusedConv", 1),))
    files = proto_docs.render_domain(vision, [op], source="opsets/")
    assert sorted(files) == [
        "proto/com.example.vision/opset_1.pb",
        "proto/com.example.vision/opset_1.textproto",
        "proto/com.example.vision/schemas.pb",
    ]
    specset = codec.specset_from_schema_documents([files["proto/com.example.vision/schemas.pb"]])
    assert specset.operators == (op,) and specset.domains == (vision,)
    with pytest.raises(ValueError, match="belongs to domain"):
        codec.schema_set_document(DEFAULT, [op])
    with pytest.raises(ValueError, match="magic"):
        codec.specset_from_schema_documents([OperatorSchemaSetProto(magic="nope")])
    with pytest.raises(ValueError, match="newer"):
        codec.specset_from_schema_documents(
            [OperatorSchemaSetProto(magic=codec.SCHEMAS_MAGIC, format_version=99)]
        )


def test_render_default_domain() -> None:
    files = proto_docs.render_domain(DEFAULT, OPERATORS, source="opsets/ai.onnx")
    expected = {f"proto/ai.onnx/opset_{v}.{ext}" for v in (1, 2, 3, 4) for ext in ("pb", "textproto")}
    assert set(files) == expected | {"proto/ai.onnx/schemas.pb"}
    assert list(files) == sorted(files)
    assert files == proto_docs.render_domain(DEFAULT, tuple(reversed(OPERATORS)), source="opsets/ai.onnx")
    parsed = OperatorSetProto()
    parsed.ParseFromString(files["proto/ai.onnx/opset_4.pb"])
    assert [o.op_type for o in parsed.operator] == ["B", "C"]
    text = files["proto/ai.onnx/opset_4.textproto"].decode()
    assert text.startswith("# generated by opset-toolkit from opsets/ai.onnx; do not edit\n")
    assert text_format.Parse(text, OperatorSetProto()) == parsed
    # A supplied inventory wins over the built-in resolution.
    only_b = proto_docs.render_domain(DEFAULT, OPERATORS, inventory=lambda v: {"B": B1})
    parsed.ParseFromString(only_b["proto/ai.onnx/opset_3.pb"])
    assert [o.op_type for o in parsed.operator] == ["B"]
    assert only_b["proto/ai.onnx/opset_3.textproto"].startswith(
        f"# generated by opset-toolkit from {F.format('domain')}; do not edit".encode()
    )


def test_render_parses_with_onnx() -> None:
    onnx_operators = pytest.importorskip("onnx.onnx_operators_pb")
    files = proto_docs.render_domain(DEFAULT, OPERATORS)
    theirs = onnx_operators.OperatorSetProto()
    theirs.ParseFromString(files["proto/ai.onnx/opset_3.pb"])
    assert theirs.magic == "ONNXOPSET" and theirs.ir_version == 4 and theirs.domain == ""
    assert [(o.op_type, o.since_version, o.status) for o in theirs.operator] == [
        ("A", 2, 1),
        ("B", 1, 1),
        ("C", 3, 0),
    ]


class FakeRegistry:
    def __init__(self, domains: list[DomainSpec], operators: list[OperatorSpec]) -> None:
        self._domains = {d.name: d for d in domains}
        self._operators = operators

    def domains(self) -> tuple[str, ...]:
        return tuple(self._domains)

    def domain(self, name: str) -> DomainSpec:
        return self._domains[name]

    def operators(self, domain: str) -> tuple[OperatorSpec, ...]:
        return tuple(o for o in self._operators if o.domain == domain)

    def inventory(self, domain: str, opset_version: int) -> dict[str, OpSchema]:
        return resolution.inventory(self.operators(domain), opset_version)


def test_render_registry() -> None:
    vision = DomainSpec("com.example.vision", (OpsetVersion(1, 9),))
    registry = FakeRegistry([vision, DEFAULT], list(OPERATORS))
    files = proto_docs.render_registry(registry, source="opsets")
    assert files == {
        **proto_docs.render_domain(DEFAULT, OPERATORS, source="opsets"),
        **proto_docs.render_domain(vision, [], source="opsets"),
    }
    assert proto_docs.domain_dir("ai.onnx") == proto_docs.domain_dir("") == "ai.onnx"


def test_mixed_number_list_default_becomes_floats() -> None:
    schema = dataclasses.replace(B1, attributes=(Attribute("s", AttrType.FLOATS, default=(1.5, 1)),))
    op = dataclasses.replace(B, versions=(schema,))
    (back,) = codec.specset_from_schema_documents([codec.schema_set_document(DEFAULT, [op])]).operators
    assert back.versions[0].attributes[0].default == (1.5, 1.0)
    with pytest.raises(TypeError):
        bad = dataclasses.replace(schema, attributes=(Attribute("s", AttrType.FLOATS, default=(1.5, "x")),))  # type: ignore[arg-type]
        codec.schema_set_document(DEFAULT, [dataclasses.replace(B, versions=(bad,))])
