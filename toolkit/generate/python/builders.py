"""Builder methods of the opset classes: one per operator version, kept as data until laid out.

A `Method` holds its signature parameters, its return annotation and the arguments of the
runtime call it makes (`self._one(...)` / `self._many(...)`) as structured values, plus which
names of the runtime, `math` and `typing.Any` it uses; `signature_lines` and `body_lines` lay it
out to the line width.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from toolkit.generate.python.names import (
    EXTRA_KWARGS,
    RESERVED_METHODS,
    RESERVED_PARAMS,
    identifier,
    schema_class_name,
    unique,
)
from toolkit.generate.python.source import (
    LINE,
    Arg,
    Bracket,
    PythonGenerationError,
    SourceMemo,
    docstring,
    inline,
    spec_default_text,
    str_literal,
)
from toolkit.model.spec import AttrType, FormalParameter, OpSchema, ParamOption, display_domain

__all__ = ["Method", "OpsetClass", "PyParam", "body_lines", "build_method", "method_names", "signature_lines"]

# Annotations of attribute values (message-valued attributes are onnx objects: Any).
_PY_ATTR_TYPES: dict[AttrType, str] = {
    AttrType.FLOAT: "float",
    AttrType.INT: "int",
    AttrType.STRING: "str",
    AttrType.TENSOR: "Any",
    AttrType.GRAPH: "Any",
    AttrType.SPARSE_TENSOR: "Any",
    AttrType.TYPE_PROTO: "Any",
    AttrType.FLOATS: "Sequence[float]",
    AttrType.INTS: "Sequence[int]",
    AttrType.STRINGS: "Sequence[str]",
    AttrType.TENSORS: "Sequence[Any]",
    AttrType.GRAPHS: "Sequence[Any]",
    AttrType.SPARSE_TENSORS: "Sequence[Any]",
    AttrType.TYPE_PROTOS: "Sequence[Any]",
}
_ANY_TYPES = frozenset(t for t, annotation in _PY_ATTR_TYPES.items() if "Any" in annotation)
# Type-string prefix -> the runtime's Value subclass for values of that type.
_VALUE_KINDS = (
    ("tensor(", "TensorValue"),
    ("sparse_tensor(", "SparseTensorValue"),
    ("seq(", "SequenceValue"),
    ("map(", "MapValue"),
    ("optional(", "OptionalValue"),
)
_KIND_OF_PREFIX = dict(_VALUE_KINDS)
_EXTRAS_SIGNATURE = ("_outputs: int | Sequence[str] | None = None", "_name: str | None = None")


# PyParam, Method and _Returns are NamedTuples rather than frozen dataclasses: a run makes one
# per parameter and per operator version, and a NamedTuple is about four times cheaper to make.
class PyParam(NamedTuple):
    name: str  # Python name
    source: str  # spec name
    annotation: str
    default: str | None  # Python source, None: no default
    doc: str
    spec_default: str | None = None  # an attribute's default in the spec, as Python source (docstring)

    def declaration(self) -> str:
        return f"{self.name}: {self.annotation}" + (f" = {self.default}" if self.default else "")


class Method(NamedTuple):
    name: str
    op: str
    schema_module: str
    schema_class: str
    signature: list[str]  # parameter declarations, in order, incl. "/" and "*"
    returns: str
    runtime_call: str  # "self._one" or "self._many"
    call_args: tuple[Arg, ...]
    docstring: str
    value_kinds: frozenset[str]  # the runtime's Value classes the method names
    uses_any: bool  # an annotation names typing.Any

    @property
    def call(self) -> str:
        """The body expression on one line."""
        return f"{self.runtime_call}({', '.join(inline(a) for a in self.call_args)})"


@dataclass(frozen=True)
class OpsetClass:
    """One opset class of a domain's `_opsets` module: the builders it defines itself (each with
    its laid-out `def` and body lines), and the opset it inherits the others from (None: it
    starts from OpsetBase)."""

    version: int
    parent: int | None
    ir_version: int
    methods: list[tuple[Method, list[str], list[str]]]


def method_names(operators: Sequence[str]) -> dict[str, str]:
    """operator name -> builder method name (unique in its class, case-insensitively)."""
    return dict(zip(operators, unique([identifier(name, RESERVED_METHODS) for name in operators])))


def _value_kind(schema: OpSchema, param: FormalParameter) -> str:
    types = schema.constraint_map.get(param.type_str)
    return _kind_of(types.allowed if types is not None else (param.type_str,))


@lru_cache(maxsize=4096)
def _kind_of(allowed: tuple[str, ...]) -> str:
    """The runtime's Value class of values of the types `allowed` (cached: the outputs of many
    operator versions allow the same long lists of types)."""
    # each prefix ends at its only "(": a type starts with one iff its text up to the first "(" is it
    kinds = {_KIND_OF_PREFIX.get(t[: t.find("(") + 1], "Value") for t in allowed}
    return kinds.pop() if len(kinds) == 1 else "Value"


def _input_params(schema: OpSchema, taken: set[str]) -> tuple[list[PyParam], PyParam | None]:
    params: list[PyParam] = []
    variadic: PyParam | None = None
    inputs = schema.inputs
    for index, param in enumerate(inputs):
        name = identifier(param.name, taken | RESERVED_PARAMS)
        while name in taken or name.startswith("_"):
            name = f"{name.lstrip('_') or 'x'}_in"
        taken.add(name)
        if param.is_variadic:
            if index != len(inputs) - 1:
                raise PythonGenerationError(
                    f"{schema.id}: variadic input '{param.name}' is not the last input"
                )
            variadic = PyParam(name, param.name, "str", None, param.doc)
            continue
        trailing = all(p.option is not ParamOption.SINGLE for p in inputs[index:])
        if param.is_optional:
            params.append(PyParam(name, param.name, "str | None", "None" if trailing else None, param.doc))
        else:
            params.append(PyParam(name, param.name, "str", None, param.doc))
    return params, variadic


def _attr_params(schema: OpSchema) -> list[PyParam]:
    out = []
    taken: set[str] = set()
    for attr in sorted(schema.attributes, key=lambda a: (not a.required, a.name)):
        annotation = _PY_ATTR_TYPES[attr.type]
        default = None
        if not attr.required:
            # None, not the spec's default: an attribute the caller passes, even with the default
            # value, is on the node; one left out is not (the schema's default then applies).
            annotation = f"{annotation} | None"
            default = "None"
        name = identifier(attr.name, RESERVED_PARAMS)
        while name in taken:  # `self` became `self_`, and another attribute is named `self_`
            name = f"{name}_"
        taken.add(name)
        spec_default = None if attr.required or attr.default is None else spec_default_text(attr)
        out.append(PyParam(name, attr.name, annotation, default, attr.doc, spec_default))
    return out


class _Returns(NamedTuple):
    annotation: str
    kinds: list[str]  # one Value class per declared output (["Value"] for none)
    many: bool  # returned as a tuple of any length (variadic or no outputs)
    element: str | None  # the element class of a `tuple[X, ...]` annotation


def _returns(schema: OpSchema) -> _Returns:
    kinds = [_value_kind(schema, p) for p in schema.outputs]
    variadic = bool(schema.outputs) and schema.outputs[-1].is_variadic
    if len(kinds) == 1 and not variadic:
        return _Returns(kinds[0], kinds, False, None)
    if variadic:
        common = set(kinds)
        element = common.pop() if len(common) == 1 else "Value"
        return _Returns(f"tuple[{element}, ...]", kinds, True, element)
    if not kinds:
        return _Returns("tuple[Value, ...]", ["Value"], True, "Value")
    return _Returns(f"tuple[{', '.join(kinds)}]", kinds, False, None)


def _method_doc(
    schema: OpSchema, inputs: list[PyParam], variadic: PyParam | None, attrs: list[PyParam], memo: SourceMemo
) -> str:
    summary = memo.summary
    lines = [summary(schema.doc) or f"{schema.name} (since opset {schema.since_version})."]
    lines.append("")
    tags = [f"{display_domain(schema.domain)}.{schema.name}, since_version {schema.since_version}"]
    if schema.experimental:
        tags.append("EXPERIMENTAL")
    if schema.deprecated:
        tags.append("DEPRECATED")
    lines.append("; ".join(tags) + ".")
    for label, note in schema.notes:
        lines += ["", f"{label}: {note}"]
    rows = [(p, "") for p in inputs] + ([(variadic, " (variadic)")] if variadic is not None else [])
    if rows:
        lines += ["", "Inputs:"]
        lines += [f"    {p.name}{extra}: {summary(p.doc)}".rstrip().rstrip(":") for p, extra in rows]
    if attrs:
        lines += ["", "Attributes:"]
        for p in attrs:
            line = f"    {p.name}: {summary(p.doc)}".rstrip().rstrip(":")
            lines.append(line if p.spec_default is None else f"{line} (default {p.spec_default})")
    if schema.outputs:
        lines += ["", "Returns:"]
        for out in schema.outputs:
            opt = " (optional)" if out.is_optional else " (variadic)" if out.is_variadic else ""
            lines.append(f"    {out.name}{opt}: {summary(out.doc)}".rstrip().rstrip(":"))
    return docstring("\n".join(lines), 8, memo)


def _inputs_arg(inputs: list[PyParam], variadic: PyParam | None) -> Arg:
    """The node's inputs as the runtime call receives them: a tuple, the variadic tail spread."""
    fixed = Bracket.tuple_of([p.name for p in inputs])
    if variadic is None:
        return fixed
    if not inputs:
        return variadic.name
    return Bracket.tuple_of([f"*{fixed.inline()}", f"*{variadic.name}"])


