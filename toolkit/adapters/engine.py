"""Declarative version adapters: move a node between two versions of an operator.

An operator version may carry `adapter: {upgrade: [...], downgrade: [...]}`; each step is a
`toolkit.model.spec.AdapterStep(kind, args)`. `upgrade` turns a node of the previous version into
one of this version; `downgrade` goes back. When `downgrade` is not written it is derived
from `upgrade` (`inverse_steps`); a `python` step has no inverse.

Step kinds (arguments in parentheses; "source" is the version the node has before the step,
"target" the version it has after):
- `compatible`: the node is valid as it is.
- `remove_attribute(attribute, value?)`: drop the attribute (it exists on the source side). In a
  downgrade this refuses (AdapterError) a node whose value would change what it computes: the
  value must equal the source default (absent is fine), or, when `value` is given, the node's
  value (or the source default when absent) must equal `value`, the value that means what
  the target version does without the attribute.
- `rename_attribute(attribute, to)`: source name -> target name, value kept.
- `set_attribute_if_absent(attribute, value)`: make an implicit value explicit (typically the
  source default, when the target changes or introduces the default).
- `attribute_to_input(attribute, input and/or index)`: the attribute's value (or its source
  default) becomes a constant input of the target; the caller adds the constant.
- `input_to_attribute(input and/or index, attribute)`: a constant input becomes an attribute;
  the caller provides constant values and may drop the now unused value.
- `type_restriction(param, types)`: the target no longer accepts these types for the type
  parameter; a node using one cannot be moved (checked when value types are known).
- `python(callable)`: `package.module:function(node, context) -> Node | AdapterResult`.

API for the version converter (no onnx needed; helpers at the end convert NodeProto):
- `Node(op_type, inputs, outputs, attributes, domain="", name="")`: a neutral node; `""` in
  `inputs` is an omitted optional input.
- `apply_upgrade(node, old, new, **context)` / `apply_downgrade(node, new, old, **context)`:
  one step between adjacent versions (`new.adapter` is used). `upgrade_node(op, node,
  from_opset, to_opset, **context)` and `downgrade_node(...)` chain every version in between.
  Context: `constants` (value name -> constant value, a Mapping or a callable returning None
  when not constant), `value_types` (value name -> type string such as `tensor(float)`),
  `taken` (names already used in the graph, so new constant names are unique).
- Each returns `AdapterResult(node, constants, dropped_inputs, notes)`: `constants` are
  `NewConstant(name, value, attr_type, element_type, like_input)` the caller must add as
  initializers (or Constant nodes); `element_type` is an ONNX element type name (`int64`)
  or None when the tensor must take the element type of input `like_input` of the node.
- Failures raise `AdapterError` (`MissingAdapter` when a version in the path has none);
  the message says which node and which step.
- onnx helpers: `node_from_onnx(NodeProto)`, `node_to_onnx(Node, schema=None)`,
  `constant_tensor(NewConstant, elem_type=None)`, `constant_node(NewConstant, ...)`.
"""

from __future__ import annotations

import importlib
import itertools
import struct
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from toolkit.model.adapter_steps import callable_problem
from toolkit.model.resolution import chain, version_at
from toolkit.model.spec import (
    Adapter,
    AdapterStep,
    AttrType,
    FormalParameter,
    OperatorSpec,
    OpSchema,
)
from toolkit.model.types import looks_like_type_string

if TYPE_CHECKING:
    from onnx import NodeProto, TensorProto

# Element type of the constant made from an attribute of each type.
_ELEMENT_OF_ATTR = {
    AttrType.INT: "int64",
    AttrType.INTS: "int64",
    AttrType.FLOAT: "float",
    AttrType.FLOATS: "float",
    AttrType.STRING: "string",
    AttrType.STRINGS: "string",
}


class AdapterError(Exception):
    """A step cannot be applied to this node; the message says which and why."""


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


