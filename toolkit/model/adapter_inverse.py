"""The downgrade an `upgrade` list implies when a version writes no `downgrade` list, derived
from the steps and from both versions' signatures.

One function per step kind (`INVERSES`, a `PerKind` table): its docstring's first line is what
the authoring guide's table of implied downgrades says about the kind (the table is rendered
from them, `inverse_table`). Besides the per-step inverses, every implied downgrade starts with
a `type_restriction` for the types the newer version added to a type parameter (a node using one
cannot go back). Defaults that differ between the versions are not steps: the converter writes
them explicitly on every move, declared or implied (`toolkit.adapters.defaults`).

A step whose inverse no step list can express (`python`; `remove_input` before the last input)
raises `NoInverse`: `opset validate` then requires an explicit `downgrade` (ADAPTER-NO-INVERSE),
and `opset convert` refuses the downgrade.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

from toolkit.model.adapter_steps import PerKind, same_value, type_changes, type_restrictions
from toolkit.model.spec import AdapterStep, OpSchema

Inverse = Callable[[AdapterStep, OpSchema, OpSchema], tuple[AdapterStep, ...]]  # (step, old, new)
_INVERSES: PerKind[Inverse] = PerKind("implied downgrades")


class NoInverse(Exception):
    """An upgrade step whose downgrade cannot be derived; `step` is where, `reason` why."""

    def __init__(self, step: AdapterStep, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason


def implied_downgrade(steps: Sequence[AdapterStep], old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """The downgrade (from `new` back to `old`) implied by `steps`, the upgrade of `new`.

    The restrictions of the types `new` added come first (they are about the node as it is
    before any step), then each step's inverse, last step first. NoInverse for the first step
    that has none.
    """
    return _restrictions(old, new, steps) + tuple(
        inverse for step in reversed(steps) for inverse in _inverse_of(step, old, new)
    )


def suggested_downgrade(steps: Sequence[AdapterStep], old: OpSchema, new: OpSchema) -> str:
    """The `downgrade:` list to write, as flow YAML, where each step without an inverse is a
    `python` step to fill in (the rest is what the steps imply)."""
    parts: list[AdapterStep] = list(_restrictions(old, new, steps))
    for step in reversed(steps):
        try:
            parts.extend(_inverse_of(step, old, new))
        except NoInverse:
            placeholder = f"your_module:{new.name.lower()}_{new.since_version}_to_{old.since_version}"
            parts.append(AdapterStep("python", (("callable", placeholder),), step.location))
    return "downgrade: [" + ", ".join(flow_step(step) for step in parts) + "]"


def flow_step(step: AdapterStep) -> str:
    """One step as a YAML flow mapping, `{kind: rename_attribute, attribute: b, to: a}`."""
    args = "".join(f", {name}: {_flow_value(value)}" for name, value in step.args)
    return f"{{kind: {step.kind}{args}}}"


def inverse_table() -> Iterator[tuple[str, str]]:
    """(step kind, its implied downgrade) for every kind, in `STEP_KINDS` order."""
    for kind, function in INVERSES.items():
        yield kind, " ".join((function.__doc__ or "").strip().split("\n\n")[0].split())


def _inverse_of(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    return INVERSES[step.kind](step, old, new)


def _restrictions(old: OpSchema, new: OpSchema, steps: Sequence[AdapterStep]) -> tuple[AdapterStep, ...]:
    added, _removed = type_changes(old, new)
    return type_restrictions(added, steps[0].location if steps else new.location)


def _step(kind: str, origin: AdapterStep, **args: object) -> AdapterStep:
    return AdapterStep(kind, tuple(sorted(args.items())), origin.location)


def _args(step: AdapterStep) -> dict[str, object]:
    return {name: value for name, value in step.args if name != "doc"}


@_INVERSES.of("compatible")
def _compatible(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """nothing to undo."""
    return ()


@_INVERSES.of("remove_attribute")
def _remove_attribute(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """`set_attribute_if_absent` of the step's `value` when it is given and the older version's
    default differs from it (or it has none): the newer version computes what the older one did
    with that value; without `value`, nothing (the older default is what the newer version does).
    """
    args = _args(step)
    if "value" not in args:
        return ()
    declared = old.attribute(str(args["attribute"]))
    if declared is not None and declared.default is not None and same_value(declared.default, args["value"]):
        return ()
    return (_step("set_attribute_if_absent", step, attribute=args["attribute"], value=args["value"]),)


@_INVERSES.of("rename_attribute")
def _rename_attribute(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """`rename_attribute` back (`to` -> `attribute`)."""
    args = _args(step)
    return (_step("rename_attribute", step, attribute=args["to"], to=args["attribute"]),)


@_INVERSES.of("set_attribute_if_absent")
def _set_attribute_if_absent(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """`remove_attribute` with the step's `value` when the older version has no such attribute (a
    node keeping another value, or leaving it out when the newer default differs, is refused);
    nothing when it has one (an absent attribute means the newer default, written explicitly
    when the older default differs)."""
    args = _args(step)
    if old.attribute(str(args["attribute"])) is not None:
        return ()
    return (_step("remove_attribute", step, attribute=args["attribute"], value=args["value"]),)


@_INVERSES.of("attribute_to_input")
def _attribute_to_input(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """`input_to_attribute` with the same arguments (the input must be a constant; an omitted
    input leaves the attribute out, its slot removed)."""
    return (_step("input_to_attribute", step, **_args(step)),)


@_INVERSES.of("input_to_attribute")
def _input_to_attribute(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """`attribute_to_input` with the same arguments (the attribute, or the newer default, becomes a
    constant input; absent without a default, the input is omitted)."""
    return (_step("attribute_to_input", step, **_args(step)),)


@_INVERSES.of("type_restriction")
def _type_restriction(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """nothing: the older version accepts the types (the types the newer version added are
    restricted by the implied downgrade's first steps)."""
    return ()


@_INVERSES.of("require_attribute")
def _require_attribute(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """the same `require_attribute` when the newer version has the attribute (the two versions
    compute the same only for those values, in either direction); nothing otherwise."""
    if new.attribute(str(step.arg("attribute"))) is None:
        return ()
    return (_step("require_attribute", step, **_args(step)),)


@_INVERSES.of("remove_input")
def _remove_input(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """nothing when the input was the older version's last one; before the last, none can be
    derived (no step kind inserts an omitted input): write `downgrade`."""
    position = _position(old, step)
    if position is None or position >= len(old.inputs) - 1:
        return ()
    raise NoInverse(
        step,
        f"remove_input drops input {position} ('{old.inputs[position].name}') of {old.id}, which is not its "
        f"last input: going back, the inputs after it must move one place on, and no step kind does that",
    )


@_INVERSES.of("python")
def _python(step: AdapterStep, old: OpSchema, new: OpSchema) -> tuple[AdapterStep, ...]:
    """none: a `python` step is code, so its inverse cannot be derived: write `downgrade`."""
    raise NoInverse(
        step, f"the python upgrade step ({step.arg('callable')}) is code, and code has no derived inverse"
    )


INVERSES: Mapping[str, Inverse] = _INVERSES.complete()


def _position(schema: OpSchema, step: AdapterStep) -> int | None:
    name, index = step.arg("input"), step.arg("index")
    if name is not None:
        names = [formal.name for formal in schema.inputs]
        return names.index(str(name)) if name in names else None
    return index if isinstance(index, int) and 0 <= index < len(schema.inputs) else None


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")


def _flow_value(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_flow_value(item) for item in value) + "]"
    if isinstance(value, str) and _PLAIN.match(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value)


_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"})
