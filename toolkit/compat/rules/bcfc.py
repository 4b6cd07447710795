"""Why each built-in gate rule breaks backward and/or forward compatibility: the argument from
the law, appended to the rule's doc by `compat_rule` (as "**BC/FC:** ...").

BC (PyTorch's operator-versioning RFC): programs from older versions still run, i.e. a node
written for the old version is valid and means the same under the new one (old models, new
runtime). FC: a node written for the new version is valid and means the same under the old one
(new models, old runtime). ONNX binds node inputs and outputs by position and attributes by
name (IR.md), and leaves an optional input or output out only at the end or with an empty name.
The rule's BC/FC columns give the usual case; where the details decide, each finding carries
its own flags (`toolkit.model.change_compat`), and this text says when.
"""

from __future__ import annotations

_SHIFT = "a parameter added or removed anywhere but at the end moves every later one to another position"

NOTES: dict[str, str] = {
    "ATTR-ADDED": "FC: a new node that sets the attribute is rejected by an old runtime, which does not "
    "know it. BC only when the attribute is required: old nodes do not set it.",
    "ATTR-REMOVED": "BC: old nodes that set the attribute are rejected. FC only when it was required: new "
    "nodes leave it out, which an old runtime rejects; an optional one takes its default there.",
    "ATTR-RENAMED": "Attributes are bound by name: old nodes carry the old name (BC), new nodes the new "
    "one, unknown to old runtimes (FC).",
    "ATTR-TYPE-CHANGED": "An attribute value carries its type (AttributeProto.type): old nodes have the "
    "old type (BC), new nodes the new one (FC).",
    "ATTR-DEFAULT-CHANGED": "Nodes that leave the attribute out compute something else: old nodes under "
    "the new default (BC), new nodes under the old default (FC).",
    "ATTR-REQUIRED-CHANGED": "Becoming required breaks BC only (old nodes that left it out are "
    "rejected; new nodes always set it, which old runtimes accept); becoming optional breaks FC only.",
    "INPUT-ADDED": "FC: new nodes that give the input are rejected by old runtimes. BC only when old "
    "nodes become invalid: the input is required (not optional, or variadic with min_arity > 0), or "
    f"it is not the last one ({_SHIFT}).",
    "INPUT-REMOVED": "BC: old nodes that give the input are rejected, or bind it to the next one. FC "
    "unless it was a trailing optional input: new nodes leave it out, which an old runtime accepts "
    f"only for a trailing optional input ({_SHIFT}).",
    "INPUT-RENAMED": "Inputs are bound by position; the name is not part of a node, so neither breaks. "
    "Still an error: generated builders and docs use the name.",
    "INPUT-REORDERED": "Inputs are bound by position: old and new nodes bind their values to the wrong "
    "inputs under the other version.",
    "INPUT-OPTION-CHANGED": "Each option accepts a number of node inputs (single 1, optional 0-1, variadic "
    "min_arity or more). BC holds when the new range takes every count the old one did (single -> "
    "optional, single -> variadic with min_arity <= 1); FC holds when the old range takes every new "
    "count (optional -> single).",
    "INPUT-ARITY-CHANGED": "A lower min_arity or heterogeneous inputs accept every old node (BC holds) "
    "but not every new one on old runtimes (FC breaks); a higher min_arity or homogeneity the other "
    "way round.",
    "INPUT-TYPE-CHANGED": "The input binds to another type parameter or concrete type, so both the old "
    "and the new set of valid nodes lose members.",
    "OUTPUT-ADDED": "FC: new nodes that ask for the output get nothing from an old runtime. BC only when "
    "old nodes become invalid: the output is required, or it is not the last one "
    f"({_SHIFT}); an optional output at the end keeps old nodes working.",
    "OUTPUT-REMOVED": "BC: old nodes that name the output are rejected. FC unless it was a trailing "
    "optional output that new nodes simply do not name.",
    "OUTPUT-RENAMED": "Outputs are bound by position; neither breaks. Still an error: generated APIs and "
    "docs use the name.",
    "OUTPUT-REORDERED": "Outputs are bound by position: consumers of old and new nodes read the wrong "
    "values under the other version.",
    "OUTPUT-OPTION-CHANGED": "As for inputs: BC holds when the new range of output counts takes every "
    "old count (single -> optional, single -> variadic with min_arity <= 1), FC when the old range "
    "takes every new count (optional -> single).",
    "OUTPUT-ARITY-CHANGED": "As for inputs: a lower min_arity or heterogeneous outputs keep old nodes "
    "valid and break FC; the other way round breaks BC.",
    "OUTPUT-TYPE-CHANGED": "The output binds to another type parameter or concrete type: consumers on "
    "either side may get a type they do not accept.",
    "TYPE-ADDED": "Old nodes use only the old types, still allowed (BC holds); new nodes may use the "
    "added type, which old runtimes reject (FC).",
    "TYPE-REMOVED": "Old nodes using the type are rejected (BC); new nodes use only types old runtimes "
    "accept (FC holds).",
    "TYPE-PARAM-ADDED": "An input or output both versions have is bound to the new parameter, which "
    "changes which combinations of types are valid together, in either direction depending on its "
    "types: both are assumed. A parameter typing only inputs and outputs added with it constrains no "
    "old node; its addition's finding (INPUT-ADDED, OUTPUT-ADDED) carries the BC/FC.",
    "TYPE-PARAM-REMOVED": "Parameters bound to the removed one now share another's types: both the old "
    "and the new set of valid nodes lose members. One removed with every input and output it typed "
    "is their removal's finding (INPUT-REMOVED, OUTPUT-REMOVED).",
    "TYPE-PARAM-RENAMED": "Type parameters are not part of a node; neither breaks. Still an error: "
    "generated APIs and docs use the name.",
    "TYPE-SET-CHANGED": "Expanded into every constraint using the set: types added break FC, types "
    "removed break BC (reported per version as TYPE-ADDED / TYPE-REMOVED); both are assumed here.",
    "ADAPTER-MISSING": "Old models cannot be converted to the new version (BC). FC is the breaking "
    "change's own finding.",
    "ADAPTER-RECOMMENDED": "Old models cannot be converted to the new version (BC). FC is the breaking "
    "change's own finding.",
    "STATUS-CHANGED": "A stable version turned experimental may change under models of either side.",
    "FUNCTION-BODY-CHANGED": "The body is what the operator computes wherever it is inlined: old nodes "
    "compute something else under the new body (BC), new nodes under the old body on old runtimes and "
    "converters (FC), with the same signature on both sides.",
    "SHAPE-RULE-CHANGED": "The model and the operator's kernels are the same on both sides, but the "
    "tools are not: a checker or shape inference built from the new tree infers other shapes or refuses "
    "other nodes than one built from the old tree, for old models (BC) and new ones (FC) alike.",
    "SHAPE-RULE-ADDED": "A rule where there was none describes what the released operator already "
    "computes: no node becomes valid or invalid at a runtime, and tools of the old tree simply infer "
    "nothing for it.",
    "VERSION-MODIFIED": "The changes it reports (differentiability, deprecation flag) do not change "
    "which nodes are valid or what they mean; still a released version edited in place.",
    "VERSION-NOT-NEW-OPSET": "Models importing the already released opset resolve the operator to the "
    "new version on a new runtime (BC) and to the old one on an old runtime (FC).",
    "VERSION-REMOVED": "Models importing the opsets it covered resolve to an older version (or nothing) "
    "on a new runtime (BC) and to the removed one on an old runtime (FC).",
    "OPSET-IR-CHANGED": "Models and runtimes agreed on the IR version of the opset: old models with the "
    "old IR version are refused (BC), new ones need an IR version old runtimes do not expect (FC).",
    "OPSET-OP-ADDED": "Old models do not use the operator (BC holds); new models importing the released "
    "opset may use it and fail on old runtimes that implement that opset (FC).",
    "OPSET-OP-REMOVED": "Old models importing the released opset use the operator (BC); new models do "
    "not, and old runtimes still have it (FC holds).",
    "OPSET-REMOVED": "Old models importing the opset version are refused (BC); new models import only "
    "versions old runtimes also know (FC holds).",
    "DEPRECATED-WITHOUT-REPLACEMENT": "Deprecation changes no node's validity or meaning; the finding "
    "is about the migration path.",
    "REMOVED-WITHOUT-REPLACEMENT": "`removed_in` at a new opset version is legal; the finding is about "
    "the migration path (the removal itself is OPSET-OP-REMOVED when it hits a released opset).",
    "DOC-CHANGED": "Documentation is not part of a node.",
    "ALLOWLIST-EXPIRED": "A configuration finding, about no node.",
    "ALLOWLIST-UNUSED": "A configuration finding, about no node.",
    "PLUGINS-IGNORED": "A configuration finding, about no node.",
}


def note(rule_id: str, bc: bool, fc: bool) -> str:
    """The doc paragraph for a built-in rule ("" for a rule without a note, e.g. a plugin's)."""
    text = NOTES.get(rule_id)
    if text is None:
        return ""
    return f"**BC/FC** (BC {'yes' if bc else 'no'}, FC {'yes' if fc else 'no'} in the usual case): {text}"
