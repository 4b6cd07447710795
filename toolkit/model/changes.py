"""The change model: what differs between two versions of one operator, in words.

Shared by the breaking-change gate (`toolkit.compat.engine`) and the docs generator
(per-version "what changed" sentences). The API is deliberately small and stable:

    diff_schemas(old: OpSchema, new: OpSchema) -> list[SchemaChange]

`SchemaChange` fields:
    kind          stable id, e.g. "ATTR-ADDED"; equal to the gate's rule id for that change
    subject       what changed: attribute / input / output / type-parameter name ("" = operator)
    old, new      the values before and after (None when absent); plain data, not model objects
    message       one human sentence in Markdown, e.g. "attribute `axes` added (ints, optional)"
    old_location  where the subject is declared in the old schema (or the schema itself)
    new_location  the same in the new schema
    breaking      True when ONNX's versioning rules call the change breaking
    bc, fc        True when old models may fail on the new registry (bc) / new models may
                  fail on old runtimes (fc), PyTorch RFC terms
    type_sets     for TYPE-ADDED / TYPE-REMOVED: the type sets the changed types came through

`KINDS` maps every kind to a one-line title. Changes come out in a fixed order: operator-level,
then attributes, inputs, outputs, type constraints (each in declaration order), docs last.

Matching heuristics (documented because they decide what is reported):
- Attributes, inputs, outputs and type parameters are matched by name first.
- A rename is reported once (not as remove + add) when an unmatched old item and an unmatched
  new item have the same position among their kind and the same shape: attributes the same type,
  required-ness and default; inputs/outputs the same type, option, homogeneity and min_arity;
  type parameters the same allowed types. Anything else is a removal plus an addition.
- Inputs/outputs matched by name whose relative order changed give one *-REORDERED change.
- A type parameter rename also renames the parameter's uses; they are not reported again.
- A type parameter added only to type inputs/outputs that are added too is part of their
  addition: their *-ADDED change names it (and carries the BC/FC), no TYPE-PARAM-ADDED; the
  same for one removed with every input/output it typed (*-REMOVED, no TYPE-PARAM-REMOVED).
- Type constraints compare as sets (declaration order of the allowed types is not a change).
"""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.model.attr_defaults import describe_value
from toolkit.model.change_detection import Collector
from toolkit.model.change_kinds import KINDS, SchemaChange, kind_defaults
from toolkit.model.change_words import describe_attribute, describe_param
from toolkit.model.spec import OpSchema

__all__ = [
    "KINDS",
    "SchemaChange",
    "describe_attribute",
    "describe_param",
    "describe_value",
    "diff_schemas",
    "kind_defaults",
]


def diff_schemas(
    old: OpSchema,
    new: OpSchema,
    *,
    old_type_sets: Mapping[str, tuple[str, ...]] | None = None,
    new_type_sets: Mapping[str, tuple[str, ...]] | None = None,
) -> list[SchemaChange]:
    """Every difference between two operator versions (the same op), in a fixed order.

    The optional type-set tables (name -> types, `DomainSpec.type_sets` as a dict) let
    TYPE-ADDED/TYPE-REMOVED name only the sets that hold the changed types; without them
    every set the constraint uses is named.
    """
    if old == new:
        return []
    out = Collector(old, new, old_type_sets or {}, new_type_sets or {})
    out.operator_level()
    # The passes over a section a version left as it was find nothing, and are skipped (most new
    # versions change one section): equal attributes, inputs or outputs (with no type parameter
    # renamed) match by name one for one and every comparison of a pair is equal; equal type
    # constraints rename nothing and add or remove no type, whatever the type-set tables (they
    # only name the sets of a changed type). A renamed type parameter retypes the inputs and
    # outputs that use it, so they are compared then. Field equality holds an attribute equal to
    # itself, but `!=` finds a float NaN default changed even from itself: those are compared.
    if old.attributes != new.attributes or any(_nan(a.default) for a in old.attributes):
        out.attributes()
    same_constraints = old.type_constraints == new.type_constraints
    renamed_types = {} if same_constraints else out.type_constraints_renames()
    if renamed_types or old.inputs != new.inputs:
        out.params("INPUT", old.inputs, new.inputs, renamed_types)
    if renamed_types or old.outputs != new.outputs:
        out.params("OUTPUT", old.outputs, new.outputs, renamed_types)
    if not same_constraints:
        out.type_constraints(renamed_types)
    out.docs()
    return out.changes


def _nan(value: object) -> bool:
    return isinstance(value, float) and value != value
