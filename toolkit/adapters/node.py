"""What adapter steps read and write: a neutral node, the constants a step creates, the result
of moving a node between versions, and what a step may consult (`AdapterContext`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from toolkit.model.spec import AttrType, OpSchema

# Element type of the constant made from an attribute of each (scalar) type; a list type
# uses its element's (`AttrType.element`).
ELEMENT_OF_ATTR = {
    AttrType.INT: "int64",
    AttrType.FLOAT: "float",
    AttrType.STRING: "string",
}


class AdapterError(Exception):
    """A step cannot be applied to this node; the message says which and why, `hint` (when
    given) what the model's author can do about it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class MissingAdapter(AdapterError):
    """A version on the path declares no adapter."""


@dataclass
class Node:
    """A neutral node: what every adapter step reads and writes."""

    op_type: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)
    domain: str = ""
    name: str = ""

    def copy(self) -> Node:
        return replace(
            self, inputs=list(self.inputs), outputs=list(self.outputs), attributes=dict(self.attributes)
        )

    @property
    def label(self) -> str:
        return (
            f"node '{self.name}'" if self.name else f"{self.op_type} node -> {', '.join(self.outputs) or '?'}"
        )


@dataclass(frozen=True)
class NewConstant:
    """A constant the caller must add to the graph for an input an adapter created."""

    name: str
    value: Any  # int, float, str or a list of them
    attr_type: AttrType  # the attribute type the value came from
    element_type: str | None  # ONNX element type name; None: same as input `like_input`
    like_input: int | None = None

    @property
    def dims(self) -> tuple[int, ...]:
        return (len(self.value),) if isinstance(self.value, (list, tuple)) else ()


@dataclass
class AdapterResult:
    node: Node
    constants: list[NewConstant] = field(default_factory=list)
    dropped_inputs: list[str] = field(default_factory=list)  # values the node no longer reads
    notes: list[str] = field(default_factory=list)
    # A rewrite into a small subgraph: nodes (of the target opset) placed before / after the node.
    before: list[Node] = field(default_factory=list)
    after: list[Node] = field(default_factory=list)


ConstantLookup = Mapping[str, Any] | Callable[[str], Any]
TypeLookup = Mapping[str, str] | Callable[[str], "str | None"]
Shape = tuple["int | None", ...]  # a dimension is None when it is not a known number
ShapeLookup = Mapping[str, Shape] | Callable[[str], "Shape | None"]


@dataclass(frozen=True)
class AdapterContext:
    """What a step (and a `python` adapter) may consult."""

    source: OpSchema
    target: OpSchema
    direction: str  # "upgrade" or "downgrade"
    constants: ConstantLookup | None = None
    value_types: TypeLookup | None = None
    taken: Collection[str] = ()
    value_shapes: ShapeLookup | None = None

    def value_shape(self, name: str) -> Shape | None:
        """The value's shape when its rank is known (dimensions None when not numbers), or None."""
        if self.value_shapes is None or not name:
            return None
        if isinstance(self.value_shapes, Mapping):
            return self.value_shapes.get(name)
        return self.value_shapes(name)

    def constant(self, name: str) -> Any:
        if self.constants is None or not name:
            return None
        if isinstance(self.constants, Mapping):
            return self.constants.get(name)
        return self.constants(name)

    def value_type(self, name: str) -> str | None:
        if self.value_types is None or not name:
            return None
        if isinstance(self.value_types, Mapping):
            return self.value_types.get(name)
        return self.value_types(name)
