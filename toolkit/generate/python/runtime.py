"""Runtime support shared by every generated opset and schema module.

Kept import-light on purpose (no onnx, no typing, no dataclasses, no inspect at import time):
importing one generated opset module must stay cheap. onnx is imported on the first node built,
and is optional: without it nodes are `LightNode` objects with the same fields as `onnx.NodeProto`.
"""

from __future__ import annotations

import importlib

# typing.TYPE_CHECKING without importing typing, a large module: type checkers take any name
# TYPE_CHECKING as true. Names used only in annotations (strings here) are imported for them only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from types import ModuleType
    from typing import Any, ClassVar, NamedTuple, TypeVar
else:
    from collections import namedtuple

    class _NamedTupleMeta(type):
        """Makes `class Name(NamedTuple): field: type = default` the `collections.namedtuple` that
        typing.NamedTuple makes of it (fields, defaults, docstring), without importing typing."""

        def __new__(mcs, name, bases, namespace):
            fields = tuple(namespace.get("__annotations__", ()))
            defaults = [namespace[field] for field in fields if field in namespace]
            if any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            extra = sorted(key for key in namespace if not key.startswith("__") and key not in fields)
            if extra:
                raise TypeError(f"{name}: only fields and a docstring, not {extra}")
            cls = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            cls.__doc__ = namespace.get("__doc__", cls.__doc__)
            return cls

    # the base class the records below name, as typing.NamedTuple is to a type checker
    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

__all__ = [
    "AttrInfo", "BuildError", "LightAttribute", "LightNode", "MapValue", "OpSchemaInfo",
    "OpsetBase", "OptionalValue", "ParamInfo", "SequenceValue", "SparseTensorValue", "TensorValue",
    "TypeConstraintInfo", "Value", "onnx_available", "schema_loader",
]  # fmt: skip

# AttributeProto.AttributeType numbers: `toolkit.model.types.ATTRIBUTE_TYPE_NUMBERS`, written here by
# the generator (`layout.runtime_module`) so that the table has one definition.
ATTRIBUTE_TYPE_NUMBERS: dict[str, int] = {}
# Attribute types whose values are onnx messages, with the message class name they require.
_MESSAGE_TYPES: dict[str, str] = {
    "tensor": "TensorProto",
    "graph": "GraphProto",
    "sparse_tensor": "SparseTensorProto",
    "type_proto": "TypeProto",
}


class BuildError(TypeError):
    """A builder call that does not match the operator schema (arity, attribute, value type)."""


# --------------------------------------------------------------------------------------------
# schema metadata
# --------------------------------------------------------------------------------------------


class ParamInfo(NamedTuple):
    """An input or output: option is "single", "optional" or "variadic"."""

    name: str
    type_str: str
    option: str = "single"
    min_arity: int = 1
    homogeneous: bool = True
    differentiability: str = "unknown"
    doc: str = ""


class AttrInfo(NamedTuple):
    """An attribute: type is the lower-case AttributeProto type name ("int", "floats", ...)."""

    name: str
    type: str
    required: bool = False
    default: object = None
    doc: str = ""


class TypeConstraintInfo(NamedTuple):
    param: str
    allowed: tuple[str, ...]
    doc: str = ""


class OpSchemaInfo:
    """Metadata of one operator version; generated subclasses fill in the class variables."""

    domain: ClassVar[str]
    name: ClassVar[str]
    since_version: ClassVar[int]
    status: ClassVar[str] = "stable"
    deprecated: ClassVar[bool] = False
    doc: ClassVar[str] = ""
    inputs: ClassVar[tuple[ParamInfo, ...]] = ()
    outputs: ClassVar[tuple[ParamInfo, ...]] = ()
    attributes: ClassVar[tuple[AttrInfo, ...]] = ()
    type_constraints: ClassVar[tuple[TypeConstraintInfo, ...]] = ()
    min_input: ClassVar[int] = 0
    max_input: ClassVar[int] = 0
    min_output: ClassVar[int] = 0
    max_output: ClassVar[int] = 0

    @classmethod
    def label(cls) -> str:
        """`domain.Op-since` as used in error messages (`ai.onnx.Conv-22`)."""
        return f"{cls.domain or 'ai.onnx'}.{cls.name}-{cls.since_version}"

    @classmethod
    def attribute(cls, name: str) -> AttrInfo | None:
        for attr in cls.attributes:
            if attr.name == name:
                return attr
        return None

    @classmethod
    def make_node(
        cls,
        inputs: Sequence[str | None],
        outputs: Sequence[str],
        attributes: Mapping[str, object] | None = None,
        *,
        name: str | None = None,
    ) -> Any:
        """Validate and build a node: an `onnx.NodeProto` when onnx is importable, else a `LightNode`.

        `None` (or "") marks an omitted optional input or output; an attribute set to `None` is
        left out of the node (its default then applies); any other value given is on the node,
        the default value too (as onnx.helper.make_node does).
        """
        if name is not None and not (isinstance(name, str) and _is_utf8(name)):
            raise BuildError(f"{cls.label()}: the node name must be a str UTF-8 can encode, got {name!r:.60}")
        ins = _check_params(cls, "input", cls.inputs, inputs, cls.min_input, cls.max_input)
        outs = _check_params(cls, "output", cls.outputs, outputs, cls.min_output, cls.max_output)
        attrs = _check_attributes(cls, attributes or {})
        if cls.deprecated:
            import warnings  # only here: most builds never warn

            warnings.warn(f"{cls.label()} is deprecated", DeprecationWarning, stacklevel=3)
        return _make_node(cls, ins, outs, attrs, name)


