"""The findings of `opset convert`: one `Blocker` per node that cannot move at one opset step,
each a located `ModelFinding` with a CONVERT-* rule (so every output format of the model tools
can report them), and `ConversionError`, which carries all of them at once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.model.rules import Rule, register
from toolkit.onnx_bridge.check import ModelFinding
from toolkit.onnx_bridge.check.findings import finding

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

CONVERT_RULES: tuple[Rule, ...] = (
    register(
        "CONVERT-NO-ADAPTER",
        "convert",
        "error",
        "An operator version on the conversion path declares no adapter, so the node cannot move.",
        name="no adapter for an operator version",
        hint="write an adapter for the operator version (its spec's `adapter:` or the adapter overlay)",
        anchor="convert",
        doc="""\
**Why:** a node moves between opsets one operator version at a time, by the adapter of the newer
version; without one nothing says how the node of one version becomes a node of the other.

**Before:** a vendor operator `com.acme.FusedConv:3` whose spec has no `adapter:`, and a model
using FusedConv at opset 2 converted to opset 3.

**After:** `adapter: {upgrade: [{kind: compatible}]}` on version 3 (or the steps the change needs).""",
    ),
    register(
        "CONVERT-REFUSED",
        "convert",
        "error",
        "An adapter cannot move this node without changing what it computes (a value, a type or an "
        "input it cannot handle).",
        name="adapter refuses the node",
        hint="change the node (or the target opset) so that the version it moves to computes the same",
        anchor="convert",
        doc="""\
**Why:** `opset convert` never guesses: when a step's validity depends on the model (the types a
value actually has, an attribute's value, an input that must be constant) and the model does not
fit, the adapter refuses with the reason instead of writing a model that computes something else.

**Before:** `Softmax` (opset 13) with `axis=0` on a 3-D input, converted to opset 11, where
`axis` flattens the input to 2-D: a different function.

**After:** keep opset 13, or rewrite the node so the downgrade applies (`axis=-1` on a known rank).""",
    ),
    register(
        "CONVERT-NO-OPERATOR",
        "convert",
        "error",
        "The node's operator does not exist in the target opset (removed, or not introduced yet).",
        name="operator missing at the target opset",
        hint="replace the operator (the message names its replacement when the spec gives one)",
        anchor="convert",
        doc="""\
**Why:** a node can only move to an opset that has its operator.

**Before:** `Scatter` (removed in opset 11) converted to opset 11.

**After:** replace it with `ScatterElements`, then convert.""",
    ),
    register(
        "CONVERT-INVALID-NODE",
        "convert",
        "error",
        "An adapter produced a node that is not a valid node of the operator version it moved to.",
        name="adapter produced an invalid node",
        hint="fix the adapter: the moved node must pass check-model's node checks",
        anchor="convert",
        doc="""\
**Why:** every moved node is checked against its new schema (arity, attributes); an adapter that
leaves a required attribute unset would write an invalid model.

**Before:** a `python` upgrade step that does not set the attribute the new version requires.

**After:** the step sets it.""",
    ),
    register(
        "CONVERT-INLINE-FAILED",
        "convert",
        "error",
        "`--inline-missing` cannot inline an operator the runtime lacks (no runnable function body).",
        name="missing operator cannot be inlined",
        hint="convert to an opset the runtime has, or give the operator a function body the runtime can run",
        anchor="convert",
        doc="""\
**Why:** `--inline-missing RUNTIME` replaces each node whose operator version the runtime lacks
by the operator's function body; an operator without a body, or whose body itself uses
something the runtime lacks, cannot be replaced, and the model would not run there.

**Before:** a vendor operator without a function body that the runtime's table does not list.

**After:** a body in its spec (`function:`), or a runtime that has the operator.""",
    ),
    register(
        "CONVERT-DOMAIN-NOT-IMPORTED",
        "convert",
        "error",
        "A `--to` target names a domain the model does not import.",
        name="target domain not imported",
        hint="drop that --to, or name a domain of the model's opset_import",
        anchor="convert",
        doc="""\
**Why:** a domain the model does not import has no version to move from.

**Before:** `opset convert m.onnx --to com.acme.vision=3` on a model importing only ai.onnx.

**After:** `--to ai.onnx=13`.""",
    ),
)


_BY_ID = {rule.id: rule for rule in CONVERT_RULES}


def convert_finding(rule: str, message: str, path: str, operator: str = "", hint: str = "") -> ModelFinding:
    """A finding of the CONVERT-* rule `rule`, with its hint unless a more precise one is given."""
    return finding(_BY_ID[rule], path, message, hint, operator)


@dataclass(frozen=True)
class Blocker:
    """One node that cannot move at one opset step (`step`: `ai.onnx 12 -> 13`)."""

    step: str
    finding: ModelFinding

    @property
    def text(self) -> str:
        return f"{self.finding.path}: {self.finding.message}"


class ConversionError(Exception):
    """The model cannot be converted; `blockers` lists every node and step that stops it."""

    def __init__(self, message: str, blockers: Sequence[Blocker] = ()) -> None:
        super().__init__(message)
        self.blockers = tuple(blockers)

    @classmethod
    def of(cls, blockers: Sequence[Blocker]) -> ConversionError:
        return cls("\n".join(b.text for b in blockers), blockers)


def output_blockers(
    source: Any, converted: Any, registry: Registry, unchecked_attributes: Container[str], step: str
) -> list[Blocker]:
    """The errors check-model finds in the converted model that the source did not have: a net
    under the adapters (each moved node is checked alone, against its schema; this checks the
    graph: a changed output type that a reader of it does not accept, an operator version a
    runtime refuses). An error is new when its rule reports more errors than in the source
    (paths and versions in the messages change with the conversion; counts per rule do not)."""
    from toolkit.onnx_bridge.check import check_model

    after = check_model(converted, registry, unchecked_attributes=unchecked_attributes).errors
    if not after:
        return []  # the common case: one check only
    had = check_model(source, registry, unchecked_attributes=unchecked_attributes).errors
    before = Counter(f.rule for f in had)
    known = {(f.rule, f.message) for f in had}
    grown = {rule for rule, n in Counter(f.rule for f in after).items() if n > before[rule]}
    return [
        Blocker(
            step,
            convert_finding(
                "CONVERT-INVALID-NODE",
                f"{step}: the converted model fails check-model: {f.message} [{f.rule}]",
                f.path,
                f.operator,
                f.hint,
            ),
        )
        for f in after
        if f.rule in grown and (f.rule, f.message) not in known
    ]
