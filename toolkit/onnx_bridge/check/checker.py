"""check-model's reporting checker: every node of every graph against its schema in a Registry.

Every node of every graph is checked (subgraphs held in attributes and model-local function
bodies included) the way onnx's checker verifies a node against its schema, but against our
registry: so a vendor domain written as YAML specs is checked as strictly as the default domain,
where `onnx.checker` lets an unregistered domain pass unchecked.

Findings are located by a path `graph/node/index` (see `toolkit.onnx_bridge.graph`), carry a
stable rule id (`MODEL-*`, see rules.py) and never stop the walk. Nodes the fast path
(fastpath.py) certainly passes skip the reporting code; `check_model(..., fast=False)` checks
every node here.
"""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Container, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.model.resolution import removed_by
from toolkit.model.spec import FormalParameter, OpSchema, ParamOption, canonical_domain, display_domain
from toolkit.onnx_bridge.check import fastpath, graph_checks, walk_checks
from toolkit.onnx_bridge.check.findings import CheckResult, ModelFinding, finding
from toolkit.onnx_bridge.check.functions import function_body_findings
from toolkit.onnx_bridge.check.model_io import load_model
from toolkit.onnx_bridge.check.rules import MODEL_RULES
from toolkit.onnx_bridge.check.runtime import runtime_findings
from toolkit.onnx_bridge.check.schema_facts import FACTS, SchemaFacts, facts_of
from toolkit.onnx_bridge.check.shape_rules import report_shapes
from toolkit.onnx_bridge.check.types import VALUE_FIELDS, declared_types, type_string
from toolkit.onnx_bridge.graph import (
    function_imports,
    function_path,
    graph_path,
    node_path,
    opset_imports,
    subgraphs,
)
from toolkit.registry.core import Registry

if TYPE_CHECKING:
    import onnx

    from toolkit.onnx_bridge.compat_model import RuntimeTable

_RULES = {rule.id: rule for rule in MODEL_RULES}


@dataclass
class _Scope:
    path: str
    imports: Mapping[str, int]
    types: MutableMapping[str, str | None]
    in_function: bool = False
    # node domain -> op_type -> what the fast path checks such nodes against; shared by the
    # scopes of one opset_import (a graph and its subgraphs)
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)


_UNPLANNED = object()
_NOTHING_INFERRED: Mapping[str, str] = {}  # a subgraph the model walk did not type (convert's one node)