def _check_params(
    schema: type[OpSchemaInfo],
    kind: str,
    params: tuple[ParamInfo, ...],
    values: Sequence[str | None],
    low: int,
    high: int,
) -> list[str]:
    names = ["" if v is None else v for v in values]
    for index, value in enumerate(names):
        if not isinstance(value, str):
            raise BuildError(
                f"{schema.label()}: {kind} {index} must be a value name (str), got {type(value).__name__}"
            )
        if not _is_utf8(value):
            raise BuildError(
                f"{schema.label()}: {kind} {index} is not a name UTF-8 can encode: {value[:40]!r}"
            )
    while names and not names[-1]:
        names.pop()  # trailing omitted optionals are simply left out
    if len(names) > high:
        raise BuildError(f"{schema.label()}: too many {kind}s: got {len(names)}, at most {high}")
    if len(names) < low:
        missing = params[min(len(names), len(params) - 1)].name if params else "?"
        raise BuildError(
            f"{schema.label()}: too few {kind}s: got {len(names)}, at least {low} (missing {kind} '{missing}')"
        )
    for index, value in enumerate(names):
        param = params[min(index, len(params) - 1)]
        if not value and param.option != "optional":
            raise BuildError(f"{schema.label()}: {kind} '{param.name}' is required, got an empty name")
    return names


def _bad(schema: type[OpSchemaInfo], attr: AttrInfo, value: object, expected: str) -> BuildError:
    if isinstance(value, int) and value.bit_length() > 128:
        shown = f"<{value.bit_length()} bits>"  # repr of a huge int is slow, past 4300 digits refused
    else:
        shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return BuildError(
        f"{schema.label()}: attribute '{attr.name}' expects {expected} ({attr.type}), "
        f"got {type(value).__name__} {shown}"
    )


# AttributeProto's int fields are int64: a larger Python int fails deep inside protobuf.
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _is_utf8(text: str) -> bool:
    """Whether a str can be a protobuf string field (lone surrogates cannot be encoded)."""
    return text.isascii() or not any("\ud800" <= c <= "\udfff" for c in text)


def _scalar(schema: type[OpSchemaInfo], attr: AttrInfo, kind: str, value: object) -> object:
    # A value no NodeProto field can hold is refused here, naming the operator and attribute (not
    # by protobuf, naming neither; a LightNode, built without onnx, holds the same values). A number
    # is what onnx's helper takes (numpy's np.int64, np.float32 too), held as Python's.
    import numbers  # on the first attribute built: importing an opset module stays cheap

    if kind == "int":
        if not isinstance(value, numbers.Integral):
            raise _bad(schema, attr, value, "an int")
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise _bad(schema, attr, value, "an int within int64")
        return int(value)
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise _bad(schema, attr, value, "a float")
        try:
            return float(value)
        except OverflowError:
            raise _bad(schema, attr, value, "a float (an int this large has no float)") from None
    if kind == "string":
        if isinstance(value, bytes):
            return value
        if not isinstance(value, str):
            raise _bad(schema, attr, value, "a str")
        if not _is_utf8(value):
            raise _bad(schema, attr, value, "a str that UTF-8 can encode")
        return value
    message = _MESSAGE_TYPES[kind]
    if type(value).__name__ != message:
        raise _bad(schema, attr, value, f"an onnx {message}")
    return value


