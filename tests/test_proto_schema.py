"""schemas/opset_toolkit.proto: checked-in bindings are current; wire-compatible with onnx."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from toolkit import proto

REPO = Path(__file__).resolve().parent.parent

onnx_operators = pytest.importorskip("onnx.onnx_operators_pb")
onnx_ml = pytest.importorskip("onnx.onnx_ml_pb2")


@pytest.mark.parametrize("name", ["opset_toolkit_pb2.py", "opset_toolkit_pb2.pyi"])
def test_checked_in_bindings_are_current(tmp_path: Path, name: str) -> None:
    pytest.importorskip("grpc_tools.protoc")
    import importlib.util

    spec = importlib.util.spec_from_file_location("regen_proto", REPO / "tools" / "regen_proto.py")
    assert spec is not None and spec.loader is not None
    regen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(regen)
    regen.generate(tmp_path)
    assert (tmp_path / name).read_bytes() == (regen.PACKAGE_DIR / name).read_bytes(), (
        f"toolkit/proto/{name} is stale: run `python tools/regen_proto.py`"
    )


def _field_facts(descriptor: Descriptor) -> dict[str, tuple[int, int, bool]]:
    return {f.name: (f.number, f.type, f.is_repeated) for f in descriptor.fields}


@pytest.mark.parametrize("message", ["OperatorProto", "OperatorSetProto"])
def test_descriptors_agree_with_onnx(message: str) -> None:
    theirs: Descriptor = getattr(onnx_operators, message).DESCRIPTOR
    ours: Descriptor = getattr(proto, message).DESCRIPTOR
    our_fields = _field_facts(ours)
    for field in theirs.fields:
        assert field.name in our_fields, f"{message}.{field.name} missing"
        number, ftype, repeated = our_fields.pop(field.name)
        assert (number, ftype, repeated) == (field.number, field.type, field.is_repeated), field.name
        assert field.has_presence == ours.fields_by_name[field.name].has_presence, field.name
        mine = ours.fields_by_name[field.name]
        if field.type == FieldDescriptor.TYPE_ENUM:
            assert field.enum_type is not None and mine.enum_type is not None
            their_values = [(v.name, v.number) for v in field.enum_type.values]
            assert [(v.name, v.number) for v in mine.enum_type.values] == their_values
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            assert field.message_type is not None and mine.message_type is not None
            assert field.message_type.name == mine.message_type.name
    assert our_fields == {}, f"fields onnx does not have: {sorted(our_fields)}"


def test_operator_status_enum_agrees_with_onnx() -> None:
    theirs = onnx_ml.DESCRIPTOR.enum_types_by_name["OperatorStatus"]
    ours = proto.OperatorStatus.DESCRIPTOR
    assert [(v.name, v.number) for v in ours.values] == [(v.name, v.number) for v in theirs.values]


# Part 1b: FunctionProto and what it holds. Ours model a subset of onnx's fields: every field we
# have is onnx's field of that name, number, type and label; onnx's others stay unknown to us.
_PART_1B = {
    "FunctionProto": onnx_ml.FunctionProto,
    "NodeProto": onnx_ml.NodeProto,
    "OnnxAttributeProto": onnx_ml.AttributeProto,
    "TensorProto": onnx_ml.TensorProto,
    "GraphProto": onnx_ml.GraphProto,
    "ValueInfoProto": onnx_ml.ValueInfoProto,
    "TypeProto": onnx_ml.TypeProto,
    "TensorShapeProto": onnx_ml.TensorShapeProto,
    "OperatorSetIdProto": onnx_ml.OperatorSetIdProto,
}


def _subset_of(ours: Descriptor, theirs: Descriptor) -> None:
    for mine in ours.fields:
        field = theirs.fields_by_name.get(mine.name)
        assert field is not None, f"{ours.full_name}.{mine.name} is not an onnx field"
        assert (mine.number, mine.type, mine.is_repeated) == (field.number, field.type, field.is_repeated), (
            mine.name
        )
        assert mine.has_presence == field.has_presence, mine.name
        if mine.type == FieldDescriptor.TYPE_ENUM:
            assert [(v.name, v.number) for v in mine.enum_type.values] == [
                (v.name, v.number) for v in field.enum_type.values
            ]
        if mine.type == FieldDescriptor.TYPE_MESSAGE:
            assert mine.message_type.name == field.message_type.name
            if mine.message_type.containing_type is not None:  # nested: Dimension, Tensor, ...
                _subset_of(mine.message_type, field.message_type)
        if field.GetOptions().packed or mine.GetOptions().packed:
            assert mine.GetOptions().packed == field.GetOptions().packed, mine.name


@pytest.mark.parametrize("message", sorted(_PART_1B))
def test_function_messages_are_onnx_subsets(message: str) -> None:
    _subset_of(getattr(proto, message).DESCRIPTOR, _PART_1B[message].DESCRIPTOR)


def test_functions_is_field_nine() -> None:
    field = proto.OperatorSetProto.DESCRIPTOR.fields_by_name["functions"]
    assert field.number == 9 and field.message_type.name == "FunctionProto"
    assert proto.OperatorSetProto.DESCRIPTOR.file.package != "onnx"


def _ours() -> proto.OperatorSetProto:
    document = proto.OperatorSetProto(
        magic="ONNXOPSET",
        ir_version=10,
        ir_version_prerelease="rc1",
        ir_build_metadata="build.5",
        domain="com.example",
        opset_version=3,
        doc_string="Example opset — ünïcode.",
    )
    document.operator.add(
        op_type="Add", since_version=1, status=proto.OperatorStatus.STABLE, doc_string="adds"
    )
    document.operator.add(op_type="Foo", since_version=3, status=proto.OperatorStatus.EXPERIMENTAL)
    document.operator.add(op_type="Bar", since_version=2)  # status absent
    return document


def _assert_same(ours: object, theirs: object, fields: list[str]) -> None:
    for name in fields:
        assert ours.HasField(name) == theirs.HasField(name), name  # type: ignore[attr-defined]
        assert getattr(ours, name) == getattr(theirs, name), name


_SET_FIELDS = ["magic", "ir_version", "ir_version_prerelease", "ir_build_metadata", "domain", "opset_version"]
_SET_FIELDS += ["doc_string"]
_OP_FIELDS = ["op_type", "since_version", "status", "doc_string"]


def test_our_bytes_parse_with_onnx() -> None:
    ours = _ours()
    theirs = onnx_operators.OperatorSetProto()
    theirs.ParseFromString(ours.SerializeToString(deterministic=True))
    _assert_same(ours, theirs, _SET_FIELDS)
    assert len(theirs.operator) == len(ours.operator)
    for mine, other in zip(ours.operator, theirs.operator, strict=True):
        _assert_same(mine, other, _OP_FIELDS)
    assert theirs.SerializeToString(deterministic=True) == ours.SerializeToString(deterministic=True)


def test_onnx_bytes_parse_with_ours() -> None:
    theirs = onnx_operators.OperatorSetProto()
    theirs.ParseFromString(_ours().SerializeToString())
    ours = proto.OperatorSetProto()
    ours.ParseFromString(theirs.SerializeToString(deterministic=True))
    _assert_same(ours, theirs, _SET_FIELDS)
    for mine, other in zip(ours.operator, theirs.operator, strict=True):
        _assert_same(mine, other, _OP_FIELDS)


def test_onnx_functions_field_reads_with_ours() -> None:
    theirs = onnx_operators.OperatorSetProto(magic="ONNXOPSET", opset_version=1)
    function = theirs.functions.add(name="F", domain="d")
    function.node.add(op_type="Relu", input=["x"], output=["y"])
    function.node[0].attribute.add(name="alpha", ref_attr_name="a", type=onnx_ml.AttributeProto.FLOAT)
    ours = proto.OperatorSetProto()
    ours.ParseFromString(theirs.SerializeToString())
    assert ours.magic == "ONNXOPSET" and ours.opset_version == 1
    assert ours.functions[0].node[0].attribute[0].ref_attr_name == "a"
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True)
