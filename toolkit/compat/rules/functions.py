"""FUNCTION-BODY-CHANGED: a released version's function body is part of its behaviour (#16).

Bodies are compared as parsed nodes and opset imports, so re-indenting or commenting a body is
no change; a body added, removed or changed, or a context-dependent function gained or lost,
is. Such a change gets a new operator version like any other behaviour change.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, OperatorPair
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import FIX_BUMP, V1, compat_rule, rule_doc
from toolkit.model.onnx_text import TextNode, TextParseError, parse_nodes
from toolkit.model.spec import FunctionBody, OpSchema


def _meaning(body: FunctionBody | None) -> object:
    if body is None:
        return None
    try:
        nodes: tuple[TextNode, ...] | str = parse_nodes(body.text)
    except TextParseError:
        nodes = body.text  # the spec checks report it; compare the text as written
    return (nodes, tuple(sorted(body.opset_imports)))


def _what(old: OpSchema, new: OpSchema) -> str | None:
    if _meaning(old.function) != _meaning(new.function):
        if old.function is None:
            return "gained a function body"
        if new.function is None:
            return "lost its function body"
        return "has a different function body"
    if old.context_dependent_function != new.context_dependent_function:
        return (
            "gained a context-dependent function"
            if new.context_dependent_function
            else "lost its context-dependent function"
        )
    return None


@compat_rule(
    "FUNCTION-BODY-CHANGED",
    name="released-function-body-changed",
    severity="error",
    bc=True,
    fc=True,
    category="versioning",
    summary="The function body of a released operator version was added, removed or changed in place.",
    doc=rule_doc(
        "A function body defines what the operator computes: runtimes without a kernel inline it, "
        "and converters and checkers rely on it. Changing it in place changes the behaviour of "
        "every model that uses the released version, with the same signature, so the law asks "
        "for a new version (onnx's DepthToSpace-28 differs from DepthToSpace-13 only by its function). "
        "Layout and comments of the body do not count; nodes, attributes and opset imports do.",
        V1 + "    function:\n      opset_imports: {ai.onnx: 19}\n      body: |\n        Y = Relu (X)",
        V1 + "    function:\n      opset_imports: {ai.onnx: 19}\n      body: |\n        Y = LeakyRelu (X)",
        FIX_BUMP,
    ),
)
@operator_pairs
def function_body_changed(pair: OperatorPair) -> Iterator[Hit]:
    if pair.old is None or pair.new is None:
        return
    old_max = pair.domain.old_max
    before = {v.since_version: v for v in pair.old.versions}
    for schema in pair.new.versions:
        old = before.get(schema.since_version)
        if old is None or old.experimental or schema.since_version > old_max:
            continue
        what = _what(old, schema)
        if what is not None:
            yield Hit(
                schema.id,
                f"released version {schema.id} {what}",
                (schema.function or schema).location,
                (old.function or old).location,
                pair.domain.bump_hint(schema),
                key=(what,),
            )