@dataclass
class _Walk:
    registry: Registry
    functions: Mapping[tuple[str, str], Any]
    unchecked_attributes: Container[str] = frozenset()
    fast: bool = True
    findings: list[ModelFinding] = field(default_factory=list)
    nodes: int = 0
    unknown_domains: set[str] = field(default_factory=set)
    facts: dict[str, SchemaFacts] = field(default_factory=dict)  # per schema id, see schema_facts.FACTS
    compiled: dict[tuple[str, bool], fastpath.FastSchema] = field(default_factory=dict)
    op_names: dict[tuple[str, int], list[str]] = field(default_factory=dict)  # per (domain, opset)
    # id(subgraph) -> the types the model walk inferred for its own values (ShapeResult.subgraphs:
    # the walk's result keeps the graphs, so their ids stay theirs), read by the separate passes
    inferred: Mapping[int, Mapping[str, str]] = field(default_factory=dict)

    def facts_of(self, schema: OpSchema) -> SchemaFacts:
        return facts_of(schema, self.facts)

    def add(self, rule: str, path: str, message: str, hint: str = "", operator: str = "") -> None:
        self.findings.append(finding(_RULES[rule], path, message, hint, operator))

    def adder(self, into: list[ModelFinding]) -> graph_checks.Add:
        """`add` into another list (check_model keeps each pass's findings apart, then in order)."""

        def add(rule: str, path: str, message: str, hint: str = "", operator: str = "") -> None:
            into.append(finding(_RULES[rule], path, message, hint, operator))

        return add

    def scope(self, path: str, imports: Mapping[str, int], types: MutableMapping[str, str | None]) -> _Scope:
        """The scope a node of the main graph or of its subgraphs is reported in (walk_checks)."""
        return _Scope(path, imports, types)

    def plan(
        self, plans: dict[str, dict[str, Any]], imports: Mapping[str, int], domain: str, op_type: str
    ) -> fastpath.FastSchema | None:
        """What the fast path checks nodes (domain, op_type) of a scope importing `imports`
        against (None: the reporting path), memoised in `plans`."""
        domain_plans = plans.get(domain)
        if domain_plans is None:
            domain_plans = plans[domain] = {}
        fast = domain_plans.get(op_type, _UNPLANNED)
        if fast is _UNPLANNED:
            fast = domain_plans[op_type] = fastpath.plan(
                self.registry,
                self.functions,
                imports,
                domain,
                op_type,
                self.unchecked_attributes,
                self.facts_of,
                self.compiled,
            )
        return fast  # type: ignore[no-any-return]

    # -- graphs ------------------------------------------------------------------------

    def graph(self, graph: Any, scope: _Scope) -> None:
        nodes = graph.node
        self.nodes += len(nodes)
        if not self.fast:
            for index, node in enumerate(nodes):
                self.node(node, index, scope)
            return
        plans, imports = scope.plans, scope.imports
        types = None if scope.in_function else scope.types.get
        clean, dirty = fastpath.clean, fastpath.DIRTY
        for index, node in enumerate(nodes):
            fast = self.plan(plans, imports, node.domain, node.op_type)
            verdict = dirty if fast is None else clean(node, fast, types)
            if verdict == dirty:
                self.node(node, index, scope)
            elif verdict:
                self.subgraphs(node, node_path(scope.path, node, index), scope)

    def node(self, node: Any, index: int, scope: _Scope) -> None:
        """Check one node and its subgraphs and report what is wrong."""
        path = node_path(scope.path, node, index)
        self.report(node, path, scope)
        self.subgraphs(node, path, scope)

    def report(self, node: Any, path: str, scope: _Scope) -> None:
        """Check one node (not its subgraphs) and report what is wrong."""
        domain = canonical_domain(node.domain)
        function = self.functions.get((node.domain, node.op_type))
        if function is not None:
            if domain not in scope.imports:
                self.add(
                    "MODEL-DOMAIN-NOT-IMPORTED",
                    path,
                    f"{node.op_type} calls a model-local function of domain '{display_domain(domain)}', "
                    f"which is not in opset_import",
                    operator=f"{display_domain(domain)}.{node.op_type}",
                )
            self.function_call(node, function, path)
        elif domain not in scope.imports:
            self.add(
                "MODEL-DOMAIN-NOT-IMPORTED",
                path,
                f"{node.op_type} uses domain '{display_domain(domain)}', which is not in opset_import",
                operator=f"{display_domain(domain)}.{node.op_type}",
            )
        elif not self.registry.has_domain(domain):
            if domain not in self.unknown_domains:
                self.unknown_domains.add(domain)
                self.add(
                    "MODEL-DOMAIN-UNKNOWN",
                    path,
                    f"domain '{display_domain(domain)}' has no specs; its nodes are not checked",
                    operator=f"{display_domain(domain)}.{node.op_type}",
                )
        else:
            schema = self.resolve(node, domain, scope.imports[domain], path)
            if schema is not None:
                self.verify(node, schema, path, scope)

    def subgraphs(self, node: Any, path: str, scope: _Scope) -> None:
        for suffix, sub in subgraphs(node):
            # a subgraph sees its own declared types, else its own inferred ones, else its outer
            # graphs' (never a sibling's: two branches may each define a value of one name)
            own = self.inferred.get(id(sub), _NOTHING_INFERRED)
            types: MutableMapping[str, str | None] = ChainMap(declared_types(sub), own, scope.types)  # type: ignore[arg-type]
            self.graph(sub, _Scope(f"{path}/{suffix}", scope.imports, types, scope.in_function, scope.plans))

    # -- resolution --------------------------------------------------------------------

    def closest_ops(self, op: str, domain: str, version: int) -> str:
        """A did-you-mean hint: the operators of the domain in effect at the imported opset whose
        names are closest to `op` (a misspelling, or the wrong case); "" for the rule's own hint."""
        from toolkit.model.suggest import close_names, did_you_mean  # on a miss only

        names = self.op_names.get((domain, version))
        if names is None:
            names = self.op_names[domain, version] = list(self.registry.inventory(domain, version))
        close = close_names(op, names)
        if not close:
            return ""
        return (
            f"{did_you_mean(close)} (operators of "
            f"'{display_domain(domain)}' at opset {version}; `opset inventory {display_domain(domain) or 'ai.onnx'} "
            f"--opset {version}` lists them)"
        )

    def resolve(self, node: Any, domain: str, version: int, path: str) -> OpSchema | None:
        ref = f"{display_domain(domain)}.{node.op_type}"
        schema = self.registry.find_schema(node.op_type, version, domain)
        if schema is not None:
            if schema.deprecated:
                self.add(
                    "MODEL-OP-DEPRECATED",
                    path,
                    f"{schema.id} is deprecated (in effect at opset {version})",
                    operator=schema.id,
                )
            if schema.experimental:
                self.add("MODEL-OP-EXPERIMENTAL", path, f"{schema.id} is experimental", operator=schema.id)
            return schema
        try:
            spec = self.registry.operator(node.op_type, domain)
        except KeyError:
            self.add(
                "MODEL-OP-UNKNOWN",
                path,
                f"no operator '{node.op_type}' in domain '{display_domain(domain)}'",
                hint=self.closest_ops(node.op_type, domain, version),
                operator=ref,
            )
            return None
        if removed_by(spec.removed_in, version):
            hint = f"replaced by {spec.replaced_by}" if spec.replaced_by else ""
            self.add(
                "MODEL-OP-REMOVED",
                path,
                f"{ref} was removed in opset {spec.removed_in}; the model imports opset {version}",
                hint=hint,
                operator=ref,
            )
        else:
            first = spec.versions[0].since_version
            self.add(
                "MODEL-OP-NOT-IN-OPSET",
                path,
                f"{ref} first appears in opset {first}; the model imports opset {version}",
                hint=f"import {display_domain(domain)} opset >= {first}",
                operator=ref,
            )
        return None

    # -- one node against its schema ----------------------------------------------------

    def verify(self, node: Any, schema: OpSchema, path: str, scope: _Scope) -> None:
        facts = self.facts_of(schema)
        min_in, max_in, min_out, max_out = facts.arity
        self.arity("input", node.input, schema.inputs, min_in, max_in, path, schema)
        self.arity("output", node.output, schema.outputs, min_out, max_out, path, schema)
        self.attributes(node, schema, facts, path)
        if not scope.in_function:
            self.types(node, schema, facts, path, scope)

    def arity(
        self,
        kind: str,
        names: Any,
        params: tuple[FormalParameter, ...],
        low: int,
        high: int,
        path: str,
        schema: OpSchema,
    ) -> None:
        rule = "MODEL-INPUT-COUNT" if kind == "input" else "MODEL-OUTPUT-COUNT"
        if not low <= len(names) <= high:
            bound = f"{low}" if low == high else f"{low} to {'unbounded' if high >= 2**31 - 1 else high}"
            self.add(
                rule,
                path,
                f"{schema.id} takes {bound} {kind}s, the node has {len(names)}",
                operator=schema.id,
            )
        for position, name in enumerate(names):
            if position >= len(params):
                break
            if not name and params[position].option is ParamOption.SINGLE:
                self.add(
                    "MODEL-INPUT-EMPTY" if kind == "input" else "MODEL-OUTPUT-EMPTY",
                    path,
                    f"{kind} {position} ('{params[position].name}') of {schema.id} is required "
                    f"but the node leaves it empty",
                    operator=schema.id,
                )

    def attributes(self, node: Any, schema: OpSchema, facts: SchemaFacts, path: str) -> None:
        declared = facts.attributes
        seen: set[str] = set()
        for attr in node.attribute:
            if attr.name in seen:
                self.add(
                    "MODEL-ATTR-DUPLICATE", path, f"attribute '{attr.name}' is set twice", operator=schema.id
                )
                continue
            seen.add(attr.name)
            if attr.name.startswith("__"):
                continue  # internal symbols are implementation details, as onnx treats them
            spec = declared.get(attr.name)
            if spec is None and schema.id in self.unchecked_attributes:
                continue  # the schema accepts undeclared attributes (onnx's AllowUncheckedAttributes)
            if spec is None:
                known = ", ".join(sorted(declared)) or "none"
                self.add(
                    "MODEL-ATTR-UNKNOWN",
                    path,
                    f"{schema.id} has no attribute '{attr.name}'",
                    hint=f"declared attributes: {known}",
                    operator=schema.id,
                )
                continue
            if attr.type != spec.type.proto_number:
                self.add(
                    "MODEL-ATTR-TYPE",
                    path,
                    f"attribute '{attr.name}' of {schema.id} must be {spec.type.value}, "
                    f"the node gives {_attr_type_name(attr.type)}",
                    operator=schema.id,
                )
                continue
            value_field = VALUE_FIELDS.get(attr.type)
            if not attr.ref_attr_name and value_field and not attr.HasField(value_field):
                self.add(
                    "MODEL-ATTR-VALUE-MISSING",
                    path,
                    f"attribute '{attr.name}' is typed {spec.type.value} but has no value",
                    operator=schema.id,
                )
        for spec in facts.required:
            if spec.name not in seen:
                self.add(
                    "MODEL-ATTR-REQUIRED",
                    path,
                    f"{schema.id} requires attribute '{spec.name}' ({spec.type.value})",
                    operator=schema.id,
                )

    def types(self, node: Any, schema: OpSchema, facts: SchemaFacts, path: str, scope: _Scope) -> None:
        """Onnx's CheckInputOutputType over the declared types (no inference)."""
        bound: dict[str, str] = {}
        lookup = scope.types.get
        sides = (("input", node.input, schema.inputs), ("output", node.output, schema.outputs))
        for kind, names, params in sides:
            if not params:
                continue
            for position, name in enumerate(names):
                if not name:
                    continue
                actual = lookup(name)
                if actual is None:
                    continue
                param = params[position] if position < len(params) else params[-1]
                allowed = facts.allowed[param.type_str]
                if allowed and actual not in allowed:
                    shown = schema.constraint_map.get(param.type_str)
                    listing = ", ".join(shown.allowed if shown else sorted(allowed))
                    self.add(
                        "MODEL-TYPE-NOT-ALLOWED",
                        path,
                        f"{kind} {position} '{name}' is {actual}, which {param.type_str} of {schema.id} "
                        f"does not allow",
                        hint=f"allowed: {listing}",
                        operator=schema.id,
                    )
                    continue
                if param.homogeneous:
                    previous = bound.setdefault(param.type_str, actual)
                    if previous != actual:
                        self.add(
                            "MODEL-TYPE-INCONSISTENT",
                            path,
                            f"{kind} {position} '{name}' is {actual} but {param.type_str} is already "
                            f"bound to {previous} on this node",
                            operator=schema.id,
                        )

    # -- model-local functions ------------------------------------------------------------

    def function_call(self, node: Any, function: Any, path: str) -> None:
        ref = f"{display_domain(function.domain)}.{function.name}"
        if len(node.input) > len(function.input) or len(node.output) > len(function.output):
            self.add(
                "MODEL-FUNCTION-CALL",
                path,
                f"{ref} declares {len(function.input)} input(s) and {len(function.output)} output(s), "
                f"the node has {len(node.input)} and {len(node.output)}",
                operator=ref,
            )
        declared = set(function.attribute) | {a.name for a in function.attribute_proto}
        for attr in node.attribute:
            if attr.name not in declared and not attr.name.startswith("__"):
                self.add(
                    "MODEL-FUNCTION-CALL", path, f"{ref} declares no attribute '{attr.name}'", operator=ref
                )


