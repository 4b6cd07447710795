"""Spec checks of shape rules (SHAPE-*, issue #27): each output's `shape:` and `value:` and each
`shape_requires:` entry is parsed by the shape language's parser and checked against its
version's inputs, attributes and the built-ins' signatures. Nothing is evaluated but a constraint
that names no input or attribute (SHAPE-NEVER-HOLDS), which the engine folds at no cost.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from toolkit.checks.base import each_version
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, Location, OpSchema, ShapeText, SpecSet
from toolkit.shapes.engine import infer
from toolkit.shapes.lang import Attr, Call, Name, ShapeSyntaxError, parse
from toolkit.shapes.static import check_rule, names_in, scope_of
from toolkit.shapes.values import Sym

SHAPES = "Shape rules"

_SYNTAX_HINT = "see the grammar in docs/guide/shapes.md; quote a rule that starts with '[' or '@'"


def _doc(why: str, before: str, after: str) -> str:
    return (
        f"**Why:** {why}\n\n**Before:**\n\n```yaml\n{before}\n```\n\n**After:**\n\n```yaml\n{after}\n```\n\n"
        "The language is described in the guide's page *Shapes in the spec*."
    )


def text_location(text: ShapeText, pos: int) -> Location:
    """Where offset `pos` of the rule is in its spec file (the rule's start when its columns are
    not the source's, e.g. a folded or escaped scalar)."""
    start = text.location
    if not text.literal or start.line <= 0:
        return start
    return Location(start.file, start.line, start.column + pos)


@rule(
    "SHAPE-SYNTAX",
    "spec",
    "error",
    "A shape rule is not an expression of the shape language.",
    category=SHAPES,
    hint=_SYNTAX_HINT,
    doc=_doc(
        "a rule the parser cannot read gives no shape; the error points at the column where reading stopped.",
        "outputs:\n  - {name: Y, type: T, shape: 'broadcast(A, B'}",
        "outputs:\n  - {name: Y, type: T, shape: 'broadcast(A, B)'}",
    ),
    per_operator=True,
)
def shape_rules(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """Every SHAPE-* problem of every version's rules; a rule a version inherits unchanged with an
    unchanged scope is reported once."""
    seen: set[tuple[str, Location, str]] = set()
    for schema in each_version(specs):
        for diag in _version_problems(schema):
            key = (diag.rule, diag.location, diag.message.removeprefix(schema.id))
            if key not in seen:
                seen.add(key)
                yield diag


def _version_problems(schema: OpSchema) -> Iterator[Diagnostic]:
    scope = scope_of(schema)
    rules = [
        (f"output '{p.name}'", p.shape, "shapes" if p.is_variadic else "list")
        for p in schema.outputs
        if p.shape is not None
    ]
    rules += [(f"output '{p.name}' value", p.value, "list") for p in schema.outputs if p.value is not None]
    rules += [("shape_requires", r, "bool") for r in schema.shape_requires]
    for what, text, want in rules:
        try:
            node = parse(text.text)
        except ShapeSyntaxError as error:
            yield Diagnostic(
                "SHAPE-SYNTAX",
                f"{schema.id} {what}: {error.message}",
                text_location(text, error.pos),
                _SYNTAX_HINT,
            )
            continue
        problems = check_rule(node, scope, want)
        for problem in problems:
            yield Diagnostic(
                problem.rule,
                f"{schema.id} {what}: {problem.message}",
                text_location(text, problem.pos),
                problem.hint,
            )
        if want == "bool" and not problems and _constant(node) and _never_holds(schema, text):
            yield Diagnostic(
                "SHAPE-NEVER-HOLDS",
                f"{schema.id} shape_requires: '{text.text}' is false for every node",
                text.location,
                "fix the condition, or remove it",
            )


def _constant(node: object) -> bool:
    """No input, attribute or data-dependent built-in in the tree: its value is the same for every node."""
    return not any(
        isinstance(n, (Name, Attr))
        or (isinstance(n, Call) and n.name in ("fresh", "value", "present", "output_count"))
        for n in names_in(node)  # type: ignore[arg-type]
    )


def _never_holds(schema: OpSchema, text: ShapeText) -> bool:
    counter = itertools.count()
    alone = OpSchema(schema.domain, schema.name, schema.since_version, shape_requires=(text,))
    result = infer(alone, {}, {}, {}, lambda: Sym(f"_{next(counter)}"))
    return bool(result.findings)


register(
    "SHAPE-UNKNOWN-NAME",
    "spec",
    "error",
    "A shape rule names an input, attribute or built-in function the version does not have.",
    category=SHAPES,
    hint="name an input of the version, an attribute as @name, or a built-in of docs/guide/shapes.md",
    doc=_doc(
        "a name the version does not have can never be given a value; usually a typo, or an input "
        "renamed in a later version whose outputs still carry the old rule.",
        "inputs: [{name: X, type: T}]\noutputs:\n  - {name: Y, type: T, shape: 'Z'}",
        "inputs: [{name: X, type: T}]\noutputs:\n  - {name: Y, type: T, shape: 'X'}",
    ),
)
register(
    "SHAPE-ARITY",
    "spec",
    "error",
    "A built-in function of the shape language is called with the wrong number of arguments.",
    category=SHAPES,
    hint="call the built-in with the arguments docs/guide/shapes.md lists for it",
    doc=_doc(
        "each built-in takes a fixed list of arguments; a call with more or fewer cannot be evaluated.",
        "shape: 'matmul(A)'",
        "shape: 'matmul(A, B)'",
    ),
)
register(
    "SHAPE-TYPE",
    "spec",
    "error",
    "A shape rule uses a value of the wrong kind (a shape where a number is needed, a rule that gives no shape).",
    category=SHAPES,
    hint="see docs/guide/shapes.md for the kind of value each operator and built-in takes",
    doc=_doc(
        "an output's rule must give a shape (a list of dimensions) and a constraint a condition; "
        "arithmetic takes numbers, `++` takes shapes.",
        "shape: 'X + 1'",
        "shape: 'X ++ [1]'",
    ),
)
register(
    "SHAPE-NEVER-HOLDS",
    "spec",
    "error",
    "A shape constraint names no input or attribute and is false: every node would break it.",
    category=SHAPES,
    hint="fix the condition, or remove it",
    doc=_doc(
        "a constraint that holds for no node makes every use of the operator a finding; it is "
        "usually a constraint written with the wrong names or numbers. (Only constraints whose value "
        "is the same for every node are detected.)",
        "shape_requires:\n  - {require: '1 == 2', message: inner dimensions differ}",
        "shape_requires:\n  - {require: 'A[-1] == B[-2]', message: inner dimensions differ}",
    ),
)
