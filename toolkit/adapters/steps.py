"""The adapter step handlers: what each step kind does to a node (see `toolkit.adapters` for
the vocabulary), and `apply_steps`, which runs a list of steps on a copy of a node."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from toolkit.adapters.node import (
    ELEMENT_OF_ATTR,
    AdapterContext,
    AdapterError,
    AdapterResult,
    MissingAdapter,
    NewConstant,
    Node,
)
from toolkit.model.adapter_steps import PerKind, callable_problem, same_value
from toolkit.model.opt_in import ALLOW_PYTHON_ADAPTERS_ENV, env_flag
from toolkit.model.spec import AdapterStep, AttrType, FormalParameter, OpSchema
from toolkit.model.types import looks_like_type_string

Handler = Callable[[AdapterStep, AdapterResult, AdapterContext], None]
_STEPS: PerKind[Handler] = PerKind("adapter step handlers")  # what each step kind does to a node


def apply_steps(steps: Sequence[AdapterStep], node: Node, ctx: AdapterContext) -> AdapterResult:
    """Apply `steps` in order to a copy of `node` (the caller's node is never changed)."""
    result = AdapterResult(node.copy())
    for step in steps:
        handler = _HANDLERS.get(step.kind)
        if handler is None:
            raise AdapterError(f"unknown adapter step kind '{step.kind}' ({step.location})")
        try:
            handler(step, result, ctx)
        except MissingAdapter:
            raise  # the version has no adapter at all (`onnx_ops.no_adapter`): not this node's doing
        except AdapterError as exc:
            raise AdapterError(
                f"{ctx.direction} {ctx.source.id} -> {ctx.target.id}, {result.node.label}: {exc}", exc.hint
            ) from exc
    result.node.inputs = _trim(result.node.inputs, ctx.target.min_input)
    return result


@_STEPS.of("compatible")
def _compatible(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    return None


@_STEPS.of("remove_attribute")
def _remove_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    name = str(step.arg("attribute"))
    _refuse_meaningful_value(step, result.node, ctx, name)
    if name in result.node.attributes:
        value = result.node.attributes.pop(name)
        result.notes.append(f"removed attribute '{name}' (was {value!r})")


def _refuse_meaningful_value(step: AdapterStep, node: Node, ctx: AdapterContext, name: str) -> None:
    """Drop an attribute only when the target version then computes the same: its value (or the
    source default) is `value`, or, without `value`, the source default. An upgrade drops an
    attribute that has neither (nothing says which value the newer version means: it is taken to
    mean nothing, as onnx's legacy `consumed_inputs`)."""
    source, target = ctx.source, ctx.target
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
            f"attribute '{name}' is {what}; only {wanted!r} means what {target.id} does without it, "
            "so removing it would change what the node computes"
        )
    if not present or (default is not None and same_value(value, default)):
        return
    if default is None and ctx.direction == "upgrade":
        return
    why = (
        f"its default in {source.id} is {default!r}"
        if default is not None
        else f"{source.id} gives it no default"
    )
    raise AdapterError(
        f"attribute '{name}' is {value!r}; {target.id} has no such attribute and {why}, "
        "so removing it would change what the node computes"
    )


@_STEPS.of("rename_attribute")
def _rename_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    name, to = str(step.arg("attribute")), str(step.arg("to"))
    attrs = result.node.attributes
    if name in attrs:
        if to in attrs:
            raise AdapterError(f"cannot rename attribute '{name}' to '{to}': the node has both")
        attrs[to] = attrs.pop(name)


@_STEPS.of("set_attribute_if_absent")
def _set_attribute_if_absent(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    name = str(step.arg("attribute"))
    if name not in result.node.attributes:
        result.node.attributes[name] = _thaw(step.arg("value"))


@_STEPS.of("attribute_to_input")
def _attribute_to_input(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    node = result.node
    name = str(step.arg("attribute"))
    position = input_position(ctx.target, step)
    source_attr = ctx.source.attribute(name)
    value = node.attributes.pop(name, None)
    if value is None and source_attr is not None:
        value = _thaw(source_attr.default)
    if value is None:
        if position < len(node.inputs):
            node.inputs.insert(position, "")  # omitted, and the inputs after it keep their places
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


@_STEPS.of("input_to_attribute")
def _input_to_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    node = result.node
    name = str(step.arg("attribute"))
    position = input_position(ctx.source, step)
    if position >= len(node.inputs) or not node.inputs[position]:
        del node.inputs[position : position + 1]  # the inputs after it move one place back
        return  # omitted: the attribute stays absent
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


@_STEPS.of("type_restriction")
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
    # A type parameter binds to one type per node, so one known value of it tells the type of
    # all (outputs included); a heterogeneous variadic binds each value on its own.
    bound: list[tuple[str, str, str | None, bool]] = []
    for kind, formals, actuals in sides:
        for index, value_name in enumerate(actuals):
            formal = _formal_at(formals, index)
            if formal is None or formal.type_str != param or not value_name:
                continue
            bound.append((kind, value_name, ctx.value_type(value_name), formal.homogeneous))
    for kind, value_name, found, _ in bound:
        if found in banned:
            raise AdapterError(
                f"{kind} '{value_name}' has type {found}, which {ctx.target.id} does not accept"
            )
    known = any(found is not None and homogeneous for _, _, found, homogeneous in bound)
    for kind, value_name, found, homogeneous in bound:
        if found is None and not (known and homogeneous):
            raise AdapterError(
                f"{kind} '{value_name}' has no known type, so it cannot be checked that {ctx.target.id} "
                f"accepts it (it does not accept {', '.join(sorted(banned))} for '{param}')"
            )


@_STEPS.of("require_attribute")
def _require_attribute(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    """Refuse unless the attribute (or its source default) is one of `values` / at least `min`:
    the values for which the target version computes what the source does."""
    name = str(step.arg("attribute"))
    declared = ctx.source.attribute(name)
    present = name in result.node.attributes
    value = (
        result.node.attributes[name] if present else (None if declared is None else _thaw(declared.default))
    )
    if value is None:
        return  # absent without a default: nothing the target could read differently
    allowed, least = step.arg("values"), step.arg("min")
    what = f"{value!r}" if present else f"absent, so {value!r} (the default of {ctx.source.id})"
    if allowed is not None and not any(same_value(value, v) for v in _as_list(allowed)):
        choices = ", ".join(repr(_thaw(v)) for v in _as_list(allowed))
        raise AdapterError(
            f"attribute '{name}' is {what}; {ctx.target.id} computes the same only for {choices}"
        )
    if isinstance(least, int) and any(isinstance(v, (int, float)) and v < least for v in _flatten(value)):
        raise AdapterError(f"attribute '{name}' is {what}; {ctx.target.id} accepts only values >= {least}")


@_STEPS.of("remove_input")
def _remove_input(step: AdapterStep, result: AdapterResult, ctx: AdapterContext) -> None:
    """The source's optional input has no counterpart in the target: only a node that omits it moves."""
    position = input_position(ctx.source, step)
    node = result.node
    if position < len(node.inputs) and node.inputs[position]:
        raise AdapterError(
            f"input {position} ('{node.inputs[position]}') is given; {ctx.target.id} has no such input"
        )
    del node.inputs[position : position + 1]


def _formal_at(formals: tuple[FormalParameter, ...], index: int) -> FormalParameter | None:
    """The formal parameter an actual at `index` binds to (a variadic last one takes the rest)."""
    if index < len(formals):
        return formals[index]
    if formals and formals[-1].is_variadic:
        return formals[-1]
    return None


@_STEPS.of("python")
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
        result.before.extend(out.before)
        result.after.extend(out.after)
    elif isinstance(out, Node):
        result.node = out
    else:
        raise AdapterError(f"python adapter {step.arg('callable')} returned {type(out).__name__}, not a Node")


_HANDLERS = _STEPS.complete()

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


# The toolkit's own python adapters (the ai.onnx overlays in toolkit/data/onnx_adapters): they
# always run. Any other module is named by a spec tree, and importing it runs its code: only
# with the invoker's opt-in (toolkit.model.opt_in).
BUILT_IN_ADAPTER_MODULES = frozenset({"toolkit.adapters.onnx_ops", "toolkit.adapters.onnx_ml_ops"})


def load_callable(spec: str) -> Callable[..., Any]:
    """`package.module:function` -> the function; AdapterError when it cannot be loaded or the
    invoker did not allow the specs' python adapters."""
    problem = callable_problem(spec)
    if problem:
        raise AdapterError(problem)
    module_name, _, attr = spec.partition(":")
    if module_name not in BUILT_IN_ADAPTER_MODULES and not env_flag(ALLOW_PYTHON_ADAPTERS_ENV):
        raise AdapterError(
            f"python adapter {spec} not run: it is code the specs name, and importing it would run it; "
            f"set {ALLOW_PYTHON_ADAPTERS_ENV}=1 where the specs are trusted"
        )
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # the adapter module's own failure is reported, not raised
        raise AdapterError(
            f"cannot import module '{module_name}' of python adapter {spec}: {type(exc).__name__}: {exc}"
        ) from None
    func = getattr(module, attr, None)
    if not callable(func):
        raise AdapterError(f"module '{module_name}' has no function '{attr}' (python adapter {spec})")
    return func  # type: ignore[no-any-return]


def _trim(inputs: list[str], keep: int) -> list[str]:
    """Drop trailing omitted inputs, never below the `keep` positions the target requires (Loop's
    `M` and `cond` may be omitted, by an empty name, but not left out)."""
    while len(inputs) > keep and not inputs[-1]:
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
        return ELEMENT_OF_ATTR.get(attr_type.element), None
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
    return ELEMENT_OF_ATTR.get(attr_type.element), None


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
