"""Check an ONNX model against a Registry, in any domain.

Every node of every graph is checked (subgraphs held in attributes and model-local function
bodies included) the way onnx's checker verifies a node against its schema, but against our
registry: so a vendor domain written as YAML specs is checked as strictly as the default domain,
where `onnx.checker` lets an unregistered domain pass unchecked.

Findings are located by a path `graph/node/index` (subgraphs continue the path with the
attribute name), carry a stable rule id (`MODEL-*`, see RULES) and never stop the walk.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import weakref
from collections import ChainMap
from collections.abc import Callable, Container, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.model.diagnostics import Severity, UsageError
from toolkit.model.rules import docs_link
from toolkit.model.spec import FormalParameter, OpSchema, ParamOption, canonical_domain, display_domain
from toolkit.model.types import ELEMENT_TYPE_NUMBERS, TypeStringError, canonical_type
from toolkit.registry.core import Registry

if TYPE_CHECKING:
    import onnx


MODEL_RULES_PAGE = "guide/model-tools/"  # docs/guide/model-tools.md: a heading per MODEL-* rule


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    name: str
    doc: str
    hint: str = ""
    anchor: str = ""  # heading on the model tools page documenting the rule (default: its id)

    @property
    def help_uri(self) -> str:
        return docs_link(MODEL_RULES_PAGE, self.anchor or self.id.lower())


_RULE_LIST = (
    Rule("MODEL-DOMAIN-NOT-IMPORTED", Severity.ERROR, "domain not imported",
         "A node uses a domain that the model (or its function) does not list in opset_import.",
         "add an opset_import entry for the domain"),
    Rule("MODEL-DOMAIN-UNKNOWN", Severity.WARNING, "domain without specs",
         "The model imports a domain that neither the onnx catalog nor the given specs define; "
         "its nodes cannot be checked.", "pass the domain's spec folder with --specs"),
    Rule("MODEL-OPSET-UNKNOWN", Severity.WARNING, "opset version not defined",
         "The model imports an opset version newer than the newest version the specs define.",
         "use a released opset version or update the specs"),
    Rule("MODEL-OP-UNKNOWN", Severity.ERROR, "operator unknown",
         "The operator does not exist in the node's domain.", "check the op_type spelling and domain"),
    Rule("MODEL-OP-NOT-IN-OPSET", Severity.ERROR, "operator not in the imported opset",
         "The operator exists, but its first version is newer than the opset version the model imports.",
         "import a newer opset version of the domain (opset convert)"),
    Rule("MODEL-OP-REMOVED", Severity.ERROR, "operator removed",
         "The operator was removed at or before the opset version the model imports.",
         "use the replacement operator, or import an older opset version"),
    Rule("MODEL-OP-DEPRECATED", Severity.WARNING, "operator deprecated",
         "The operator version in effect is deprecated.", "move to the replacement operator"),
    Rule("MODEL-OP-EXPERIMENTAL", Severity.INFO, "experimental operator",
         "The operator version in effect is experimental and may change without a version bump.", ""),
    Rule("MODEL-INPUT-COUNT", Severity.ERROR, "wrong number of inputs",
         "The node has fewer inputs than the schema requires or more than it allows.",
         "trailing optional inputs may be omitted; skipped ones in the middle are empty names"),
    Rule("MODEL-OUTPUT-COUNT", Severity.ERROR, "wrong number of outputs",
         "The node has fewer outputs than the schema requires or more than it allows.", ""),
    Rule("MODEL-INPUT-EMPTY", Severity.ERROR, "required input skipped",
         "An empty input name (a skipped input) is only allowed for an optional input.", ""),
    Rule("MODEL-OUTPUT-EMPTY", Severity.ERROR, "required output skipped",
         "An empty output name is only allowed for an optional output.", ""),
    Rule("MODEL-ATTR-UNKNOWN", Severity.ERROR, "unknown attribute",
         "The node sets an attribute the operator version does not declare.",
         "remove it, or use the operator version that declares it"),
    Rule("MODEL-ATTR-TYPE", Severity.ERROR, "attribute type mismatch",
         "The attribute's AttributeProto.type differs from the type the schema declares.", ""),
    Rule("MODEL-ATTR-REQUIRED", Severity.ERROR, "required attribute missing",
         "The schema declares the attribute required and the node does not set it.", ""),
    Rule("MODEL-ATTR-DUPLICATE", Severity.ERROR, "attribute set twice",
         "The node sets the same attribute name more than once.", ""),
    Rule("MODEL-ATTR-VALUE-MISSING", Severity.ERROR, "attribute without value",
         "A tensor, graph, sparse-tensor or type attribute declares its type but carries no value.", ""),
    Rule("MODEL-TYPE-NOT-ALLOWED", Severity.ERROR, "type not allowed",
         "A value's declared type is not in the type constraint of the input or output it feeds.", ""),
    Rule("MODEL-TYPE-INCONSISTENT", Severity.ERROR, "type parameter bound twice",
         "Homogeneous parameters sharing a type parameter carry different declared types.", ""),
    Rule("MODEL-FUNCTION-CALL", Severity.ERROR, "bad call of a model-local function",
         "A node calling a model-local function passes more inputs or outputs than it declares, "
         "or an attribute it does not declare.", ""),
)
RULES: Mapping[str, Rule] = {rule.id: rule for rule in _RULE_LIST}


@dataclass(frozen=True, slots=True)
class ModelFinding:
    rule: str
    message: str
    path: str  # graph/node/index, subgraphs continue with the attribute name
    severity: Severity = Severity.ERROR
    hint: str = ""
    operator: str = ""  # the schema id or `domain.Op`

    def format(self, model: str) -> str:
        text = f"{model}:{self.path}: {self.severity.value}[{self.rule}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


@dataclass(frozen=True, slots=True)
class CheckResult:
    model: str
    findings: tuple[ModelFinding, ...]
    nodes: int

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def errors(self) -> tuple[ModelFinding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.ERROR)


def load_model(path: str | os.PathLike[str]) -> onnx.ModelProto:
    """Read a model without its external data; UsageError (exit 2) for anything unreadable."""
    try:
        model_class = _model_proto_class()
        from google.protobuf.message import DecodeError
    except ImportError:
        raise UsageError("the onnx package is not installed: pip install onnx==1.23.2") from None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read model {os.fspath(path)}: {exc.strerror or exc}") from None
    model = model_class()
    try:
        model.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise UsageError(f"{os.fspath(path)}: not an ONNX model ({exc})") from None
    if not data or (model.ir_version == 0 and not model.HasField("graph")):
        raise UsageError(f"{os.fspath(path)}: not an ONNX model (no ir_version and no graph)")
    return model


_MODEL_CLASS: list[type[onnx.ModelProto]] = []


def _model_proto_class() -> type[onnx.ModelProto]:
    """onnx.ModelProto, without importing the onnx package when nothing has yet: `import onnx`
    costs ~100 ms (numpy, helper, compose), its generated protobuf module alone ~15 ms. The class
    is the very same (protobuf keeps one class per message descriptor of its default pool), so a
    later `import onnx` agrees with it. ImportError when onnx is not installed."""
    onnx_module = sys.modules.get("onnx")
    if onnx_module is not None:
        return onnx_module.ModelProto  # type: ignore[no-any-return]
    if not _MODEL_CLASS:
        spec = importlib.util.find_spec("onnx")
        if spec is None or spec.origin is None:
            raise ImportError("onnx")
        generated = os.path.join(os.path.dirname(spec.origin), "onnx_ml_pb2.py")
        module_spec = importlib.util.spec_from_file_location("_opset_toolkit_onnx_ml_pb2", generated)
        try:
            if module_spec is None or module_spec.loader is None:
                raise ImportError(generated)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
            _MODEL_CLASS.append(module.ModelProto)
        except Exception:  # another onnx layout: the package import always works
            import onnx

            return onnx.ModelProto
    return _MODEL_CLASS[0]


_ELEMENT_NAMES = {number: name for name, number in ELEMENT_TYPE_NUMBERS.items()}


def type_string(proto: onnx.TypeProto) -> str | None:
    """Canonical type string of a TypeProto, None when (partly) unknown."""
    # The common case, a tensor, by one lookup: a nonzero elem_type means tensor_type is the
    # oneof member set (an unset member reads as its default, elem_type 0).
    elem_type = proto.tensor_type.elem_type
    if elem_type:
        try:
            return _TENSOR_TYPES[elem_type]
        except KeyError:
            found = _TENSOR_TYPES[elem_type] = _canonical(_raw_type(proto))
            return found
    return _canonical(_raw_type(proto))


_CANONICAL: dict[str, str | None] = {}  # raw type string -> canonical (parsing is the slow part)
_TENSOR_TYPES: dict[int, str | None] = {}  # TensorProto data type -> canonical tensor type


def _canonical(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return _CANONICAL[text]
    except KeyError:
        pass
    try:
        found: str | None = canonical_type(text)
    except TypeStringError:
        found = None
    _CANONICAL[text] = found
    return found


def _raw_type(proto: Any) -> str | None:
    kind = proto.WhichOneof("value")
    if kind == "tensor_type" or kind == "sparse_tensor_type":
        elem = _ELEMENT_NAMES.get(getattr(proto, kind).elem_type)
        prefix = "tensor" if kind == "tensor_type" else "sparse_tensor"
        return f"{prefix}({elem})" if elem else None
    if kind == "sequence_type":
        inner = _raw_type(proto.sequence_type.elem_type)
        return f"seq({inner})" if inner else None
    if kind == "optional_type":
        inner = _raw_type(proto.optional_type.elem_type)
        return f"optional({inner})" if inner else None
    if kind == "map_type":
        key = _ELEMENT_NAMES.get(proto.map_type.key_type)
        value = _raw_type(proto.map_type.value_type)
        return f"map({key}, {value})" if key and value else None
    return None


def type_string_of_tensor(elem: str) -> str:
    """canonical_type(f"tensor({elem})"), memoised (raises TypeStringError like it)."""
    text = f"tensor({elem})"
    found = _CANONICAL.get(text)
    if found is None:
        found = _CANONICAL[text] = canonical_type(text)
    return found


def declared_types(graph: Any) -> dict[str, str | None]:
    """Names -> declared type in one graph scope; declarations win over initializers."""
    types: dict[str, str | None] = {}
    for init in graph.initializer:
        elem = _ELEMENT_NAMES.get(init.data_type)
        types[init.name] = type_string_of_tensor(elem) if elem else None
    for info in (*graph.value_info, *graph.output, *graph.input):
        declared = type_string(info.type)
        if declared is None and not info.HasField("type"):
            continue  # only a declared type, even an unknown one, hides an initializer's
        name = info.name
        if declared is not None or name not in types:
            types[name] = declared
    return types


_VALUE_FIELDS = {4: "t", 5: "g", 11: "sparse_tensor", 13: "tp"}
_GRAPH_ATTR, _GRAPHS_ATTR = 5, 10


@dataclass
class _Scope:
    path: str
    imports: Mapping[str, int]
    types: MutableMapping[str, str | None]
    in_function: bool = False
    # node domain -> op_type -> what `_clean` checks such nodes against; shared by the scopes
    # of one opset_import (a graph and its subgraphs)
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the node check reads from a schema, computed once per schema."""

    arity: tuple[int, int, int, int]
    attributes: Mapping[str, Any]
    required: tuple[Any, ...]
    allowed: Mapping[str, frozenset[str]]  # type_str -> allowed canonical types


