"""The MODEL-* rules of `opset check-model` (family "model" of the unified catalog).

`MODEL_RULES` keeps the order the docs' Rules section and SARIF's rule list show them in:
scope and resolution first, then the node checks in the order a node is checked.

A rule the node walk reports (`checker._Walk.node`) is registered with `_node(PRECONDITION, ...)`:
the cheap test under which it cannot fire. check-model's fast path (`fastpath.clean`) passes a
node without the reporting checker exactly when every precondition the node rules declare holds,
so a new node rule is covered by naming its precondition here (and a new kind of precondition
by its test in `fastpath.GUARDS`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from toolkit.model.rules import Rule, register
from toolkit.onnx_bridge.check.shape_rules import SHAPE_RULES

FAMILY = "model"


class Precondition(enum.Enum):
    """A cheap test of one node under which a node rule cannot fire."""

    RESOLVED = "the node calls no model-local function, its domain is imported and has specs, and it resolves to a stable, not deprecated version"
    VALUES = "the node's input and output counts are within the schema's, and no required one is empty"
    TYPES = "the declared types of the node's values are allowed and bind each type parameter once"
    ATTRIBUTES = "every attribute is declared, typed as declared, set once and has its value; every required one is set"


_NODE_RULES: dict[str, Precondition] = {}


def _node(precondition: Precondition, rule_id: str, severity: str, summary: str, **fields: Any) -> Rule:
    """Register a rule of the node walk with the precondition under which it cannot fire."""
    rule = register(rule_id, FAMILY, severity, summary, **fields)
    _NODE_RULES[rule_id] = precondition
    return rule


MODEL_RULES: tuple[Rule, ...] = (
    _node(
        Precondition.RESOLVED,
        "MODEL-DOMAIN-NOT-IMPORTED",
        "error",
        "A node uses a domain that the model (or its function) does not list in opset_import.",
        name="domain not imported",
        hint="add an opset_import entry for the domain",
        doc="""\
**Why:** an operator is resolved by the opset version its domain is imported at; without an
import the node means nothing to a runtime.

**Before:** a `com.acme.Normalize` node, `opset_import` lists only `ai.onnx`.

