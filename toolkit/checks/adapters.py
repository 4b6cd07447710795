"""Spec checks of version adapters (ADAPTER-*): does each step name things that exist?

Adapter steps name things on two sides. For `upgrade` the source is the previous version
and the target this one; for `downgrade` the reverse. What is removed or moved *from* must
exist on the source side, what is added or moved *to* on the target side.

`check_step` is also used on the adapters an overlay adds to the onnx catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from toolkit.checks.adapter_inverse import missing_downgrade
from toolkit.model.adapter_steps import (
    COMMON_ARGS,
    STEP_KINDS,
    PerKind,
    callable_problem,
    invalidating_changes,
)
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.node_moves import step_for
from toolkit.model.rules import register, rule
from toolkit.model.spec import AdapterStep, AttrType, DomainSpec, OpSchema, SpecSet

ADAPTERS = "Version adapters"

StepCheck = Callable[[AdapterStep, OpSchema, OpSchema], Iterator[Diagnostic]]
_CHECKS: PerKind[StepCheck] = PerKind("adapter step checks")  # what each step kind's arguments must name


@rule(
    "ADAPTER-NO-PREVIOUS",
    "adapter",
    "error",
    "An adapter is attached to an operator's first version, which has nothing to adapt from.",
    category=ADAPTERS,
    hint="an adapter moves nodes from the previous version; remove it from the first version",
    doc="""\
**Why:** an adapter says how a node of the *previous* version becomes a node of this one (and
back); the first version of an operator has no previous version.

**Before:** `adapter: {upgrade: [{kind: compatible}]}` under the operator's first version.

