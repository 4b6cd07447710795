"""One example as a runnable ONNX test case: a one-node ModelProto plus its input/output tensors.

The layout is the one onnx's backend test data uses (`model.onnx`, `test_data_set_0/input_N.pb`,
`output_N.pb`), so any runtime's backend-test runner can run it. Field numbers are facts of
onnx.proto; the bytes come from `toolkit.model.onnx_wire` (no onnx package needed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.model.examples import Example, ExampleAttribute, ExampleTensor
from toolkit.model.onnx_wire import field_bytes, field_float, field_varint, tensor_proto
from toolkit.model.output_names import case_folder
from toolkit.model.spec import FormalParameter, OpSchema
from toolkit.model.types import ELEMENT_TYPE_NUMBERS

PRODUCER = "opset-toolkit"


@dataclass(frozen=True, slots=True)
class TestCase:
    """The files of one backend test case, by path relative to its folder."""

    folder: str  # test_<op>_<example>
    files: tuple[tuple[str, bytes], ...]


def value_names(params: Sequence[FormalParameter], count: int, taken: set[str]) -> list[str]:
    """Graph value names for `count` actual arguments of `params` (a variadic's extra values get
    `_1`, `_2`, ...); a name already in `taken` gets a suffix so inputs and outputs never clash."""
    names = []
    for index in range(count):
        param = params[min(index, len(params) - 1)] if params else None
        base = param.name if param is not None else f"value{index}"
        if param is not None and param.is_variadic and index >= len(params) - 1:
            base = f"{param.name}_{index - len(params) + 1}"
        name = base
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    return names


def _value_info(name: str, tensor: ExampleTensor) -> bytes:
    dims = b"".join(field_bytes(1, field_varint(1, d)) for d in tensor.shape)
    tensor_type = field_varint(1, ELEMENT_TYPE_NUMBERS[tensor.dtype]) + field_bytes(2, dims)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor_type))


def attribute_proto(attr: ExampleAttribute) -> bytes:
    out = field_bytes(1, attr.name)
    value = attr.value
    kind = attr.type.value
    if kind == "float":
        assert isinstance(value, (int, float))
        out += field_float(2, float(value))
    elif kind == "int":
        assert isinstance(value, int)
        out += field_varint(3, value)
    elif kind == "string":
        assert isinstance(value, str)
        out += field_bytes(4, value)
    elif kind == "tensor":
        assert isinstance(value, ExampleTensor)
        out += field_bytes(5, tensor_proto(value))
    elif kind in ("floats", "ints", "strings"):
        assert isinstance(value, tuple)
        for item in value:
            if kind == "floats":
                out += field_float(7, float(item))
            elif kind == "ints":
                assert isinstance(item, int)
                out += field_varint(8, item)
            else:
                out += field_bytes(9, str(item))
    return out + field_varint(20, attr.type.proto_number)


def model_proto(
    schema: OpSchema,
    example: Example,
    *,
    opset_imports: Sequence[tuple[str, int]],
    ir_version: int,
    functions: Sequence[bytes] = (),
) -> tuple[bytes, list[str], list[str]]:
    """(ModelProto bytes, graph input names, graph output names) of the example's one-node model.
    An omitted optional input is an empty name on the node and no graph input."""
    taken: set[str] = set()
    given = [t for t in example.inputs if t is not None]
    in_names = value_names(schema.inputs, len(example.inputs), taken)
    out_names = value_names(schema.outputs, len(example.outputs), taken)
    node = b"".join(
        field_bytes(1, n if t is not None else "") for n, t in zip(in_names, example.inputs, strict=True)
    )
    node += b"".join(field_bytes(2, n) for n in out_names)
    node += field_bytes(3, f"{schema.name}_node") + field_bytes(4, schema.name)
    node += b"".join(field_bytes(5, attribute_proto(a)) for a in example.attributes)
    node += field_bytes(7, schema.domain) if schema.domain else b""
    graph_inputs = [n for n, t in zip(in_names, example.inputs, strict=True) if t is not None]
    graph = field_bytes(1, node) + field_bytes(2, case_folder(schema, example))
    graph += b"".join(field_bytes(11, _value_info(n, t)) for n, t in zip(graph_inputs, given, strict=True))
    graph += b"".join(
        field_bytes(12, _value_info(n, t)) for n, t in zip(out_names, example.outputs, strict=True)
    )
    model = field_varint(1, ir_version) + field_bytes(2, PRODUCER) + field_bytes(7, graph)
    for domain, version in opset_imports:
        model += field_bytes(8, (field_bytes(1, domain) if domain else b"") + field_varint(2, version))
    model += b"".join(field_bytes(25, f) for f in functions)
    return model, graph_inputs, out_names


def test_case(
    schema: OpSchema,
    example: Example,
    *,
    opset_imports: Sequence[tuple[str, int]],
    ir_version: int,
    functions: Sequence[bytes] = (),
) -> TestCase:
    """The example as a backend test case folder (model.onnx and test_data_set_0/)."""
    model, in_names, out_names = model_proto(
        schema, example, opset_imports=opset_imports, ir_version=ir_version, functions=functions
    )
    files: list[tuple[str, bytes]] = [("model.onnx", model)]
    given = [t for t in example.inputs if t is not None]
    for index, (name, tensor) in enumerate(zip(in_names, given, strict=True)):
        files.append((f"test_data_set_0/input_{index}.pb", tensor_proto(tensor, name)))
    for index, (name, tensor) in enumerate(zip(out_names, example.outputs, strict=True)):
        files.append((f"test_data_set_0/output_{index}.pb", tensor_proto(tensor, name)))
    return TestCase(case_folder(schema, example), tuple(files))
