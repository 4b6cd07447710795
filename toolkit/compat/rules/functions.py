"""FUNCTION-BODY-CHANGED: a released version's function body is part of its behaviour (#16).

Bodies are compared as structure in a canonical form (`model.function_diff`: nodes in
topological order, attributes with typed values, floats as the float32 they store, intermediate
values renamed, graph inputs and outputs, opset imports), so re-indenting or commenting a body,
printing a float with more digits, swapping two independent nodes or renaming a local value is
no change; a body
added, removed or changed, or a context-dependent function gained or lost, is, and the message
names the first differing node and field. Such a change gets a new operator version like any
other behaviour change.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.compat.engine import Hit, OperatorPair
from toolkit.compat.handlers import operator_pairs
from toolkit.compat.rules.base import FIX_BUMP, V1, compat_rule, rule_doc
from toolkit.model.function_diff import body_difference
from toolkit.model.onnx_text import TextParseError, parse_nodes
from toolkit.model.spec import FunctionBody, OpSchema

_CHANGED = "has a different function body"


def _body_change(old: OpSchema, new: OpSchema, old_body: FunctionBody, new_body: FunctionBody) -> str | None:
    """Where two bodies differ as structure (see `model.function_diff`), or None. The version's
    input and output names keep their meaning in the canonical form; other values may be renamed."""
    if old_body == new_body:  # the same text and imports: nothing to parse
        return None
    try:
        old_nodes, new_nodes = parse_nodes(old_body.text), parse_nodes(new_body.text)
    except TextParseError:  # the spec checks report it; compare the text as written
        return None if old_body.text == new_body.text else "the text differs (a body does not parse)"
    kept = frozenset(p.name for schema in (old, new) for p in (*schema.inputs, *schema.outputs))
    return body_difference(old_nodes, old_body.opset_imports, new_nodes, new_body.opset_imports, kept)


def function_change(old: OpSchema, new: OpSchema) -> str | None:
    """What changed in a version's function, with the first difference, or None: the words of
    FUNCTION-BODY-CHANGED and of the changelog's entry."""
    found = _what(old, new)
    if found is None:
        return None
    what, detail = found
    return what + (f": {detail}" if detail else "")


def _what(old: OpSchema, new: OpSchema) -> tuple[str, str] | None:
    """(what changed, the detail) of a version's function, or None."""
    if old.function is None or new.function is None:
        if old.function is not None:
            return "lost its function body", ""
        if new.function is not None:
            return "gained a function body", ""
    else:
        detail = _body_change(old, new, old.function, new.function)
        if detail is not None:
            return _CHANGED, detail
    if old.context_dependent_function != new.context_dependent_function:
        gained = new.context_dependent_function
        return ("gained" if gained else "lost") + " a context-dependent function", ""
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
        "Layout and comments of the body do not count, nor how a number is spelled (floats are "
        "compared as the float32 they store), nor the order of nodes that do not depend on each "
        "other, nor the names of intermediate values; nodes, attributes, the version's inputs and "
        "outputs and opset imports do. The "
        "message names the first node that differs and how.",
        V1 + "    function:\n      opset_imports: {ai.onnx: 19}\n      body: |\n        Y = Relu (X)",
        V1 + "    function:\n      opset_imports: {ai.onnx: 19}\n      body: |\n        Y = LeakyRelu (X)",
        FIX_BUMP,
    ),
)
@operator_pairs
def function_body_changed(pair: OperatorPair) -> Iterator[Hit]:
    for old, schema in pair.released_versions:
        found = _what(old, schema)
        if found is not None:
            what, _detail = found
            yield Hit(
                schema.id,
                f"released version {schema.id} {function_change(old, schema)}",
                (schema.function or schema).location,
                (old.function or old).location,
                pair.domain.bump_hint(schema),
                key=(what,),
            )
