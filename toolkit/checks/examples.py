"""Spec checks of operator examples (EXAMPLE-*).

EXAMPLE-ARITY, EXAMPLE-TYPE and EXAMPLE-NAME-DUPLICATE only need the model and run here;
EXAMPLE-TENSOR, EXAMPLE-FILE and EXAMPLE-ATTRIBUTE are found while the loader reads literals,
files and attribute values (`toolkit.load.build_examples`, `toolkit.load.example_files`) and are
registered here; the loader's budget of example files is EXAMPLE-BUDGET in `toolkit.load.rules`.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.checks.base import located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.examples import Example, ExampleTensor
from toolkit.model.rules import register, rule
from toolkit.model.spec import MAX_ARITY, DomainSpec, FormalParameter, OpSchema, SpecSet

EXAMPLES = "Examples"


@rule(
    "EXAMPLE-ARITY",
    "spec",
    "error",
    "An example gives more or fewer inputs or outputs than the version accepts, or leaves out a required input.",
    category=EXAMPLES,
    hint="give one value per input and output, in order; `null` leaves out an optional input",
    doc="""\
**Why:** an example becomes a one-node model; a node whose argument count the schema does not
accept is rejected by every runtime, so the example could never run.

**Before:** `inputs: [{dtype: float, data: [1.0]}, {dtype: float, data: [2.0]}]` for an
operator with one input.

**After:** `inputs: [{dtype: float, data: [1.0]}]`""",
)
def example_arity(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        for schema in op.versions:
            for example in schema.examples:
                yield from _arity(schema, example)


def _arity(schema: OpSchema, example: Example) -> Iterator[Diagnostic]:
    for kind, params, values, low, high in (
        ("inputs", schema.inputs, example.inputs, schema.min_input, schema.max_input),
        ("outputs", schema.outputs, example.outputs, schema.min_output, schema.max_output),
    ):
        count = len(values)
        if not low <= count <= high:
            bound = (
                f"at least {low}" if high == MAX_ARITY else (f"{low}" if low == high else f"{low} to {high}")
            )
            yield located(
                "EXAMPLE-ARITY",
                f"example '{example.name}' gives {count} {kind}; {schema.id} takes {bound}",
                example,
                f"give one value per {kind[:-1]} of {schema.id}, in order",
            )
        for index, value in enumerate(values):
            param = params[min(index, len(params) - 1)] if params else None
            if value is None and param is not None and not param.is_optional:
                yield located(
                    "EXAMPLE-ARITY",
                    f"example '{example.name}' leaves out input '{param.name}', which is not optional",
                    example,
                    f"give a value for '{param.name}'",
                )


@rule(
    "EXAMPLE-TYPE",
    "spec",
    "error",
    "An example tensor's type is not allowed for its parameter, or one type parameter is bound to two types.",
    category=EXAMPLES,
    hint="use an element type the parameter's type constraint allows, the same for every use of the parameter",
    doc="""\
**Why:** a runtime resolves the node's type parameters from its inputs; a value of a type the
constraint does not allow, or a `T` that is `float` in one place and `double` in another, makes
a model no runtime accepts.

**Before:** `inputs: [{dtype: int64, data: [1]}]` where `X: T` and `T: {allowed: [tensor(float)]}`

