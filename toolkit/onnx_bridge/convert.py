"""Opset conversion of ONNX models with declarative adapters, in any domain.

A model moves one opset version at a time (`N -> N+1` or `N -> N-1`); at each step every node
of the domain whose operator version changes is moved by the adapter of the newer version
(`toolkit.adapters.engine` gives the step semantics). Vendor domains carry their adapters in
their specs; the default domain gets ours from the overlay in `toolkit/data/onnx_adapters/`,
plus adapters computed from the catalog for versions whose only change is the allowed types.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.adapters import (
    AdapterError,
    MissingAdapter,
    apply_downgrade,
    apply_upgrade,
    node_from_onnx,
)
from toolkit.load.writer import write_file
from toolkit.model.diagnostics import UsageError
from toolkit.model.spec import (
    OpSchema,
    canonical_domain,
    display_domain,
)
from toolkit.onnx_bridge.check import check_model, load_model
from toolkit.onnx_bridge.compat_model import RuntimeTable
from toolkit.onnx_bridge.convert_rules import Blocker, ConversionError, convert_finding, output_blockers
from toolkit.onnx_bridge.convert_scope import Scope, constant_value
from toolkit.onnx_bridge.convert_types import GraphKey, GraphShapes, GraphTypes, value_types
from toolkit.onnx_bridge.graph import (
    function_path,
    graph_path,
    node_path,
    output_names,
    read_names,
    subgraphs,
    value_names,
)
from toolkit.onnx_bridge.overlay import CATALOG_DOMAINS
from toolkit.registry.core import Registry

if TYPE_CHECKING:
    import onnx


@dataclass
class ConversionResult:
    model: onnx.ModelProto
    steps: list[str] = field(default_factory=list)  # one line per opset step taken
    converted: int = 0  # node moves applied (a node moved over k versions counts k)
    notes: list[str] = field(default_factory=list)


def parse_targets(values: list[str], registry: Registry | None = None) -> dict[str, int]:
    """`["ai.onnx=13", "com.acme.vision=2"]` -> {"": 13, "com.acme.vision": 2}.

    UsageError for a malformed value, an opset version below 1 and, when `registry` is given,
    a domain it has no specs for or an opset version the domain does not define.
    """
    out: dict[str, int] = {}
    for value in values:
        domain, sep, version = value.rpartition("=")
        if not sep or not domain or not version.isdigit():
            raise UsageError(f"--to {value}: write DOMAIN=N (e.g. ai.onnx=13)")
        if int(version) < 1:
            raise UsageError(f"--to {value}: opset versions start at 1")
        out[canonical_domain(domain)] = int(version)
    if registry is not None:
        check_targets(out, registry)
    return out


def check_targets(targets: Mapping[str, int], registry: Registry) -> None:
    """UsageError when a target names a domain without specs or an opset it does not define."""
    for domain, version in sorted(targets.items()):
        label = display_domain(domain)
        if not registry.has_domain(domain):
            known = ", ".join(sorted(display_domain(d) for d in registry.domains()))
            raise UsageError(
                f"--to {label}={version}: no specs for domain '{label}' (known: {known}); "
                "pass its spec folder with --specs"
            )
        defined = registry.domain(domain).versions
        if version not in defined:
            raise UsageError(
                f"--to {label}={version}: {label} has no opset {version} (defined: {defined[0]}..{defined[-1]})"
            )


def convert_model(
    model: onnx.ModelProto,
    registry: Registry,
    targets: Mapping[str, int],
    *,
    unchecked_attributes: Container[str] = frozenset(),
) -> ConversionResult:
    """A converted copy of `model`; UsageError for a target the registry does not define,
    ConversionError when a node cannot be moved or an adapter produced an invalid node.

    Every moved node is checked against its new schema with check-model's node checks
    (arity, attributes); `unchecked_attributes` are the ids of schemas that accept undeclared
    attributes (`catalog.onnx_unchecked_attributes()` for the onnx catalog).
    """
    check_targets({canonical_domain(d): v for d, v in targets.items()}, registry)
    result = ConversionResult(copy.deepcopy(model))
    converter = _Converter(registry, result, unchecked_attributes)
    for domain, target in sorted(targets.items()):
        converter.domain(canonical_domain(domain), target)
    if converter.blockers:
        raise ConversionError.of(converter.blockers)
    _raise_ir_version(result, registry)
    steps = ", ".join(f"{display_domain(canonical_domain(d))} -> {v}" for d, v in sorted(targets.items()))
    invalid = output_blockers(model, result.model, registry, unchecked_attributes, steps)
    if invalid:
        raise ConversionError.of(invalid)
    return result


def _raise_ir_version(result: ConversionResult, registry: Registry) -> None:
    """Raise `ir_version` to the least one the converted opset imports need (release table);
    never lower it (a model may use newer IR features, and every runtime reads older IRs)."""
    from toolkit.registry.releases import ONNX_DOMAIN_ALIASES, min_ir_version_for

    if not registry.releases:
        return
    opsets = [(o.domain, int(o.version)) for o in result.model.opset_import]
    needed = min_ir_version_for(registry.releases, opsets, ignore_unknown=True, aliases=ONNX_DOMAIN_ALIASES)
    if needed > result.model.ir_version:
        result.notes.append(
            f"ir_version raised from {result.model.ir_version} to {needed} for the target opsets"
        )
        result.model.ir_version = needed


class _Converter:
    def __init__(
        self, registry: Registry, result: ConversionResult, unchecked_attributes: Container[str] = frozenset()
    ) -> None:
        self.registry = registry
        self.unchecked_attributes = unchecked_attributes
        self.result = result
        self.model = result.model
        self.taken = set(value_names(self.model))
        self.functions = {(f.domain, f.name) for f in self.model.functions}
        self.blockers: list[Blocker] = []
        self.blocked: set[tuple[str, tuple[str, ...]]] = set()  # (graph path, outputs) of blocked nodes
        self.current: tuple[str, tuple[str, ...]] = ("", ())
        self.step = ""
        # the values of the graphs being walked (the main graph's, or a function body's): their
        # own types and shapes per graph, which `Scope.child` chains
        self.types: GraphTypes = {}
        self.shapes: GraphShapes = {}

    def block(
        self, rule: str, path: str, operator: str, message: str, hint: str = ""
    ) -> tuple[list[Any], list[str]]:
        """Record that a node cannot move at this step; it stays as it is so that the walk goes on
        and every other node's blocker is found too (nothing is written when there is one). Later
        steps leave the node alone: what they would say about an unmoved node is noise."""
        self.blocked.add(self.current)
        finding = convert_finding(rule, f"{self.step}: {message}", path, operator, hint)
        self.blockers.append(Blocker(self.step, finding))
        return [], []

    def domain(self, domain: str, target: int) -> None:
        label = display_domain(domain)
        entry = next((o for o in self.model.opset_import if canonical_domain(o.domain) == domain), None)
        if entry is None:
            self.blockers.append(
                Blocker(
                    f"{label} -> {target}",
                    convert_finding(
                        "CONVERT-DOMAIN-NOT-IMPORTED",
                        f"the model does not import domain '{label}'",
                        graph_path(self.model),
                        label,
                    ),
                )
            )
            return
        while entry.version != target:
            current = int(entry.version)
            step = 1 if target > current else -1
            self.step = f"{label} {current} -> {current + step}"
            before = self.result.converted
            self.types, function_types, self.shapes = value_types(self.model, self.registry)
            moving = (domain, current, current + step)
            self.graph(self.model.graph, moving, graph_path(self.model), (), Scope.empty())
            for function in self.model.functions:
                own = next((o for o in function.opset_import if canonical_domain(o.domain) == domain), None)
                if own is None or own.version == current:
                    self.types = function_types.get((function.domain, function.name), {})
                    self.shapes = {}  # function bodies: types per call site, no shapes
                    self.graph(function, moving, function_path(function), (), Scope.empty())
                    if own is not None:
                        own.version = current + step
            entry.version = current + step
            moved = self.result.converted - before
            self.result.steps.append(f"{label} {current} -> {current + step}: {moved} node(s) moved")

    def graph(self, graph: Any, moving: tuple[str, int, int], path: str, key: GraphKey, outer: Scope) -> None:
        """Move the nodes of `graph` (and of its subgraphs) of domain `moving[0]` from opset
        `moving[1]` to `moving[2]`; `key` names the graph in `self.types` / `self.shapes`."""
        domain, current, nxt = moving
        scope = outer.child(graph, self.types.get(key, {}), self.shapes.get(key, {}))
        nodes = list(graph.node)
        out: list[Any] = []
        dropped: list[str] = []
        for index, node in enumerate(nodes):
            here = node_path(path, node, index)
            for suffix, sub in subgraphs(node):
                self.graph(sub, moving, f"{here}/{suffix}", (*key, (index, suffix)), scope)
            if canonical_domain(node.domain) != domain or (node.domain, node.op_type) in self.functions:
                out.append(node)
                continue
            at = (path, tuple(node.output))
            if at in self.blocked:
                out.append(node)  # reported at the step that first blocked it; it stays unmoved
                continue
            self.current = at
            new_nodes, gone = self.node(node, domain, current, nxt, here, scope)
            out.extend(new_nodes or [node])
            dropped.extend(gone)
        del graph.node[:]
        graph.node.extend(out)
        if dropped:
            self.drop_unused(graph, dropped)

    def node(
        self,
        node: Any,
        domain: str,
        current: int,
        nxt: int,
        path: str,
        scope: Scope,
    ) -> tuple[list[Any], list[str]]:
        ref = f"{display_domain(domain)}.{node.op_type}"
        here = self.registry.find_schema(node.op_type, current, domain)
        there = self.registry.find_schema(node.op_type, nxt, domain)
        if here is None:
            return self.block(
                "CONVERT-NO-OPERATOR",
                path,
                ref,
                f"{ref} does not exist in opset {current}, which the model imports",
            )
        if there is None:
            spec = self.registry.operator(node.op_type, domain)
            why = f"was removed in opset {spec.removed_in}" if spec.removed_in else "does not exist yet"
            hint = f" (replaced by {spec.replaced_by})" if spec.replaced_by else ""
            return self.block(
                "CONVERT-NO-OPERATOR", path, ref, f"{ref} {why}; it cannot move to opset {nxt}{hint}"
            )
        if here.since_version == there.since_version:
            return [node], []
        context = {
            "constants": lambda name: constant_value(scope.constants.get(name)),
            "value_types": scope.types.get,
            "taken": self.taken,
            "value_shapes": scope.shapes.get,
        }
        owner = (there if nxt > current else here).id
        try:
            plain = node_from_onnx(node)
            if nxt > current:
                moved = apply_upgrade(plain, here, there, **context)  # type: ignore[arg-type]
            else:
                moved = apply_downgrade(plain, here, there, **context)  # type: ignore[arg-type]
        except MissingAdapter as exc:
            newer = there if nxt > current else here
            direction = "upgrade" if nxt > current else "downgrade"
            return self.block(
                "CONVERT-NO-ADAPTER",
                path,
                newer.id,
                f"no adapter to {direction} {here.id} -> {there.id} (opset {current} -> {nxt}): {exc}",
            )
        except AdapterError as exc:
            return self.block("CONVERT-REFUSED", path, owner, str(exc), exc.hint)
        try:
            built = [self.constant(constant, moved.node, scope.types) for constant in moved.constants]
        except AdapterError as exc:
            return self.block("CONVERT-REFUSED", path, owner, str(exc), exc.hint)
        landed = self.registry.find_schema(moved.node.op_type, nxt, domain)
        if landed is not None and landed.deprecated:
            # a deprecated version has the signature of its predecessor, so a `compatible` step
            # lands there, but runtimes refuse to load it: only a step replacing the operator
            # (Scatter -> ScatterElements) may move a node past its deprecation
            return self.block(
                "CONVERT-REFUSED",
                path,
                owner,
                f"{landed.id} is deprecated, and runtimes refuse to load it"
                + (f" ({landed.deprecated_reason})" if landed.deprecated_reason else ""),
                f"keep {display_domain(domain)} below opset {landed.since_version} for this model, "
                "or replace the operator by its successor first",
            )
        rebuilt = _rebuild(node, moved.node, there, landed)
        extra_before = [self.new_node(n, nxt) for n in moved.before]
        extra_after = [self.new_node(n, nxt) for n in moved.after]
        problems = "; ".join(
            p for p in (self.validate(n, version=nxt) for n in (*extra_before, rebuilt, *extra_after)) if p
        )
        if problems:
            return self.block(
                "CONVERT-INVALID-NODE",
                path,
                owner,
                f"the adapter of {owner} produced a node that is not a valid {there.id} node: {problems}",
            )
        self.taken.update(constant.name for constant in moved.constants)
        for extra in (*moved.before, *moved.after):
            self.taken.update((*extra.outputs, extra.name))
        self.result.converted += 1
        self.result.notes.extend(f"{path}: {note}" for note in moved.notes)
        return [*built, *extra_before, rebuilt, *extra_after], list(moved.dropped_inputs)

    def new_node(self, node: Any, version: int) -> Any:
        """The NodeProto of a node an adapter added (a rewrite into a small subgraph)."""
        from toolkit.adapters import node_to_onnx

        return node_to_onnx(
            node, self.registry.find_schema(node.op_type, version, canonical_domain(node.domain))
        )

    def validate(self, proto: Any, *, version: int) -> str:
        """Why the moved node is not a valid node of its new schema (arity, attributes), or "".

        check-model's node checks run on a one-node model; its subgraphs are left out (they were
        converted and are checked on their own), so only this node's own findings count.
        """
        import onnx

        alone = onnx.NodeProto()
        alone.CopyFrom(proto)
        for attr in alone.attribute:
            if attr.HasField("g"):
                attr.ClearField("g")
                attr.g.SetInParent()
            del attr.graphs[:]
        probe = onnx.ModelProto()
        probe.graph.node.append(alone)
        probe.opset_import.add(domain=proto.domain, version=version)
        errors = check_model(
            probe, self.registry, unchecked_attributes=self.unchecked_attributes, graph_level=False
        ).errors
        return "; ".join(f"{f.message} [{f.rule}]" for f in errors)

    def constant(self, constant: Any, node: Any, types: Mapping[str, str | None]) -> Any:
        from onnx import helper

        from toolkit.adapters import constant_tensor, element_type_number

        elem: int | None = None
        if constant.element_type is None and constant.like_input is not None:
            like = node.inputs[constant.like_input] if constant.like_input < len(node.inputs) else ""
            known = types.get(like)
            if not known or not known.startswith("tensor("):
                raise AdapterError(
                    f"the new constant '{constant.name}' takes the element type of input "
                    f"'{like}', whose type the model does not declare"
                )
            elem = element_type_number(known[len("tensor(") : -1])
        return helper.make_node("Constant", [], [constant.name], value=constant_tensor(constant, elem))

    def drop_unused(self, graph: Any, names: list[str]) -> None:
        """Remove constants that an input-to-attribute move left without readers; never a graph
        input (the caller's interface, whether or not an initializer gives it a default)."""
        used = set(read_names(self.model)) | set(output_names(graph))
        used.update(value if isinstance(value, str) else value.name for value in graph.input)
        for name in names:
            if name in used:
                continue
            producers = [n for n in graph.node if n.op_type == "Constant" and list(n.output) == [name]]
            for producer in producers:
                graph.node.remove(producer)
            if hasattr(graph, "initializer"):
                for init in [i for i in graph.initializer if i.name == name]:
                    graph.initializer.remove(init)


def _rebuild(original: Any, node: Any, schema: OpSchema, replaced: OpSchema | None = None) -> Any:
    """A NodeProto for the moved node, keeping the original attribute protos that did not change
    (a node an adapter replaced by another operator is built anew with `replaced`, its schema)."""
    from onnx import helper

    from toolkit.adapters import node_to_onnx

    if node.op_type != original.op_type:
        return node_to_onnx(node, replaced)
    proto = copy.deepcopy(original)
    del proto.input[:]
    proto.input.extend(node.inputs)
    del proto.output[:]
    proto.output.extend(node.outputs)
    before = {attr.name: attr for attr in original.attribute}
    old_values = node_from_onnx(original).attributes
    del proto.attribute[:]
    for name, value in node.attributes.items():
        if name in before and old_values.get(name) == value:
            proto.attribute.append(before[name])
            continue
        declared = schema.attribute(name)
        if declared is not None:
            proto.attribute.append(helper.make_attribute(name, value, attr_type=declared.type.proto_number))
        else:
            proto.attribute.append(helper.make_attribute(name, value))
    return proto


def convert_file(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    registry: Registry,
    targets: Mapping[str, int],
    *,
    inline_for: RuntimeTable | None = None,
) -> ConversionResult:
    """Convert to `targets`, then (with `inline_for`) inline what that runtime lacks (#16)."""
    unchecked: Container[str] = frozenset()
    if any(canonical_domain(d) in CATALOG_DOMAINS for d in targets):
        from toolkit.onnx_bridge.catalog import onnx_unchecked_attributes

        unchecked = onnx_unchecked_attributes()
    result = convert_model(load_model(source), registry, targets, unchecked_attributes=unchecked)
    if inline_for is not None:
        from toolkit.onnx_bridge.inline import InlineError, inline_missing

        try:
            inlined = inline_missing(result.model, registry, inline_for)
        except InlineError as exc:
            finding = convert_finding("CONVERT-INLINE-FAILED", str(exc), graph_path(result.model))
            raise ConversionError.of([Blocker(f"inline for {inline_for.name}", finding)]) from None
        result.model = inlined.model
        counts = {op: inlined.inlined.count(op) for op in sorted(set(inlined.inlined))}
        detail = ", ".join(f"{op} x{n}" for op, n in counts.items()) or "nothing to inline"
        result.steps.append(f"inlined {len(inlined.inlined)} node(s) for runtime {inline_for.name}: {detail}")
    data = result.model.SerializeToString()
    target = Path(out)
    try:
        write_file(target, data)  # atomic; `-o /dev/null` writes into the device
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    return result


__all__ = [
    "ConversionError",
    "ConversionResult",
    "check_targets",
    "convert_file",
    "convert_model",
    "parse_targets",
]
