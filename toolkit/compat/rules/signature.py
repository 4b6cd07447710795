"""Signature rules: in-place changes to the attributes, inputs and outputs of released versions.

Each is a kind of `toolkit.model.changes.SchemaChange` (the change model finds them; its BC/FC
classification is the rule's). A rule here is its doc: why the change breaks, a before and an
after; the fix is always a new version in a new opset (`FIX_BUMP`).
"""

from __future__ import annotations

from toolkit.compat.rules.base import V1, change_rule

# change_rule(kind, name, category, why, before, after)

change_rule(
    "ATTR-ADDED",
    "attribute-added",
    "signature",
    "Runtimes built from the old registry reject nodes that set the new attribute (FC); a "
    "required attribute also invalidates every existing node (BC). ONNX counts even an optional "
    "attribute with a default as breaking.",
    V1 + "    attributes: {}",
    V1 + "    attributes:\n      axes: {type: ints}",
)

change_rule(
    "ATTR-REMOVED",
    "attribute-removed",
    "signature",
    "Existing models that set the attribute no longer validate (BC).",
    V1 + "    attributes:\n      axis: {type: int, default: 0}",
    V1 + "    attributes: {}",
)

change_rule(
    "ATTR-RENAMED",
    "attribute-renamed",
    "signature",
    "Attributes are matched by name: old models carry the old name, new models the new one; "
    "neither runs on the other registry. Reported once, not as a removal plus an addition, "
    "when the attribute keeps its position, type, required-ness and default.",
    V1 + "    attributes:\n      paddings: {type: ints}",
    V1 + "    attributes:\n      pads: {type: ints}",
)

change_rule(
    "ATTR-TYPE-CHANGED",
    "attribute-type-changed",
    "signature",
    "An attribute value is typed in the model (AttributeProto.type); the other type is rejected.",
    V1 + "    attributes:\n      to: {type: string}",
    V1 + "    attributes:\n      to: {type: int}",
)

change_rule(
    "ATTR-DEFAULT-CHANGED",
    "attribute-default-changed",
    "signature",
    "Nodes that omit the attribute silently compute something else: new behaviour under the "
    "same signature, which the versioning rules count as breaking.",
    V1 + "    attributes:\n      mode: {type: string, default: nearest}",
    V1 + "    attributes:\n      mode: {type: string, default: linear}",
)

change_rule(
    "ATTR-REQUIRED-CHANGED",
    "attribute-required-changed",
    "signature",
    "Becoming required rejects old nodes that omitted it (BC); becoming optional lets new "
    "models omit it, which old runtimes reject (FC).",
    V1 + "    attributes:\n      axis: {type: int, default: 1}",
    V1 + "    attributes:\n      axis: {type: int, required: true}",
)

change_rule(
    "INPUT-ADDED",
    "input-added",
    "signature",
    "Old runtimes do not know the input (FC); a non-optional input also invalidates existing nodes (BC).",
    V1 + "    inputs:\n      - {name: X, type: T}",
    V1
    + "    inputs:\n      - {name: X, type: T}\n      - {name: axes, type: tensor(int64), option: optional}",
)

change_rule(
    "INPUT-REMOVED",
    "input-removed",
    "signature",
    "Inputs are positional: old nodes pass a value the new version does not accept.",
    V1 + "    inputs:\n      - {name: X, type: T}\n      - {name: scale, type: T}",
    V1 + "    inputs:\n      - {name: X, type: T}",
)

change_rule(
    "INPUT-RENAMED",
    "input-renamed",
    "signature",
    "Inputs are positional on the wire, but generated APIs, docs and keyword-based builders use "
    "the name. Reported when the input keeps its position and shape.",
    V1 + "    inputs:\n      - {name: X, type: T}",
    V1 + "    inputs:\n      - {name: input, type: T}",
)

change_rule(
    "INPUT-REORDERED",
    "inputs-reordered",
    "signature",
    "Inputs are positional: every existing node now binds its values to the wrong inputs.",
    V1 + "    inputs:\n      - {name: A, type: T}\n      - {name: B, type: T}",
    V1 + "    inputs:\n      - {name: B, type: T}\n      - {name: A, type: T}",
)

change_rule(
    "INPUT-OPTION-CHANGED",
    "input-option-changed",
    "signature",
    "single/optional/variadic decide how many values a node passes: becoming optional lets new "
    "models omit it (FC), becoming single rejects old nodes that omitted it (BC).",
    V1 + "    inputs:\n      - {name: C, type: T, option: optional}",
    V1 + "    inputs:\n      - {name: C, type: T}",
)

change_rule(
    "INPUT-ARITY-CHANGED",
    "input-arity-changed",
    "signature",
    "A variadic input's homogeneity or min_arity decides which nodes are valid.",
    V1 + "    inputs:\n      - {name: inputs, type: T, option: variadic}",
    V1 + "    inputs:\n      - {name: inputs, type: T, option: variadic, min_arity: 2}",
)

change_rule(
    "INPUT-TYPE-CHANGED",
    "input-type-changed",
    "signature",
    "The input binds to another type parameter or concrete type: the set of valid models changes.",
    V1 + "    inputs:\n      - {name: scale, type: T}",
    V1 + "    inputs:\n      - {name: scale, type: T1}",
)

change_rule(
    "OUTPUT-ADDED",
    "output-added",
    "signature",
    "Outputs are positional; old runtimes produce fewer outputs than new models consume.",
    V1 + "    outputs:\n      - {name: Y, type: T}",
    V1 + "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: T1, option: optional}",
)

change_rule(
    "OUTPUT-REMOVED",
    "output-removed",
    "signature",
    "Old models that consume the output break.",
    V1 + "    outputs:\n      - {name: Y, type: T}\n      - {name: mean, type: T}",
    V1 + "    outputs:\n      - {name: Y, type: T}",
)

change_rule(
    "OUTPUT-RENAMED",
    "output-renamed",
    "signature",
    "Outputs are positional on the wire, but generated APIs and docs use the name.",
    V1 + "    outputs:\n      - {name: Y, type: T}",
    V1 + "    outputs:\n      - {name: output, type: T}",
)

change_rule(
    "OUTPUT-REORDERED",
    "outputs-reordered",
    "signature",
    "Outputs are positional: consumers read the wrong values.",
    V1 + "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: T1}",
    V1 + "    outputs:\n      - {name: mask, type: T1}\n      - {name: Y, type: T}",
)

change_rule(
    "OUTPUT-OPTION-CHANGED",
    "output-option-changed",
    "signature",
    "Whether an output is always produced is part of the contract consumers rely on.",
    V1 + "    outputs:\n      - {name: Y_h, type: T}",
    V1 + "    outputs:\n      - {name: Y_h, type: T, option: optional}",
)

change_rule(
    "OUTPUT-ARITY-CHANGED",
    "output-arity-changed",
    "signature",
    "A variadic output's homogeneity or min_arity decides how many values consumers get.",
    V1 + "    outputs:\n      - {name: outputs, type: T, option: variadic}",
    V1 + "    outputs:\n      - {name: outputs, type: T, option: variadic, homogeneous: false}",
)

change_rule(
    "OUTPUT-TYPE-CHANGED",
    "output-type-changed",
    "signature",
    "The output's type changes: consumers inferred or declared the old one.",
    V1 + "    outputs:\n      - {name: Y, type: T}",
    V1 + "    outputs:\n      - {name: Y, type: tensor(float)}",
)
