"""`examples:` of an operator version -> `toolkit.model.examples` objects, with located errors.

Tensor literals are flattened and checked against their shape and element type here. A `.npy` or
TensorProto `.pb` file (a path relative to the spec file's folder) is only recorded here: the
loader reads every tree's files at once, once each and within a budget
(`toolkit.load.example_files`), and puts their tensors in, so the model holds plain values
whatever the source. Attribute values
are typed by the version's declaration while building. The signature checks that need only the
model (arity, types allowed by the constraints) are spec rules in `toolkit.checks.examples`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from toolkit.load.build_values import attribute_default
from toolkit.load.example_files import FILE_HINT, ExampleRef
from toolkit.load.files import path_problem
from toolkit.load.tensor_literal import TensorLiteralReader
from toolkit.load.yamlsrc import Source
from toolkit.model.attr_defaults import (
    DEFAULTABLE_ATTR_TYPES,
)
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.examples import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    EXAMPLE_DTYPES,
    Example,
    ExampleAttribute,
    ExampleTensor,
)
from toolkit.model.spec import (
    AttrType,
    Location,
    OpSchema,
)

Path_ = tuple[str | int, ...]


def with_examples(
    source: Source, at: Path_, entry: Any, schema: OpSchema, diags: list[Diagnostic], refs: list[ExampleRef]
) -> OpSchema:
    """`schema` (built from the version entry at `at`) with the entry's examples, if it has any.
    Their `file:` references are added to `refs`, to be read once every operator file is built."""
    if "examples" not in entry:
        return schema
    return replace(schema, examples=build_examples(source, at, entry, schema, diags, refs))


def build_examples(
    source: Source, at: Path_, entry: Any, schema: OpSchema, diags: list[Diagnostic], refs: list[ExampleRef]
) -> tuple[Example, ...]:
    """The examples of the version entry at `at` (already built as `schema`); see `with_examples`."""
    reader = _ExampleReader(source, schema, diags, refs)
    return tuple(
        reader.example((*at, "examples", index), item)
        for index, item in enumerate(entry.get("examples") or ())
    )


class _ExampleReader:
    def __init__(
        self, source: Source, schema: OpSchema, diags: list[Diagnostic], refs: list[ExampleRef]
    ) -> None:
        self.source = source
        self.schema = schema
        self.diags = diags
        self.refs = refs
        self.literals = TensorLiteralReader(
            source, diags, "EXAMPLE-TENSOR", _TENSOR_HINT, what="an example tensor", files=True
        )

    def error(self, rule: str, message: str, at: Path_, hint: str, *, key: bool = False) -> None:
        self.diags.append(Diagnostic(rule, message, self.source.loc(*at, key=key), hint))

    def example(self, at: Path_, item: Any) -> Example:
        tolerance = item.get("tolerance") or {}
        attributes = self.attributes((*at, "attributes"), item.get("attributes") or {})
        inputs = tuple(
            None if value is None else self.tensor((*at, "inputs", index), value)
            for index, value in enumerate(item.get("inputs") or ())
        )
        outputs = tuple(
            self.tensor((*at, "outputs", index), value) for index, value in enumerate(item["outputs"])
        )
        return Example(
            name=item["name"],
            doc=item.get("doc", ""),
            attributes=attributes,
            inputs=inputs,
            outputs=outputs,
            rtol=float(tolerance.get("rtol", DEFAULT_RTOL)),
            atol=float(tolerance.get("atol", DEFAULT_ATOL)),
            location=self.source.loc(*at),
        )

    # -- attributes ------------------------------------------------------------------------

    def attributes(self, at: Path_, values: Any) -> tuple[ExampleAttribute, ...]:
        declared = self.schema.attribute_map
        out = []
        for name, value in values.items():
            attr = declared.get(name)
            if attr is None:
                known = ", ".join(sorted(declared)) or "none"
                self.error(
                    "EXAMPLE-ATTRIBUTE",
                    f"attribute '{name}' is not an attribute of {self.schema.id} (declared: {known})",
                    (*at, name),
                    "remove it or declare it under `attributes:`",
                    key=True,
                )
                continue
            typed = self.attribute_value((*at, name), attr.type, value)
            if typed is not None:
                out.append(ExampleAttribute(name, attr.type, typed, self.source.loc(*at, name, key=True)))
        for attr in self.schema.attributes:
            if attr.required and attr.name not in values:
                self.error(
                    "EXAMPLE-ATTRIBUTE",
                    f"required attribute '{attr.name}' of {self.schema.id} is not given",
                    at[:-1],
                    f"add `attributes: {{{attr.name}: ...}}` to the example",
                )
        return tuple(sorted(out, key=lambda a: a.name))

    def attribute_value(self, at: Path_, attr_type: AttrType, value: Any) -> Any:
        if attr_type is AttrType.TENSOR:
            if not isinstance(value, dict):
                self.error("EXAMPLE-ATTRIBUTE", "a tensor attribute is written as a tensor", at, _TENSOR_HINT)
                return None
            return self.tensor(at, value)
        if attr_type not in DEFAULTABLE_ATTR_TYPES:
            self.error(
                "EXAMPLE-ATTRIBUTE",
                f"attributes of type {attr_type.value} cannot be given in an example",
                at,
                "examples support numbers, strings, their lists and tensors",
            )
            return None
        typed, problems = attribute_default(attr_type, value, self.source.loc(*at))
        for problem in problems:
            message = problem.message.replace("default ", "value ", 1)
            self.diags.append(Diagnostic("EXAMPLE-ATTRIBUTE", message, problem.location, problem.hint))
        return typed

    # -- tensors ---------------------------------------------------------------------------

    def tensor(self, at: Path_, item: Any) -> ExampleTensor:
        where = self.source.loc(*at)
        if not self.literals.fields(at, item):
            return ExampleTensor("float", (0,), (), location=where)
        if "file" in item:
            if "data" in item:
                self.error("EXAMPLE-TENSOR", "a tensor gives both `data` and `file`", at, "keep one of them")
            return self.from_file(at, item, where)
        tensor = self.literals.literal(at, item)
        return (
            tensor
            if tensor is not None
            else ExampleTensor(item.get("dtype") or "float", (0,), (), location=where)
        )

    def from_file(self, at: Path_, item: Any, where: Location) -> ExampleTensor:
        """An empty tensor in the place of the file's, which `toolkit.load.example_files` reads once
        every operator file is built (with the reference recorded here)."""
        name = str(item["file"])
        empty = ExampleTensor(str(item.get("dtype", "float")), (0,), (), file=name, location=where)
        if self.resolve((*at, "file"), name) is not None:
            declared = tuple(
                (key, list(item[key]) if key == "shape" else item[key], self.source.loc(*at, key))
                for key in ("dtype", "shape")
                if key in item
            )
            file_at = self.source.loc(*at, "file")
            self.refs.append(ExampleRef(self.source.path, name, where, file_at, declared))
        return empty

    def resolve(self, at: Path_, name: str) -> Path | None:
        """The file's path as written (relative, in the spec's folder); None, reported, when the
        name cannot be one (`files.path_problem`). Where it really leads is checked when it is read."""
        problem = path_problem(name) or (
            None if name.endswith((".npy", ".pb")) else "it is no `.npy` or `.pb` file"
        )
        if problem is not None:
            self.error(
                "EXAMPLE-FILE",
                f"example file '{name}' must be a relative `.npy` or `.pb` path inside the spec's "
                f"folder: {problem}",
                at,
                FILE_HINT,
            )
            return None
        return self.source.path.parent.joinpath(*name.split("/"))


_TENSOR_HINT = "write `{dtype: float, shape: [2], data: [1.0, 2.0]}` or `{file: x.npy}`"


__all__ = ["EXAMPLE_DTYPES", "build_examples", "with_examples"]