ConstantLookup = Mapping[str, Any] | Callable[[str], Any]
TypeLookup = Mapping[str, str] | Callable[[str], "str | None"]


@dataclass(frozen=True)
class AdapterContext:
    """What a step (and a `python` adapter) may consult."""

    source: OpSchema
    target: OpSchema
    direction: str  # "upgrade" or "downgrade"
    constants: ConstantLookup | None = None
    value_types: TypeLookup | None = None
    taken: Collection[str] = ()

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


# --------------------------------------------------------------------------- entry points


def apply_upgrade(
    node: Node,
    old: OpSchema,
    new: OpSchema,
    *,
    constants: ConstantLookup | None = None,
    value_types: TypeLookup | None = None,
    taken: Collection[str] = (),
) -> AdapterResult:
    """Turn `node` (a node of version `old`) into a node of `new` with `new.adapter.upgrade`."""
    adapter = _adapter_of(new)
    if not adapter.upgrade:
        raise MissingAdapter(f"{new.id} declares no adapter (its `upgrade` list is empty)")
    ctx = AdapterContext(old, new, "upgrade", constants, value_types, taken)
    return apply_steps(adapter.upgrade, node, ctx)


def apply_downgrade(
    node: Node,
    new: OpSchema,
    old: OpSchema,
    *,
    constants: ConstantLookup | None = None,
    value_types: TypeLookup | None = None,
    taken: Collection[str] = (),
) -> AdapterResult:
    """Turn `node` (a node of version `new`) back into one of `old`: `downgrade` or the inverse."""
    adapter = _adapter_of(new)
    if adapter.downgrade is None and not adapter.upgrade:
        raise MissingAdapter(f"{new.id} declares no adapter (its `upgrade` list is empty)")
    steps = adapter.downgrade if adapter.downgrade is not None else inverse_steps(adapter.upgrade, new, old)
    ctx = AdapterContext(new, old, "downgrade", constants, value_types, taken)
    return apply_steps(steps, node, ctx)


def _adapter_of(schema: OpSchema) -> Adapter:
    if schema.adapter is None:
        raise MissingAdapter(f"{schema.id} declares no adapter")
    return schema.adapter


def upgrade_node(
    op: OperatorSpec, node: Node, from_opset: int, to_opset: int, **context: Any
) -> AdapterResult:
    """Move `node` from its version in opset `from_opset` to the one in `to_opset`, step by step."""
    versions = _chain(op, from_opset, to_opset)
    return _run_chain(node, list(itertools.pairwise(versions)), apply_upgrade, context)


def downgrade_node(
    op: OperatorSpec, node: Node, from_opset: int, to_opset: int, **context: Any
) -> AdapterResult:
    """Move `node` from its version in opset `from_opset` back to the one in `to_opset`."""
    versions = _chain(op, to_opset, from_opset)[::-1]
    return _run_chain(node, list(itertools.pairwise(versions)), apply_downgrade, context)


def _chain(op: OperatorSpec, low: int, high: int) -> list[OpSchema]:
    if low > high:
        raise AdapterError(f"opset {low} is after opset {high}: swap upgrade and downgrade")
    start = version_at(op, low)
    if start is None:
        raise AdapterError(f"operator {op.name} has no version in opset {low}")
    return [start, *chain(op, start.since_version, high)]


def _run_chain(
    node: Node,
    pairs: list[tuple[OpSchema, OpSchema]],
    apply: Callable[..., AdapterResult],
    context: dict[str, Any],
) -> AdapterResult:
    total = AdapterResult(node.copy())
    taken = set(context.pop("taken", ()))
    for first, second in pairs:
        result = apply(total.node, first, second, taken=taken, **context)
        taken.update(c.name for c in result.constants)
        total = AdapterResult(
            result.node,
            total.constants + result.constants,
            total.dropped_inputs + result.dropped_inputs,
            total.notes + result.notes,
        )
    return total