def _facts(schema: OpSchema) -> _Facts:
    allowed: dict[str, frozenset[str]] = {}
    constraints = schema.constraint_map
    for param in (*schema.inputs, *schema.outputs):
        constraint = constraints.get(param.type_str)
        allowed[param.type_str] = frozenset(constraint.allowed if constraint else _concrete(param.type_str))
    return _Facts(
        (schema.min_input, schema.max_input, schema.min_output, schema.max_output),
        schema.attribute_map,
        tuple(a for a in schema.attributes if a.required),
        allowed,
    )


_Slot = tuple[str, frozenset[str], bool]  # per input/output position: type parameter, allowed types, homogeneous


@dataclass(frozen=True, slots=True)
class _Fast:
    """A schema's facts in the shape `_clean` reads them (plain ints, names and frozensets)."""

    min_in: int
    max_in: int
    min_out: int
    max_out: int
    single_in: tuple[int, ...]  # positions of inputs that may not be empty
    single_out: tuple[int, ...]
    attr_types: Mapping[str, int]  # attribute name -> AttributeProto type number
    required_attrs: tuple[str, ...]
    unchecked: bool  # the schema accepts undeclared attributes
    in_slots: tuple[_Slot, ...]
    out_slots: tuple[_Slot, ...]
    # (input types, output types) already found to pass the type check: the check is a function
    # of the declared types per position alone (when no name is empty), and few combinations occur
    typings: set[tuple[tuple[str | None, ...], tuple[str | None, ...]]] = field(default_factory=set)


