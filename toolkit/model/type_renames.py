"""Which type parameters of an operator version were renamed in the next: matched by what they
type, not by where they are written (`type_constraints` is a mapping: its key order means
nothing). Change detection (`toolkit.model.change_detection`) reports the matches as
TYPE-PARAM-RENAMED and compares the inputs and outputs through them."""

from __future__ import annotations

from toolkit.model.spec import OpSchema


def _type_users(schema: OpSchema, param: str) -> frozenset[tuple[str, int]]:
    """The inputs and outputs `param` types, by position (how nodes bind them)."""
    return frozenset(
        [("input", i) for i, p in enumerate(schema.inputs) if p.type_str == param]
        + [("output", i) for i, p in enumerate(schema.outputs) if p.type_str == param]
    )


def type_param_renames(old: OpSchema, new: OpSchema) -> dict[str, str]:
    """old type parameter -> new one it was renamed to. The order of `type_constraints` means
    nothing (a mapping), so parameters are matched one-to-one by what they are: first those that
    type the same inputs and outputs with the same allowed types (a swap of two names too), then,
    among the names only one side has, those with the same allowed types, when that match is
    unique both ways. A parameter matched to its own name is kept, not renamed."""
    old_c = {c.param: (set(c.allowed), _type_users(old, c.param)) for c in old.type_constraints}
    new_c = {c.param: (set(c.allowed), _type_users(new, c.param)) for c in new.type_constraints}
    matched: dict[str, str] = {}

    def unique(candidates: dict[str, list[str]]) -> None:
        targets = [n for found in candidates.values() for n in found]
        for o, found in candidates.items():
            if len(found) == 1 and targets.count(found[0]) == 1:
                matched[o] = found[0]

    unique(
        {o: [n for n, (types, users) in new_c.items() if (types, users) == old_c[o] and users] for o in old_c}
    )
    taken = set(matched.values())
    unique(
        {
            o: [
                n
                for n, (types, _) in new_c.items()
                if n not in old_c and n not in taken and types == old_c[o][0]
            ]
            for o in old_c
            if o not in matched and o not in new_c
        }
    )
    return {o: n for o, n in matched.items() if o != n}