**After:** `opset_import` also lists `com.acme` at the opset version the model was built for.""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-DOMAIN-UNKNOWN",
        "warning",
        "The model imports a domain that neither the onnx catalog nor the given specs define; "
        "its nodes cannot be checked.",
        name="domain without specs",
        hint="pass the domain's spec folder with --specs",
        doc="""\
**Why:** check-model checks a node against the schemas of its domain; a domain with no specs
leaves its nodes unchecked (reported once per domain, at its first node).

**Fix:** give the domain's spec folder with `--specs`.""",
    ),
    register(
        "MODEL-OPSET-UNKNOWN",
        FAMILY,
        "warning",
        "The model imports an opset version newer than the newest version the specs define.",
        name="opset version not defined",
        hint="use a released opset version or update the specs",
        doc="""\
**Why:** operators resolve to the newest version at or below the imported opset; past the newest
defined opset the specs cannot say what is in effect, so the checks may miss changes.

**Fix:** import a defined opset version, or check against newer specs.""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-OP-UNKNOWN",
        "error",
        "The operator does not exist in the node's domain.",
        name="operator unknown",
        hint="check the op_type spelling and domain",
        doc="""\
**Why:** no version of the operator exists in the domain at any opset, so no runtime of the domain
can run the node.

**Before:** `op_type: "Reul"`. **After:** `op_type: "Relu"`.""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-OP-NOT-IN-OPSET",
        "error",
        "The operator exists, but its first version is newer than the opset version the model imports.",
        name="operator not in the imported opset",
        hint="import a newer opset version of the domain (opset convert)",
        doc="""\
**Why:** resolution finds no version with since_version at or below the imported opset; a
runtime of that opset does not have the operator.

**Before:** a `Gelu` node in a model importing `ai.onnx` 18 (Gelu appears in 20).

**After:** import `ai.onnx` 20 (`opset convert --to ai.onnx=20`).""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-OP-REMOVED",
        "error",
        "The operator was removed at or before the opset version the model imports.",
        name="operator removed",
        hint="use the replacement operator, or import an older opset version",
        doc="""\
**Why:** from its `removed_in` opset on an operator resolves to nothing, even though older
versions exist.

**Fix:** replace the node by the operator the specs name as replacement, or import an opset
version before the removal.""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-OP-DEPRECATED",
        "warning",
        "The operator version in effect is deprecated.",
        name="operator deprecated",
        hint="move to the replacement operator",
        doc="""\
**Why:** a deprecated operator version still runs, but runtimes may drop it and later opsets
remove it.

**Fix:** use the operator its documentation names as replacement.""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-OP-EXPERIMENTAL",
        "info",
        "The operator version in effect is experimental and may change without a version bump.",
        name="experimental operator",
        doc="""\
**Why:** an experimental operator's signature is not covered by the versioning rules; a model
using it may stop working on a newer runtime without any opset change.""",
    ),
    _node(
        Precondition.VALUES,
        "MODEL-INPUT-COUNT",
        "error",
        "The node has fewer inputs than the schema requires or more than it allows.",
        name="wrong number of inputs",
        hint="trailing optional inputs may be omitted; skipped ones in the middle are empty names",
        doc="""\
**Why:** inputs are positional; a runtime binds them to the formal parameters of the operator
version in effect.

**Before:** `Flatten(x, x)` (Flatten takes one input). **After:** `Flatten(x)`.""",
    ),
    _node(
        Precondition.VALUES,
        "MODEL-OUTPUT-COUNT",
        "error",
        "The node has fewer outputs than the schema requires or more than it allows.",
        name="wrong number of outputs",
        doc="""\
**Why:** outputs are positional like inputs; an output the operator does not produce is never
computed.

**Before:** `Flatten(x) -> (y, z)`. **After:** `Flatten(x) -> y`.""",
    ),
    _node(
        Precondition.VALUES,
        "MODEL-INPUT-EMPTY",
        "error",
        "An empty input name (a skipped input) is only allowed for an optional input.",
        name="required input skipped",
        doc="""\
**Why:** an empty name marks an optional input as absent; a required one must be fed.

**Before:** `Gemm(a, "", c)` (B is required). **After:** `Gemm(a, b, c)`.""",
    ),
    _node(
        Precondition.VALUES,
        "MODEL-OUTPUT-EMPTY",
        "error",
        "An empty output name is only allowed for an optional output.",
        name="required output skipped",
        doc="""\
**Why:** an empty output name says the output is not wanted, which only an optional output
allows.""",
    ),
    _node(
        Precondition.ATTRIBUTES,
        "MODEL-ATTR-UNKNOWN",
        "error",
        "The node sets an attribute the operator version does not declare.",
        name="unknown attribute",
        hint="remove it, or use the operator version that declares it",
        doc="""\
**Why:** attributes belong to an operator version; a runtime rejects (or silently ignores) one the
version in effect does not declare. Names starting with `__` are implementation details and
are not checked.

**Before:** `Relu(x, alpha=1.0)` (Relu has no attributes; LeakyRelu has `alpha`).

**After:** `LeakyRelu(x, alpha=1.0)`, or `Relu(x)`.""",
    ),
    _node(
        Precondition.ATTRIBUTES,
        "MODEL-ATTR-TYPE",
        "error",
        "The attribute's AttributeProto.type differs from the type the schema declares.",
        name="attribute type mismatch",
        doc="""\
**Why:** a runtime reads an attribute by its declared type; an `int` where a `float` is declared
is not converted.

**Before:** `Flatten(x, axis=1.0)`. **After:** `Flatten(x, axis=1)`.""",
    ),
    _node(
        Precondition.ATTRIBUTES,
        "MODEL-ATTR-REQUIRED",
        "error",
        "The schema declares the attribute required and the node does not set it.",
        name="required attribute missing",
        doc="""\
**Why:** a required attribute has no default; the operator cannot run without it.

**Before:** `Cast(x)`. **After:** `Cast(x, to=FLOAT)`.""",
    ),
    _node(
        Precondition.ATTRIBUTES,
        "MODEL-ATTR-DUPLICATE",
        "error",
        "The node sets the same attribute name more than once.",
        name="attribute set twice",
        doc="""\
**Why:** which of the two values a runtime takes is not defined.

**Fix:** keep one of the two attributes.""",
    ),
    _node(
        Precondition.ATTRIBUTES,
        "MODEL-ATTR-VALUE-MISSING",
        "error",
        "A tensor, graph, sparse-tensor or type attribute declares its type but carries no value.",
        name="attribute without value",
        doc="""\
**Why:** the attribute's type says which field holds its value; when that field is not set the
attribute has no value at all (a reference to a function attribute, `ref_attr_name`, is fine).""",
    ),
    _node(
        Precondition.TYPES,
        "MODEL-TYPE-NOT-ALLOWED",
        "error",
        "A value's declared type is not in the type constraint of the input or output it feeds.",
        name="type not allowed",
        doc="""\
**Why:** an operator version supports exactly the types of its type constraints; a runtime has
no kernel for another.

**Before:** `Add(a, b)` with `a`, `b` declared `tensor(string)`.

**After:** cast to a numeric type first, or use an operator that takes strings.""",
    ),
    _node(
        Precondition.TYPES,
        "MODEL-TYPE-INCONSISTENT",
        "error",
        "Homogeneous parameters sharing a type parameter carry different declared types.",
        name="type parameter bound twice",
        doc="""\
**Why:** parameters sharing a type parameter (`T`) take one type per node.

**Before:** `Add(a, b)` with `a: tensor(float)`, `b: tensor(double)`.

**After:** cast one of them so both are `tensor(float)`.""",
    ),
    _node(
        Precondition.RESOLVED,
        "MODEL-FUNCTION-CALL",
        "error",
        "A node calling a model-local function passes more inputs or outputs than it declares, "
        "or an attribute it does not declare.",
        name="bad call of a model-local function",
        doc="""\
**Why:** a call binds its inputs, outputs and attributes to the function's declared ones;
anything beyond them has nothing to bind to.""",
    ),
    register(
        "MODEL-IR-VERSION-MISSING",
        FAMILY,
        "error",
        "The model does not set ir_version.",
        name="IR version not set",
        hint="set ir_version to the IR version the model was written for",
        doc="""\
**Why:** a runtime reads the model by its IR version; without one it cannot tell which
fields and rules apply (onnx.checker refuses such a model).

**Before:** a ModelProto with `ir_version: 0`. **After:** `ir_version: 8` (or the version the
imported opsets need).""",
    ),
    register(
        "MODEL-NAME-EMPTY",
        FAMILY,
        "error",
        "A graph input, graph output, value_info entry or initializer has an empty name.",
        name="empty value name",
        doc="""\
**Why:** values are connected by name; an empty name means "absent" for an optional node input
or output, so a declared value with no name can never be used.

**Before:** an initializer with `name: ""`. **After:** `name: "weight"`.""",
    ),
    register(
        "MODEL-NAME-DUPLICATE",
        FAMILY,
        "error",
        "Two graph inputs, two initializers, two function inputs or two model-local functions share a name.",
        name="name declared twice",
        doc="""\
**Why:** a name declares one value (or one function); with two declarations which one a node
reads is not defined.

**Before:** graph inputs `x, x`. **After:** `x, x2` (and the nodes reading the second use `x2`).

An initializer that is also a graph input is fine: it is that input's default value.""",
    ),
    register(
        "MODEL-IO-TYPE-INCOMPLETE",
        FAMILY,
        "error",
        "An input or output of the main graph has no type, or a tensor input no element type.",
        name="model input/output type incomplete",
        hint="declare the type (a tensor's element type included)",
        doc="""\
**Why:** the main graph's inputs and outputs are the model's interface; runtimes and onnx.checker
need their type, and nothing can be inferred from an input whose element type is unknown.

**Before:** `input { name: "x" type { tensor_type { } } }`.

**After:** `input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" } } } } }`.""",
    ),
    register(
        "MODEL-IO-SHAPE-MISSING",
        FAMILY,
        "warning",
        "A tensor input or output of the main graph declares no shape.",
        name="model input/output without shape",
        hint="declare the shape; an unknown dimension is a dim without value or a dim_param",
        doc="""\
**Why:** onnx.checker refuses a model whose main-graph tensor inputs or outputs have no shape
(dimensions may be unknown, but the shape must be there); onnxruntime loads such a model, so
this is a warning: the model is valid for the runtime but not for the checker.

**Before:** `output { name: "y" type { tensor_type { elem_type: 1 } } }`.

**After:** `output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" } } } } }`.""",
    ),
    register(
        "MODEL-VALUE-REDEFINED",
        FAMILY,
        "error",
        "A node output reuses a name already defined: by an earlier node, a graph input or "
        "initializer, or an enclosing graph (values are assigned once, SSA).",
        name="value defined twice",
        doc="""\
**Why:** ONNX graphs are in static single assignment form: each value has exactly one
definition, so every reader knows which value it gets. A subgraph may read an enclosing
graph's values but not define one of their names again.

**Before:** `Relu(x) -> y`, then `Sigmoid(x) -> y`.

**After:** `Relu(x) -> y`, `Sigmoid(x) -> y2` (and readers of the second use `y2`).""",
    ),
    register(
        "MODEL-NODE-ORDER",
        FAMILY,
        "error",
        "A node reads a value that a later node of the same graph produces: the nodes are not in "
        "topological order.",
        name="nodes out of order",
        hint="sort the nodes so every value is produced before it is read",
        doc="""\
**Why:** a graph's node list is a topological order (IR.md): runtimes and tools process nodes in
list order and expect every input to exist when a node is reached.

**Before:** `[Relu(t) -> y, Abs(x) -> t]`. **After:** `[Abs(x) -> t, Relu(t) -> y]`.""",
    ),
    register(
        "MODEL-VALUE-UNDEFINED",
        FAMILY,
        "error",
        "A node reads a value that nothing defines: no graph input or initializer, no node, no "
        "enclosing graph (before the node holding the subgraph).",
        name="value undefined",
        hint="feed it from a graph input, an initializer or a node, or fix the name",
        doc="""\
**Why:** a node's input must be a value defined before it: in its graph, or for a subgraph in an
enclosing graph before the node that holds the subgraph. A model-local function sees only its
own inputs.

**Before:** `Add(x, bias) -> y` with no `bias` anywhere.

**After:** an initializer (or graph input) named `bias`.""",
    ),
    register(
        "MODEL-OUTPUT-UNDEFINED",
        FAMILY,
        "error",
        "A graph or function output names a value the graph does not define.",
        name="output undefined",
        doc="""\
**Why:** an output hands a value of the graph to its caller; the value must be produced by a node
of the graph or be one of its inputs or initializers (a subgraph output cannot just name an
enclosing graph's value).

**Before:** graph outputs `[y]`, nodes `[Relu(x) -> t]`. **After:** `[Relu(x) -> y]`.""",
    ),
    register(
        "MODEL-FUNCTION-IMPORT-MISSING",
        FAMILY,
        "error",
        "A node of a model-local function uses a domain that only the model imports, not the "
        "function's own opset_import.",
        name="function body domain not imported by the function",
        hint="add the domain, at the model's version, to the function's opset_import",
        doc="""\
**Why:** a function is resolved with its own opset_import; onnx.checker refuses a body node whose
domain the function does not import, even when the model does (check-model still checks the
node at the model's version).

**Before:** function `local.F` with `opset_import: []` and a `Relu` node; the model imports
`ai.onnx` 18.

**After:** the function's `opset_import` lists `ai.onnx` 18.""",
    ),
    register(
        "MODEL-TYPE-INFERRED-MISMATCH",
        FAMILY,
        "error",
        "The element type a node's output must have (inferred from its inputs, attributes and the "
        "operator's spec) differs from the type declared for that value.",
        name="declared type contradicts inference",
        hint="fix the declaration or the node (e.g. Cast's `to`) so both agree",
        doc="""\
**Why:** runtimes infer value types from the operators; a declared type (value_info or graph
output) that contradicts the inferred one makes the model fail to load. check-model infers
element types through the graph from type-parameter bindings and from the spec's `type_from`
(Cast `to`, CastLike's second input, ...).

**Before:** a float16-converted model with `Cast(x, to=FLOAT) -> y` and `y` declared
`tensor(float16)`.

**After:** `Cast(x, to=FLOAT16) -> y`.""",
    ),
    register(
        "MODEL-FUNCTION-BODY",
        FAMILY,
        "error",
        "A function body does not hold together: a model-local function refers to an attribute it "
        "does not declare or its types cannot agree, or the function body of a vendor operator the "
        "model uses fails the FUNCTION-* checks.",
        name="function body broken",
        hint="fix the body: every `@attribute` declared, types that agree",
        doc="""\
**Why:** a runtime without a kernel for the operator runs its body instead (inlining); a body
that reads an attribute nobody declared cannot be inlined. The message starts with the
FUNCTION-* rule that failed (see the spec rules).

**Before:** a function `F <alpha> (X) => (Y)` with nodes `A = Constant <value_float: float = @beta> ()`, `Y = Mul (X, A)`.

**After:** `A = Constant <value_float: float = @alpha> ()`.""",
    ),
    *SHAPE_RULES,  # MODEL-SHAPE-*: from shape inference over the whole graph (shape_rules.py)
)

# Rule id -> its precondition, for the rules the node walk reports.
NODE_RULES: Mapping[str, Precondition] = MappingProxyType(_NODE_RULES)
