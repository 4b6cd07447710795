"""YAML -> model for the shape rules (#27): an output's `shape:` and a version's `shape_requires:`,
each kept as written with where its text starts. They are parsed and checked by the SHAPE-* spec
rules (toolkit.checks.shapes), never evaluated as code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkit.load.yamlsrc import Source
from toolkit.model.spec import OpSchema, ShapeText

__all__ = ["shape_requires", "shape_text"]


def shape_text(source: Source, at: tuple[str | int, ...], item: Mapping[str, Any], key: str) -> ShapeText:
    """The expression under `key` of the mapping at `at` (`shape` of an output, `require` of a
    constraint, then with its `message`)."""
    where, literal = source.text_loc_in(item, at, key)
    return ShapeText(item[key], item.get("message", ""), where, literal)


def shape_requires(
    source: Source, at: tuple[str | int, ...], entry: Mapping[str, Any], base: OpSchema | None
) -> tuple[ShapeText, ...]:
    """A version's constraints: its own when it gives the key (`[]` clears), else its base's."""
    if "shape_requires" not in entry:
        return base.shape_requires if base else ()
    return tuple(
        shape_text(source, (*at, "shape_requires", n), item, "require")
        for n, item in enumerate(entry["shape_requires"])
    )
