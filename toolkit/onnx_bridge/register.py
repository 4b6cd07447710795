"""`toolkit.register_onnx(registry)`: the registry's vendor schemas registered into the installed
onnx, with type-and-shape inference functions made from their `shape:` rules (#27).

After it, `onnx.checker.check_model(model, check_custom_domain=True)` checks vendor nodes
against their schemas, and `onnx.shape_inference.infer_shapes(model)` gives their outputs'
element types and shapes. Only domains onnx does not define itself are registered (ai.onnx and
ai.onnx.ml stay onnx's own). Needs onnx >= 1.16 (`onnx.defs.register_schema`); the inference
functions need onnx >= 1.19 (`OpSchema.set_type_and_shape_inference_function` taking a Python
function) and are left out, with the schemas still registered, on older releases.

An inference function evaluates the rules with `toolkit.shapes.engine` on what onnx's inference
context gives: the inputs' types, constant inputs (initializers, Constant nodes) and the node's
attributes. It never runs anything of the spec. An output's element type is the one its type
parameter is bound to by the inputs, a concrete type, or a constraint's only type.

A broken constraint (MatMul-like inner dimensions that differ) raises
`onnx.shape_inference.InferenceError`. onnx (1.23) lets an exception of a Python inference
function through even without `strict_mode`, unlike its C++ functions' failures; pass
`fail_on_constraint=False` to leave such a node's outputs unshaped instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from toolkit.adapters.onnx_io import default_proto
from toolkit.model.spec import OpSchema, ParamOption, display_domain
from toolkit.onnx_bridge.shape_write import type_proto
from toolkit.registry.core import Registry
from toolkit.shapes.engine import bind_inputs, infer
from toolkit.shapes.values import ABSENT, Sym, Value

__all__ = ["deregister_onnx", "onnx_schema", "register_onnx"]

# (name, since_version, domain) of every schema this process registered, so a second
# register_onnx is a no-op for them and deregister_onnx removes exactly them
_REGISTERED: set[tuple[str, int, str]] = set()
_SYMBOLS = itertools.count()


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        from toolkit.onnx_bridge.missing import not_installed

        raise not_installed("onnx", "register_onnx") from None
    if not hasattr(onnx.defs, "register_schema"):
        raise RuntimeError(
            f"register_onnx needs onnx >= 1.16 (onnx.defs.register_schema); installed: {onnx.__version__}"
        )
    return onnx


def _onnx_domains(onnx: Any) -> set[str]:
    """The domains onnx defines itself (never a domain someone registered into it)."""
    names = ("ONNX_DOMAIN", "ONNX_ML_DOMAIN", "AI_ONNX_PREVIEW_DOMAIN", "AI_ONNX_PREVIEW_TRAINING_DOMAIN")
    return {getattr(onnx.defs, name) or "ai.onnx" for name in names if hasattr(onnx.defs, name)}


def register_onnx(
    registry: Registry, *, domains: Iterable[str] | None = None, fail_on_constraint: bool = True
) -> list[tuple[str, int, str]]:
    """Register every operator version of the registry's vendor domains (or of `domains`) into
    onnx's schema registry; return the (name, since_version, domain) registered by this call.

    Registering again what this process registered is a no-op; a version onnx already has from
    elsewhere raises ValueError naming it (onnx refuses a second registration)."""
    onnx = _onnx()
    own = _onnx_domains(onnx)
    wanted = [
        display_domain(d) or "ai.onnx" for d in (domains if domains is not None else registry.domains())
    ]
    added: list[tuple[str, int, str]] = []
    for domain in wanted:
        if domain in own:
            continue
        for operator in registry.operators(domain):
            for version in operator.versions:
                key = (version.name, version.since_version, version.domain)
                if key in _REGISTERED:
                    continue
                try:
                    onnx.defs.register_schema(onnx_schema(version, fail_on_constraint=fail_on_constraint))
                except onnx.defs.SchemaError as exc:
                    raise ValueError(
                        f"cannot register {version.id}: onnx already has it ({str(exc).splitlines()[0]}); "
                        f"deregister it first (onnx.defs.deregister_schema)"
                    ) from None
                _REGISTERED.add(key)
                added.append(key)
    return added


def deregister_onnx() -> int:
    """Remove every schema register_onnx registered in this process; return how many."""
    onnx = _onnx()
    count = 0
    for name, since, domain in sorted(_REGISTERED):
        onnx.defs.deregister_schema(name, since, domain)
        count += 1
    _REGISTERED.clear()
    return count


def onnx_schema(version: OpSchema, *, inference: bool = True, fail_on_constraint: bool = True) -> Any:
    """One operator version as an `onnx.defs.OpSchema`, the one conversion `register_onnx` uses:
    signature, type constraints and attributes, plus (on onnx >= 1.19, unless `inference` is
    false) the type-and-shape inference function made from its `shape:` rules. Without it,
    onnx's checks and inference treat the node as one with no inference function."""
    onnx = _onnx()
    S = onnx.defs.OpSchema
    option = {
        ParamOption.SINGLE: S.FormalParameterOption.Single,
        ParamOption.OPTIONAL: S.FormalParameterOption.Optional,
        ParamOption.VARIADIC: S.FormalParameterOption.Variadic,
    }

    def params(items: Iterable[Any]) -> list[Any]:
        return [
            S.FormalParameter(
                p.name,
                p.type_str,
                p.doc,
                param_option=option[p.option],
                is_homogeneous=p.homogeneous,
                min_arity=p.min_arity,
            )
            for p in items
        ]

    schema = S(
        version.name,
        version.domain,
        version.since_version,
        version.doc,
        inputs=params(version.inputs),
        outputs=params(version.outputs),
        type_constraints=[(c.param, list(c.allowed), c.doc) for c in version.type_constraints],
        attributes=[
            S.Attribute(a.name, S.AttrType(a.type.proto_number), a.doc, required=a.required)
            if a.default is None
            else S.Attribute(a.name, default_proto(a), a.doc)
            for a in version.attributes
        ],
    )
    if inference and hasattr(schema, "set_type_and_shape_inference_function"):  # onnx >= 1.19
        schema.set_type_and_shape_inference_function(_inference(onnx, version, fail_on_constraint))
    return schema