def _fast(schema: OpSchema, facts: _Facts, unchecked: bool) -> _Fast:
    def singles(params: tuple[FormalParameter, ...]) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(params) if p.option is ParamOption.SINGLE)

    def slots(params: tuple[FormalParameter, ...]) -> tuple[_Slot, ...]:
        return tuple((p.type_str, facts.allowed[p.type_str], p.homogeneous) for p in params)

    min_in, max_in, min_out, max_out = facts.arity
    return _Fast(
        min_in, max_in, min_out, max_out, singles(schema.inputs), singles(schema.outputs),
        {name: spec.type.proto_number for name, spec in facts.attributes.items()},
        tuple(spec.name for spec in facts.required), unchecked,
        slots(schema.inputs), slots(schema.outputs),
    )


_DIRTY = -1  # `_clean`: the node may have findings, take the reporting path


def _clean(node: Any, fast: _Fast, types: Callable[[str], str | None] | None) -> int:
    """_DIRTY unless `node` certainly passes every check `_Walk.verify` makes against the schema
    of `fast` (then 1 when it holds graph attributes, else 0). Reads each protobuf field once and
    builds no paths or messages: most nodes are clean, and the reporting path reports the others."""
    inputs = node.input[:]
    outputs = node.output[:]
    # A node whose value names are all present passes the count and type checks exactly when an
    # earlier one with the same declared types per position (hence the same counts) did.
    typing = None
    if types is not None and "" not in inputs and "" not in outputs:
        typing = (tuple(map(types, inputs)), tuple(map(types, outputs)))
    if typing is None or typing not in fast.typings:
        if not _clean_values(inputs, outputs, fast):
            return _DIRTY
        if types is not None and not _clean_types(inputs, outputs, fast, types):
            return _DIRTY
        if typing is not None:
            fast.typings.add(typing)
    graphs = 0
    attrs = node.attribute
    if attrs:
        attr_types = fast.attr_types
        seen: set[str] = set()
        for attr in attrs[:]:  # a list iterates faster than the repeated field
            name = attr.name
            kind = attr.type
            if kind in (_GRAPH_ATTR, _GRAPHS_ATTR):
                graphs = 1
            if name in seen:
                return _DIRTY
            seen.add(name)
            if name.startswith("__"):
                continue
            expected = attr_types.get(name)
            if expected is None:
                if fast.unchecked:
                    continue
                return _DIRTY
            if kind != expected:
                return _DIRTY
            value_field = _VALUE_FIELDS.get(kind)
            if value_field and not attr.HasField(value_field) and not attr.ref_attr_name:
                return _DIRTY
        for name in fast.required_attrs:
            if name not in seen:
                return _DIRTY
    elif fast.required_attrs:
        return _DIRTY
    return graphs


