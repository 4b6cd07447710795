"""Tensor literals (`{dtype: float, shape: [2], data: [1.0, 2.0]}`) -> `ExampleTensor`, with
located errors: the one reader of the form, shared by examples (`toolkit.load.build_examples`,
EXAMPLE-TENSOR) and tensor and sparse-tensor attribute defaults (`toolkit.load.build_defaults`,
ATTR-DEFAULT-TYPE). The literal is flattened and checked against its shape and element type.
"""

from __future__ import annotations

import json
from typing import Any

from toolkit.load.yamlsrc import Source
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.examples import EXAMPLE_DTYPES, Element, ExampleTensor, element_problem, normalise
from toolkit.model.integers import bounded_size, is_size

MAX_LITERAL_DEPTH = 16  # nested lists deeper than a tensor's rank could plausibly be

Path_ = tuple[str | int, ...]

_COUNTED = 2**64  # a shape's size is multiplied out up to this; past it, only "more" is said


class TensorLiteralReader:
    """Reads literals from `source`, reporting each problem under `rule` into `diags`. `what` names
    a literal in messages ("an example tensor", "a default tensor"); `files` says whether the
    caller reads `{file: x.npy}` references (examples do, defaults are inline)."""

    def __init__(
        self, source: Source, diags: list[Diagnostic], rule: str, hint: str, *, what: str, files: bool
    ) -> None:
        self.source = source
        self.diags = diags
        self.rule = rule
        self.hint = hint
        self.what = what
        self.keys = _KEYS | {"file"} if files else _KEYS

    def error(self, message: str, at: Path_, hint: str = "") -> None:
        self.diags.append(Diagnostic(self.rule, message, self.source.loc(*at), hint or self.hint))

    def fields(self, at: Path_, item: Any) -> bool:
        """Whether the mapping at `at` has only known keys, a known `dtype` and a `shape` of sizes
        (the first problem is reported). The JSON Schema says the same of examples, but a default
        reaches this reader unchecked, so the reader is where it is enforced."""
        if not isinstance(item, dict):
            self.error(f"{self.what} is a mapping such as `{{dtype: float, data: [1.0]}}`", at)
            return False
        unknown = sorted(str(key) for key in item if key not in self.keys)
        if unknown:
            allowed = ", ".join(f"`{key}`" for key in sorted(self.keys))
            where = self.source.loc(*at, unknown[0], key=True)
            message = f"{self.what} has no key `{unknown[0]}` (it has {allowed})"
            self.diags.append(Diagnostic(self.rule, message, where, "remove the key, or fix its spelling"))
            return False
        dtype = item.get("dtype")
        if "dtype" in item and (not isinstance(dtype, str) or dtype not in EXAMPLE_DTYPES):
            self.error(
                f"element type {_shown(dtype)} is not supported in {self.what}",
                (*at, "dtype"),
                f"write one of {', '.join(EXAMPLE_DTYPES)}",
            )
            return False
        shape = item.get("shape")
        if "shape" in item and not (isinstance(shape, list) and all(is_size(d) for d in shape)):
            self.error(
                f"`shape` {_shown(shape)} of {self.what} is not a list of sizes"
                " (whole numbers from 0 to 2**63 - 1)",
                (*at, "shape"),
                "write the shape as a list such as `[2, 3]`, or leave it out to take the nesting of `data`",
            )
            return False
        return True

    def literal(self, at: Path_, item: Any) -> ExampleTensor | None:
        """The tensor literal at `at` (a mapping), or None when it is reported."""
        if not self.fields(at, item):
            return None
        where = self.source.loc(*at)
        dtype = item.get("dtype")
        if dtype is None or "data" not in item:
            missing = "`dtype`" if dtype is None else "`data`"
            self.error(f"{self.what} needs {missing}", at)
            return None
        flat, nested_shape = _flatten(item["data"])
        if flat is None:
            self.error("`data` is a ragged or too deeply nested list", (*at, "data"))
            return None
        shape = tuple(item["shape"]) if "shape" in item else nested_shape
        size = bounded_size(shape, max(len(flat), _COUNTED))
        if size != len(flat):
            held = f"{size} elements" if size is not None else f"more than {_COUNTED} elements"
            self.error(
                f"shape {list(shape)} holds {held} but `data` has {len(flat)}",
                (*at, "shape") if "shape" in item else (*at, "data"),
                "give as many elements as the shape holds (row-major, flat or nested)",
            )
            return None
        for value in flat:
            problem = element_problem(dtype, value)
            if problem:
                self.error(f"{problem} ({dtype} tensor)", (*at, "data"), f"write {dtype} elements")
                return None
        return ExampleTensor(dtype, shape, tuple(normalise(dtype, v) for v in flat), location=where)


_KEYS = frozenset(("dtype", "shape", "data"))


def _shown(value: object) -> str:
    """A value of the file in a message, spelled as JSON (as YAML's flow style reads) and cut short
    (a shape may be a long list)."""
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _flatten(data: Any) -> tuple[list[Element] | None, tuple[int, ...]]:
    """Row-major elements and the shape of nested lists; (None, ()) when ragged or too deep."""
    if not isinstance(data, list):
        return [data], ()
    flat: list[Element] = []

    def walk(node: Any, depth: int) -> tuple[int, ...] | None:
        if not isinstance(node, list):
            flat.append(node)
            return ()
        if depth > MAX_LITERAL_DEPTH:
            return None
        shapes = [walk(child, depth + 1) for child in node]
        if any(s is None for s in shapes) or len(set(shapes)) > 1:
            return None
        inner = shapes[0] if shapes else ()
        assert inner is not None
        return (len(node), *inner)

    shape = walk(data, 0)
    return (flat, shape) if shape is not None else (None, ())
