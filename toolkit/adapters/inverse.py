"""The downgrade an upgrade implies, when a version writes no `downgrade` list."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.adapters.node import AdapterError
from toolkit.model.spec import AdapterStep, OpSchema


def inverse_steps(
    steps: Sequence[AdapterStep], new: OpSchema | None = None, old: OpSchema | None = None
) -> tuple[AdapterStep, ...]:
    """The downgrade implied by upgrade `steps` (from `old` to `new`), last step first.

    AdapterError for `python` steps, which have no inverse.
    """
    out: list[AdapterStep] = []
    for step in reversed(steps):
        args = dict(step.args)
        args.pop("doc", None)
        if step.kind == "rename_attribute":
            out.append(_step("rename_attribute", step, attribute=args["to"], to=args["attribute"]))
        elif step.kind == "attribute_to_input":
            out.append(_step("input_to_attribute", step, **args))
        elif step.kind == "input_to_attribute":
            out.append(_step("attribute_to_input", step, **args))
        elif (
            step.kind == "set_attribute_if_absent"
            and old is not None
            and not old.attribute(str(args["attribute"]))
        ):
            # The upgrade introduced the attribute; the old version does not know it. Only
            # the value the upgrade writes means what the old version does.
            out.append(_step("remove_attribute", step, attribute=args["attribute"], value=args["value"]))
        elif step.kind == "python":
            where = f" of {new.id}" if new is not None else ""
            raise AdapterError(f"the python upgrade{where} has no inverse: write a `downgrade` list")
        # compatible, remove_attribute (absent means the old default), type_restriction
        # (the old version accepts more types), set_attribute_if_absent: nothing to undo.
    return tuple(out)


def _step(kind: str, origin: AdapterStep, **args: object) -> AdapterStep:
    return AdapterStep(kind, tuple(sorted(args.items())), origin.location)
