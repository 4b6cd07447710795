"""Model-version advice: compare the signatures of two versions of a model.

Versioning.md's model-versioning section (not normative, but what shared models SHOULD do):
- MAJOR: an input or output changes to an incompatible type; a new input without a default
  (defaults live in the initializer list); an output is removed.
- MINOR: a widening type change (`int32 -> int64`, `float16 -> float`); a new input with an
  initializer default.
- PATCH: anything else that changes the model without touching its signature.
We also treat a removed input (callers that still feed it fail) and a lost default as MAJOR,
and a new output as MINOR. NEW's `model_version` is then checked against OLD's: SemVer packed
into 64 bits (`toolkit.model.semver`) or a simple number.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from toolkit.model import semver
from toolkit.model.diagnostics import escape_fields
from toolkit.model.rules import CATALOG, Rule, register
from toolkit.onnx_bridge.check.types import type_string


class Bump(enum.IntEnum):
    NONE = 0
    PATCH = 1
    MINOR = 2
    MAJOR = 3

    @property
    def label(self) -> str:
        return self.name


# The rules of `opset model-diff` (family "mdiff"): a signature change's rule says the bump it
# needs (the rule's category), as the table of the model-diff section shows.
_MAJOR, _MINOR, _PATCH = "MAJOR", "MINOR", "PATCH"


def _change(rule_id: str, bump: str, summary: str, doc: str) -> Rule:
    severity = "warning" if bump == _MAJOR else "info"
    return register(rule_id, "mdiff", severity, summary, category=bump, anchor="model-diff", doc=doc)


MDIFF_RULES: tuple[Rule, ...] = (
    _change(
        "MDIFF-TYPE-CHANGED",
        _MAJOR,
        "An input or output changed to an incompatible type.",
        "**Why:** callers feed (or read) values of the old type; a runtime rejects them.\n\n"
        "**Example:** input `x`: `tensor(int32)` -> `tensor(string)`.",
    ),
    _change(
        "MDIFF-INPUT-ADDED",
        _MAJOR,
        "A new input has no default (no initializer of its name).",
        "**Why:** callers of the old model do not feed it, and nothing else gives it a value.\n\n"
        "**Fix:** give it an initializer as default (a MINOR change), or bump MAJOR.",
    ),
    _change(
        "MDIFF-INPUT-REMOVED",
        _MAJOR,
        "An input without a default was removed.",
        "**Why:** callers that still feed it fail (an unknown input name is an error).",
    ),
    _change(
        "MDIFF-INPUT-DEFAULT-REMOVED",
        _MAJOR,
        "An input lost its initializer default.",
        "**Why:** callers that relied on the default now leave a required input unfed.",
    ),
    _change("MDIFF-OUTPUT-REMOVED", _MAJOR, "An output was removed.", "**Why:** callers that read it fail."),
    _change(
        "MDIFF-SHAPE-CHANGED",
        _MAJOR,
        "An input or output changed its rank or a fixed dimension incompatibly.",
        "**Why:** an input that accepts fewer shapes rejects callers' values; an output that "
        "promises less breaks callers that rely on its shape.\n\n"
        "**Example:** output `y`: shape `[1, 3]` -> `[1, 4]`.",
    ),
    _change(
        "MDIFF-TYPE-WIDENED",
        _MINOR,
        "An input or output type widened (every old value is a new value).",
        "**Why:** callers' old values are still accepted exactly (`int32 -> int64`, "
        "`float16 -> float`); new callers may rely on the wider type.",
    ),
    _change(
        "MDIFF-INPUT-ADDED-DEFAULT",
        _MINOR,
        "A new input has an initializer default.",
        "**Why:** old callers keep working (the default feeds it); new callers may set it.",
    ),
    _change(
        "MDIFF-INPUT-DEFAULT-ADDED",
        _MINOR,
        "An input gained an initializer default.",
        "**Why:** callers may now leave it out; old callers keep working.",
    ),
    _change(
        "MDIFF-OUTPUT-ADDED",
        _MINOR,
        "A new output.",
        "**Why:** old callers ignore it; new callers may read it.",
    ),
    _change(
        "MDIFF-SHAPE-RELAXED",
        _MINOR,
        "An input accepts more shapes, or an output promises a fixed shape where it did not.",
        "**Why:** every old call still works (free dimensions on inputs, fixed ones on outputs).",
    ),
    _change(
        "MDIFF-BODY-CHANGED",
        _PATCH,
        "The graph changed behind an unchanged signature.",
        "**Why:** callers see no interface change, but results may differ: a PATCH bump.",
    ),
)

register(
    "MDIFF-VERSION",
    "mdiff",
    "error",
    "NEW's model_version does not make the bump the signature changes require.",
    name="model version bump too small",
    anchor="model-diff",
    hint="raise NEW's model_version by at least the required bump (`opset semver` packs SemVer)",
    doc="""\
