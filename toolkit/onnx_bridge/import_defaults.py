"""An onnx attribute default of type tensor, sparse tensor or graph as the DSL literal the importer
writes (`toolkit.load.build_defaults` reads it back). Only protobuf fields are read, through the
toolkit's own readers (`model.onnx_wire.read_tensor`, the node reader of `function_nodes`, the
printer of `model.onnx_text_print`), so it works the same with every onnx release.
"""

from __future__ import annotations

from typing import Any

from toolkit.model.attr_defaults import LITERAL_DEFAULT_TYPES, literal_json
from toolkit.model.diagnostics import UsageError
from toolkit.model.examples import ExampleTensor, GraphValue, SparseTensorValue
from toolkit.model.onnx_text_print import float32_text, print_graph
from toolkit.model.onnx_wire import WireError, read_tensor
from toolkit.model.spec import AttrDefault, AttrType
from toolkit.onnx_bridge.function_nodes import graph_literal

# The AttributeProto.AttributeType numbers of the defaults that have a DSL literal.
LITERAL_DEFAULT_NUMBERS = frozenset(t.proto_number for t in LITERAL_DEFAULT_TYPES)


def literal_default(proto: Any) -> Any:
    """The DSL literal of `proto`'s default (type in LITERAL_DEFAULT_NUMBERS); a UsageError
    naming the attribute when the value has none (an element type examples lack, external data,
    a graph with initializers, ...)."""
    kind = int(proto.type)
    try:
        value: AttrDefault
        if kind == AttrType.TENSOR.proto_number:
            value = _tensor(proto.t)
        elif kind == AttrType.SPARSE_TENSOR.proto_number:
            sparse = proto.sparse_tensor
            value = SparseTensorValue(_tensor(sparse.values), _tensor(sparse.indices), tuple(sparse.dims))
        else:
            value = GraphValue(print_graph(graph_literal(proto.g)))
    except (WireError, ValueError) as error:
        raise UsageError(f"attribute '{proto.name}': its default has no DSL literal: {error}") from None
    return literal_json(value)


def _tensor(proto: Any) -> ExampleTensor:
    tensor = read_tensor(proto.SerializeToString())
    if tensor.dtype != "float":
        return tensor
    # float32 elements as the shortest decimal that reads back as the same float32 (0.1, not
    # 0.10000000149011612), as the importer writes float attributes
    data = tuple(float(float32_text(float(v))) for v in tensor.data)
    return ExampleTensor(tensor.dtype, tensor.shape, data)