**After:** `inputs: [{dtype: float, data: [1.0]}]`""",
)
def example_types(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        for schema in op.versions:
            for example in schema.examples:
                yield from _types(schema, example)


def _types(schema: OpSchema, example: Example) -> Iterator[Diagnostic]:
    constraints = schema.constraint_map
    bound: dict[str, str] = {}
    for kind, params, values in (
        ("input", schema.inputs, example.inputs),
        ("output", schema.outputs, example.outputs),
    ):
        for index, value in enumerate(values):
            if value is None or not params or (index >= len(params) and not params[-1].is_variadic):
                continue  # an extra value is EXAMPLE-ARITY's finding
            param = params[min(index, len(params) - 1)]
            yield from _one_type(schema, kind, param, value, constraints.get(param.type_str), bound, example)


def _one_type(
    schema: OpSchema,
    kind: str,
    param: FormalParameter,
    value: ExampleTensor,
    constraint: object,
    bound: dict[str, str],
    example: Example,
) -> Iterator[Diagnostic]:
    allowed = getattr(constraint, "allowed", (param.type_str,))
    if value.type_str not in allowed:
        shown = ", ".join(allowed[:6]) + (", ..." if len(allowed) > 6 else "")
        yield located(
            "EXAMPLE-TYPE",
            f"{kind} '{param.name}' of {schema.id} does not allow {value.type_str} (allowed: {shown})",
            value,
            "use one of the allowed element types",
        )
        return
    if constraint is None:
        return
    first = bound.setdefault(param.type_str, value.type_str)
    if first != value.type_str and (param.homogeneous or not param.is_variadic):
        yield located(
            "EXAMPLE-TYPE",
            f"type parameter {param.type_str} is {first} in example '{example.name}' but {kind} "
            f"'{param.name}' is {value.type_str}",
            value,
            f"give every value of type {param.type_str} the same element type",
        )


@rule(
    "EXAMPLE-NAME-DUPLICATE",
    "spec",
    "error",
    "Two examples of one operator have the same name.",
    category=EXAMPLES,
    hint="rename one of them: example names are unique per operator",
    doc="""\
**Why:** an example's name names its backend test case (`test_<op>_<name>`) and its row in
`opset test-runtime` reports; two examples of one name would overwrite each other.

**Before:** `examples: [{name: basic, ...}]` in version 1 and again in version 2.

**After:** `basic` in version 1 and `basic_v2` in version 2.""",
)
def example_names(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for op in specs.operators:
        seen: dict[str, OpSchema] = {}
        for schema in op.versions:
            for example in schema.examples:
                key = example.name.lower()  # test folders are lower case
                if key in seen:
                    yield located(
                        "EXAMPLE-NAME-DUPLICATE",
                        f"example '{example.name}' is already an example of {seen[key].id}",
                        example,
                        "rename one of them: example names are unique per operator",
                    )
                else:
                    seen[key] = schema


register(
    "EXAMPLE-TENSOR",
    "spec",
    "error",
    "An example tensor literal is malformed: no dtype or data, a ragged list, a shape that does not fit the data, or an element its type cannot hold.",
    category=EXAMPLES,
    hint="write `{dtype: float, shape: [2], data: [1.0, 2.0]}`",
    doc="""\
**Why:** the literal becomes the bytes of a TensorProto; a shape that does not fit the elements
or a value its element type cannot hold (300 in a `uint8`, a string in a `float` tensor) has no
encoding.

**Before:** `{dtype: uint8, shape: [2, 2], data: [1, 2, 300]}`

**After:** `{dtype: uint8, shape: [2, 2], data: [1, 2, 3, 4]}`""",
)
register(
    "EXAMPLE-FILE",
    "spec",
    "error",
    "An example's `.npy` or `.pb` file is missing, outside the spec's folder or (through a symlink) the spec tree, not a regular file, unreadable, or disagrees with the dtype/shape written beside it.",
    category=EXAMPLES,
    hint="put the file beside the spec and name it relative to the spec's folder",
    doc="""\
**Why:** example files are read when the spec loads; a missing or broken file would make the
docs, the backend test data and `opset test-runtime` silently lose the example.

The path is relative to the spec's folder, without `..`; a symlink (of the file or of a folder on
the way) may point elsewhere inside the spec tree but not out of it, and a FIFO, a device or a
folder is never read: a tree from a pull request could otherwise copy any file of the machine
into the generated docs. Hard links are read (git cannot record one).

**Before:** `inputs: [{file: ../../data/x.npy}]`, or `examples/x.npy` a symlink to `/home/me/x.npy`

**After:** `inputs: [{file: examples/x.npy}]` with the file in `opsets/<domain>/examples/`.""",
)
register(
    "EXAMPLE-ATTRIBUTE",
    "spec",
    "error",
    "An example gives an attribute the version does not declare, a value of the wrong type, or leaves out a required attribute.",
    category=EXAMPLES,
    hint="give the version's declared attributes, with values of their declared types",
    doc="""\
**Why:** the example's node must be valid for the version it documents; a runtime rejects an
undeclared attribute, and a value of the wrong type is a different attribute type on the wire.

**Before:** `attributes: {alpha: fast}` where `alpha: {type: float}`

**After:** `attributes: {alpha: 0.5}`""",
)