def _convert(schema: type[OpSchemaInfo], attr: AttrInfo, value: object) -> object:
    kind = attr.type
    if kind not in ATTRIBUTE_TYPE_NUMBERS:
        raise BuildError(f"{schema.label()}: attribute '{attr.name}' has unknown type {kind!r}")
    if kind.endswith("s") and kind != "string":
        # a list or a tuple, or a 1-D numpy array as `tolist()` gives it (onnx's helper takes one)
        tolist = None if isinstance(value, (list, tuple)) else getattr(type(value), "tolist", None)
        items = value if tolist is None else tolist(value)
        if not isinstance(items, (list, tuple)):
            raise _bad(schema, attr, value, "a list, a tuple or a 1-D array")
        return [_scalar(schema, attr, kind[:-1], item) for item in items]
    return _scalar(schema, attr, kind, value)


def _check_attributes(
    schema: type[OpSchemaInfo], attributes: Mapping[str, object]
) -> list[tuple[AttrInfo, object]]:
    known = {a.name: a for a in schema.attributes}
    for key in attributes:
        if key not in known:
            hint = f" (known: {', '.join(sorted(known))})" if known else " (it has no attributes)"
            raise BuildError(f"{schema.label()}: unknown attribute '{key}'{hint}")
    out: list[tuple[AttrInfo, object]] = []
    for attr in sorted(schema.attributes, key=lambda a: a.name):
        value = attributes.get(attr.name)
        if value is None:
            if attr.required:
                raise BuildError(
                    f"{schema.label()}: required attribute '{attr.name}' ({attr.type}) is missing"
                )
            continue
        out.append((attr, _convert(schema, attr, value)))
    return out


# --------------------------------------------------------------------------------------------
# nodes
# --------------------------------------------------------------------------------------------


class LightAttribute(NamedTuple):
    """An attribute of a `LightNode`: type is the AttributeProto type name in upper case."""

    name: str
    type: str
    value: object


class LightNode:
    """Stand-in for `onnx.NodeProto` when onnx is not installed (same field names)."""

    __slots__ = ("attribute", "doc_string", "domain", "input", "name", "op_type", "output", "overload")

    def __init__(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: Sequence[str],
        *,
        name: str = "",
        domain: str = "",
        attribute: Sequence[LightAttribute] = (),
    ) -> None:
        self.op_type = op_type
        self.input = list(inputs)
        self.output = list(outputs)
        self.name = name
        self.domain = domain
        self.attribute = list(attribute)
        self.doc_string = ""
        self.overload = ""

    def __repr__(self) -> str:
        attrs = ", ".join(f"{a.name}={a.value!r}" for a in self.attribute)
        return f"LightNode({self.domain or 'ai.onnx'}.{self.op_type}({', '.join(self.input)}) -> {self.output}; {attrs})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LightNode):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable, like NodeProto


_onnx_helper: ModuleType | None = None
_onnx_checked = False


def onnx_available() -> bool:
    """True when onnx is importable (imported on first use, never at module import)."""
    global _onnx_helper, _onnx_checked
    if not _onnx_checked:
        _onnx_checked = True
        try:
            _onnx_helper = importlib.import_module("onnx.helper")
        except ImportError:
            _onnx_helper = None
    return _onnx_helper is not None


def _make_node(
    schema: type[OpSchemaInfo],
    inputs: list[str],
    outputs: list[str],
    attrs: list[tuple[AttrInfo, object]],
    name: str | None,
) -> Any:
    if onnx_available() and _onnx_helper is not None:
        helper = _onnx_helper
        node = helper.make_node(schema.name, inputs, outputs, name=name, domain=schema.domain)
        for attr, value in attrs:
            node.attribute.append(
                helper.make_attribute(attr.name, value, attr_type=ATTRIBUTE_TYPE_NUMBERS[attr.type])
            )
        return node
    return LightNode(
        schema.name,
        inputs,
        outputs,
        name=name or "",
        domain=schema.domain,
        attribute=[LightAttribute(a.name, a.type.upper(), v) for a, v in attrs],
    )


# --------------------------------------------------------------------------------------------
# values and opsets
# --------------------------------------------------------------------------------------------


class Value(str):
    """A value name returned by a builder; `.node` is the node that produces it.

    It is a `str`, so it can be passed straight back into builders or to `onnx.helper`. An omitted
    optional output is `Value("")`.
    """

    node: Any

    def __new__(cls, name: str, node: Any = None) -> Value:
        value = super().__new__(cls, name)
        value.node = node
        return value


class TensorValue(Value):
    """A value whose type is a tensor type."""


class SparseTensorValue(Value):
    """A value whose type is a sparse tensor type."""


