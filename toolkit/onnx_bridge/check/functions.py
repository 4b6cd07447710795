"""check-model's function-body checks (MODEL-FUNCTION-BODY, issue #16).

The node-by-node checks of a model-local function's nodes are the walk's own (MODEL-* rules);
what only the body as a whole shows is checked here with the spec checker's `check_body`: values
read before they are produced or produced twice, `@attribute` references the function does not
declare, outputs never produced, types that cannot agree. Vendor operators the model uses get
their spec's function body checked against the whole catalog (the onnx catalog's own bodies are
onnx's, checked by the conformance test), which `opset validate` of a vendor tree alone cannot do.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolkit.checks.function_body import Signature, check_body
from toolkit.checks.functions import check_version_body
from toolkit.model.spec import AttrType, OpSchema, display_domain
from toolkit.onnx_bridge.catalog import ONNX_DOMAINS
from toolkit.onnx_bridge.function_nodes import text_nodes
from toolkit.onnx_bridge.graph import function_imports, function_path
from toolkit.registry.core import Registry

Finding = tuple[str, str, str, str, str]  # rule, path, message, hint, operator
_BODY_ONLY = frozenset({"FUNCTION-REF", "FUNCTION-TYPE"})  # the walk reports the others as MODEL-*,
# and the graph checks the value flow (MODEL-VALUE-UNDEFINED/-REDEFINED, MODEL-OUTPUT-UNDEFINED)
_TYPES = {t.proto_number: t for t in AttrType}


def _resolver(registry: Registry) -> Any:
    def resolve(domain: str, name: str, version: int) -> OpSchema | None:
        return registry.find_schema(name, version, domain)

    return resolve


def function_body_findings(model: Any, registry: Registry, imports: Mapping[str, int]) -> Iterator[Finding]:
    resolve = _resolver(registry)
    for function in sorted(model.functions, key=lambda f: (f.domain, f.name, f.overload)):
        attributes: dict[str, AttrType | None] = {name: None for name in function.attribute}
        attributes.update({a.name: _TYPES.get(a.type) for a in function.attribute_proto})
        signature = Signature(
            f"{display_domain(function.domain)}.{function.name}",
            tuple((name, None) for name in function.input),
            tuple((name, None) for name in function.output),
            attributes,
        )
        nodes = text_nodes(function.node)
        problems = check_body(
            signature, nodes, function_imports(function, imports), resolve, registry.has_domain
        )
        path = function_path(function)
        for problem in problems:
            if problem.rule in _BODY_ONLY and not problem.value_flow:
                # located at the function, not a node: a body-level finding (the fast path's
                # per-node verdicts stay about the node checks)
                at = f" (node {problem.pos.line - 1})" if problem.pos else ""
                yield (
                    "MODEL-FUNCTION-BODY",
                    path,
                    f"{problem.rule}{at}: {problem.message}",
                    problem.hint,
                    signature.name,
                )
    domains = {n: registry.domain(n) for n in registry.domains()}
    for domain, version in sorted(imports.items()):
        if domain in ONNX_DOMAINS or not registry.has_domain(domain):
            continue
        for schema in sorted(registry.inventory(domain, version).values(), key=lambda s: s.name):
            if schema.function is None:
                continue
            for diag in check_version_body(schema, schema.function, resolve, registry.has_domain, domains):
                yield (
                    "MODEL-FUNCTION-BODY",
                    str(diag.location),
                    f"{diag.rule}: {diag.message}",
                    diag.hint,
                    schema.id,
                )
