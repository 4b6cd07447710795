"""Spec checks of function bodies (FUNCTION-*, issue #16).

One registered check parses every version's `function:` body and runs `check_body` against the
loaded specs: nodes in a domain of the spec set resolve there; nodes in a domain the specs do
not hold (ai.onnx in a vendor tree) are checked by check-model, which has the onnx catalog.
The other FUNCTION-* ids are registered here with their docs and emitted by the same check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from toolkit.checks.base import each_version
from toolkit.checks.function_body import Problem, Resolver, check_body, signature_of
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.onnx_text import Pos, TextParseError, parse_nodes
from toolkit.model.resolution import version_at
from toolkit.model.rules import register, rule
from toolkit.model.spec import DomainSpec, FunctionBody, Location, OperatorSpec, OpSchema, SpecSet

FUNCTIONS = "Function bodies"

_BEFORE_AFTER = """

**Before:**

```yaml
function:
  opset_imports: {{ai.onnx: 18}}
  body: |
    {before}
```

**After:**

```yaml
function:
  opset_imports: {{ai.onnx: 18}}
  body: |
    {after}
```"""


def _doc(why: str, before: str, after: str) -> str:
    return f"**Why:** {why}" + _BEFORE_AFTER.format(before=before, after=after)


def body_location(body: FunctionBody, pos: Pos | None) -> Location:
    """Where a position of the body text is in the spec file (the text's start when its lines
    are not the source's one for one, e.g. a quoted scalar)."""
    start = body.text_location
    if pos is None or start.line <= 0:
        return start if start.line > 0 else body.location
    if not body.text_literal:
        return start
    return Location(start.file, start.line + pos.line - 1, start.column + pos.column - 1)


@rule(
    "FUNCTION-SYNTAX",
    "spec",
    "error",
    "A function body is not in ONNX's textual syntax.",
    category=FUNCTIONS,
    hint="write one node per line: `outputs = Op <attr = value> (inputs)`",
    doc=_doc(
        "the body is parsed as onnx.parser would parse it between a function's braces; text it "
        "cannot read gives no function.",
        "Y = Relu X",
        "Y = Relu (X)",
    ),
)
def function_bodies(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    """Every FUNCTION-* problem of every version's body, against the loaded specs."""
    operators: dict[tuple[str, str], OperatorSpec] = {(op.domain, op.name): op for op in specs.operators}

    def resolve(domain: str, name: str, version: int) -> OpSchema | None:
        op = operators.get((domain, name))
        return version_at(op, version) if op is not None else None

    for schema in each_version(specs):
        body = schema.function
        if body is None:
            continue
        yield from check_version_body(schema, body, resolve, lambda d: d in domains, domains)


def check_version_body(
    schema: OpSchema,
    body: FunctionBody,
    resolve: Resolver,
    known_domain: Callable[[str], bool],
    domains: dict[str, DomainSpec] | None = None,
) -> Iterator[Diagnostic]:
    """The FUNCTION-* diagnostics of one version's body (located in its spec file)."""
    try:
        nodes = parse_nodes(body.text)
    except TextParseError as error:
        yield Diagnostic(
            "FUNCTION-SYNTAX",
            f"{schema.id} function body: {error.message}",
            body_location(body, error.pos),
            "write one node per line: `outputs = Op <attr = value> (inputs)`",
        )
        return
    for domain, version in body.opset_imports:
        found = (domains or {}).get(domain)
        if found is not None and version not in found.versions:
            yield Diagnostic(
                "FUNCTION-OPSET-IMPORT",
                f"{schema.id} function body imports {found.display_name} opset {version}, which the domain does not have",
                body.location,
                f"import one of its opset versions ({found.versions[0]}..{found.max_version})",
            )
    problems = check_body(signature_of(schema), nodes, dict(body.opset_imports), resolve, known_domain)
    for problem in problems:
        yield _diagnostic(schema, body, problem)


def _diagnostic(schema: OpSchema, body: FunctionBody, problem: Problem) -> Diagnostic:
    return Diagnostic(
        problem.rule,
        f"{schema.id} function body: {problem.message}",
        body_location(body, problem.pos),
        problem.hint,
    )


register(
    "FUNCTION-OPSET-IMPORT",
    "spec",
    "error",
    "A function body uses a domain it does not import, or imports an opset version its domain lacks.",
    category=FUNCTIONS,
    hint="list every domain the body's nodes use in opset_imports, at an opset version the domain has",
    doc=_doc(
        "a node's operator is resolved in the body's own opset imports, as in a FunctionProto; "
        "without an import there is no version to resolve.",
        "Y = com.acme.vision.Blur (X)   # opset_imports names ai.onnx only",
        "Y = Relu (X)",
    ),
)
register(
    "FUNCTION-UNKNOWN-OP",
    "spec",
    "error",
    "A node of a function body names no operator at the imported opset version.",
    category=FUNCTIONS,
    hint="fix the operator's name, or import an opset version that has it",
    doc=_doc(
        "the body must run wherever the operator's domain is known: every node has to resolve "
        "in the catalog at the imported opset version.",
        "Y = Rleu (X)",
        "Y = Relu (X)",
    ),
)
register(
    "FUNCTION-ATTRIBUTE",
    "spec",
    "error",
    "A node of a function body has an unknown attribute, one of the wrong type, or lacks a required one.",
    category=FUNCTIONS,
    hint="give the node's operator exactly the attributes it declares, with their types",
    doc=_doc(
        "a runtime rejects a node whose attributes do not match its operator's schema, so the "
        "inlined body would not load.",
        "Y = LeakyRelu <alpha = 1> (X)   # an int; alpha is a float",
        "Y = LeakyRelu <alpha = 1.0> (X)",
    ),
)
register(
    "FUNCTION-ARITY",
    "spec",
    "error",
    "A node of a function body passes too few or too many inputs or outputs.",
    category=FUNCTIONS,
    hint="pass as many inputs and outputs as the operator version takes",
    doc=_doc(
        "the operator version fixes how many inputs and outputs a node may have.",
        "Y = Add (X)",
        "Y = Add (X, B)",
    ),
)
register(
    "FUNCTION-REF",
    "spec",
    "error",
    "A function body uses a value or `@attribute` that does not exist, assigns a value twice, or never produces a formal output.",
    category=FUNCTIONS,
    hint="use the version's formal inputs and attributes and the outputs of earlier nodes; produce every formal output once",
    doc=_doc(
        "a body may only read the operator's formal inputs, its attributes (`@name`) and values "
        "produced above; each formal output must be produced.",
        "T = Mul (X, @alpha)\n    Y = Relu (T2)",
        "A = Constant <value_float: float = @alpha> ()\n    T = Mul (X, A)\n    Y = Relu (T)",
    ),
)
register(
    "FUNCTION-TYPE",
    "spec",
    "error",
    "The element types in a function body cannot be consistent.",
    category=FUNCTIONS,
    hint="cast the value (Cast/CastLike) to a type the operator accepts",
    doc=_doc(
        "types are followed from the formal inputs through the nodes (type parameters narrowed "
        "by the values bound to them); a node no type can satisfy never runs.",
        "Y = Add (X, Shape_of_X)   # X is a float tensor, Shape gives int64",
        "S = Shape (X)\n    F = CastLike (S, X)\n    Y = Add (X, F)",
    ),
)