def _clean_values(inputs: list[str], outputs: list[str], fast: _Fast) -> bool:
    """Whether the node's input and output names pass `_Walk.arity`."""
    count = len(inputs)
    if not fast.min_in <= count <= fast.max_in:
        return False
    if "" in inputs:
        for position in fast.single_in:
            if position < count and not inputs[position]:
                return False
    count = len(outputs)
    if not fast.min_out <= count <= fast.max_out:
        return False
    if "" in outputs:
        for position in fast.single_out:
            if position < count and not outputs[position]:
                return False
    return True


def _clean_types(
    inputs: list[str], outputs: list[str], fast: _Fast, types: Callable[[str], str | None]
) -> bool:
    """Whether the declared types of the node's values pass `_Walk.types`."""
    bound: dict[str, str] = {}
    for names, slots in ((inputs, fast.in_slots), (outputs, fast.out_slots)):
        if not slots:
            continue
        last = len(slots) - 1
        for position, name in enumerate(names):
            if not name:
                continue
            actual = types(name)
            if actual is None:
                continue
            param, allowed, homogeneous = slots[position if position < last else last]
            if allowed and actual not in allowed:
                return False
            if homogeneous and bound.setdefault(param, actual) != actual:
                return False
    return True


_UNPLANNED = object()

# Schema facts per registry, kept across check_model calls (a CLI run or a test suite checks
# many models against one registry, most of them small); weak, so a registry takes its facts along.
_CACHES: weakref.WeakKeyDictionary[Registry, tuple[dict[int, _Facts], dict[tuple[int, bool], _Fast]]] = (
    weakref.WeakKeyDictionary()
)


