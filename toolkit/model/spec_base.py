"""The leaves of the spec model: where a value was written (`Location`) and the DSL's enums.

Below `toolkit.model.spec` and `toolkit.model.examples`, which both build on them;
`toolkit.model.spec` re-exports every name, so code imports them from there.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from toolkit.model.record import Record
from toolkit.model.types import ATTRIBUTE_TYPE_NUMBERS

__all__ = ["NOWHERE", "AttrType", "AttrValue", "Differentiability", "Location", "ParamOption", "Status"]


@dataclass(frozen=True, slots=True, order=True)
class Location(Record):
    """1-based position in a source file."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Location("<unknown>")


class Status(str, enum.Enum):
    STABLE = "stable"
    EXPERIMENTAL = "experimental"


class ParamOption(str, enum.Enum):
    SINGLE = "single"
    OPTIONAL = "optional"
    VARIADIC = "variadic"


class Differentiability(str, enum.Enum):
    UNKNOWN = "unknown"
    DIFFERENTIABLE = "differentiable"
    NON_DIFFERENTIABLE = "non_differentiable"


class AttrType(str, enum.Enum):
    """ONNX attribute types, spelled as in the DSL (lower-case AttributeProto names)."""

    FLOAT = "float"
    INT = "int"
    STRING = "string"
    TENSOR = "tensor"
    GRAPH = "graph"
    SPARSE_TENSOR = "sparse_tensor"
    TYPE_PROTO = "type_proto"
    FLOATS = "floats"
    INTS = "ints"
    STRINGS = "strings"
    TENSORS = "tensors"
    GRAPHS = "graphs"
    SPARSE_TENSORS = "sparse_tensors"
    TYPE_PROTOS = "type_protos"

    @property
    def is_list(self) -> bool:
        return self.value.endswith("s") and self is not AttrType.STRING

    @property
    def element(self) -> AttrType:
        """The scalar type of a list type (`ints` -> `int`); itself for scalars."""
        return AttrType(self.value[:-1]) if self.is_list else self

    @property
    def proto_number(self) -> int:
        """AttributeProto.AttributeType enum value (onnx.proto facts)."""
        return ATTRIBUTE_TYPE_NUMBERS[self.value]


AttrValue = float | int | str | tuple[float, ...] | tuple[int, ...] | tuple[str, ...]