**After:** the same version without `adapter:`.""",
    per_operator=True,
)
def adapters(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """Every ADAPTER-* problem of every adapter (see `check_step`, `compatible_steps` and
    `adapter_inverse.missing_downgrade`)."""
    for op in specs.operators:
        previous: OpSchema | None = None
        # An adapter moves nodes from the version of the next lower since_version, wherever the
        # list puts it: a list out of order is VERSION-ORDER alone, not an adapter problem too.
        for schema in sorted(op.versions, key=lambda v: v.since_version):
            if schema.adapter is not None:
                if previous is None:
                    yield Diagnostic(
                        "ADAPTER-NO-PREVIOUS",
                        f"{schema.id} has an adapter but is the first version of {op.name}",
                        schema.adapter.location,
                        "an adapter moves nodes from the previous version; remove it from the first version",
                    )
                else:
                    upgrade = [
                        d for step in schema.adapter.upgrade for d in check_step(step, previous, schema)
                    ]
                    yield from upgrade
                    for step in schema.adapter.downgrade or ():
                        yield from check_step(step, schema, previous)
                    yield from compatible_steps(schema.adapter.upgrade, previous, schema)
                    yield from compatible_steps(schema.adapter.downgrade or (), schema, previous)
                    if not any(
                        d.severity is Severity.ERROR for d in upgrade
                    ):  # derivable from sound steps only
                        yield from missing_downgrade(previous, schema)
            previous = schema


_NAMING_ARGS = frozenset({"attribute", "to", "input", "param"})


def compatible_steps(
    steps: Sequence[AdapterStep], source: OpSchema, target: OpSchema
) -> Iterator[Diagnostic]:
    """ADAPTER-NOT-COMPATIBLE: `compatible` claims source nodes are valid target nodes unchanged.

    Changes another step of the list deals with (it names the attribute, input or type
    parameter, or is a `python` step) do not count: `compatible` then only covers the rest.
    """
    marked = [step for step in steps if step.kind == "compatible"]
    if not marked or any(step.kind == "python" for step in steps):
        return
    handled = {str(value) for step in steps for key, value in step.args if key in _NAMING_ARGS}
    changes = [c for c in invalidating_changes(source, target) if c.subject not in handled]
    if not changes:
        return
    listed = "; ".join(c.message for c in changes[:3]) + ("; ..." if len(changes) > 3 else "")
    for step in marked:
        yield _diag(
            "ADAPTER-NOT-COMPATIBLE",
            f"compatible: a {source.id} node is not a valid {target.id} node as it is ({listed})",
            step,
            "write the steps that move the node instead of `compatible`: "
            + "; ".join(dict.fromkeys(step_for(change) for change in changes[:3])),
        )


def check_step(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    """Problems of one step moving a node from `source` to `target`."""
    required, allowed = STEP_KINDS.get(step.kind, ((), frozenset()))
    given = {name for name, _ in step.args}
    missing = [" or ".join(f"`{n}`" for n in group) for group in required if not given & set(group)]
    if missing:
        yield _diag("ADAPTER-ARGS", f"{step.kind} step needs {', '.join(missing)}", step, _usage(step.kind))
        return
    for extra in sorted(given - allowed - COMMON_ARGS):
        yield _diag(
            "ADAPTER-ARGS", f"`{extra}` has no meaning in a {step.kind} step", step, _usage(step.kind)
        )
    yield from _STEP_CHECKS.get(step.kind, _no_check)(step, source, target)


def _usage(kind: str) -> str:
    _required, allowed = STEP_KINDS.get(kind, ((), frozenset()))
    return f"{kind} takes: {', '.join(sorted(allowed)) or 'no arguments'}"


@_CHECKS.of("compatible")  # no argument to check
def _no_check(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    return iter(())


def _attribute_on(side: OpSchema, step: AdapterStep, key: str, what: str) -> Iterator[Diagnostic]:
    name = step.arg(key)
    if side.attribute(str(name)) is None:
        known = ", ".join(a.name for a in side.attributes) or "none"
        yield _diag(
            "ADAPTER-UNKNOWN-ATTRIBUTE",
            f"{step.kind}: {side.id} has no attribute '{name}' ({what}; it has: {known})",
            step,
            f"name an attribute of {side.id}",
        )


def _input_on(side: OpSchema, step: AdapterStep, what: str) -> Iterator[Diagnostic]:
    name, index = step.arg("input"), step.arg("index")
    names = [p.name for p in side.inputs]
    if name is not None and name not in names:
        yield _diag(
            "ADAPTER-UNKNOWN-INPUT",
            f"{step.kind}: {side.id} has no input '{name}' ({what}; it has: {', '.join(names) or 'none'})",
            step,
            f"name an input of {side.id}",
        )
    elif isinstance(index, int) and index >= len(names):
        yield _diag(
            "ADAPTER-UNKNOWN-INPUT",
            f"{step.kind}: {side.id} has no input at index {index} ({what}; it has {len(names)})",
            step,
            "indexes count from 0",
        )
    elif name is not None and isinstance(index, int) and names[index] != name:
        yield _diag(
            "ADAPTER-UNKNOWN-INPUT",
            f"{step.kind}: input {index} of {side.id} is '{names[index]}', not '{name}'",
            step,
            "give `input` or `index`, or make them agree",
        )


@_CHECKS.of("remove_attribute")
def _remove_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the attribute removed")
    attr = source.attribute(str(step.arg("attribute")))
    if attr is not None and "value" in dict(step.args):
        yield from _value_type(step, attr.type, attr.name)


@_CHECKS.of("rename_attribute")
def _rename_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the old name")
    yield from _attribute_on(target, step, "to", "the new name")


@_CHECKS.of("set_attribute_if_absent")
def _set_attribute_if_absent(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    attr = target.attribute(str(step.arg("attribute")))
    if attr is None:
        yield from _attribute_on(target, step, "attribute", "the attribute set")
        return
    yield from _value_type(step, attr.type, attr.name)


def _value_type(step: AdapterStep, attr_type: AttrType, name: str) -> Iterator[Diagnostic]:
    value = step.arg("value")
    if not _value_fits(value, attr_type):
        yield _diag(
            "ADAPTER-VALUE-TYPE",
            f"{step.kind}: {value!r} is not a value of {attr_type.value} attribute '{name}'",
            step,
            f"give a {attr_type.value} value",
        )


def _value_fits(value: object, attr_type: AttrType) -> bool:
    scalar = {"int": (int,), "float": (int, float), "string": (str,)}.get(attr_type.element.value)
    if scalar is None:
        return True  # tensors, graphs, ...: not written inline, nothing to compare
    if attr_type.is_list:
        return isinstance(value, tuple) and all(_scalar_fits(v, scalar) for v in value)
    return _scalar_fits(value, scalar)


def _scalar_fits(value: object, types: tuple[type, ...]) -> bool:
    return isinstance(value, types) and not isinstance(value, bool)


@_CHECKS.of("attribute_to_input")
def _attribute_to_input(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the attribute moved")
    yield from _input_on(target, step, "the input it becomes")


@_CHECKS.of("input_to_attribute")
def _input_to_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _input_on(source, step, "the input moved")
    yield from _attribute_on(target, step, "attribute", "the attribute it becomes")


@_CHECKS.of("type_restriction")
def _type_restriction(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    param = str(step.arg("param"))
    before, after = source.constraint_map.get(param), target.constraint_map.get(param)
    if before is None:
        known = ", ".join(c.param for c in source.type_constraints) or "none"
        yield _diag(
            "ADAPTER-UNKNOWN-PARAM",
            f"type_restriction: {source.id} has no type parameter '{param}' (it has: {known})",
            step,
            f"name a type parameter of {source.id}",
        )
        return
    types = step.arg("types")
    for type_str in types if isinstance(types, tuple) else ():
        if after is not None and type_str in after.allowed:
            yield _diag(
                "ADAPTER-TYPE-STILL-ALLOWED",
                f"type_restriction: {target.id} still accepts {type_str} for '{param}'",
                step,
                "list only the types the target version no longer accepts",
            )
        elif type_str not in before.allowed:
            yield _diag(
                "ADAPTER-TYPE-UNKNOWN",
                f"type_restriction: {source.id} does not accept {type_str} for '{param}' either",
                step,
                "list types the source version accepts and the target does not",
                Severity.WARNING,
            )


@_CHECKS.of("require_attribute")
def _require_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the attribute checked")
    attr = source.attribute(str(step.arg("attribute")))
    values = step.arg("values")
    if attr is not None and isinstance(values, tuple):
        for value in values:
            if not _value_fits(value, attr.type):
                yield _diag(
                    "ADAPTER-VALUE-TYPE",
                    f"require_attribute: {value!r} is not a value of {attr.type.value} attribute '{attr.name}'",
                    step,
                    f"give {attr.type.value} values",
                )


@_CHECKS.of("remove_input")
def _remove_input(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _input_on(source, step, "the input removed")


@_CHECKS.of("python")
def _python(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    problem = callable_problem(step.arg("callable"))
    if problem:
        yield _diag("ADAPTER-CALLABLE", problem, step, "write `package.module:function`")


_STEP_CHECKS = _CHECKS.complete()


def _diag(
    rule_id: str, message: str, step: AdapterStep, hint: str, severity: Severity = Severity.ERROR
) -> Diagnostic:
    return Diagnostic(rule_id, message, step.location, hint, severity)


# The other ids the `adapters` check reports.

register(
    "ADAPTER-ARGS",
    "adapter",
    "error",
    "An adapter step lacks an argument its kind needs, or has one it does not take.",
    category=ADAPTERS,
    hint="give the arguments the step's kind takes (see the authoring guide's table of kinds)",
    doc="""\
