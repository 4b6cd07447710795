"""Whether a change to an operator version breaks backward or forward compatibility.

The definitions (PyTorch's operator-versioning RFC): a change breaks **BC** when a node written
for the old version is no longer valid, or means something else, under the new version (old
models on a new runtime); it breaks **FC** when a node written for the new version is not valid,
or means something else, under the old version (new models on an old runtime). ONNX nodes bind
inputs and outputs by position (IR.md: "Input and outputs are positionally associated") and
attributes by name, and leave out an optional input or output only at the end or with an empty
name, so adding or removing a parameter anywhere but at the end shifts every later position.
`toolkit.model.change_detection` asks these helpers for the flags that depend on details.
"""

from __future__ import annotations

from toolkit.model.spec import FormalParameter, OpSchema, ParamOption, TypeConstraint


def arity(param: FormalParameter) -> tuple[int, float]:
    """How many node inputs (outputs) the parameter takes: (least, most)."""
    if param.option is ParamOption.SINGLE:
        return 1, 1
    if param.option is ParamOption.OPTIONAL:
        return 0, 1
    return param.min_arity, float("inf")


def arity_breaks(old: FormalParameter, new: FormalParameter) -> tuple[bool, bool]:
    """(breaks BC, breaks FC) of a parameter's arity change: BC holds when every count an old
    node may give is still accepted, FC when every count a new node may give was accepted."""
    old_low, old_high = arity(old)
    new_low, new_high = arity(new)
    bc = not (new_low <= old_low and old_high <= new_high)
    fc = not (old_low <= new_low and new_high <= old_high)
    return bc, fc


def carried_type_params(schema: OpSchema, other: OpSchema, renamed: set[str]) -> dict[str, TypeConstraint]:
    """The type parameters of `schema` that `other` lacks (by name, and not renamed: `renamed`)
    and that type at least one input or output of `schema` and none that `other` has (by name):
    with `schema` the newer version, those added only with the inputs and outputs they type
    (MaxPool 8's `I`, for its new optional output `Indices`); with `schema` the older one, those
    removed with every input and output they typed.

    Such a parameter is part of that addition (removal): the change model reports it in the
    INPUT-/OUTPUT-ADDED (-REMOVED) change, whose BC/FC are the addition's, and not as a
    TYPE-PARAM-ADDED (-REMOVED) of its own. It types nothing a node of the other version has, so
    it changes nothing such a node may do, and a node using it is a node giving the added
    (removed) input or output, which that change reports: one change, one finding, and an old
    node moves unchanged across a trailing optional addition whatever types it. A new type
    parameter typing an input or output both versions have (a retyping), or none, is a change
    of its own, which breaks BC and FC."""
    names = {p.name for p in (*other.inputs, *other.outputs)}
    carried: dict[str, TypeConstraint] = {}
    for param, constraint in schema.constraint_map.items():
        if param in other.constraint_map or param in renamed:
            continue
        users = {p.name for p in (*schema.inputs, *schema.outputs) if p.type_str == param}
        if users and not users & names:
            carried[param] = constraint
    return carried


# What a finding breaks, as the gate's profiles read it (`toolkit.compat.config.kept_severity`):
BREAKS_BC = "bc"  # old models on the new registry
ADDITIVE = "additive"  # only FC, by an addition PyTorch's RFC calls FC-compatible (below)
BREAKS_FC = "fc"  # only FC, otherwise
BREAKS_NEITHER = "neither"  # no node: names, docs, migration paths, version hygiene
FINDING_CLASSES = (BREAKS_BC, BREAKS_FC, ADDITIVE, BREAKS_NEITHER)

# The additions the RFC names as compatible ones ("the addition of a new kwarg-only argument at
# the end ... with a default value"), in ONNX terms: a trailing optional input or output and an
# optional attribute (the change model refines these kinds' BC flag, which is off exactly then),
# and a new operator in a released opset, which no old node uses.
ADDITIVE_KINDS = frozenset({"INPUT-ADDED", "OUTPUT-ADDED", "ATTR-ADDED", "OPSET-OP-ADDED"})


def finding_class(kind: str, bc: bool, fc: bool) -> str:
    """The class of a finding of rule (change kind) `kind` with its own BC/FC flags."""
    if bc:
        return BREAKS_BC
    if fc:
        return ADDITIVE if kind in ADDITIVE_KINDS else BREAKS_FC
    return BREAKS_NEITHER