def _schema_caches(registry: Registry) -> tuple[dict[int, _Facts], dict[tuple[int, bool], _Fast]]:
    try:
        found = _CACHES.get(registry)
        if found is None:
            found = _CACHES[registry] = ({}, {})
    except TypeError:  # a registry-like object without weak references: facts per call
        return {}, {}
    return found


@dataclass
class _Walk:
    registry: Registry
    functions: Mapping[tuple[str, str], Any]
    findings: list[ModelFinding] = field(default_factory=list)
    nodes: int = 0
    unknown_domains: set[str] = field(default_factory=set)
    unchecked_attributes: Container[str] = frozenset()
    # per schema (by id: the registry holds its schemas), see _schema_caches
    facts: dict[int, _Facts] = field(default_factory=dict)
    fasts: dict[tuple[int, bool], _Fast] = field(default_factory=dict)

    def facts_of(self, schema: OpSchema) -> _Facts:
        found = self.facts.get(id(schema))
        if found is None:
            found = self.facts[id(schema)] = _facts(schema)
        return found

    def plan(self, raw_domain: str, op_type: str, scope: _Scope) -> _Fast | None:
        """The schema facts `_clean` checks nodes (raw_domain, op_type) of this scope against;
        None when such nodes always take the reporting path (function calls, domains not
        imported or without specs, operators not resolving, deprecated or experimental)."""
        if (raw_domain, op_type) in self.functions:
            return None
        domain = canonical_domain(raw_domain)
        if domain not in scope.imports or not self.registry.has_domain(domain):
            return None
        schema = self.registry.find_schema(op_type, scope.imports[domain], domain)
        if schema is None or schema.deprecated or schema.experimental:
            return None
        unchecked = schema.id in self.unchecked_attributes
        found = self.fasts.get((id(schema), unchecked))
        if found is None:
            found = self.fasts[id(schema), unchecked] = _fast(schema, self.facts_of(schema), unchecked)
        return found

    def add(self, rule: str, path: str, message: str, hint: str = "", operator: str = "") -> None:
        meta = RULES[rule]
        self.findings.append(ModelFinding(rule, message, path, meta.severity, hint or meta.hint, operator))

    # -- graphs ------------------------------------------------------------------------

    def graph(self, graph: Any, scope: _Scope) -> None:
        nodes = graph.node
        self.nodes += len(nodes)
        plans = scope.plans
        types = None if scope.in_function else scope.types.get
        for index, node in enumerate(nodes):
            op_type = node.op_type
            domain_plans = plans.get(node.domain)
            if domain_plans is None:
                domain_plans = plans[node.domain] = {}
            fast = domain_plans.get(op_type, _UNPLANNED)
            if fast is _UNPLANNED:
                fast = domain_plans[op_type] = self.plan(node.domain, op_type, scope)
            verdict = _DIRTY if fast is None else _clean(node, fast, types)
            if verdict == _DIRTY:
                self.node(node, index, scope)
            elif verdict:
                self.subgraphs(node, f"{scope.path}/{node.name or node.op_type}/{index}", scope)

    def node(self, node: Any, index: int, scope: _Scope) -> None:
        """Check one node and report what is wrong (the path of every node `_clean` cannot pass)."""
        path = f"{scope.path}/{node.name or node.op_type}/{index}"
        domain = canonical_domain(node.domain)
        function = self.functions.get((node.domain, node.op_type))
        if function is not None:
            self.function_call(node, function, path)
        elif domain not in scope.imports:
            self.add("MODEL-DOMAIN-NOT-IMPORTED", path,
                     f"{node.op_type} uses domain '{display_domain(domain)}', which is not in opset_import",
                     operator=f"{display_domain(domain)}.{node.op_type}")
        elif not self.registry.has_domain(domain):
            if domain not in self.unknown_domains:
                self.unknown_domains.add(domain)
                self.add("MODEL-DOMAIN-UNKNOWN", path,
                         f"domain '{display_domain(domain)}' has no specs; its nodes are not checked",
                         operator=f"{display_domain(domain)}.{node.op_type}")
        else:
            schema = self.resolve(node, domain, scope.imports[domain], path)
            if schema is not None:
                self.verify(node, schema, path, scope)
        self.subgraphs(node, path, scope)

    def subgraphs(self, node: Any, path: str, scope: _Scope) -> None:
        for attr in node.attribute:
            graphs = [attr.g] if attr.type == _GRAPH_ATTR and attr.HasField("g") else []
            if attr.type == _GRAPHS_ATTR:
                graphs = list(attr.graphs)
            for position, sub in enumerate(graphs):
                suffix = attr.name if attr.type == _GRAPH_ATTR else f"{attr.name}[{position}]"
                types: MutableMapping[str, str | None] = ChainMap(declared_types(sub), scope.types)
                self.graph(sub, _Scope(f"{path}/{suffix}", scope.imports, types, scope.in_function, scope.plans))

    # -- resolution --------------------------------------------------------------------

    def resolve(self, node: Any, domain: str, version: int, path: str) -> OpSchema | None:
        ref = f"{display_domain(domain)}.{node.op_type}"
        schema = self.registry.find_schema(node.op_type, version, domain)
        if schema is not None:
            if schema.deprecated:
                self.add("MODEL-OP-DEPRECATED", path,
                         f"{schema.id} is deprecated (in effect at opset {version})", operator=schema.id)
            if schema.experimental:
                self.add("MODEL-OP-EXPERIMENTAL", path, f"{schema.id} is experimental", operator=schema.id)
            return schema
        try:
            spec = self.registry.operator(node.op_type, domain)
        except KeyError:
            self.add("MODEL-OP-UNKNOWN", path,
                     f"no operator '{node.op_type}' in domain '{display_domain(domain)}'", operator=ref)
            return None
        if spec.removed_in is not None and version >= spec.removed_in:
            hint = f"replaced by {spec.replaced_by}" if spec.replaced_by else ""
            self.add("MODEL-OP-REMOVED", path,
                     f"{ref} was removed in opset {spec.removed_in}; the model imports opset {version}",
                     hint=hint, operator=ref)
        else:
            first = spec.versions[0].since_version
            self.add("MODEL-OP-NOT-IN-OPSET", path,
                     f"{ref} first appears in opset {first}; the model imports opset {version}",
                     hint=f"import {display_domain(domain)} opset >= {first}", operator=ref)
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
        self, kind: str, names: Any, params: tuple[FormalParameter, ...],
        low: int, high: int, path: str, schema: OpSchema,
    ) -> None:
        rule = "MODEL-INPUT-COUNT" if kind == "input" else "MODEL-OUTPUT-COUNT"
        if not low <= len(names) <= high:
            bound = f"{low}" if low == high else f"{low} to {'unbounded' if high >= 2**31 - 1 else high}"
            self.add(rule, path, f"{schema.id} takes {bound} {kind}s, the node has {len(names)}",
                     operator=schema.id)
        for position, name in enumerate(names):
            if position >= len(params):
                break
            if not name and params[position].option is ParamOption.SINGLE:
                self.add("MODEL-INPUT-EMPTY" if kind == "input" else "MODEL-OUTPUT-EMPTY", path,
                         f"{kind} {position} ('{params[position].name}') of {schema.id} is required "
                         f"but the node leaves it empty", operator=schema.id)

    def attributes(self, node: Any, schema: OpSchema, facts: _Facts, path: str) -> None:
        declared = facts.attributes
        seen: set[str] = set()
        for attr in node.attribute:
            if attr.name in seen:
                self.add("MODEL-ATTR-DUPLICATE", path, f"attribute '{attr.name}' is set twice",
                         operator=schema.id)
                continue
            seen.add(attr.name)
            if attr.name.startswith("__"):
                continue  # internal symbols are implementation details, as onnx treats them
            spec = declared.get(attr.name)
            if spec is None and schema.id in self.unchecked_attributes:
                continue  # the schema accepts undeclared attributes (onnx's AllowUncheckedAttributes)
            if spec is None:
                known = ", ".join(sorted(declared)) or "none"
                self.add("MODEL-ATTR-UNKNOWN", path, f"{schema.id} has no attribute '{attr.name}'",
                         hint=f"declared attributes: {known}", operator=schema.id)
                continue
            if attr.type != spec.type.proto_number:
                self.add("MODEL-ATTR-TYPE", path,
                         f"attribute '{attr.name}' of {schema.id} must be {spec.type.value}, "
                         f"the node gives {_attr_type_name(attr.type)}", operator=schema.id)
                continue
            value_field = _VALUE_FIELDS.get(attr.type)
            if not attr.ref_attr_name and value_field and not attr.HasField(value_field):
                self.add("MODEL-ATTR-VALUE-MISSING", path,
                         f"attribute '{attr.name}' is typed {spec.type.value} but has no value",
                         operator=schema.id)
        for spec in facts.required:
            if spec.name not in seen:
                self.add("MODEL-ATTR-REQUIRED", path,
                         f"{schema.id} requires attribute '{spec.name}' ({spec.type.value})", operator=schema.id)

    def types(self, node: Any, schema: OpSchema, facts: _Facts, path: str, scope: _Scope) -> None:
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
                    self.add("MODEL-TYPE-NOT-ALLOWED", path,
                             f"{kind} {position} '{name}' is {actual}, which {param.type_str} of {schema.id} "
                             f"does not allow", hint=f"allowed: {listing}", operator=schema.id)
                    continue
                if param.homogeneous:
                    previous = bound.setdefault(param.type_str, actual)
                    if previous != actual:
                        self.add("MODEL-TYPE-INCONSISTENT", path,
                                 f"{kind} {position} '{name}' is {actual} but {param.type_str} is already "
                                 f"bound to {previous} on this node", operator=schema.id)

    # -- model-local functions ------------------------------------------------------------

    def function_call(self, node: Any, function: Any, path: str) -> None:
        ref = f"{display_domain(function.domain)}.{function.name}"
        if len(node.input) > len(function.input) or len(node.output) > len(function.output):
            self.add("MODEL-FUNCTION-CALL", path,
                     f"{ref} declares {len(function.input)} input(s) and {len(function.output)} output(s), "
                     f"the node has {len(node.input)} and {len(node.output)}", operator=ref)
        declared = set(function.attribute) | {a.name for a in function.attribute_proto}
        for attr in node.attribute:
            if attr.name not in declared and not attr.name.startswith("__"):
                self.add("MODEL-FUNCTION-CALL", path, f"{ref} declares no attribute '{attr.name}'",
                         operator=ref)