class SequenceValue(Value):
    """A value whose type is a sequence type."""


class MapValue(Value):
    """A value whose type is a map type."""


class OptionalValue(Value):
    """A value whose type is an optional type."""


if TYPE_CHECKING:
    V = TypeVar("V", bound=Value)


def schema_loader(package: str) -> Callable[[str, str], type[OpSchemaInfo]]:
    """`load(module, cls)`: the schema class `cls` of `package.module`, imported on first use."""
    cache: dict[tuple[str, str], type[OpSchemaInfo]] = {}

    def load(module: str, cls: str) -> type[OpSchemaInfo]:
        key = (module, cls)
        found = cache.get(key)
        if found is None:
            found = getattr(importlib.import_module(f"{package}.{module}"), cls)
            if not (isinstance(found, type) and issubclass(found, OpSchemaInfo)):
                raise TypeError(f"{package}.{module}.{cls} is not an operator schema class")
            cache[key] = found
        return found

    return load


class OpsetBase:
    """An opset's builder: every call validates, builds one node and returns its output value(s).

    Nodes are also collected, in call order, in `nodes` (ready for `onnx.helper.make_graph`).
    Output names are `<prefix><Op>_<n>_<output>` unless `_outputs` names them; by default only the
    required outputs are produced (every output when all are optional): pass `_outputs=<count>`
    or a list of names ("" to skip one) for the optional ones.
    """

    DOMAIN: ClassVar[str] = ""
    VERSION: ClassVar[int] = 0
    IR_VERSION: ClassVar[int] = 0  # the IR version the opset needs (its domain.yaml declares it)

    def __init__(self, prefix: str = "") -> None:
        self.nodes: list[Any] = []
        self._prefix = prefix
        self._count = 0

    def _output_names(self, schema: type[OpSchemaInfo], outputs: int | Sequence[str] | None) -> list[str]:
        if outputs is not None and not isinstance(outputs, int):
            if isinstance(outputs, str):
                raise BuildError(f"{schema.label()}: _outputs must be a count or a list of names, not a str")
            return list(outputs)
        params = schema.outputs
        if outputs is None:
            # the minimal node: required outputs only (all of them when every output is optional)
            count = 0
            for index, param in enumerate(params):
                if param.option == "single":
                    count = index + 1
                elif param.option == "variadic":
                    count = index + max(param.min_arity, 1)
            if count == 0:
                count = len(params)
        else:
            count = outputs
        stem = f"{self._prefix}{schema.name}_{self._count}"
        names = []
        for index in range(count):
            spec = params[min(index, len(params) - 1)] if params else None
            base = spec.name if spec is not None else "out"
            if spec is not None and spec.option == "variadic":
                base = f"{base}_{index - len(params) + 1}"
            names.append(f"{stem}_{base}")
        return names

    def _node(
        self,
        schema: type[OpSchemaInfo],
        inputs: Sequence[str | None],
        attributes: Mapping[str, object],
        outputs: int | Sequence[str] | None,
        name: str | None,
    ) -> tuple[Any, list[str]]:
        names = self._output_names(schema, outputs)
        node = schema.make_node(inputs, names, attributes, name=name)
        self._count += 1
        self.nodes.append(node)
        return node, names

    def _one(
        self,
        kind: type[V],
        schema: type[OpSchemaInfo],
        inputs: Sequence[str | None],
        attributes: Mapping[str, object],
        outputs: int | Sequence[str] | None,
        name: str | None,
    ) -> V:
        node, names = self._node(schema, inputs, attributes, outputs, name)
        if len(names) != 1:
            raise BuildError(f"{schema.label()}: expected exactly one output name, got {len(names)}")
        return kind(names[0], node)

    def _many(
        self,
        kinds: Sequence[type[Value]],
        variadic: bool,
        schema: type[OpSchemaInfo],
        inputs: Sequence[str | None],
        attributes: Mapping[str, object],
        outputs: int | Sequence[str] | None,
        name: str | None,
    ) -> tuple[Any, ...]:
        """Several outputs; without a variadic one the tuple always has one item per declared
        output (omitted optional outputs are `Value("")`)."""
        node, names = self._node(schema, inputs, attributes, outputs, name)
        if not variadic and len(names) > len(kinds):
            raise BuildError(f"{schema.label()}: too many output names: {len(names)}, at most {len(kinds)}")
        if not variadic:
            names += [""] * (len(kinds) - len(names))
        return tuple(kinds[min(i, len(kinds) - 1)](n, node) for i, n in enumerate(names))