# --------------------------------------------------------------------------- steps


def apply_steps(steps: Sequence[AdapterStep], node: Node, ctx: AdapterContext) -> AdapterResult:
    """Apply `steps` in order to a copy of `node` (the caller's node is never changed)."""
    result = AdapterResult(node.copy())
    for step in steps:
        handler = _HANDLERS.get(step.kind)
        if handler is None:
            raise AdapterError(f"unknown adapter step kind '{step.kind}' ({step.location})")
        try:
            handler(step, result, ctx)
        except AdapterError as exc:
            raise AdapterError(
                f"{ctx.direction} {ctx.source.id} -> {ctx.target.id}, {result.node.label}: {exc}"
            ) from exc
    result.node.inputs = _trim(result.node.inputs)
    return result


def _compatible(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    return None


def _remove_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    name = str(step.arg("attribute"))
    if ctx.direction == "downgrade":
        _refuse_meaningful_value(step, result.node, ctx.source, name)
    if name in result.node.attributes:
        value = result.node.attributes.pop(name)
        result.notes.append(f"removed attribute '{name}' (was {value!r})")


def _refuse_meaningful_value(step: AdapterStep, node: Node, source: OpSchema, name: str) -> None:
    """A downgrade may drop an attribute only when the older version then computes the same."""
    declared = source.attribute(name)
    default = None if declared is None else _thaw(declared.default)
    present = name in node.attributes
    value = node.attributes[name] if present else default
    if "value" in dict(step.args):
        wanted = _thaw(step.arg("value"))
        if value is None or same_value(value, wanted):
            return
        what = f"{value!r}" if present else f"absent, so {value!r} (the default of {source.id})"
        raise AdapterError(
            f"attribute '{name}' is {what}; only {wanted!r} means what the older version does without it, "
            "so removing it would change what the node computes"
        )
    if not present or (default is not None and same_value(value, default)):
        return
    why = f"its default in {source.id} is {default!r}" if default is not None else f"{source.id} gives it no default"
    raise AdapterError(
        f"attribute '{name}' is {value!r}; the older version has no such attribute and {why}, "
        "so removing it would change what the node computes"
    )


def same_value(a: Any, b: Any) -> bool:
    """Attribute values equal as ONNX stores them (floats compared at float32 precision)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bytes):
        a = a.decode("utf-8")
    if isinstance(b, bytes):
        b = b.decode("utf-8")
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return _float32(float(a)) == _float32(float(b))
    return bool(a == b)


def _float32(value: float) -> float:
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return value


def _rename_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    name, to = str(step.arg("attribute")), str(step.arg("to"))
    attrs = result.node.attributes
    if name in attrs:
        if to in attrs:
            raise AdapterError(f"cannot rename attribute '{name}' to '{to}': the node has both")
        attrs[to] = attrs.pop(name)


def _set_attribute_if_absent(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    name = str(step.arg("attribute"))
    if name not in result.node.attributes:
        result.node.attributes[name] = _thaw(step.arg("value"))


def _attribute_to_input(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    node = result.node
    name = str(step.arg("attribute"))
    position = input_position(ctx.target, step)
    source_attr = ctx.source.attribute(name)
    value = node.attributes.pop(name, None)
    if value is None and source_attr is not None:
        value = _thaw(source_attr.default)
    if value is None:
        return  # absent and no default: the (optional) input stays omitted
    attr_type = source_attr.type if source_attr is not None else _guess_attr_type(value)
    formal = ctx.target.inputs[position]
    constant_name = _unique_name(
        f"{node.name or (node.outputs[0] if node.outputs else node.op_type)}_{formal.name}",
        set(ctx.taken) | {c.name for c in result.constants} | set(node.inputs),
    )
    element, like = _constant_element(ctx.target, position, attr_type, node)
    result.constants.append(NewConstant(constant_name, value, attr_type, element, like))
    while len(node.inputs) < position:
        node.inputs.append("")
    node.inputs.insert(position, constant_name)


def _input_to_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    node = result.node
    name = str(step.arg("attribute"))
    position = input_position(ctx.source, step)
    if position >= len(node.inputs) or not node.inputs[position]:
        return  # omitted: the target attribute's default applies
    value_name = node.inputs[position]
    value = ctx.constant(value_name)
    if value is None:
        raise AdapterError(
            f"input {position} ('{value_name}') must be a constant to become attribute '{name}'"
        )
    target_attr = ctx.target.attribute(name)
    node.attributes[name] = _as_attribute_value(value, target_attr.type if target_attr else None)
    del node.inputs[position]
    result.dropped_inputs.append(value_name)


def _type_restriction(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    param = str(step.arg("param"))
    banned = {str(t) for t in _as_list(step.arg("types"))}
    if ctx.value_types is None:
        result.notes.append(
            f"types of '{param}' not checked (no value types given): {', '.join(sorted(banned))}"
        )
        return
    sides = (
        ("input", ctx.source.inputs, result.node.inputs),
        ("output", ctx.source.outputs, result.node.outputs),
    )
    for kind, formals, actuals in sides:
        for index, value_name in enumerate(actuals):
            formal = _formal_at(formals, index)
            if formal is None or formal.type_str != param:
                continue
            found = ctx.value_type(value_name)
            if found in banned:
                raise AdapterError(
                    f"{kind} '{value_name}' has type {found}, which {ctx.target.id} does not accept"
                )


def _formal_at(formals: tuple[FormalParameter, ...], index: int) -> FormalParameter | None:
    """The formal parameter an actual at `index` binds to (a variadic last one takes the rest)."""
    if index < len(formals):
        return formals[index]
    if formals and formals[-1].is_variadic:
        return formals[-1]
    return None


def _python(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    func = load_callable(str(step.arg("callable")))
    try:
        out = func(result.node, ctx)
    except AdapterError:
        raise
    except Exception as exc:  # user code: report, do not crash the converter
        raise AdapterError(
            f"python adapter {step.arg('callable')} failed: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(out, AdapterResult):
        result.node = out.node
        result.constants.extend(out.constants)
        result.dropped_inputs.extend(out.dropped_inputs)
        result.notes.extend(out.notes)
    elif isinstance(out, Node):
        result.node = out
    else:
        raise AdapterError(f"python adapter {step.arg('callable')} returned {type(out).__name__}, not a Node")


_HANDLERS: dict[str, Callable[[AdapterStep, AdapterResult, AdapterContext], None]] = {
    "compatible": _compatible,
    "remove_attribute": _remove_attribute,
    "rename_attribute": _rename_attribute,
    "set_attribute_if_absent": _set_attribute_if_absent,
    "attribute_to_input": _attribute_to_input,
    "input_to_attribute": _input_to_attribute,
    "type_restriction": _type_restriction,
    "python": _python,
}


# --------------------------------------------------------------------------- inverse


def inverse_steps(
    steps: Sequence[AdapterStep], new: OpSchema | None = None, old: OpSchema | None = None
) -> tuple[AdapterStep, ...]:
    """The downgrade implied by upgrade `steps` (from `old` to `new`), last step first.

    AdapterError for `python` steps, which have no inverse.
    """
    out: list[AdapterStep] = []
    for step in reversed(steps):
        args = dict(step.args)
        args.pop("doc", None)
        if step.kind == "rename_attribute":
            out.append(_step("rename_attribute", step, attribute=args["to"], to=args["attribute"]))
        elif step.kind == "attribute_to_input":
            out.append(_step("input_to_attribute", step, **args))
        elif step.kind == "input_to_attribute":
            out.append(_step("attribute_to_input", step, **args))
        elif (
            step.kind == "set_attribute_if_absent"
            and old is not None
            and not old.attribute(str(args["attribute"]))
        ):
            # The upgrade introduced the attribute; the old version does not know it. Only
            # the value the upgrade writes means what the old version does.
            out.append(_step("remove_attribute", step, attribute=args["attribute"], value=args["value"]))
        elif step.kind == "python":
            where = f" of {new.id}" if new is not None else ""
            raise AdapterError(f"the python upgrade{where} has no inverse: write a `downgrade` list")
        # compatible, remove_attribute (absent means the old default), type_restriction
        # (the old version accepts more types), set_attribute_if_absent: nothing to undo.
    return tuple(out)


def _step(kind: str, origin: AdapterStep, **args: object) -> AdapterStep:
    return AdapterStep(kind, tuple(sorted(args.items())), origin.location)


# --------------------------------------------------------------------------- helpers


def input_position(schema: OpSchema, step: AdapterStep) -> int:
    """Position of the input a step names (by `input` name and/or `index`) in `schema`."""
    name, index = step.arg("input"), step.arg("index")
    if name is not None:
        for position, formal in enumerate(schema.inputs):
            if formal.name == name:
                return position
        raise AdapterError(f"{schema.id} has no input '{name}'")
    if isinstance(index, int) and 0 <= index < len(schema.inputs):
        return index
    raise AdapterError(f"{schema.id} has no input at index {index}")


def load_callable(spec: str) -> Callable[..., Any]:
    """`package.module:function` -> the function; AdapterError when it cannot be loaded."""
    problem = callable_problem(spec)
    if problem:
        raise AdapterError(problem)
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AdapterError(f"cannot import module '{module_name}' of python adapter {spec}: {exc}") from exc
    func = getattr(module, attr, None)
    if not callable(func):
        raise AdapterError(f"module '{module_name}' has no function '{attr}' (python adapter {spec})")
    return func  # type: ignore[no-any-return]


def _trim(inputs: list[str]) -> list[str]:
    while inputs and not inputs[-1]:
        inputs.pop()
    return inputs


def _unique_name(base: str, taken: set[str]) -> str:
    name, counter = base, 1
    while name in taken:
        name = f"{base}_{counter}"
        counter += 1
    return name


def _constant_element(
    target: OpSchema, position: int, attr_type: AttrType, node: Node
) -> tuple[str | None, int | None]:
    """Element type of a new constant input, or the index of a node input it must match."""
    type_str = target.inputs[position].type_str
    if looks_like_type_string(type_str):
        if type_str.startswith("tensor(") and type_str.endswith(")"):
            return type_str[len("tensor(") : -1], None
        return _ELEMENT_OF_ATTR.get(attr_type.element), None
    constraint = target.constraint_map.get(type_str)
    if (
        constraint is not None
        and len(constraint.allowed) == 1
        and constraint.allowed[0].startswith("tensor(")
    ):
        return constraint.allowed[0][len("tensor(") : -1], None
    for index, formal in enumerate(target.inputs):
        if (
            index != position
            and formal.type_str == type_str
            and index < len(node.inputs)
            and node.inputs[index]
        ):
            return None, index
    return _ELEMENT_OF_ATTR.get(attr_type.element), None


def _guess_attr_type(value: Any) -> AttrType:
    if isinstance(value, (list, tuple)):
        first = value[0] if value else 0
        return {int: AttrType.INTS, float: AttrType.FLOATS, str: AttrType.STRINGS}.get(
            type(first), AttrType.INTS
        )
    return {int: AttrType.INT, float: AttrType.FLOAT, str: AttrType.STRING}.get(type(value), AttrType.TENSOR)


def _as_list(value: object) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return list(value)
    return [] if value is None else [value]


def _thaw(value: Any) -> Any:
    """Model defaults are tuples (frozen); node attributes use lists."""
    return list(value) if isinstance(value, tuple) else value


def _as_attribute_value(value: Any, attr_type: AttrType | None) -> Any:
    """A constant (number, list or array-like) shaped as a value of `attr_type`."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if attr_type is None:
        return value
    items = [v.decode("utf-8") if isinstance(v, bytes) else v for v in _flatten(value)]
    cast: Callable[[Any], Any] = {"int": int, "float": float, "string": str}.get(
        attr_type.element.value, lambda v: v
    )
    if attr_type.is_list:
        return [cast(v) for v in items]
    if len(items) != 1:
        raise AdapterError(f"a constant of {len(items)} values cannot become a {attr_type.value} attribute")
    return cast(items[0])


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flatten(part)]
    return [value]


