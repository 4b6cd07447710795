"""The kinds of change between two operator versions (`SchemaChange.kind`) and the record of one
change. The vocabulary of the change model (`toolkit.model.changes`); the gate's rule ids for
schema changes are these kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.model.spec import NOWHERE, Location

# kind -> (title, breaking, bc, fc); a change may refine bc/fc from its details.
KIND_TABLE: dict[str, tuple[str, bool, bool, bool]] = {
    "STATUS-CHANGED": ("operator status changed", True, True, True),
    "DEPRECATION-CHANGED": ("operator deprecation changed", False, False, False),
    "ATTR-ADDED": ("attribute added", True, False, True),
    "ATTR-REMOVED": ("attribute removed", True, True, False),
    "ATTR-RENAMED": ("attribute renamed", True, True, True),
    "ATTR-TYPE-CHANGED": ("attribute type changed", True, True, True),
    "ATTR-DEFAULT-CHANGED": ("attribute default changed", True, True, True),
    "ATTR-REQUIRED-CHANGED": ("attribute required-ness changed", True, True, True),
    "INPUT-ADDED": ("input added", True, False, True),
    "INPUT-REMOVED": ("input removed", True, True, True),
    "INPUT-RENAMED": ("input renamed", True, False, False),
    "INPUT-REORDERED": ("inputs reordered", True, True, True),
    "INPUT-OPTION-CHANGED": ("input option changed", True, True, True),
    "INPUT-ARITY-CHANGED": ("input homogeneity or min_arity changed", True, True, True),
    "INPUT-TYPE-CHANGED": ("input type parameter changed", True, True, True),
    "OUTPUT-ADDED": ("output added", True, False, True),
    "OUTPUT-REMOVED": ("output removed", True, True, True),
    "OUTPUT-RENAMED": ("output renamed", True, False, False),
    "OUTPUT-REORDERED": ("outputs reordered", True, True, True),
    "OUTPUT-OPTION-CHANGED": ("output option changed", True, True, True),
    "OUTPUT-ARITY-CHANGED": ("output homogeneity or min_arity changed", True, True, True),
    "OUTPUT-TYPE-CHANGED": ("output type parameter changed", True, True, True),
    "TYPE-PARAM-ADDED": ("type parameter added", True, True, True),
    "TYPE-PARAM-REMOVED": ("type parameter removed", True, True, True),
    "TYPE-PARAM-RENAMED": ("type parameter renamed", True, False, False),
    "TYPE-ADDED": ("type added to a constraint", True, False, True),
    "TYPE-REMOVED": ("type removed from a constraint", True, True, False),
    "DIFFERENTIABILITY-CHANGED": ("differentiability changed", False, False, False),
    "DOC-CHANGED": ("documentation changed", False, False, False),
}

KINDS: dict[str, str] = {kind: row[0] for kind, row in KIND_TABLE.items()}


def kind_defaults(kind: str) -> tuple[bool, bool, bool]:
    """(breaking, bc, fc) of a change kind before a change's details refine bc/fc."""
    _title, breaking, bc, fc = KIND_TABLE[kind]
    return breaking, bc, fc


@dataclass(frozen=True, slots=True)
class SchemaChange:
    kind: str
    subject: str
    old: object
    new: object
    message: str
    old_location: Location = NOWHERE
    new_location: Location = NOWHERE
    breaking: bool = True
    bc: bool = True
    fc: bool = True
    type_sets: tuple[str, ...] = ()