_ATTR_TYPE_NAMES = {
    0: "undefined",
    1: "float",
    2: "int",
    3: "string",
    4: "tensor",
    5: "graph",
    6: "floats",
    7: "ints",
    8: "strings",
    9: "tensors",
    10: "graphs",
    11: "sparse_tensor",
    12: "sparse_tensors",
    13: "type_proto",
    14: "type_protos",
}


def _attr_type_name(number: int) -> str:
    return _ATTR_TYPE_NAMES.get(number, f"type {number}")


def check_model(
    model: onnx.ModelProto,
    registry: Registry,
    *,
    name: str = "model.onnx",
    unchecked_attributes: Container[str] = frozenset(),
    fast: bool = True,
    graph_level: bool = True,
    runtime: RuntimeTable | None = None,
) -> CheckResult:
    """Every finding for `model` against `registry`, in graph order; with `runtime`, then what
    keeps that runtime from running the model as is (check/runtime.py).

    `graph_level=False` checks the nodes alone (no SSA, order, definition or model-header
    checks): convert uses it to check one rewritten node outside its graph.

    `unchecked_attributes`: ids of schemas that accept undeclared attributes
    (`catalog.onnx_unchecked_attributes()` for the onnx catalog). `fast=False` checks every node
    with the reporting checker (the fast path's reference; the findings are the same).
    """
    functions = {(f.domain, f.name): f for f in model.functions}
    walk = _Walk(
        registry,
        functions,
        unchecked_attributes,
        fast,
        facts=FACTS.get(registry),
        compiled=fastpath.FAST.get(registry),
    )
    imports = opset_imports(model.opset_import)
    main = graph_path(model)
    for domain, version in sorted(imports.items()):
        if registry.has_domain(domain) and version > registry.domain(domain).max_version:
            walk.add(
                "MODEL-OPSET-UNKNOWN",
                main,
                f"the model imports {display_domain(domain)} opset {version}; the newest defined is "
                f"{registry.domain(domain).max_version}",
            )
    inferred = None
    if graph_level:
        if not model.ir_version:
            walk.add("MODEL-IR-VERSION-MISSING", main, "the model does not set ir_version")
        if not model.opset_import:
            walk.add(
                "MODEL-DOMAIN-NOT-IMPORTED", main, "the model's opset_import is empty: it imports no opset"
            )
        inferred = walk_checks.check_main_graph(model, walk, imports, main)
    else:
        walk.graph(model.graph, _Scope(main, imports, declared_types(model.graph)))
    if inferred is not None:  # the shapes' findings after the nodes' (located at nodes, found over the graph)
        report_shapes(inferred, walk.add)
    for function in sorted(model.functions, key=lambda f: (f.domain, f.name, f.overload)):
        local: dict[str, str | None] = {}
        for info in getattr(function, "value_info", ()):
            local[info.name] = type_string(info.type) if info.HasField("type") else None
        scope = _Scope(function_path(function), function_imports(function, imports), local, True)
        if graph_level:
            graph_checks.check_function(function, scope.path, walk.add, imports)
        walk.graph(function, scope)
    for rule, path, message, hint, operator in function_body_findings(model, registry, imports):
        walk.add(rule, path, message, hint, operator)
    if runtime is not None:
        walk.findings.extend(runtime_findings(model, registry, runtime, name))
    return CheckResult(name, tuple(walk.findings), walk.nodes)


def check_model_file(
    path: str | os.PathLike[str],
    registry: Registry,
    *,
    unchecked_attributes: Container[str] = frozenset(),
    fast: bool = True,
    runtime: RuntimeTable | None = None,
) -> CheckResult:
    return check_model(
        load_model(path),
        registry,
        name=os.fspath(path),
        unchecked_attributes=unchecked_attributes,
        fast=fast,
        runtime=runtime,
    )
