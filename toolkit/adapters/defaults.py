"""What an absent attribute means, kept across a move between versions.

An attribute a node leaves out means its version's default. When a move carries the attribute
over (under the same name, or renamed by a `rename_attribute` step) to a version whose default
differs, or that has none, the absent attribute would silently take another meaning, so the
source default is written explicitly before the steps run. Attributes a step removes or turns
into an input are the step's (it reads the source default itself); a list with a `python` step is
the code's to get right. An attribute without a default in the source version whose target
counterpart has one is left out: the target's default is taken to be what its absence meant (the
documented value that the newer version gave a name).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.adapters.node import Node
from toolkit.adapters.onnx_io import default_proto
from toolkit.model.adapter_steps import same_value
from toolkit.model.attr_defaults import (
    LITERAL_DEFAULT_TYPES,
)
from toolkit.model.spec import (
    AdapterStep,
    Attribute,
    OpSchema,
)

# Steps that take an attribute of the source over themselves, default included.
_TAKEN_BY_STEP = frozenset({"remove_attribute", "attribute_to_input"})


def write_source_defaults(
    node: Node, steps: Sequence[AdapterStep], source: OpSchema, target: OpSchema
) -> list[str]:
    """Write on `node` (a copy the caller owns) each source default that the move to `target`
    would otherwise lose; the notes say which."""
    if any(step.kind == "python" for step in steps):
        return []
    renamed = {str(s.arg("attribute")): str(s.arg("to")) for s in steps if s.kind == "rename_attribute"}
    taken = {str(s.arg("attribute")) for s in steps if s.kind in _TAKEN_BY_STEP}
    made = {str(s.arg("attribute")) for s in steps if s.kind == "input_to_attribute"}
    notes: list[str] = []
    for attr in source.attributes:
        if attr.name in node.attributes or attr.name in taken or attr.default is None:
            continue
        name = renamed.get(attr.name, attr.name)
        there = target.attribute(name)
        if there is None or name in made:
            continue
        if there.default is not None and same_value(attr.default, there.default):
            continue
        node.attributes[attr.name] = _node_value(attr)
        means = f"{there.default!r}" if there.default is not None else "no value"
        notes.append(
            f"wrote attribute '{attr.name}' = {attr.default!r} explicitly: absent, it means that in "
            f"{source.id} but {means} in {target.id}"
        )
    return notes


def _node_value(attr: Attribute) -> object:
    """The default as a node attribute holds it: a list for a list, an onnx proto for a tensor,
    sparse tensor or graph (as `onnx_io` reads a node; onnx is installed when a node is converted)."""
    if attr.type not in LITERAL_DEFAULT_TYPES:
        return _thaw(attr.default)
    from onnx import helper

    return helper.get_attribute_value(default_proto(attr))


def _thaw(value: object) -> object:
    """Model defaults are tuples (frozen); node attributes use lists."""
    return list(value) if isinstance(value, tuple) else value
