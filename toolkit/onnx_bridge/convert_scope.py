"""What a value name means where `opset convert` moves a node: its constant value (when an
adapter turns an input into an attribute or checks it), its type and its shape.

Each graph opens a scope chained over its outer graphs' (a subgraph reads outer values by
name), and every name the graph binds itself hides an outer one of the same name: its inputs,
its initializers and its node outputs. So a Loop body's input `ax` is not the outer
initializer `ax`, and two sibling branches each see their own values. Only an initializer that
is not also a graph input (IR >= 4: an input with an initializer is a default the caller may
override) and a Constant node's output are constants; an input never is. A tensor stored as
external data, a Constant taking its value by reference and a tensor too large for any
adapter's use are never read: they are not constants, and an adapter that needs their value
refuses with the reason.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass
from typing import Any

from toolkit.adapters import AdapterError
from toolkit.model.spec import canonical_domain

# The most elements a constant an adapter reads may have (axes, pads, scales, a shape: a few
# dozen): a larger tensor is never turned into a Python list, which would take about ten times
# its size in memory.
MAX_CONSTANT_ELEMENTS = 1 << 16

_EXTERNAL_HINT = (
    "load the model with its external data and save it with the tensors inside "
    "(onnx.save_model(model, path, save_as_external_data=False)), then convert"
)


@dataclass(frozen=True)
class Opaque:
    """A name this graph binds to a value conversion does not know (a graph input, a node
    output) or must not read (`why`: the reason an adapter needing it is refused)."""

    why: str = ""
    hint: str = ""

    def value(self) -> Any:
        if self.why:
            raise AdapterError(self.why, self.hint)
        return None


NOT_CONSTANT = Opaque()


@dataclass(frozen=True)
class TensorConstant:
    """A constant held in a TensorProto (an initializer, a Constant's `value`), read when asked."""

    proto: Any

    def value(self) -> Any:
        from onnx import numpy_helper

        try:
            return numpy_helper.to_array(self.proto).tolist()
        except Exception as exc:  # a malformed tensor (data not matching dims or type)
            raise AdapterError(
                f"constant '{self.proto.name}' cannot be read: {type(exc).__name__}: {exc}",
                "fix the tensor: its data must match its dims and data_type",
            ) from None


@dataclass(frozen=True)
class AttributeConstant:
    """A Constant node's `value_int(s)` / `value_float(s)`."""

    proto: Any

    def value(self) -> Any:
        from onnx import helper

        return helper.get_attribute_value(self.proto)


def tensor_entry(tensor: Any, what: str) -> TensorConstant | Opaque:
    """The scope entry of a constant tensor: readable, or opaque with the reason it is not read."""
    from onnx import TensorProto

    if tensor.data_location == TensorProto.EXTERNAL or tensor.external_data:
        return Opaque(
            f"{what} '{tensor.name}' keeps its data in an external file, which opset convert never reads",
            _EXTERNAL_HINT,
        )
    count = 1
    for dim in tensor.dims:
        count *= max(int(dim), 0)
    if count > MAX_CONSTANT_ELEMENTS:
        return Opaque(
            f"{what} '{tensor.name}' has {count} elements, more than a constant an adapter reads "
            f"({MAX_CONSTANT_ELEMENTS})",
            "keep the target opset of this node, or give the input a small constant",
        )
    return TensorConstant(tensor)


def constant_node_entry(node: Any) -> TensorConstant | AttributeConstant | Opaque:
    for attr in node.attribute:
        if attr.ref_attr_name:
            return Opaque(
                f"Constant '{node.output[0]}' takes its value from the function's attribute "
                f"'{attr.ref_attr_name}', which each call gives",
                "inline the function (or write the constant's value in its body) before converting",
            )
        if attr.name == "value":
            return tensor_entry(attr.t, "Constant")
        if attr.name in ("value_int", "value_ints", "value_float", "value_floats"):
            return AttributeConstant(attr)
    return NOT_CONSTANT  # value_string(s), sparse_value: no adapter reads them


def bindings(graph: Any) -> dict[str, Any]:
    """Every name `graph` (a GraphProto or a FunctionProto) binds, with its constant entry."""
    own: dict[str, Any] = {}
    for tensor in getattr(graph, "initializer", ()):
        own[tensor.name] = tensor_entry(tensor, "initializer")
    for sparse in getattr(graph, "sparse_initializer", ()):
        own[sparse.values.name] = NOT_CONSTANT
    for node in graph.node:
        for name in node.output:
            own[name] = NOT_CONSTANT
        if node.op_type == "Constant" and canonical_domain(node.domain) == "" and node.output:
            own[node.output[0]] = constant_node_entry(node)
    for value in graph.input:  # last: an initializer of an input's name is only its default
        own[value if isinstance(value, str) else value.name] = NOT_CONSTANT
    return own


def constant_value(entry: Any) -> Any:
    """The value of a scope entry (None when not a constant; AdapterError when not readable)."""
    return None if entry is None else entry.value()


@dataclass(frozen=True)
class Scope:
    """The constants, types and shapes one graph sees: its own chained over its outer graphs'."""

    constants: ChainMap[str, Any]
    types: ChainMap[str, str | None]
    shapes: ChainMap[str, tuple[int | None, ...] | None]

    @classmethod
    def empty(cls) -> Scope:
        return cls(ChainMap(), ChainMap(), ChainMap())

    def child(
        self,
        graph: Any,
        types: dict[str, str | None],
        shapes: dict[str, tuple[int | None, ...]],
    ) -> Scope:
        """The scope of `graph` inside this one; `types` and `shapes` are the graph's own. A name
        the graph binds hides the outer one also when its own type or shape is unknown."""
        own = bindings(graph)
        hidden = dict.fromkeys(own)
        return Scope(
            self.constants.new_child(own),
            self.types.new_child({**hidden, **types}),
            self.shapes.new_child({**hidden, **shapes}),
        )
