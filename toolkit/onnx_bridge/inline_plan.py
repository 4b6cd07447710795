"""Can a runtime run an operator version it lacks through the version's function body? (#16)

`body_plan` answers for one operator version at the model's opset imports: every node of the
body (subgraphs included) must resolve, at the body's own opset imports, to a version the runtime
has, or to one it can in turn run through its body. Because inlined nodes are resolved at the
*model's* imports, a domain the model already imports must resolve every such node to the same
version there; a domain the model does not import yet is added at the body's version.
Used by `opset compat` (runnable after inlining) and `opset convert --inline-missing`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from toolkit.model.onnx_text import GraphLiteral, TextNode, TextParseError, parse_nodes
from toolkit.model.spec import OpSchema, canonical_domain, display_domain
from toolkit.registry.core import Registry

MAX_DEPTH = 8  # bodies calling bodies: deeper than this is reported, never followed

Supports = Callable[[str, str, int], bool]  # (domain, op_type, since_version) -> the runtime has it


@dataclass
class BodyPlan:
    """The outcome for one operator version: runnable, or why not."""

    schema: OpSchema
    reason: str = ""  # empty: runnable after inlining
    imports: dict[str, int] = field(default_factory=dict)  # imports the model gains by inlining

    @property
    def runnable(self) -> bool:
        return not self.reason


def body_nodes(schema: OpSchema) -> tuple[TextNode, ...]:
    assert schema.function is not None
    return parse_nodes(schema.function.text)


def _walk(nodes: tuple[TextNode, ...]) -> Iterator[TextNode]:
    for node in nodes:
        yield node
        for attr in node.attributes:
            if isinstance(attr.value, GraphLiteral):
                yield from _walk(attr.value.nodes)


def body_plan(
    schema: OpSchema,
    registry: Registry,
    supports: Supports,
    model_imports: Mapping[str, int],
    depth: int = 0,
) -> BodyPlan:
    plan = BodyPlan(schema)
    body = schema.function
    if body is None:
        plan.reason = f"{schema.id} has no function body"
        return plan
    if depth >= MAX_DEPTH:
        plan.reason = f"function bodies nest deeper than {MAX_DEPTH} levels at {schema.id}"
        return plan
    try:
        nodes = body_nodes(schema)
    except TextParseError as error:
        plan.reason = f"the function body of {schema.id} does not parse ({error})"
        return plan
    own = {canonical_domain(d): v for d, v in body.opset_imports}
    for node in _walk(nodes):
        domain = canonical_domain(node.domain)
        label = f"{display_domain(domain)}.{node.op_type}"
        version = own.get(domain)
        used = registry.find_schema(node.op_type, version, domain) if version is not None else None
        if used is None:
            plan.reason = f"{label} in the body of {schema.id} does not resolve"
            return plan
        at_model = model_imports.get(domain)
        if at_model is None:
            plan.imports.setdefault(domain, version)  # type: ignore[arg-type]
        elif registry.find_schema(node.op_type, at_model, domain) != used:
            plan.reason = (
                f"the body of {schema.id} uses {used.id}, but at the model's {display_domain(domain)} "
                f"opset {at_model} {label} is another version (convert the model first)"
            )
            return plan
        if supports(domain, node.op_type, used.since_version):
            continue
        inner = body_plan(used, registry, supports, {**model_imports, **plan.imports}, depth + 1)
        if not inner.runnable:
            plan.reason = f"the runtime lacks {used.id}, used by the body of {schema.id}" + (
                "" if used.function is None else f" ({inner.reason})"
            )
            return plan
        for name, value in inner.imports.items():
            plan.imports.setdefault(name, value)
    return plan