**Why:** consumers decide by `model_version` whether a new model can replace the old one; a bump
smaller than the changes need (or a version going backwards, or a switch from SemVer to a simple
number) tells them a breaking model is safe.

**Before:** OLD `1.0.0`, NEW `1.1.0`, and an input type changed (MAJOR).

**After:** NEW `2.0.0`.""",
)


@dataclass(frozen=True, slots=True)
class SignatureChange:
    rule: str
    bump: Bump
    message: str

    def __post_init__(self) -> None:
        escape_fields(self, ("message",))  # it quotes the models' names: a Diagnostic's way


@dataclass
class DiffReport:
    old: str
    new: str
    changes: list[SignatureChange] = field(default_factory=list)
    required: Bump = Bump.NONE
    old_version: str = ""
    new_version: str = ""
    version_ok: bool = True
    version_message: str = ""


# Element types whose every value the wider type holds exactly.
_WIDER: dict[str, frozenset[str]] = {
    "bool": frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}),
    "int8": frozenset({"int16", "int32", "int64", "float16", "float", "double"}),
    "int16": frozenset({"int32", "int64", "float", "double"}),
    "int32": frozenset({"int64", "double"}),
    "uint8": frozenset(
        {"uint16", "uint32", "uint64", "int16", "int32", "int64", "float16", "float", "double"}
    ),
    "uint16": frozenset({"uint32", "uint64", "int32", "int64", "float", "double"}),
    "uint32": frozenset({"uint64", "int64", "double"}),
    "float16": frozenset({"float", "double"}),
    "bfloat16": frozenset({"float", "double"}),
    "float": frozenset({"double"}),
    "complex64": frozenset({"complex128"}),
}


def widens(old: str, new: str) -> bool:
    """True when every value of type `old` is exactly a value of type `new`."""
    for kind in ("tensor(", "sparse_tensor("):
        if old.startswith(kind) and new.startswith(kind):
            return new[len(kind) : -1] in _WIDER.get(old[len(kind) : -1], frozenset())
    for kind in ("seq(", "optional("):
        if old.startswith(kind) and new.startswith(kind):
            return widens(old[len(kind) : -1], new[len(kind) : -1])
    return False


def _signature(values: Any) -> dict[str, tuple[str | None, tuple[str, ...] | None]]:
    out: dict[str, tuple[str | None, tuple[str, ...] | None]] = {}
    for info in values:
        kind = info.type.WhichOneof("value") if info.HasField("type") else None
        shape: tuple[str, ...] | None = None
        if kind == "tensor_type" and info.type.tensor_type.HasField("shape"):
            shape = tuple(
                str(d.dim_value) if d.HasField("dim_value") else "?" for d in info.type.tensor_type.shape.dim
            )
        out[info.name] = (type_string(info.type) if info.HasField("type") else None, shape)
    return out


def diff_models(old: Any, new: Any, *, old_name: str = "OLD", new_name: str = "NEW") -> DiffReport:
    report = DiffReport(old_name, new_name)
    old_defaults = {i.name for i in old.graph.initializer}
    new_defaults = {i.name for i in new.graph.initializer}
    old_in, new_in = _signature(old.graph.input), _signature(new.graph.input)
    old_out, new_out = _signature(old.graph.output), _signature(new.graph.output)

    def add(rule: str, bump: Bump, message: str) -> None:
        known = CATALOG.get(rule)
        assert known is not None and known.category == bump.label, rule  # the rule says its bump
        report.changes.append(SignatureChange(rule, bump, message))

    for name in sorted(set(new_in) - set(old_in)):
        if name in new_defaults:
            add("MDIFF-INPUT-ADDED-DEFAULT", Bump.MINOR, f"new input '{name}' has an initializer default")
        else:
            add("MDIFF-INPUT-ADDED", Bump.MAJOR, f"new input '{name}' has no default (no initializer)")
    for name in sorted(set(old_in) - set(new_in)):
        if name not in old_defaults:
            add("MDIFF-INPUT-REMOVED", Bump.MAJOR, f"input '{name}' was removed; callers that feed it fail")
    for name in sorted(set(old_in) & set(new_in)):
        if name in old_defaults and name not in new_defaults:
            add("MDIFF-INPUT-DEFAULT-REMOVED", Bump.MAJOR, f"input '{name}' lost its initializer default")
        elif name in new_defaults and name not in old_defaults:
            add("MDIFF-INPUT-DEFAULT-ADDED", Bump.MINOR, f"input '{name}' gained an initializer default")
        _compare(add, "input", name, old_in[name], new_in[name])
    for name in sorted(set(old_out) - set(new_out)):
        add("MDIFF-OUTPUT-REMOVED", Bump.MAJOR, f"output '{name}' was removed")
    for name in sorted(set(new_out) - set(old_out)):
        add("MDIFF-OUTPUT-ADDED", Bump.MINOR, f"new output '{name}'")
    for name in sorted(set(old_out) & set(new_out)):
        _compare(add, "output", name, old_out[name], new_out[name])
    if not report.changes and _body(old) != _body(new):
        add("MDIFF-BODY-CHANGED", Bump.PATCH, "the graph changed behind an unchanged signature")
    report.required = max((c.bump for c in report.changes), default=Bump.NONE)
    _check_version(report, old.model_version, new.model_version)
    return report


def _compare(add: Any, kind: str, name: str, old: tuple[Any, Any], new: tuple[Any, Any]) -> None:
    (old_type, old_shape), (new_type, new_shape) = old, new
    if old_type != new_type:
        if old_type and new_type and widens(old_type, new_type):
            add("MDIFF-TYPE-WIDENED", Bump.MINOR, f"{kind} '{name}': {old_type} -> {new_type} (widening)")
        else:
            add(
                "MDIFF-TYPE-CHANGED",
                Bump.MAJOR,
                f"{kind} '{name}': {old_type or 'unknown'} -> {new_type or 'unknown'} (incompatible)",
            )
    if old_shape == new_shape or old_shape is None:
        return
    if new_shape is None:
        if kind == "input":
            add("MDIFF-SHAPE-RELAXED", Bump.MINOR, f"input '{name}': shape constraint dropped")
        else:
            add("MDIFF-SHAPE-CHANGED", Bump.MAJOR, f"output '{name}': the shape is no longer declared")
        return
    if len(old_shape) != len(new_shape):
        add("MDIFF-SHAPE-CHANGED", Bump.MAJOR, f"{kind} '{name}': rank {len(old_shape)} -> {len(new_shape)}")
        return
    # Inputs may accept more (fixed -> free dims); outputs may promise more (free -> fixed).
    loose, tight = (new_shape, old_shape) if kind == "input" else (old_shape, new_shape)
    if all(a == b or a == "?" for a, b in zip(loose, tight)):
        add(
            "MDIFF-SHAPE-RELAXED",
            Bump.MINOR,
            f"{kind} '{name}': shape {_dims(old_shape)} -> {_dims(new_shape)} (still compatible)",
        )
    else:
        add(
            "MDIFF-SHAPE-CHANGED",
            Bump.MAJOR,
            f"{kind} '{name}': shape {_dims(old_shape)} -> {_dims(new_shape)}",
        )


def _dims(shape: tuple[str, ...]) -> str:
    return "[" + ", ".join(shape) + "]"


def _body(model: Any) -> bytes:
    graph = model.graph.__class__()
    graph.CopyFrom(model.graph)
    graph.ClearField("doc_string")
    return bytes(graph.SerializeToString(deterministic=True))


def _describe(value: int) -> str:
    if value == 0:
        return "0 (unset)"
    if semver.is_simple_number(value):
        return f"{value} (simple number)"
    return f"{semver.unpack(value)} ({semver.format_packed(value)})"


def _check_version(report: DiffReport, old_raw: int, new_raw: int) -> None:
    old, new = semver.from_int64(old_raw), semver.from_int64(new_raw)
    report.old_version, report.new_version = _describe(old), _describe(new)
    need = report.required
    if new == 0 and old != 0:
        report.version_ok = False
        wanted = "OLD has one" if need is Bump.NONE else f"a {need.label} bump is required"
        report.version_message = f"NEW has no model_version; {wanted}"
        return
    if old != 0 and semver.is_semver(old) != semver.is_semver(new):
        _scheme_switch(report, old, new, need)
        return
    if need is Bump.NONE:
        report.version_ok = new >= old
        report.version_message = "no bump needed" if new >= old else "model_version went backwards"
        return
    if new == 0:
        report.version_ok = False
        report.version_message = f"NEW has no model_version; a {need.label} bump is required"
        return
    if not semver.is_semver(new) or not semver.is_semver(old):  # simple numbers (or OLD unset)
        report.version_ok = new > old
        report.version_message = f"simple numbers cannot say MAJOR/MINOR/PATCH; {need.label} needed, " + (
            "NEW is greater" if report.version_ok else "NEW is not greater than OLD"
        )
        return
    a, b = semver.unpack(old), semver.unpack(new)
    if (b.major, b.minor, b.patch) <= (a.major, a.minor, a.patch):
        bumped = Bump.NONE
    elif b.major > a.major:
        bumped = Bump.MAJOR
    elif b.minor > a.minor:
        bumped = Bump.MINOR if b.major == a.major else Bump.NONE
    else:
        bumped = Bump.PATCH if (b.major, b.minor) == (a.major, a.minor) else Bump.NONE
    report.version_ok = bumped >= need
    if report.version_ok:
        extra = " (a larger bump than needed)" if bumped > need else ""
        report.version_message = f"{a} -> {b} is a {bumped.label} bump{extra}; {need.label} required"
    else:
        report.version_message = (
            f"{a} -> {b} is {'no' if bumped is Bump.NONE else 'a ' + bumped.label} bump; "
            f"{need.label} required"
        )


def _scheme_switch(report: DiffReport, old: int, new: int, need: Bump) -> None:
    """OLD and NEW use different schemes: say so instead of comparing the raw numbers."""
    needed = "no bump needed" if need is Bump.NONE else f"{need.label} bump required"
    if semver.is_semver(old):
        # A simple number is below every packed SemVer value: consumers would see a downgrade.
        report.version_ok = False
        report.version_message = (
            f"NEW switched the versioning scheme from SemVer ({semver.unpack(old)}) to a simple number "
            f"({new}); the two schemes cannot be compared, keep SemVer ({needed})"
        )
        return
    report.version_ok = True
    report.version_message = (
        f"NEW switched the versioning scheme from a simple number ({old}) to SemVer ({semver.unpack(new)}), "
        f"which sorts above every simple number; MAJOR/MINOR/PATCH are checked from the next change on "
        f"({needed})"
    )
