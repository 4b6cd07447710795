"""The ai.onnx shape overlay (#27): shape rules for onnx's own operator versions, written by us as
facts about their outputs (`toolkit/data/onnx_shapes/*.yaml`, shipped with the toolkit), which
`opset import-onnx` adds to the catalog it writes (each output's `shape:`, the version's
`shape_requires:`). The file format is described at its top.

The value rules (an output's `value:`, the contents of the small integer tensors computed from
shapes: Shape, Gather, Concat, ... feeding a Reshape) are a second overlay of the same format,
one file per domain that has any (`ai.onnx.values.yaml`), each entry's `values` one rule per
output."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from toolkit.shapes.lang import ShapeSyntaxError, parse
from toolkit.shapes.static import Scope, check_rule

__all__ = [
    "SHAPES_DIR",
    "ShapeEntry",
    "add_shape_rules",
    "entry_fits",
    "load_shape_overlay",
    "load_value_overlay",
    "rules_for",
    "value_rules_for",
]

SHAPES_DIR = Path(__file__).resolve().parent.parent / "data" / "onnx_shapes"
# One file per onnx domain the catalog imports (toolkit.onnx_bridge.catalog.ONNX_DOMAINS).
_FILES = {
    "": "ai.onnx.yaml",
    "ai.onnx.ml": "ai.onnx.ml.yaml",
    "ai.onnx.preview": "ai.onnx.preview.yaml",
    "ai.onnx.preview.training": "ai.onnx.preview.training.yaml",
}
_VALUE_FILES = {"": "ai.onnx.values.yaml"}
_ATTR_KINDS = {"INT": "num", "INTS": "list", "STRING": "str", "FLOAT": "float"}


@dataclass(frozen=True, slots=True)
class ShapeEntry:
    ops: frozenset[str]
    alternatives: tuple[tuple[str, ...], ...]  # each: one rule per output, in order
    requires: tuple[tuple[str, str], ...] = ()  # (condition, message)
    low: int = 0
    high: int = 1 << 30


@lru_cache(maxsize=4)
def load_shape_overlay(folder: Path = SHAPES_DIR) -> Mapping[str, tuple[ShapeEntry, ...]]:
    """The overlay's entries by domain (the toolkit's own data, shipped with it)."""
    out: dict[str, tuple[ShapeEntry, ...]] = {}
    for domain, name in _FILES.items():
        data = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
        out[domain] = tuple(_entry(item) for item in data["entries"])
    return out


@lru_cache(maxsize=4)
def load_value_overlay(folder: Path = SHAPES_DIR) -> Mapping[str, tuple[ShapeEntry, ...]]:
    """The value rules' overlay by domain (the toolkit's own data, shipped with it)."""
    out: dict[str, tuple[ShapeEntry, ...]] = {}
    for domain, name in _VALUE_FILES.items():
        data = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
        out[domain] = tuple(_entry(item, "values") for item in data["entries"])
    return out


def _entry(item: Mapping[str, Any], key: str = "shapes") -> ShapeEntry:
    alternatives = [tuple(item[key])] if key in item else [tuple(a) for a in item["first_of"]]
    return ShapeEntry(
        frozenset(item["ops"]),
        tuple(alternatives),
        tuple((r["require"], r.get("message", "")) for r in item.get("requires", ())),
        int(item.get("from", 0)),
        int(item.get("until", 1 << 30)),
    )


def _scope(schema: Any) -> Scope:
    inputs = {p.name: "shapes" if str(p.option).endswith("Variadic") else "list" for p in schema.inputs}
    attributes = {
        name: _ATTR_KINDS.get(str(attr.type).rsplit(".", 1)[-1], "any")
        for name, attr in schema.attributes.items()
    }
    return Scope(inputs, attributes)


def _fits(rules: Sequence[str], want: str, scope: Scope) -> bool:
    for text in rules:
        try:
            if check_rule(parse(text), scope, want):
                return False
        except ShapeSyntaxError:
            return False
    return True


def rules_for(schema: Any) -> Iterator[tuple[tuple[str, ...], tuple[tuple[str, str], ...]]]:
    """The (output rules, requires) the overlay gives an onnx schema: at most one pair."""
    return _first_fit(load_shape_overlay(), schema)


def value_rules_for(schema: Any) -> tuple[str, ...]:
    """The value rules (one per output, in order; fewer leaves the rest without) the value
    overlay gives an onnx schema."""
    for rules, _ in _first_fit(load_value_overlay(), schema, value=True):
        return rules
    return ()


def entry_fits(entry: ShapeEntry, schema: Any, value: bool = False) -> bool:
    """Whether one of `entry`'s alternatives checks in `schema`'s scope (tests: no entry of the
    overlays names a version it does not fit, so none is dropped without a word)."""
    return any(True for _ in _first_fit({schema.domain: (entry,)}, schema, value))


def _first_fit(
    overlay: Mapping[str, tuple[ShapeEntry, ...]], schema: Any, value: bool = False
) -> Iterator[tuple[tuple[str, ...], tuple[tuple[str, str], ...]]]:
    """The first alternative of the first entry for `schema` whose rules all check in its scope
    (a value rule gives a list, as a non-variadic output's shape rule does)."""
    names = [p.name for p in schema.inputs]
    scope = _scope(schema)
    for entry in overlay.get(schema.domain, ()):
        if schema.name not in entry.ops or not entry.low <= schema.since_version <= entry.high:
            continue
        requires = tuple((text.format(*names), message) for text, message in entry.requires)
        for alternative in entry.alternatives:
            rules = tuple(text.format(*names) for text in alternative)[: len(schema.outputs)]
            wants = [
                "shapes" if str(p.option).endswith("Variadic") and not value else "list"
                for p in schema.outputs
            ]
            fits = all(_fits([rule], want, scope) for rule, want in zip(rules, wants))
            if fits and _fits([r for r, _ in requires], "bool", scope):
                yield rules, requires
                return


def add_shape_rules(entry: dict[str, Any], schema: Any) -> None:
    """Write the overlay's rules into an imported version's entry (its outputs and shape_requires)."""
    for rules, requires in rules_for(schema):
        for output, text in zip(entry.get("outputs", ()), rules):
            output["shape"] = text
        if requires:
            entry["shape_requires"] = [{"require": text, "message": message} for text, message in requires]
    for output, text in zip(entry.get("outputs", ()), value_rules_for(schema)):
        output["value"] = text