def _fresh() -> Sym:
    return Sym(f"unk__opset_{next(_SYMBOLS)}")


def _inference(onnx: Any, version: OpSchema, fail_on_constraint: bool) -> Callable[[Any], None]:
    """onnx's inference function of one operator version, from its rules."""
    from toolkit.onnx_bridge.shape_read import attribute_value, shape_of, tensor_constant

    has_rules = any(p.shape is not None for p in version.outputs) or bool(version.shape_requires)
    elements = _element_sources(version)

    def infer_node(ctx: Any) -> None:
        count = ctx.get_num_inputs()
        types = [ctx.get_input_type(i) if ctx.has_input(i) else None for i in range(count)]
        produced = ctx.get_num_outputs()
        outputs: list[Value] = [None] * produced
        if has_rules:
            given: list[Value] = [shape_of(t) if t is not None else ABSENT for t in types]
            values: dict[str, tuple[int | float, ...]] = {}
            for index, param in enumerate(version.inputs[:count]):
                data = (
                    ctx.get_input_data(index) if not param.is_variadic and types[index] is not None else None
                )
                constant = tensor_constant(data)[1] if data is not None else None
                if constant is not None:
                    values[param.name] = constant
            attributes: dict[str, Value] = {}
            for attr in version.attributes:
                proto = ctx.get_attribute(attr.name)
                if proto is not None:
                    attributes[attr.name] = attribute_value(proto)
            inferred = infer(
                version, bind_inputs(version, given), attributes, values, _fresh, outputs=produced
            )
            if inferred.findings and fail_on_constraint:
                raise onnx.shape_inference.InferenceError(
                    f"{version.id} ({ctx.get_display_name()}): {'; '.join(inferred.findings)}"
                )
            outputs = list(inferred.outputs)  # one per node output (a variadic output expanded)
        last = len(version.outputs) - 1
        for index in range(produced):
            formal = index if index <= last else last  # the values of a variadic last output
            if (
                formal < 0
                or not ctx.has_output(index)
                or (index > last and not version.outputs[last].is_variadic)
            ):
                continue
            element = elements[formal](types)
            shape = outputs[index] if index < len(outputs) else None
            if not element and not isinstance(shape, tuple):
                continue
            ctx.set_output_type(index, type_proto(element, shape if isinstance(shape, tuple) else None))

    return infer_node


def _element_sources(version: OpSchema) -> list[Callable[[list[Any]], int]]:
    """Per output, how its element type number follows from the inputs' TypeProtos (0: unknown):
    a concrete tensor type, a constraint's only type, or the type its parameter is bound to."""
    from toolkit.model.types import ELEMENT_TYPE_NUMBERS

    def number(type_str: str) -> int:
        inner = type_str[7:-1] if type_str.startswith("tensor(") and type_str.endswith(")") else ""
        return ELEMENT_TYPE_NUMBERS.get(inner, 0)

    constraints = version.constraint_map
    sources: list[Callable[[list[Any]], int]] = []
    for param in version.outputs:
        constraint = constraints.get(param.type_str)
        fixed = number(param.type_str) if constraint is None else 0
        if constraint is not None and len(constraint.allowed) == 1:
            fixed = number(constraint.allowed[0])
        positions = [
            i for i, p in enumerate(version.inputs) if p.type_str == param.type_str and p.homogeneous
        ]
        variadic_from = next((i for i in positions if version.inputs[i].is_variadic), None)

        def source(
            types: list[Any],
            fixed: int = fixed,
            positions: list[int] = positions,
            tail: int | None = variadic_from,
        ) -> int:
            if fixed:
                return fixed
            candidates = [*positions, *(range(tail + 1, len(types)) if tail is not None else ())]
            for i in candidates:
                known = i < len(types) and types[i] is not None and types[i].HasField("tensor_type")
                if known and types[i].tensor_type.elem_type:
                    return int(types[i].tensor_type.elem_type)
            return 0

        sources.append(source)
    return sources