def build_method(
    schema: OpSchema, method_name: str, schema_module: str, memo: SourceMemo | None = None
) -> Method:
    """The builder method of one operator version; `memo` shares repeated text between the
    versions of a domain (a fresh one when None)."""
    if memo is None:
        memo = SourceMemo()
    attrs = _attr_params(schema)
    taken = {a.name for a in attrs} | set(EXTRA_KWARGS)
    inputs, variadic = _input_params(schema, taken)
    signature = ["self", *(p.declaration() for p in inputs)]
    if inputs:
        signature.append("/")
    if variadic is not None:
        signature.append(f"*{variadic.name}: str")
    else:
        signature.append("*")  # attributes and the extras are keyword-only
    signature += [p.declaration() for p in attrs]
    signature += _EXTRAS_SIGNATURE
    returns = _returns(schema)
    schema_class = schema_class_name(schema.name, schema.since_version)
    target = f"_schema({str_literal(schema_module)}, {str_literal(schema_class)})"
    attributes = Bracket.dict_of([f"{str_literal(p.source)}: {p.name}" for p in attrs])
    tail: tuple[Arg, ...] = (target, _inputs_arg(inputs, variadic), attributes, *EXTRA_KWARGS)
    if len(returns.kinds) == 1 and not returns.many:
        runtime_call, call_args = "self._one", (returns.kinds[0], *tail)
    else:
        runtime_call, call_args = "self._many", (Bracket.tuple_of(returns.kinds), str(returns.many), *tail)
    by_name = {a.name: a for a in schema.attributes}
    return Method(
        name=method_name,
        op=schema.name,
        schema_module=schema_module,
        schema_class=schema_class,
        signature=signature,
        returns=returns.annotation,
        runtime_call=runtime_call,
        call_args=call_args,
        docstring=_method_doc(schema, inputs, variadic, attrs, memo),
        value_kinds=frozenset(returns.kinds) | ({returns.element} if returns.element else set()),
        uses_any=any(by_name[p.source].type in _ANY_TYPES for p in attrs),
    )


# An opset class overrides the builders that changed since the opset it inherits; a new operator
# version may change the signature, which mypy reports on the `def` line.
OVERRIDE_COMMENT = "  # type: ignore[override, unused-ignore]"


def signature_lines(method: Method, *, override: bool = False) -> list[str]:
    """The `def` line(s) of a builder method, indented for its class."""
    comment = OVERRIDE_COMMENT if override else ""
    one = f"    def {method.name}({', '.join(method.signature)}) -> {method.returns}:{comment}"
    if len(one) <= LINE:
        return [one]
    return [
        f"    def {method.name}({comment}",
        *[f"        {p}," for p in method.signature],
        f"    ) -> {method.returns}:",
    ]


def body_lines(method: Method) -> list[str]:
    """The `return self._one(...)` statement; spread one argument per line when it is too long."""
    one = f"        return {method.call}"
    if len(one) <= LINE:
        return [one]
    lines = [f"        return {method.runtime_call}("]
    for arg in method.call_args:
        line = f"            {inline(arg)},"
        if len(line) > LINE and isinstance(arg, Bracket):
            lines += arg.exploded("            ")
        else:
            lines.append(line)
    lines.append("        )")
    return lines