**Why:** each step kind has fixed arguments (`rename_attribute` needs `attribute` and `to`);
a missing one leaves the step undefined, an extra one is usually a typo that would be ignored.

**Before:** `{kind: rename_attribute, attribute: alpha, new_name: scale}`

**After:** `{kind: rename_attribute, attribute: alpha, to: scale}`""",
)

register(
    "ADAPTER-UNKNOWN-ATTRIBUTE",
    "adapter",
    "error",
    "An adapter step names an attribute that does not exist on the side it acts on.",
    category=ADAPTERS,
    hint="name an attribute of the version the step reads from (source) or writes to (target)",
    doc="""\
**Why:** what a step removes or moves *from* must exist on the source version, what it adds or
moves *to* on the target version (for `upgrade` the source is the previous version, for
`downgrade` this one); a wrong name would make `opset convert` produce invalid nodes.

**Before:** `{kind: rename_attribute, attribute: alpah, to: scale}` (the previous version has `alpha`).

**After:** `{kind: rename_attribute, attribute: alpha, to: scale}`""",
)

register(
    "ADAPTER-UNKNOWN-INPUT",
    "adapter",
    "error",
    "An adapter step names an input (or index) that does not exist on the side it acts on.",
    category=ADAPTERS,
    hint="name an input of the version on that side, or an index below its number of inputs",
    doc="""\
**Why:** `attribute_to_input` and `input_to_attribute` place or take a node input by name and/or
index; the name must be an input of that side, the index in range, and the two must agree.

**Before:** `{kind: attribute_to_input, attribute: mean, input: mean, index: 2}` where input 2 is `std`.

**After:** `{kind: attribute_to_input, attribute: mean, input: mean, index: 1}`""",
)

register(
    "ADAPTER-UNKNOWN-PARAM",
    "adapter",
    "error",
    "A type_restriction step names an unknown type parameter.",
    category=ADAPTERS,
    hint="name a type parameter of the source version",
    doc="""\
**Why:** a `type_restriction` lists the types of one type parameter that the target no longer
accepts; the parameter must exist on the source version.

**Before:** `{kind: type_restriction, param: T1, types: [tensor(double)]}` on an operator typed by `T`.

