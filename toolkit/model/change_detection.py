"""How two operator versions are compared: the collector behind `toolkit.model.changes.diff_schemas`.
The matching heuristics are documented in `toolkit.model.changes`; the wording of values in the
change messages is `toolkit.model.change_words`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from toolkit.model.change_compat import arity, arity_breaks, carried_type_params
from toolkit.model.change_kinds import KIND_TABLE, SchemaChange
from toolkit.model.change_words import (
    codes,
    default_text,
    describe_attribute,
    describe_param,
    plain_default,
    plural,
    via_text,
)
from toolkit.model.spec import (
    NOWHERE,
    Attribute,
    FormalParameter,
    Location,
    OpSchema,
    ParamOption,
    TypeConstraint,
)
from toolkit.model.type_renames import type_param_renames


def _attr_shape(attr: Attribute) -> tuple[object, ...]:
    return (attr.type, attr.required, attr.default)


def _param_shape(param: FormalParameter) -> tuple[object, ...]:
    return (param.type_str, param.option, param.homogeneous, param.min_arity)


def _pair_renames(
    old_names: Sequence[str], new_names: Sequence[str], same_shape: dict[tuple[str, str], bool]
) -> dict[str, str]:
    """old name -> new name for unmatched items at the same position with the same shape."""
    old_set, new_set = set(old_names), set(new_names)
    pairs: dict[str, str] = {}
    for index, old_name in enumerate(old_names):
        if old_name in new_set or index >= len(new_names):
            continue
        new_name = new_names[index]
        if new_name not in old_set and same_shape.get((old_name, new_name), False):
            pairs[old_name] = new_name
    return pairs


class Collector:
    def __init__(
        self,
        old: OpSchema,
        new: OpSchema,
        old_sets: Mapping[str, tuple[str, ...]],
        new_sets: Mapping[str, tuple[str, ...]],
    ) -> None:
        self.old, self.new = old, new
        self.old_sets, self.new_sets = old_sets, new_sets
        self.changes: list[SchemaChange] = []
        self._docs: list[SchemaChange] = []

    def add(
        self,
        kind: str,
        subject: str,
        old: object,
        new: object,
        message: str,
        old_loc: Location | None = None,
        new_loc: Location | None = None,
        *,
        bc: bool | None = None,
        fc: bool | None = None,
        type_sets: tuple[str, ...] = (),
    ) -> None:
        _title, breaking, kind_bc, kind_fc = KIND_TABLE[kind]
        change = SchemaChange(
            kind,
            subject,
            old,
            new,
            message,
            _known(old_loc, self.old.location),
            _known(new_loc, self.new.location),
            breaking,
            kind_bc if bc is None else bc,
            kind_fc if fc is None else fc,
            type_sets,
        )
        (self._docs if kind == "DOC-CHANGED" else self.changes).append(change)

    # -- operator ---------------------------------------------------------------------

    def operator_level(self) -> None:
        old, new = self.old, self.new
        if old.status is not new.status:
            to_experimental = new.experimental
            self.add(
                "STATUS-CHANGED",
                "",
                old.status.value,
                new.status.value,
                f"status changed from {old.status.value} to {new.status.value}",
                bc=to_experimental,
                fc=to_experimental,
            )
        if old.deprecated != new.deprecated:
            self.add(
                "DEPRECATION-CHANGED",
                "",
                old.deprecated,
                new.deprecated,
                "operator deprecated" if new.deprecated else "operator no longer deprecated",
            )

    def docs(self) -> None:
        if self.old.doc != self.new.doc:
            self.add("DOC-CHANGED", "", self.old.doc, self.new.doc, "operator documentation changed")
        old, new = self.old, self.new  # a changed deprecation is the change, not its reason
        if old.deprecated and new.deprecated and old.deprecated_reason != new.deprecated_reason:
            reasons = old.deprecated_reason, new.deprecated_reason
            self.add("DOC-CHANGED", "", *reasons, "reason for the deprecation changed")
        self.changes.extend(self._docs)

    # -- attributes -------------------------------------------------------------------

    def attributes(self) -> None:
        old_map, new_map = self.old.attribute_map, self.new.attribute_map
        old_names = [a.name for a in self.old.attributes]
        new_names = [a.name for a in self.new.attributes]
        shapes = {
            (o, n): _attr_shape(old_map[o]) == _attr_shape(new_map[n])
            for o, n in zip(old_names, new_names, strict=False)
        }
        renames = _pair_renames(old_names, new_names, shapes)
        renamed_to = set(renames.values())
        for name in old_names:
            attr = old_map[name]
            if name in renames:
                target = new_map[renames[name]]
                self.add(
                    "ATTR-RENAMED",
                    name,
                    name,
                    target.name,
                    f"attribute `{name}` renamed to `{target.name}`",
                    attr.location,
                    target.location,
                )
                self.attribute_pair(attr, target)
            elif name not in new_map:
                self.add(
                    "ATTR-REMOVED",
                    name,
                    describe_attribute(attr),
                    None,
                    f"attribute `{name}` removed ({describe_attribute(attr)})",
                    attr.location,
                    None,
                    # new nodes lack it: an old runtime rejects them when it was required
                    fc=attr.required,
                )
            else:
                self.attribute_pair(attr, new_map[name])
        for name in new_names:
            if name not in old_map and name not in renamed_to:
                attr = new_map[name]
                self.add(
                    "ATTR-ADDED",
                    name,
                    None,
                    describe_attribute(attr),
                    f"attribute `{name}` added ({describe_attribute(attr)})",
                    None,
                    attr.location,
                    bc=attr.required,
                )

    def attribute_pair(self, old: Attribute, new: Attribute) -> None:
        name, locs = new.name, (old.location, new.location)
        if old.type is not new.type:
            self.add(
                "ATTR-TYPE-CHANGED",
                name,
                old.type.value,
                new.type.value,
                f"attribute `{name}` type changed from {old.type.value} to {new.type.value}",
                *locs,
            )
        if old.required != new.required:
            became = "required" if new.required else "optional"
            self.add(
                "ATTR-REQUIRED-CHANGED",
                name,
                old.required,
                new.required,
                f"attribute `{name}` became {became}",
                *locs,
                bc=new.required,
                fc=not new.required,
            )
        if old.type is new.type and old.default != new.default:
            self.add(
                "ATTR-DEFAULT-CHANGED",
                name,
                plain_default(old.default),
                plain_default(new.default),
                f"attribute `{name}` default changed from {default_text(old.default)} "
                f"to {default_text(new.default)}",
                *locs,
            )
        if old.doc != new.doc:
            self.add(
                "DOC-CHANGED", name, old.doc, new.doc, f"attribute `{name}` documentation changed", *locs
            )

    # -- inputs / outputs -------------------------------------------------------------

    def params(
        self,
        kind: str,
        old_params: tuple[FormalParameter, ...],
        new_params: tuple[FormalParameter, ...],
        renamed_types: dict[str, str],
    ) -> None:
        word = kind.lower()
        old_map = {p.name: p for p in old_params}
        new_map = {p.name: p for p in new_params}
        old_names = [p.name for p in old_params]
        new_names = [p.name for p in new_params]
        shapes = {
            (o.name, n.name): _param_shape(_retyped(o, renamed_types)) == _param_shape(n)
            for o, n in zip(old_params, new_params, strict=False)
        }
        renames = _pair_renames(old_names, new_names, shapes)
        renamed_to = set(renames.values())
        kept_old = [n for n in old_names if n in new_map]
        kept_new = [n for n in new_names if n in old_map]
        if kept_old != kept_new:
            first = next(i for i, (a, b) in enumerate(zip(kept_old, kept_new, strict=True)) if a != b)
            self.add(
                f"{kind}-REORDERED",
                kept_new[first],
                tuple(kept_old),
                tuple(kept_new),
                f"{word}s reordered from {codes(kept_old)} to {codes(kept_new)}",
                old_map[kept_new[first]].location,
                new_map[kept_new[first]].location,
            )
        for index, name in enumerate(old_names):
            param = old_map[name]
            if name in renames:
                target = new_map[renames[name]]
                self.add(
                    f"{kind}-RENAMED",
                    name,
                    name,
                    target.name,
                    f"{word} `{name}` (position {index}) renamed to `{target.name}`",
                    param.location,
                    target.location,
                )
                self.param_pair(kind, param, target, renamed_types)
            elif name not in new_map:
                self.add(
                    f"{kind}-REMOVED",
                    name,
                    describe_param(param),
                    None,
                    f"{word} `{name}` removed ({describe_param(param)}){self._with_type_param(param, True)}",
                    param.location,
                    None,
                    # new nodes never give it; an old runtime accepts that only for a trailing
                    # optional one (a middle one shifts every later position)
                    fc=not (
                        param.is_optional
                        and all(n not in new_map and n not in renames for n in old_names[index + 1 :])
                    ),
                )
            else:
                self.param_pair(kind, param, new_map[name], renamed_types)
        last_kept = max((i for i, n in enumerate(new_names) if n in old_map or n in renamed_to), default=-1)
        for index, name in enumerate(new_names):
            if name not in old_map and name not in renamed_to:
                param = new_map[name]
                self.add(
                    f"{kind}-ADDED",
                    name,
                    None,
                    describe_param(param),
                    f"{word} `{name}` added ({describe_param(param)}){self._with_type_param(param)}",
                    None,
                    param.location,
                    # old nodes do not have it: fine when it may be absent (optional, or variadic
                    # with min_arity 0) and comes after every old one (no position shifts)
                    bc=not (arity(param)[0] == 0 and index > last_kept),
                )

    def param_pair(
        self, kind: str, old: FormalParameter, new: FormalParameter, renamed_types: dict[str, str]
    ) -> None:
        word, name, locs = kind.lower(), new.name, (old.location, new.location)
        if old.option is not new.option:
            # old nodes give a count in the old range, new nodes one in the new range; a runtime
            # accepts the counts of its own range (the same for inputs and outputs)
            bc, fc = arity_breaks(old, new)
            if new.option is ParamOption.SINGLE:
                text = f"{word} `{name}` is no longer {old.option.value}"
            else:
                text = f"{word} `{name}` became {new.option.value}"
            self.add(
                f"{kind}-OPTION-CHANGED", name, old.option.value, new.option.value, text, *locs, bc=bc, fc=fc
            )
        elif old.is_variadic and (old.homogeneous, old.min_arity) != (new.homogeneous, new.min_arity):
            parts = []
            if old.homogeneous != new.homogeneous:
                parts.append("became " + ("homogeneous" if new.homogeneous else "heterogeneous"))
            if old.min_arity != new.min_arity:
                parts.append(f"min_arity changed from {old.min_arity} to {new.min_arity}")
            arity_bc, arity_fc = arity_breaks(old, new)
            self.add(
                f"{kind}-ARITY-CHANGED",
                name,
                {"homogeneous": old.homogeneous, "min_arity": old.min_arity},
                {"homogeneous": new.homogeneous, "min_arity": new.min_arity},
                f"{word} `{name}` " + " and ".join(parts),
                *locs,
                # heterogeneous accepts every homogeneous node, not the other way round
                bc=arity_bc or (new.homogeneous and not old.homogeneous),
                fc=arity_fc or (old.homogeneous and not new.homogeneous),
            )
        if renamed_types.get(old.type_str, old.type_str) != new.type_str:
            self.add(
                f"{kind}-TYPE-CHANGED",
                name,
                old.type_str,
                new.type_str,
                f"{word} `{name}` type changed from `{old.type_str}` to `{new.type_str}`",
                *locs,
            )
        if old.differentiability is not new.differentiability:
            self.add(
                "DIFFERENTIABILITY-CHANGED",
                name,
                old.differentiability.value,
                new.differentiability.value,
                f"{word} `{name}` differentiability changed from {old.differentiability.value} "
                f"to {new.differentiability.value}",
                *locs,
            )
        if old.doc != new.doc:
            self.add("DOC-CHANGED", name, old.doc, new.doc, f"{word} `{name}` documentation changed", *locs)

    # -- type constraints -------------------------------------------------------------

    def _with_type_param(self, param: FormalParameter, removed: bool = False) -> str:
        constraint = (self.removed_with if removed else self.added_with).get(param.type_str)
        if constraint is None:
            return ""
        return f" with its {'' if removed else 'new '}type parameter `{constraint.param}` ({codes(constraint.allowed)})"

    # The type parameters added (removed) with the inputs and outputs they type, which their
    # *-ADDED (*-REMOVED) change names (`carried_type_params`); whichever pass asks first.
    @functools.cached_property
    def added_with(self) -> dict[str, TypeConstraint]:
        return carried_type_params(self.new, self.old, set(self.type_constraints_renames().values()))

    @functools.cached_property
    def removed_with(self) -> dict[str, TypeConstraint]:
        return carried_type_params(self.old, self.new, set(self.type_constraints_renames()))

    @functools.cached_property
    def _type_renames(self) -> dict[str, str]:
        return type_param_renames(self.old, self.new)

    def type_constraints_renames(self) -> dict[str, str]:
        return dict(self._type_renames)

    def type_constraints(self, renames: dict[str, str]) -> None:
        old_map, new_map = self.old.constraint_map, self.new.constraint_map
        renamed_to = set(renames.values())
        for param, old in old_map.items():
            if param in renames:
                new = new_map[renames[param]]
                self.add(
                    "TYPE-PARAM-RENAMED",
                    param,
                    param,
                    new.param,
                    f"type parameter `{param}` renamed to `{new.param}`",
                    old.location,
                    new.location,
                )
                self.constraint_pair(old, new)
            elif param in self.removed_with:
                continue  # reported with the inputs/outputs removed with it
            elif param not in new_map:
                self.add(
                    "TYPE-PARAM-REMOVED",
                    param,
                    old.allowed,
                    None,
                    f"type parameter `{param}` removed",
                    old.location,
                    None,
                )
            else:
                self.constraint_pair(old, new_map[param])
        for param, new in new_map.items():
            if param not in old_map and param not in renamed_to and param not in self.added_with:
                self.add(
                    "TYPE-PARAM-ADDED",
                    param,
                    None,
                    new.allowed,
                    f"type parameter `{param}` added ({len(new.allowed)} types)",
                    None,
                    new.location,
                )

    def constraint_pair(self, old: TypeConstraint, new: TypeConstraint) -> None:
        old_set, new_set = set(old.allowed), set(new.allowed)
        param, locs = new.param, (old.location, new.location)
        added = tuple(t for t in new.allowed if t not in old_set)
        removed = tuple(t for t in old.allowed if t not in new_set)
        if added:
            via = _via(added, new.type_sets, self.new_sets)
            self.add(
                "TYPE-ADDED",
                param,
                old.allowed,
                new.allowed,
                f"{plural('type', added)} {codes(added)} added to `{param}`{via_text(via)}",
                *locs,
                type_sets=via,
            )
        if removed:
            via = _via(removed, old.type_sets, self.old_sets)
            self.add(
                "TYPE-REMOVED",
                param,
                old.allowed,
                new.allowed,
                f"{plural('type', removed)} {codes(removed)} removed from `{param}`{via_text(via)}",
                *locs,
                type_sets=via,
            )
        if old.doc != new.doc:
            self.add(
                "DOC-CHANGED",
                param,
                old.doc,
                new.doc,
                f"type parameter `{param}` documentation changed",
                *locs,
            )


def _via(
    types: tuple[str, ...], set_names: tuple[str, ...], tables: Mapping[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The type sets the constraint uses that hold any of `types` (all its sets without tables)."""
    if not tables:
        return tuple(sorted(set_names))
    wanted = set(types)
    return tuple(sorted(name for name in set_names if wanted & set(tables.get(name, ()))))


def _known(loc: Location | None, fallback: Location) -> Location:
    return fallback if loc is None or loc == NOWHERE else loc


def _retyped(param: FormalParameter, renamed_types: dict[str, str]) -> FormalParameter:
    if param.type_str not in renamed_types:
        return param
    return FormalParameter(
        param.name,
        renamed_types[param.type_str],
        param.doc,
        param.option,
        param.homogeneous,
        param.min_arity,
        param.differentiability,
        param.location,
    )
