"""Semantic checks over loaded model objects. Each rule has an id and a one-line hint.

Structural problems (YAML syntax, unknown keys, value types) are found earlier by the
loader; these rules need the whole picture: a domain's opset versions, the resolved
signature of a version, the other versions of the operator.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator

from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import DomainSpec, FormalParameter, OperatorSpec, OpSchema, SpecSet
from toolkit.model.types import looks_like_type_string

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Reverse DNS: at least two dot-separated labels of lower-case letters, digits and hyphens.
REVERSE_DNS = re.compile(r"^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$")

SpecRule = Callable[[SpecSet, dict[str, DomainSpec]], Iterator[Diagnostic]]
RULES: list[SpecRule] = []
# Modules that register more spec rules with @rule; imported on first use so that they can
# import this module without a cycle.
RULE_MODULES = ("toolkit.checks.adapters",)


def rule(func: SpecRule) -> SpecRule:
    RULES.append(func)
    return func


def check_specs(specs: SpecSet) -> list[Diagnostic]:
    for module in RULE_MODULES:
        importlib.import_module(module)
    domains = {d.name: d for d in specs.domains}
    silenced = {
        (schema.location.file, schema.name, rule_id): schema
        for op in specs.operators
        for schema in op.versions
        for rule_id in schema.suppress
    }
    out: list[Diagnostic] = []
    for check in RULES:
        out.extend(check(specs, domains))
    if not silenced:
        return out
    return [d for d in out if not _is_silenced(d, specs, silenced)]


def _is_silenced(diag: Diagnostic, specs: SpecSet, silenced: dict[tuple[str, str, str], OpSchema]) -> bool:
    """A diagnostic is silenced when it lies inside a version whose `suppress` lists its rule."""
    for (file, _name, rule_id), schema in silenced.items():
        if rule_id != diag.rule or file != diag.location.file:
            continue
        op = next(o for o in specs.operators if o.location.file == file)
        later = [v.location.line for v in op.versions if v.location.line > schema.location.line]
        end = min(later) if later else 1 << 30
        if schema.location.line <= diag.location.line < end:
            return True
    return False


def _error(rule_id: str, message: str, schema_or_loc: object, hint: str) -> Diagnostic:
    location = getattr(schema_or_loc, "location", schema_or_loc)
    return Diagnostic(rule_id, message, location, hint)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- domains


@rule
def domain_names(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for domain in specs.domains:
        if domain.name and not REVERSE_DNS.match(domain.name):
            yield _error(
                "DOMAIN-NAME",
                f"domain '{domain.name}' is not a reverse-DNS name",
                domain,
                "name vendor domains after a DNS name you own, reversed: com.acme.vision",
            )


@rule
def opset_order(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for domain in specs.domains:
        previous = None
        for opset in domain.opset_versions:
            if previous is not None and opset.version <= previous.version:
                yield _error(
                    "OPSET-ORDER",
                    f"opset version {opset.version} does not increase (after {previous.version})",
                    opset,
                    "list opset versions in strictly increasing order",
                )
            elif previous is not None and opset.ir_version < previous.ir_version:
                yield _error(
                    "OPSET-IR-ORDER",
                    f"opset version {opset.version} needs IR version {opset.ir_version}, "
                    f"lower than opset {previous.version}'s {previous.ir_version}",
                    opset,
                    "IR versions never decrease along opset versions",
                )
            previous = opset


# --------------------------------------------------------------------------- operator versions


@rule
def version_order(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        domain = domains.get(op.domain)
        known = set(domain.versions) if domain else set()
        previous: OpSchema | None = None
        for schema in op.versions:
            if previous is not None and schema.since_version <= previous.since_version:
                yield _error(
                    "VERSION-ORDER",
                    f"since_version {schema.since_version} is not after {previous.since_version}",
                    schema,
                    "list versions oldest first, each with a larger since_version",
                )
            if domain is not None and schema.since_version not in known:
                yield _error(
                    "VERSION-NOT-IN-DOMAIN",
                    f"since_version {schema.since_version} is not an opset version of "
                    f"'{domain.display_name}' (has {_short_list(domain.versions)})",
                    schema,
                    "add the opset version to domain.yaml or pick an existing one",
                )
            previous = schema
        yield from _removal(op, domain)


def _removal(op: OperatorSpec, domain: DomainSpec | None) -> Iterator[Diagnostic]:
    if op.removed_in is None or domain is None:
        return
    if op.removed_in not in domain.versions:
        yield _error(
            "REMOVED-IN-INVALID",
            f"removed_in {op.removed_in} is not an opset version of '{domain.display_name}'",
            op,
            "name the opset version from which the operator is gone",
        )
    elif op.versions and op.removed_in <= op.versions[-1].since_version:
        yield _error(
            "REMOVED-IN-INVALID",
            f"removed_in {op.removed_in} is not after the last since_version {op.versions[-1].since_version}",
            op,
            "an operator is removed in an opset version later than its newest version",
        )


def _short_list(values: tuple[int, ...]) -> str:
    return ", ".join(str(v) for v in values) if len(values) <= 8 else f"{values[0]}..{values[-1]}"


def _each_version(specs: SpecSet) -> Iterator[OpSchema]:
    for op in specs.operators:
        yield from op.versions


@rule
def parameters(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for schema in _each_version(specs):
        for kind, params in (("input", schema.inputs), ("output", schema.outputs)):
            yield from _duplicates(kind, [(p.name, p) for p in params])
            for index, param in enumerate(params):
                yield from _parameter(kind, index, param, len(params))


def _parameter(kind: str, index: int, param: FormalParameter, count: int) -> Iterator[Diagnostic]:
    if param.is_variadic and index != count - 1:
        yield _error(
            "PARAM-VARIADIC-NOT-LAST",
            f"variadic {kind} '{param.name}' is not the last {kind}",
            param,
            f"move '{param.name}' to the end or make it single/optional",
        )
    if not param.is_variadic and param.min_arity != 1:
        yield _error(
            "PARAM-MIN-ARITY",
            f"min_arity is set on {param.option.value} {kind} '{param.name}'",
            param,
            "min_arity applies to variadic parameters only; remove it",
        )
    if not param.is_variadic and not param.homogeneous:
        yield _error(
            "PARAM-HOMOGENEOUS",
            f"homogeneous: false is set on {param.option.value} {kind} '{param.name}'",
            param,
            "homogeneity applies to variadic parameters only; remove it",
        )


def _duplicates(kind: str, named: list[tuple[str, object]]) -> Iterator[Diagnostic]:
    seen: set[str] = set()
    for name, item in named:
        if name in seen:
            yield _error(
                "NAME-DUPLICATE", f"duplicate {kind} name '{name}'", item, f"rename one of the {kind}s"
            )
        seen.add(name)


@rule
def type_params(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for schema in _each_version(specs):
        declared = {c.param: c for c in schema.type_constraints}
        used: set[str] = set()
        for param in (*schema.inputs, *schema.outputs):
            if looks_like_type_string(param.type_str):
                continue
            used.add(param.type_str)
            if param.type_str not in declared:
                yield _error(
                    "TYPE-PARAM-UNDECLARED",
                    f"'{param.name}' has type '{param.type_str}', which is neither a type string "
                    "nor a declared type parameter",
                    param,
                    f"declare `{param.type_str}` under type_constraints or use a type string such as tensor(float)",
                )
        for name, constraint in declared.items():
            if name not in used:
                yield _error(
                    "TYPE-PARAM-UNUSED",
                    f"type parameter '{name}' is not used by any input or output",
                    constraint,
                    "remove the constraint or use it as a parameter type",
                )