**After:** `{kind: type_restriction, param: T, types: [tensor(double)]}`""",
)

register(
    "ADAPTER-VALUE-TYPE",
    "adapter",
    "error",
    "set_attribute_if_absent or remove_attribute gives a value of the wrong type for the attribute.",
    category=ADAPTERS,
    hint="give a value of the attribute's type",
    doc="""\
**Why:** the value is written into (or compared with) the node's attribute, so it must be a
value of the attribute's type: an int for `int`, a number for `float`, a list for `ints`.

**Before:** `{kind: set_attribute_if_absent, attribute: axis, value: "0"}` (`axis` is an `int`).

**After:** `{kind: set_attribute_if_absent, attribute: axis, value: 0}`""",
)

register(
    "ADAPTER-TYPE-STILL-ALLOWED",
    "adapter",
    "error",
    "A type_restriction removes a type the target version still allows.",
    category=ADAPTERS,
    hint="list only the types the target version no longer accepts",
    doc="""\
**Why:** a `type_restriction` makes conversion refuse nodes of the listed types; a type the
target still accepts would be refused for no reason.

**Before:** `types: [tensor(float), tensor(double)]` where the target still allows `tensor(float)`.

**After:** `types: [tensor(double)]`""",
)

register(
    "ADAPTER-TYPE-UNKNOWN",
    "adapter",
    "warning",
    "A type_restriction names a type the source version does not allow either.",
    category=ADAPTERS,
    hint="list types the source version accepts and the target does not",
    doc="""\
**Why:** no source node can have a type the source version does not accept, so listing it has
no effect; it is usually a typo or a type from another parameter.

**Before:** `types: [tensor(int4)]` for a parameter that never accepted `tensor(int4)`.

**After:** list only types the source accepts and the target drops.""",
)

register(
    "ADAPTER-CALLABLE",
    "adapter",
    "error",
    "A python step's callable is not `package.module:function`.",
    category=ADAPTERS,
    hint="write `package.module:function`",
    doc="""\
**Why:** the callable of a `python` step is imported when a node is converted; it must name a
module and a function in it, separated by a colon.

**Before:** `{kind: python, callable: acme_upgraders.fused_conv_v3}`

**After:** `{kind: python, callable: "acme_upgraders:fused_conv_v3"}`""",
)

register(
    "ADAPTER-NOT-COMPATIBLE",
    "adapter",
    "error",
    "A compatible step, but the change from the source version invalidates its nodes (required "
    "attribute or input added, attribute or input removed, type removed).",
    category=ADAPTERS,
    hint="write the steps that move the node instead of (or next to) `compatible`",
    doc="""\
**Why:** `compatible` claims a source node is a valid target node as it is. A required
attribute or input added, an attribute or input removed, renamed or retyped, or a type removed
from a constraint makes that false. Changes another step of the list handles do not count.

**Before:** `upgrade: [{kind: compatible}]` when the new version adds a required attribute `mode`.

**After:** `upgrade: [{kind: set_attribute_if_absent, attribute: mode, value: linear}]`""",
)


register(
    "ADAPTER-NO-INVERSE",
    "adapter",
    "error",
    "A version writes no `downgrade` list, and no downgrade can be derived from its `upgrade` "
    "(a `python` step, or a `remove_input` before the last input).",
    category=ADAPTERS,
    hint="write the `downgrade` list explicitly (the message spells out the part that can be derived)",
    doc="""\
**Why:** without a `downgrade` list, `opset convert` derives the way back from the `upgrade`
steps and both versions' signatures (the guide's table of implied downgrades). A `python` step is
code, so nothing can be derived from it; a `remove_input` of an input before the older version's
last one cannot be undone by any step kind (the inputs after it would have to move one place on).
Without this check the model would be refused only when someone converts one.

**Before:**

```yaml
    adapter:
      upgrade:
        - {kind: rename_attribute, attribute: scale, to: gain}
        - {kind: python, callable: "acme_adapters:gain_v2"}
```

**After:** the derived part kept, the code's inverse written as code:

```yaml
    adapter:
      upgrade:
        - {kind: rename_attribute, attribute: scale, to: gain}
        - {kind: python, callable: "acme_adapters:gain_v2"}
      downgrade:
        - {kind: python, callable: "acme_adapters:gain_v2_to_v1"}
        - {kind: rename_attribute, attribute: gain, to: scale}
```

**Fix:** write `downgrade:` (the hint spells out the list, with a `python` step in place of
each step that has no inverse).""",
)
