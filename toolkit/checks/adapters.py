"""Spec checks of the authoring features: version adapters (ADAPTER-*) and release tables (RELEASE-*).

Registered into `toolkit.checks.spec.RULES` with its `@rule` decorator; `toolkit.checks.spec` imports
this module at its end, so `opset validate` and every load run these rules.

Adapter steps name things on two sides. For `upgrade` the source is the previous version
and the target this one; for `downgrade` the reverse. What is removed or moved *from* must
exist on the source side, what is added or moved *to* on the target side.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from toolkit.checks.spec import rule
from toolkit.model.adapter_steps import COMMON_ARGS, STEP_KINDS, callable_problem, invalidating_changes
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.spec import (
    AdapterStep,
    AttrType,
    DomainSpec,
    Location,
    OpSchema,
    Release,
    SpecSet,
    display_domain,
)

# --------------------------------------------------------------------------- adapters


@rule
def adapters(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        previous: OpSchema | None = None
        for schema in op.versions:
            if schema.adapter is not None:
                if previous is None:
                    yield Diagnostic(
                        "ADAPTER-NO-PREVIOUS",
                        f"{schema.id} has an adapter but is the first version of {op.name}",
                        schema.adapter.location,
                        "an adapter moves nodes from the previous version; remove it from the first version",
                    )
                else:
                    for step in schema.adapter.upgrade:
                        yield from check_step(step, previous, schema)
                    for step in schema.adapter.downgrade or ():
                        yield from check_step(step, schema, previous)
                    yield from compatible_steps(schema.adapter.upgrade, previous, schema)
                    yield from compatible_steps(schema.adapter.downgrade or (), schema, previous)
            previous = schema


_NAMING_ARGS = frozenset({"attribute", "to", "input", "param"})


def compatible_steps(steps: Sequence[AdapterStep], source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
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
            "write the steps that move the node (set_attribute_if_absent for a new required attribute, "
            "remove_attribute, rename_attribute, attribute_to_input, type_restriction, python)",
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


def _remove_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the attribute removed")
    attr = source.attribute(str(step.arg("attribute")))
    if attr is not None and "value" in dict(step.args):
        yield from _value_type(step, attr.type, attr.name)


def _rename_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the old name")
    yield from _attribute_on(target, step, "to", "the new name")


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


def _attribute_to_input(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _attribute_on(source, step, "attribute", "the attribute moved")
    yield from _input_on(target, step, "the input it becomes")


def _input_to_attribute(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    yield from _input_on(source, step, "the input moved")
    yield from _attribute_on(target, step, "attribute", "the attribute it becomes")


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


def _python(step: AdapterStep, source: OpSchema, target: OpSchema) -> Iterator[Diagnostic]:
    problem = callable_problem(step.arg("callable"))
    if problem:
        yield _diag("ADAPTER-CALLABLE", problem, step, "write `package.module:function`")


_STEP_CHECKS = {
    "remove_attribute": _remove_attribute,
    "rename_attribute": _rename_attribute,
    "set_attribute_if_absent": _set_attribute_if_absent,
    "attribute_to_input": _attribute_to_input,
    "input_to_attribute": _input_to_attribute,
    "type_restriction": _type_restriction,
    "python": _python,
}


def _diag(
    rule_id: str, message: str, step: AdapterStep, hint: str, severity: Severity = Severity.ERROR
) -> Diagnostic:
    return Diagnostic(rule_id, message, step.location, hint, severity)


# --------------------------------------------------------------------------- releases


@rule
def releases(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    by_file: dict[str, list[Release]] = {}
    for release in specs.releases:
        by_file.setdefault(release.location.file, []).append(release)
    for _file, rows in sorted(by_file.items()):
        yield from _release_order(rows)
        for release in rows:
            yield from _release_opsets(release, domains)


def _release_order(rows: list[Release]) -> Iterator[Diagnostic]:
    seen: dict[str, Location] = {}
    previous: Release | None = None
    newest: dict[str, tuple[int, Release]] = {}
    for release in rows:
        if release.name in seen:
            yield Diagnostic(
                "RELEASE-DUPLICATE",
                f"release '{release.name}' is listed twice (first at {seen[release.name]})",
                release.location,
                "list each release once",
            )
        seen.setdefault(release.name, release.location)
        if previous is not None and release.ir_version < previous.ir_version:
            yield Diagnostic(
                "RELEASE-IR-ORDER",
                f"release {release.name} has IR version {release.ir_version}, lower than "
                f"{previous.name}'s {previous.ir_version}",
                release.location,
                "IR versions never decrease from one release to the next (list releases oldest first)",
            )
        for domain, version in release.opsets:
            if domain in newest and version < newest[domain][0]:
                earlier = newest[domain][1]
                yield Diagnostic(
                    "RELEASE-OPSET-ORDER",
                    f"release {release.name} ships {display_domain(domain)} opset {version}, older than "
                    f"opset {newest[domain][0]} of release {earlier.name}",
                    release.location,
                    "opset versions never decrease from one release to the next",
                )
            else:
                newest[domain] = (version, release)
        previous = release


def _release_opsets(release: Release, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for domain_name, version in release.opsets:
        domain = domains.get(domain_name)
        if domain is None:
            continue  # a domain not loaded here (e.g. ai.onnx next to a vendor domain)
        opset = domain.opset(version)
        if opset is None:
            yield Diagnostic(
                "RELEASE-OPSET-UNKNOWN",
                f"release {release.name} ships {domain.display_name} opset {version}, which the domain "
                f"does not define (it has {_span(domain.versions)})",
                release.location,
                f"add opset version {version} to {domain.display_name}'s domain.yaml or fix the release",
            )
        elif release.ir_version < opset.ir_version:
            yield Diagnostic(
                "RELEASE-IR-TOO-LOW",
                f"release {release.name} has IR version {release.ir_version}, but {domain.display_name} "
                f"opset {version} needs IR version {opset.ir_version}",
                release.location,
                "a release's IR version is at least the IR version of every opset it ships",
            )


def _span(versions: tuple[int, ...]) -> str:
    if not versions:
        return "none"
    return ", ".join(map(str, versions)) if len(versions) <= 6 else f"{versions[0]}..{versions[-1]}"
