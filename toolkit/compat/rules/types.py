"""Type rules: type parameters and allowed types of released versions, and domain type sets.

A domain type set is expanded into every constraint that names it, so editing a released set
edits every operator version using it: those edits are TYPE-ADDED / TYPE-REMOVED, and
TYPE-SET-CHANGED names all the versions in one finding.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, TypeSetPair
from toolkit.compat.handlers import type_set_pairs
from toolkit.compat.rules.base import V1, change_rule, compat_rule, rule_doc

# change_rule(kind, name, category, why, before, after)

_T = "    type_constraints:\n      T: {allowed: '@float_types'}\n"
_T1 = "      T1: {allowed: [tensor(bool)]}\n"

_ONE_TYPE = "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: T}\n" + _T
_OWN_TYPE = "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: T1}\n" + _T + _T1

change_rule(
    "TYPE-PARAM-ADDED",
    "type-param-added",
    "types",
    "A new type parameter that types an input or output the version already had retypes it: "
    "which combinations of types are valid together changes. One that types only inputs and "
    "outputs added with it is part of their addition and is reported there (INPUT-ADDED, "
    "OUTPUT-ADDED), not again here.",
    V1 + _ONE_TYPE,
    V1 + _OWN_TYPE,
)

change_rule(
    "TYPE-PARAM-REMOVED",
    "type-param-removed",
    "types",
    "Removing a type parameter whose inputs or outputs the version keeps changes how they are "
    "typed together. One removed with every input and output it typed is part of their "
    "removal and is reported there (INPUT-REMOVED, OUTPUT-REMOVED), not again here.",
    V1 + _OWN_TYPE,
    V1 + _ONE_TYPE,
)

change_rule(
    "TYPE-PARAM-RENAMED",
    "type-param-renamed",
    "types",
    "The allowed types are the same, but generated APIs and docs name the parameter. Uses of "
    "the parameter by inputs/outputs follow the rename and are not reported again.",
    V1 + "    type_constraints:\n      T: {allowed: '@float_types'}",
    V1 + "    type_constraints:\n      T1: {allowed: '@float_types'}",
)

change_rule(
    "TYPE-ADDED",
    "type-added",
    "types",
    "Models using the new type do not run on old runtimes (FC). This also happens when a "
    "domain type set the constraint uses gains a type: every operator using the set changes "
    "(see TYPE-SET-CHANGED).",
    V1 + "    type_constraints:\n      T: {allowed: [tensor(float)]}",
    V1 + "    type_constraints:\n      T: {allowed: [tensor(float), tensor(bfloat16)]}",
)

change_rule(
    "TYPE-REMOVED",
    "type-removed",
    "types",
    "Existing models using the type no longer validate (BC), also when the type leaves a shared type set.",
    V1 + "    type_constraints:\n      T: {allowed: [tensor(float), tensor(bool)]}",
    V1 + "    type_constraints:\n      T: {allowed: [tensor(float)]}",
)


@compat_rule(
    "TYPE-SET-CHANGED",
    name="type-set-changed",
    severity="info",
    bc=True,
    fc=True,
    category="types",
    summary="A domain type set changed; names every released operator version that uses it.",
    doc=rule_doc(
        "Type sets are expanded into every constraint that references them, so editing one edits "
        "every operator version using it in place (each is reported as TYPE-ADDED / TYPE-REMOVED). "
        "This finding names them all in one place.",
        "type_sets:\n  float_types: [tensor(float16), tensor(float)]",
        "type_sets:\n  float_types: [tensor(float16), tensor(float), tensor(bfloat16)]",
        "leave the released set alone and define a new set (e.g. `float_types_v2`) for new versions.",
    ),
)
@type_set_pairs
def type_set_changed(pair: TypeSetPair) -> Iterator[Hit]:
    types, now, name = pair.old, pair.new, pair.name
    old, new = pair.domain.old, pair.domain.new
    if types is None or now is None or old is None or new is None or set(now) == set(types):
        return
    users = sorted(schema.id for schema in pair.users if pair.domain.released(schema))
    added = [t for t in now if t not in types]
    removed = [t for t in types if t not in now]
    delta = ", ".join([f"+{t}" for t in added] + [f"-{t}" for t in removed])
    yield Hit(
        new.display_name,
        f"type set `@{name}` changed ({delta}); affects {len(users)} released operator version(s): "
        + (", ".join(users) if users else "none"),
        new.type_set_location(name),
        old.type_set_location(name),
        f"define a new type set for new versions and keep `@{name}` unchanged" if users else "",
        subject=name,
        key=(tuple(types), tuple(now)),
    )
