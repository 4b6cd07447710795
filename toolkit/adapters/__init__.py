"""Declarative version adapters: move a node between two versions of an operator.

An operator version may carry `adapter: {upgrade: [...], downgrade: [...]}`; each step is a
`toolkit.model.spec.AdapterStep(kind, args)`. `upgrade` turns a node of the previous version into
one of this version; `downgrade` goes back. When `downgrade` is not written it is derived
from `upgrade` (`inverse_steps`); a `python` step has no inverse.

Step kinds (arguments in parentheses; "source" is the version the node has before the step,
"target" the version it has after):
- `compatible`: the node is valid as it is.
- `remove_attribute(attribute, value?)`: drop the attribute (it exists on the source side). In a
  downgrade this refuses (AdapterError) a node whose value would change what it computes: the
  value must equal the source default (absent is fine), or, when `value` is given, the node's
  value (or the source default when absent) must equal `value`, the value that means what
  the target version does without the attribute.
- `rename_attribute(attribute, to)`: source name -> target name, value kept.
- `set_attribute_if_absent(attribute, value)`: make an implicit value explicit (typically the
  source default, when the target changes or introduces the default).
- `attribute_to_input(attribute, input and/or index)`: the attribute's value (or its source
  default) becomes a constant input of the target; the caller adds the constant.
- `input_to_attribute(input and/or index, attribute)`: a constant input becomes an attribute;
  the caller provides constant values and may drop the now unused value.
- `type_restriction(param, types)`: the target no longer accepts these types for the type
  parameter; a node using one cannot be moved. Checked when value types are given: a value
  whose type is then unknown is refused too.
- `require_attribute(attribute, values?, min?)`: refuse (AdapterError) unless the attribute, or
  its source default, is one of `values` and every element is at least `min`.
- `remove_input(input and/or index)`: the source's optional input has no counterpart in the
  target; refuse a node that gives it.
- `python(callable)`: `package.module:function(node, context) -> Node | AdapterResult`.

API for the version converter (no onnx needed; helpers at the end convert NodeProto):
- `Node(op_type, inputs, outputs, attributes, domain="", name="")`: a neutral node; `""` in
  `inputs` is an omitted optional input.
- `apply_upgrade(node, old, new, **context)` / `apply_downgrade(node, new, old, **context)`:
  one step between adjacent versions (`new.adapter` is used). `upgrade_node(op, node,
  from_opset, to_opset, **context)` and `downgrade_node(...)` chain every version in between.
  Context: `constants` (value name -> constant value, a Mapping or a callable returning None
  when not constant), `value_types` (value name -> type string such as `tensor(float)`),
  `taken` (names already used in the graph, so new constant names are unique),
  `value_shapes` (value name -> shape, None for a dimension that is not a number).
- Each returns `AdapterResult(node, constants, dropped_inputs, notes, before, after)`:
  `before` / `after` are nodes (of the target opset) a rewrite into a small subgraph places
  around the node; `node` may then be of another operator. `constants` are
  `NewConstant(name, value, attr_type, element_type, like_input)` the caller must add as
  initializers (or Constant nodes); `element_type` is an ONNX element type name (`int64`)
  or None when the tensor must take the element type of input `like_input` of the node.
- Failures raise `AdapterError` (`MissingAdapter` when a version in the path has none);
  the message says which node and which step.
- onnx helpers: `node_from_onnx(NodeProto)`, `node_to_onnx(Node, schema=None)`,
  `constant_tensor(NewConstant, elem_type=None)`, `constant_node(NewConstant, ...)`.

The `python` adapters of the ai.onnx overlay live in `onnx_ops`.

Modules: `node` (Node, NewConstant, AdapterResult, AdapterContext, the errors), `steps` (one
handler per step kind, `apply_steps`), `inverse` (`inverse_steps`), `chain` (the entry points
above), `onnx_io` (the onnx helpers). Every public name is importable from `toolkit.adapters`.
"""

from toolkit.adapters.chain import apply_downgrade, apply_upgrade, downgrade_node, upgrade_node
from toolkit.adapters.inverse import inverse_steps
from toolkit.adapters.node import (
    AdapterContext,
    AdapterError,
    AdapterResult,
    MissingAdapter,
    NewConstant,
    Node,
)
from toolkit.adapters.onnx_io import (
    constant_node,
    constant_tensor,
    element_type_number,
    node_from_onnx,
    node_to_onnx,
)
from toolkit.adapters.steps import apply_steps, input_position, load_callable
from toolkit.model.adapter_steps import same_value

__all__ = [
    "AdapterContext",
    "AdapterError",
    "AdapterResult",
    "MissingAdapter",
    "NewConstant",
    "Node",
    "apply_downgrade",
    "apply_steps",
    "apply_upgrade",
    "constant_node",
    "constant_tensor",
    "downgrade_node",
    "element_type_number",
    "input_position",
    "inverse_steps",
    "load_callable",
    "node_from_onnx",
    "node_to_onnx",
    "same_value",
    "upgrade_node",
]