# --------------------------------------------------------------------------- onnx helpers


def node_from_onnx(proto: NodeProto) -> Node:
    """A NodeProto as a neutral Node (strings decoded; tensors and graphs kept as protos)."""
    from onnx import helper

    attributes: dict[str, Any] = {}
    for attr in proto.attribute:
        value = helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode("utf-8") for v in value]
        attributes[attr.name] = value
    return Node(
        op_type=proto.op_type,
        inputs=list(proto.input),
        outputs=list(proto.output),
        attributes=attributes,
        domain=proto.domain,
        name=proto.name,
    )


def node_to_onnx(node: Node, schema: OpSchema | None = None) -> NodeProto:
    """A Node as a NodeProto; `schema` gives the attribute types of empty lists."""
    from onnx import helper

    proto = helper.make_node(
        node.op_type, node.inputs, node.outputs, name=node.name or None, domain=node.domain
    )
    for name in sorted(node.attributes):
        value = node.attributes[name]
        declared = schema.attribute(name) if schema is not None else None
        if declared is not None and declared.type.proto_number <= 14:
            proto.attribute.append(helper.make_attribute(name, value, attr_type=declared.type.proto_number))
        else:
            proto.attribute.append(helper.make_attribute(name, value))
    return proto


def constant_tensor(constant: NewConstant, elem_type: int | None = None) -> TensorProto:
    """The TensorProto of a new constant; `elem_type` (TensorProto.DataType) overrides its own."""
    from onnx import TensorProto, helper

    if elem_type is None:
        name = constant.element_type or _ELEMENT_OF_ATTR.get(constant.attr_type.element, "float")
        elem_type = _ONNX_ELEMENT_NUMBERS.get(name)
        if elem_type is None:
            raise AdapterError(f"no ONNX element type '{name}' for constant {constant.name}")
    values = constant.value if isinstance(constant.value, (list, tuple)) else [constant.value]
    if elem_type == TensorProto.STRING:
        values = [str(v).encode("utf-8") for v in values]
    return helper.make_tensor(constant.name, elem_type, constant.dims, values)


def constant_node(constant: NewConstant, elem_type: int | None = None) -> NodeProto:
    """A Constant node producing the new constant (for graphs that avoid initializers)."""
    from onnx import helper

    return helper.make_node(
        "Constant",
        [],
        [constant.name],
        name=f"{constant.name}_const",
        value=constant_tensor(constant, elem_type),
    )


_ONNX_ELEMENT_NUMBERS = {
    "float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "string": 8,
    "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13, "bfloat16": 16,
}  # fmt: skip


def element_type_number(name: str) -> int | None:
    """ONNX TensorProto.DataType of an element type name (`int64` -> 7)."""
    return _ONNX_ELEMENT_NUMBERS.get(name)


__all__ = [
    "AdapterContext",
    "AdapterError",
    "AdapterResult",
    "MissingAdapter",
    "NewConstant",
    "Node",
    "apply_downgrade",
    "apply_steps",
    "apply_upgrade",
    "constant_node",
    "constant_tensor",
    "downgrade_node",
    "element_type_number",
    "input_position",
    "inverse_steps",
    "load_callable",
    "node_from_onnx",
    "node_to_onnx",
    "same_value",
    "upgrade_node",
]
