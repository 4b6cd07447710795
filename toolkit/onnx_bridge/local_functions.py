"""Attach function bodies to a model as model-local functions (issue #16).

A runtime that has no kernel for a vendor operator still runs a node of it when the model holds
the operator version's body as a FunctionProto of the same domain and name: the runtime inlines
it. `attach_functions` adds the body of every operator version the model's nodes (subgraphs
included) resolve to and that has one, for the domains asked, plus the opset imports the bodies
need; a body whose import disagrees with the model's is refused (convert the model first).
Runners of spec examples (`opset test-runtime`) and tests use it.

`bind_references` is the one reading of a body's `@attribute` references at a call (inlining and
shape inference through calls).
"""

from __future__ import annotations

import copy
from collections.abc import Container, Mapping
from typing import Any

from toolkit.model.codec_functions import encode_function
from toolkit.model.spec import OpSchema, canonical_domain, display_domain
from toolkit.onnx_bridge.catalog import ONNX_DOMAINS
from toolkit.onnx_bridge.graph import opset_imports, walk_nodes
from toolkit.registry.core import Registry


class FunctionImportConflict(ValueError):
    """A body imports a domain at another version than the model does."""


def attach_functions(
    model: Any, registry: Registry, *, skip_domains: Container[str] = ONNX_DOMAINS
) -> list[str]:
    """Add the function bodies the model's nodes need (in place); the ids of the versions added.
    Operators of `skip_domains` (default: onnx's own, which runtimes implement) are left alone."""
    import onnx

    imports = opset_imports(model.opset_import)
    present = {(f.domain, f.name) for f in model.functions}
    wanted: dict[str, OpSchema] = {}
    pending = list(walk_nodes(model.graph))
    while pending:
        node = pending.pop(0)
        domain = canonical_domain(node.domain)
        version = imports.get(domain)
        if domain in skip_domains or version is None or (node.domain, node.op_type) in present:
            continue
        schema = registry.find_schema(node.op_type, version, domain)
        if schema is None or schema.function is None or schema.id in wanted:
            continue
        wanted[schema.id] = schema
        function = onnx.FunctionProto.FromString(encode_function(schema).SerializeToString())
        for entry in function.opset_import:
            have = imports.get(canonical_domain(entry.domain))
            if have is None:
                imports[canonical_domain(entry.domain)] = int(entry.version)
                model.opset_import.add(domain=entry.domain, version=entry.version)
            elif have != entry.version:
                raise FunctionImportConflict(
                    f"the body of {schema.id} imports {display_domain(entry.domain)} {entry.version}, "
                    f"the model {have}"
                )
        model.functions.append(function)
        present.add((schema.domain, schema.name))
        pending.extend(walk_nodes(function))  # bodies may use other operators with bodies
    return sorted(wanted)


def bind_references(node: Any, given: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """Bind a body node's attribute references (in place, its subgraphs' too): each takes the
    call's attribute `given`, else the function's default, else it is dropped (what a reference
    to an attribute the call does not set means in ONNX)."""
    kept = []
    for attr in node.attribute:
        for graph in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
            for inner in graph.node:
                bind_references(inner, given, defaults)
        if not attr.ref_attr_name:
            kept.append(attr)
            continue
        source = given.get(attr.ref_attr_name) or defaults.get(attr.ref_attr_name)
        if source is None:
            continue
        value = copy.deepcopy(source)
        value.name = attr.name
        kept.append(value)
    del node.attribute[:]
    node.attribute.extend(kept)
