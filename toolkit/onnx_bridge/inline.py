"""`opset convert --inline-missing RUNTIME`: replace each node the runtime lacks, but can run
through its operator version's function body, with the body's nodes (issue #16).

The body is encoded from the spec's text by our codec. Formal inputs and outputs become the
node's actual values (an omitted optional input stays omitted), every other value of the body
gets a fresh name that no value of the model has (`<node>__<value>`, numbered when taken), and
each `@attribute` reference takes the node's attribute, else the version's default, else it is
dropped (what a reference to an absent attribute means in ONNX). Inlined nodes that the runtime
lacks in turn are inlined again; domains the body imports and the model does not are added.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from toolkit.model.codec_functions import encode_function
from toolkit.model.spec import OpSchema, canonical_domain
from toolkit.onnx_bridge.compat_model import RuntimeTable
from toolkit.onnx_bridge.graph import opset_imports, value_names
from toolkit.onnx_bridge.inline_plan import MAX_DEPTH, body_plan
from toolkit.onnx_bridge.local_functions import bind_references
from toolkit.registry.core import Registry


class InlineError(Exception):
    """A node the runtime lacks whose body cannot run there either."""


@dataclass
class InlineResult:
    model: Any
    inlined: list[str] = field(default_factory=list)  # operator ids, one per inlined node


def inline_missing(model: Any, registry: Registry, runtime: RuntimeTable) -> InlineResult:
    """A copy of `model` with every node the runtime lacks replaced by its function body.
    Raises InlineError when such a node has no body the runtime can run."""
    result = InlineResult(copy.deepcopy(model))
    inliner = _Inliner(registry, runtime, result)
    inliner.graph(result.model.graph, 0)
    for domain, version in sorted(inliner.added.items()):
        result.model.opset_import.add(domain=domain, version=version)
    return result


class _Inliner:
    def __init__(self, registry: Registry, runtime: RuntimeTable, result: InlineResult) -> None:
        self.registry = registry
        self.runtime = runtime
        self.result = result
        self.imports = opset_imports(result.model.opset_import)
        self.added: dict[str, int] = {}
        self.taken = set(value_names(result.model))
        self.local = {(f.domain, f.name) for f in result.model.functions}

    def graph(self, graph: Any, depth: int) -> None:
        nodes = list(graph.node)
        del graph.node[:]
        for node in nodes:
            graph.node.extend(self.node(node, depth))

    def node(self, node: Any, depth: int) -> Iterator[Any]:
        for attr in node.attribute:  # subgraphs first: they may hold nodes to inline
            if attr.HasField("g"):
                self.graph(attr.g, depth)
            for sub in attr.graphs:
                self.graph(sub, depth)
        domain = canonical_domain(node.domain)
        version = {**self.imports, **self.added}.get(domain)
        schema = (
            self.registry.find_schema(node.op_type, version, domain)
            if version is not None and (node.domain, node.op_type) not in self.local
            else None
        )
        if schema is None or self.runtime.supports(domain, node.op_type, schema.since_version):
            yield node
            return
        if depth >= MAX_DEPTH:
            raise InlineError(f"function bodies nest deeper than {MAX_DEPTH} levels at {schema.id}")
        plan = body_plan(schema, self.registry, self.runtime.supports, {**self.imports, **self.added})
        if not plan.runnable:
            raise InlineError(f"runtime {self.runtime.name} lacks {schema.id} and {plan.reason}")
        for name, value in plan.imports.items():
            self.added.setdefault(name, value)
        self.result.inlined.append(schema.id)
        for inner in self.expand(node, schema):
            yield from self.node(inner, depth + 1)

    def fresh(self, base: str) -> str:
        name, number = base, 1
        while name in self.taken:
            number += 1
            name = f"{base}_{number}"
        self.taken.add(name)
        return name

    def expand(self, node: Any, schema: OpSchema) -> list[Any]:
        import onnx

        function = onnx.FunctionProto.FromString(encode_function(schema).SerializeToString())
        names: dict[str, str] = {}
        for index, formal in enumerate(function.input):
            names[formal] = node.input[index] if index < len(node.input) else ""
        for index, formal in enumerate(function.output):
            names[formal] = node.output[index] if index < len(node.output) else ""
        prefix = node.name or node.op_type
        given = {a.name: a for a in node.attribute}
        defaults = {a.name: a for a in function.attribute_proto}
        out = []
        for index, inner in enumerate(function.node):
            copied = copy.deepcopy(inner)
            if node.name:
                copied.name = f"{node.name}__{index}"
            self.rename(copied, names, prefix)
            bind_references(copied, given, defaults)
            out.append(copied)
        return out

    def rename(self, node: Any, names: dict[str, str], prefix: str) -> None:
        def mapped(name: str) -> str:
            if not name:
                return name
            if name not in names:
                names[name] = self.fresh(f"{prefix}__{name}")
            return names[name]

        node.input[:] = [mapped(n) for n in node.input]
        node.output[:] = [mapped(n) for n in node.output]
        for attr in node.attribute:
            for graph in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                for value in [*graph.input, *graph.output, *graph.value_info]:
                    value.name = mapped(value.name)
                for inner in graph.node:
                    self.rename(inner, names, prefix)
