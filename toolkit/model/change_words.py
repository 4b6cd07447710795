"""The wording of values in the change model's messages (`toolkit.model.changes`): how an
attribute, an input or output, a list of names, a default and the type sets a type came
through read in a change's sentence. Kept apart from the comparison (`change_detection`), which
decides what changed; these only say it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toolkit.model.attr_defaults import LiteralDefault, describe_value, literal_json
from toolkit.model.spec import AttrDefault, Attribute, FormalParameter, ParamOption


def describe_attribute(attr: Attribute) -> str:
    """`ints, optional` / `int, required` / `string, default 'nearest'`."""
    if attr.required:
        return f"{attr.type.value}, required"
    if attr.default is not None:
        return f"{attr.type.value}, default {describe_value(attr.default)}"
    return f"{attr.type.value}, optional"


def describe_param(param: FormalParameter) -> str:
    """`T, optional` / `T, variadic, heterogeneous, min_arity 0`."""
    parts = [param.type_str]
    if param.option is not ParamOption.SINGLE:
        parts.append(param.option.value)
    if param.is_variadic:
        if not param.homogeneous:
            parts.append("heterogeneous")
        if param.min_arity != 1:
            parts.append(f"min_arity {param.min_arity}")
    return ", ".join(parts)


def codes(items: Iterable[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def plural(word: str, items: Sequence[object]) -> str:
    return word if len(items) == 1 else word + "s"


def counted(number: int, word: str) -> str:
    """`1 domain`, `2 domains`."""
    return f"{number} {plural(word, range(number))}"


def via_text(sets: tuple[str, ...]) -> str:
    if not sets:
        return ""
    return " (via type " + ("set " if len(sets) == 1 else "sets ") + ", ".join(f"`@{s}`" for s in sets) + ")"


def plain_default(value: AttrDefault | None) -> object:
    """A default as plain data (a change's `old` / `new`)."""
    if isinstance(value, LiteralDefault):
        return literal_json(value)
    return list(value) if isinstance(value, tuple) else value


def default_text(value: AttrDefault | None) -> str:
    return "none" if value is None else describe_value(value)