def _concrete(type_str: str) -> tuple[str, ...]:
    try:
        return (canonical_type(type_str),)
    except TypeStringError:
        return ()


_ATTR_TYPE_NAMES = {
    0: "undefined", 1: "float", 2: "int", 3: "string", 4: "tensor", 5: "graph", 6: "floats", 7: "ints",
    8: "strings", 9: "tensors", 10: "graphs", 11: "sparse_tensor", 12: "sparse_tensors", 13: "type_proto",
    14: "type_protos",
}


def _attr_type_name(number: int) -> str:
    return _ATTR_TYPE_NAMES.get(number, f"type {number}")


def _imports(entries: Iterable[Any]) -> dict[str, int]:
    return {canonical_domain(entry.domain): int(entry.version) for entry in entries}


def check_model(
    model: onnx.ModelProto,
    registry: Registry,
    *,
    name: str = "model.onnx",
    unchecked_attributes: Container[str] = frozenset(),
) -> CheckResult:
    """Every finding for `model` against `registry`, in graph order.

    `unchecked_attributes`: ids of schemas that accept undeclared attributes
    (`catalog.onnx_unchecked_attributes()` for the onnx catalog).
    """
    functions = {(f.domain, f.name): f for f in model.functions}
    facts, fasts = _schema_caches(registry)
    walk = _Walk(registry, functions, unchecked_attributes=unchecked_attributes, facts=facts, fasts=fasts)
    imports = _imports(model.opset_import)
    graph_name = model.graph.name or "graph"
    for domain, version in sorted(imports.items()):
        if registry.has_domain(domain) and version > registry.domain(domain).max_version:
            walk.add("MODEL-OPSET-UNKNOWN", graph_name,
                     f"the model imports {display_domain(domain)} opset {version}; the newest defined is "
                     f"{registry.domain(domain).max_version}")
    walk.graph(model.graph, _Scope(graph_name, imports, declared_types(model.graph)))
    for function in sorted(model.functions, key=lambda f: (f.domain, f.name, f.overload)):
        # A function's own imports win; the model's fill the gaps, as runtimes resolve them.
        own = {**imports, **_imports(function.opset_import)}
        types: dict[str, str | None] = {}
        for info in getattr(function, "value_info", ()):
            types[info.name] = type_string(info.type) if info.HasField("type") else None
        scope = _Scope(f"function:{display_domain(function.domain)}.{function.name}", own, types, True)
        walk.graph(function, scope)
    return CheckResult(name, tuple(walk.findings), walk.nodes)


def check_model_file(
    path: str | os.PathLike[str], registry: Registry, *, unchecked_attributes: Container[str] = frozenset()
) -> CheckResult:
    return check_model(load_model(path), registry, name=os.fspath(path), unchecked_attributes=unchecked_attributes)


def exit_code(results: Iterable[CheckResult], fail_on: Severity) -> int:
    """1 when a finding is at or above `fail_on`, else 0."""
    return int(any(f.severity.rank >= fail_on.rank for r in results for f in r.findings))
