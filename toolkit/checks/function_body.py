"""Checking one function body against a catalog of operators (issue #16).

The spec checks (`toolkit.checks.functions`) and check-model (model-local functions and the
bodies of the specs it loads) share this: every node names an operator that resolves at the
imported opset, its attributes exist with the right types (references `@name` resolve to the
function's own attributes), its input and output counts fit, every value is produced before it
is used and exactly once, every formal output is produced, and the element types are consistent
wherever they can be inferred (a type parameter's bound types, narrowed node by node).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from toolkit.model.onnx_text import GraphLiteral, Pos, TensorLiteral, TextNode
from toolkit.model.spec import MAX_ARITY, AttrType, OpSchema, canonical_domain, display_domain
from toolkit.model.types import ELEMENT_TYPES

# (canonical domain, op_type, opset version) -> the operator version in effect, or None.
Resolver = Callable[[str, str, int], OpSchema | None]
Types = frozenset[str] | None  # the type strings a value may have; None: unknown


@dataclass(frozen=True, slots=True)
class Signature:
    """What a body may refer to: the function's formal inputs/outputs and attributes."""

    name: str
    inputs: tuple[tuple[str, Types], ...]
    outputs: tuple[tuple[str, Types], ...]
    attributes: Mapping[str, AttrType | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Problem:
    rule: str
    message: str
    pos: Pos | None  # in the body text; None: the body as a whole
    hint: str
    value_flow: bool = False  # about values read, assigned or produced (check-model's graph checks see these)


def signature_of(schema: OpSchema) -> Signature:
    """An operator version as the signature of its own body."""
    constraints = schema.constraint_map

    def types(type_str: str) -> Types:
        found = constraints.get(type_str)
        return frozenset(found.allowed) if found else frozenset({type_str})

    return Signature(
        schema.name,
        tuple((p.name, types(p.type_str)) for p in schema.inputs),
        tuple((p.name, types(p.type_str)) for p in schema.outputs),
        {a.name: a.type for a in schema.attributes},
    )


def check_body(
    signature: Signature,
    nodes: tuple[TextNode, ...],
    opset_imports: Mapping[str, int],
    resolve: Resolver,
    known_domain: Callable[[str], bool],
) -> list[Problem]:
    """Every problem of the body. Domains `known_domain` rejects are not resolved (no catalog)."""
    checker = _Checker(signature, opset_imports, resolve, known_domain)
    scope: dict[str, Types] = {name: types for name, types in signature.inputs}
    checker.nodes(nodes, scope)
    for name, allowed in signature.outputs:
        if name not in scope or name in dict(signature.inputs):
            if name not in scope:
                checker.add(
                    "FUNCTION-REF",
                    f"formal output '{name}' is never produced",
                    None,
                    f"add a node with output '{name}'",
                    True,
                )
            continue
        if allowed is not None and scope[name] is not None and not (scope[name] & allowed):  # type: ignore[operator]
            checker.add(
                "FUNCTION-TYPE",
                f"formal output '{name}' can only be {_types(scope[name])}, but the operator allows {_types(allowed)}",
                None,
                "cast the value, or fix the nodes that produce it",
            )
    return checker.problems


def _types(types: Types) -> str:
    return "unknown" if types is None else ", ".join(sorted(types)) or "no type"


class _Checker:
    def __init__(
        self,
        signature: Signature,
        opset_imports: Mapping[str, int],
        resolve: Resolver,
        known_domain: Callable[[str], bool],
    ) -> None:
        self.signature = signature
        self.imports = {canonical_domain(d): v for d, v in opset_imports.items()}
        self.resolve = resolve
        self.known_domain = known_domain
        self.problems: list[Problem] = []

    def add(self, rule: str, message: str, pos: Pos | None, hint: str, value_flow: bool = False) -> None:
        self.problems.append(Problem(rule, message, pos, hint, value_flow))

    def nodes(self, nodes: tuple[TextNode, ...], scope: dict[str, Types]) -> None:
        for node in nodes:
            self.node(node, scope)

    def node(self, node: TextNode, scope: dict[str, Types]) -> None:
        for index, name in enumerate(node.inputs):
            if name and name not in scope:
                self.add(
                    "FUNCTION-REF",
                    f"'{node.op_type}' input {index} '{name}' is not a formal input nor produced by an earlier node",
                    node.pos,
                    "use a formal input or the output of a node above this one",
                    True,
                )
        schema = self.callee(node)
        outputs: list[Types] = [None] * len(node.outputs)
        if schema is not None:
            self.arity(node, schema)
            self.attributes(node, schema)
            outputs = self.infer(node, schema, scope)
        for attr in node.attributes:
            if isinstance(attr.value, GraphLiteral):
                inner = dict(scope)
                inner.update({d.name: None for d in attr.value.inputs})
                self.nodes(attr.value.nodes, inner)
        for name, types in zip(node.outputs, outputs, strict=True):
            if not name:
                continue
            if name in scope:
                self.add(
                    "FUNCTION-REF",
                    f"value '{name}' is produced twice (a formal input or an earlier node's output)",
                    node.pos,
                    "give the output a new name: every value is assigned once",
                    True,
                )
            scope[name] = types

    def callee(self, node: TextNode) -> OpSchema | None:
        domain = canonical_domain(node.domain)
        version = self.imports.get(domain)
        if version is None:
            self.add(
                "FUNCTION-OPSET-IMPORT",
                f"'{node.op_type}' is in domain '{display_domain(domain)}', which the body does not import",
                node.pos,
                f"add '{display_domain(domain)}' with an opset version to the function's opset_imports",
            )
            return None
        if not self.known_domain(domain):
            return None
        schema = self.resolve(domain, node.op_type, version)
        if schema is None:
            self.add(
                "FUNCTION-UNKNOWN-OP",
                f"no operator '{node.op_type}' in domain '{display_domain(domain)}' at opset version {version}",
                node.pos,
                "check the spelling, or import an opset version that has the operator",
            )
        return schema

    def arity(self, node: TextNode, schema: OpSchema) -> None:
        given_in = len(node.inputs)
        while given_in and not node.inputs[given_in - 1]:
            given_in -= 1  # trailing omitted optionals do not count
        for kind, count, low, high in (
            ("inputs", given_in, schema.min_input, schema.max_input),
            ("outputs", len(node.outputs), schema.min_output, schema.max_output),
        ):
            if not low <= count <= high:
                bound = f"{low}" if low == high else f"{low}..{'inf' if high == MAX_ARITY else high}"
                self.add(
                    "FUNCTION-ARITY",
                    f"'{node.op_type}' gets {count} {kind}, {schema.id} takes {bound}",
                    node.pos,
                    f"pass {bound} {kind}",
                )
        for index, name in enumerate(node.inputs[:given_in]):
            param = schema.inputs[min(index, len(schema.inputs) - 1)] if schema.inputs else None
            if not name and param is not None and not param.is_optional:
                self.add(
                    "FUNCTION-ARITY",
                    f"'{node.op_type}' input {index} ('{param.name}') is required but left empty",
                    node.pos,
                    "pass a value",
                )

    def attributes(self, node: TextNode, schema: OpSchema) -> None:
        declared = schema.attribute_map
        for attr in node.attributes:
            expected = declared.get(attr.name)
            if expected is None:
                known = ", ".join(sorted(declared)) or "none"
                self.add(
                    "FUNCTION-ATTRIBUTE",
                    f"'{node.op_type}' has no attribute '{attr.name}' (it has: {known})",
                    attr.pos,
                    "remove the attribute or fix its name",
                )
                continue
            if attr.ref is not None:
                self.reference(node, attr.name, attr.ref, attr.type, expected.type, attr.pos)
            elif attr.type is not None and attr.type is not expected.type:
                self.add(
                    "FUNCTION-ATTRIBUTE",
                    f"'{node.op_type}' attribute '{attr.name}' is {expected.type.value}, the body gives {attr.type.value}",
                    attr.pos,
                    f"write a {expected.type.value} value (e.g. `{attr.name}: {expected.type.value} = ...`)",
                )
        given = {a.name for a in node.attributes}
        for wanted in schema.attributes:
            if wanted.required and wanted.name not in given:
                self.add(
                    "FUNCTION-ATTRIBUTE",
                    f"'{node.op_type}' requires attribute '{wanted.name}'",
                    node.pos,
                    f"add `<{wanted.name} = ...>`",
                )

    def reference(
        self, node: TextNode, name: str, ref: str, written: AttrType | None, expected: AttrType, pos: Pos
    ) -> None:
        attrs = self.signature.attributes
        if ref not in attrs:
            known = ", ".join(sorted(attrs)) or "none"
            self.add(
                "FUNCTION-REF",
                f"'{node.op_type}' attribute '{name}' refers to '@{ref}', which {self.signature.name} does not have (it has: {known})",
                pos,
                "refer to an attribute of the operator version, or write the value",
            )
            return
        own = attrs[ref]
        for kind in (written, own):
            if kind is not None and kind is not expected:
                self.add(
                    "FUNCTION-ATTRIBUTE",
                    f"'{node.op_type}' attribute '{name}' is {expected.value}, but '@{ref}' is {kind.value}",
                    pos,
                    "refer to an attribute of the same type",
                )
                return

    def infer(self, node: TextNode, schema: OpSchema, scope: Mapping[str, Types]) -> list[Types]:
        """Narrow each type parameter of the callee by the inputs bound to it; the outputs' types."""
        constraints = schema.constraint_map
        bound: dict[str, Types] = {c.param: frozenset(c.allowed) for c in schema.type_constraints}
        for index, name in enumerate(node.inputs):
            if not name or not schema.inputs:
                continue
            param = schema.inputs[min(index, len(schema.inputs) - 1)]
            if index >= len(schema.inputs) and not (param.is_variadic and param.homogeneous):
                continue
            have = scope.get(name)
            if have is None:
                continue
            key = param.type_str
            allowed = bound.get(key, frozenset({key}))
            narrowed = have & allowed if allowed is not None else have
            if not narrowed:
                self.add(
                    "FUNCTION-TYPE",
                    f"'{node.op_type}' input {index} '{name}' can be {_types(have)}; "
                    f"{schema.id} takes {_types(allowed)} there"
                    + (f" (type parameter {key}, bound by earlier inputs)" if key in constraints else ""),
                    node.pos,
                    "cast the value (Cast/CastLike) to a type the operator takes",
                )
                return [None] * len(node.outputs)
            if key in constraints:
                bound[key] = narrowed
        result: list[Types] = []
        for index in range(len(node.outputs)):
            if not schema.outputs:
                result.append(None)
                continue
            param = schema.outputs[min(index, len(schema.outputs) - 1)]
            result.append(bound.get(param.type_str, frozenset({param.type_str})))
        return list(_cast_outputs(node, result))


_CONSTANT_TYPES = {
    "value_float": "tensor(float)",
    "value_floats": "tensor(float)",
    "value_int": "tensor(int64)",
    "value_ints": "tensor(int64)",
    "value_string": "tensor(string)",
    "value_strings": "tensor(string)",
}


def _cast_outputs(node: TextNode, result: list[Types]) -> Iterator[Types]:
    """Outputs whose type an attribute decides: Cast's `to` (a number) and Constant's value."""
    if node.domain not in ("", "ai.onnx") or not result:
        yield from result
        return
    first = result[0]
    if node.op_type == "Cast":
        to = node.attribute("to")
        if to is not None and isinstance(to.value, int) and 1 <= to.value <= len(ELEMENT_TYPES):
            first = frozenset({f"tensor({ELEMENT_TYPES[to.value - 1]})"})
    elif node.op_type == "Constant":
        for attr in node.attributes:
            if isinstance(attr.value, TensorLiteral):
                first = frozenset({f"tensor({ELEMENT_TYPES[attr.value.elem_type - 1]})"})
            elif attr.ref is None and attr.name in _CONSTANT_TYPES:
                first = frozenset({_CONSTANT_TYPES[attr.name]})
    yield first
    yield from result[1:]
