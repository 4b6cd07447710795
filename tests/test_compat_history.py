"""Real history: every consecutive version pair of the imported onnx 1.23.2 catalog.

For operator versions k and k+1, the old tree holds versions 1..k (its domain's opsets end at
k's since_version); the new tree edits version k in place with version k+1's content. The gate
must report the breaking differences with the right rule ids and exit 1. The same change made
the legal way (version k+1 added with its own, new opset version) must exit 0.

Expected rule ids are derived from the onnx package's own OpSchema objects (not from our
loader or change model), for the differences onnx exposes directly: attribute names and
types, input/output names, and the types of type constraints that keep their name.
"""

from __future__ import annotations

import collections
import dataclasses

import pytest

from toolkit.compat.config import BUILTIN_PROFILES, GateConfig
from toolkit.compat.gate import run_gate
from toolkit.model.changes import diff_schemas
from toolkit.model.spec import OperatorSpec, OpSchema, SpecSet, display_domain
from toolkit.registry.core import Registry

onnx = pytest.importorskip("onnx")

# onnx-strict, but the imported catalog declares no adapters (onnx keeps its version converter
# apart from the schemas), so a legal bump gets the ADAPTER-RECOMMENDED warning, not an error.
STRICT = GateConfig(dataclasses.replace(BUILTIN_PROFILES["onnx-strict"], options={"require_adapters": False}))


def _expected_from_onnx(old: OpSchema, new: OpSchema) -> set[str]:
    """Rule ids implied by differences onnx's OpSchema objects show directly."""
    a = onnx.defs.get_schema(old.name, old.since_version, old.domain)
    b = onnx.defs.get_schema(new.name, new.since_version, new.domain)
    out: set[str] = set()
    a_attrs, b_attrs = a.attributes, b.attributes
    removed = set(a_attrs) - set(b_attrs)
    added = set(b_attrs) - set(a_attrs)
    if removed and added:
        out.add("ATTR-*")  # a rename or a removal plus an addition: either is fine
    elif removed:
        out.add("ATTR-REMOVED")
    elif added:
        out.add("ATTR-ADDED")
    for name in set(a_attrs) & set(b_attrs):
        if a_attrs[name].type != b_attrs[name].type:
            out.add("ATTR-TYPE-CHANGED")
    a_tc = {c.type_param_str: set(c.allowed_type_strs) for c in a.type_constraints}
    b_tc = {c.type_param_str: set(c.allowed_type_strs) for c in b.type_constraints}
    for param in set(a_tc) & set(b_tc):
        if b_tc[param] - a_tc[param]:
            out.add("TYPE-ADDED")
        if a_tc[param] - b_tc[param]:
            out.add("TYPE-REMOVED")
    return out


def _trees(spec: OperatorSpec, k: int, registry: Registry) -> tuple[Registry, Registry, Registry]:
    domain = registry.domain(spec.domain)
    vk, vk1 = spec.versions[k], spec.versions[k + 1]
    old_domain = dataclasses.replace(
        domain, opset_versions=tuple(o for o in domain.opset_versions if o.version <= vk.since_version)
    )
    new_domain = dataclasses.replace(
        domain, opset_versions=tuple(o for o in domain.opset_versions if o.version <= vk1.since_version)
    )

    def op(versions: tuple[OpSchema, ...]) -> OperatorSpec:
        return dataclasses.replace(spec, versions=versions, removed_in=None, replaced_by=None)

    in_place = dataclasses.replace(vk1, since_version=vk.since_version, based_on=None)
    old = Registry(SpecSet((old_domain,), (op(spec.versions[: k + 1]),)))
    edited = Registry(SpecSet((old_domain,), (op((*spec.versions[:k], in_place)),)))
    legal = Registry(SpecSet((new_domain,), (op(spec.versions[: k + 2]),)))
    return old, edited, legal


@pytest.mark.report
def test_real_history_pairs(onnx_registry: Registry) -> None:
    pairs = breaking_pairs = 0
    doc_only: list[str] = []  # pairs whose only difference is the doc text
    unmodelled: list[str] = []  # pairs equal in the DSL
    function_changes: list[str] = []  # pairs that differ by their function only (FUNCTION-BODY-CHANGED)
    per_rule: collections.Counter[str] = collections.Counter()
    wrong: list[str] = []
    for spec in onnx_registry.specs.operators:
        for k in range(len(spec.versions) - 1):
            vk, vk1 = spec.versions[k], spec.versions[k + 1]
            pairs += 1
            old, edited, legal = _trees(spec, k, onnx_registry)

            result = run_gate(old, edited, STRICT)
            errors = {f.rule for f in result.findings if f.severity.value == "error"}
            per_rule.update(f.rule for f in result.findings)
            for f in result.findings:
                assert f.operator.startswith(f"{display_domain(spec.domain)}.{spec.name}")
            expected = set() if vk.experimental else _expected_from_onnx(vk, vk1)
            for rule in expected:
                ok = any(e.startswith("ATTR-") for e in errors) if rule == "ATTR-*" else rule in errors
                if not ok:
                    wrong.append(f"{vk1.id} -> in place of {vk.id}: expected {rule}, got {sorted(errors)}")
            if vk.experimental:
                if result.exit_code() != 0:
                    wrong.append(f"{vk.id} is experimental (exempt) but the gate failed")
            else:
                in_place = edited.operator(spec.name, spec.domain).versions[k]
                changes = diff_schemas(vk, in_place)
                significant = any(c.kind != "DOC-CHANGED" for c in changes)
                breaking_pairs += bool(errors)
                function_only = (vk.function, vk.context_dependent_function) != (
                    vk1.function,
                    vk1.context_dependent_function,
                )
                if not changes and function_only:
                    # the signature is equal, the function is not (DepthToSpace-28 vs -13): #16
                    function_changes.append(vk1.id)
                    if {f.rule for f in result.findings} != {
                        "FUNCTION-BODY-CHANGED"
                    } or result.exit_code() != 1:
                        wrong.append(
                            f"{vk1.id} differs from {vk.id} by its function only, yet: {result.findings}"
                        )
                elif not changes:
                    unmodelled.append(vk1.id)
                    if result.findings:
                        wrong.append(f"{vk1.id} equals {vk.id} in the DSL, yet: {result.findings}")
                elif not significant:
                    # A doc change may be a clarification, which the law does not count as
                    # breaking: the gate must say DOC-CHANGED (info) and pass, not stay silent.
                    doc_only.append(vk1.id)
                    rules = {(f.rule, f.severity.value) for f in result.findings}
                    if ("DOC-CHANGED", "info") not in rules or result.exit_code() != 0:
                        wrong.append(
                            f"{vk1.id} doc-only edit of {vk.id}: {sorted(rules)}, exit {result.exit_code()}"
                        )
                    if any(f.severity.value != "info" for f in result.findings):
                        wrong.append(
                            f"{vk1.id} doc-only edit of {vk.id}: more than info findings {sorted(rules)}"
                        )
                if significant and result.exit_code() != 1:
                    wrong.append(f"{vk1.id} edited in place of {vk.id}: exit {result.exit_code()}")

            legal_result = run_gate(old, legal, STRICT)
            if legal_result.exit_code() != 0:
                wrong.append(
                    f"{vk1.id} as a new version: {[(f.rule, f.message) for f in legal_result.findings]}"
                )
            assert {f.rule for f in legal_result.findings} <= {
                "ADAPTER-RECOMMENDED",
                "DEPRECATED-WITHOUT-REPLACEMENT",
            }

    print(
        f"\nreal history: {pairs} version pairs checked, {breaking_pairs} gated (exit 1) when edited in place; "
        f"{len(doc_only)} doc-only edits pass (exit 0) with DOC-CHANGED (info): a doc change may be a "
        "clarification, which is not breaking, so the gate reports it for review instead of failing; "
        f"{len(function_changes)} differ by their function only and are gated by FUNCTION-BODY-CHANGED "
        f"({', '.join(function_changes)}); "
        f"{len(unmodelled)} equal in the DSL ({', '.join(unmodelled) or 'none'})"
    )
    for rule, count in sorted(per_rule.items()):
        print(f"  {rule:<32} {count}")
    assert not wrong, "\n".join(wrong[:20])
    assert pairs >= 400
    # every non-experimental pair is either gated or doc-only: nothing passes silently
    non_experimental = sum(
        1 for spec in onnx_registry.specs.operators for v in spec.versions[:-1] if not v.experimental
    )
    assert breaking_pairs + len(doc_only) + len(unmodelled) == non_experimental, (
        breaking_pairs,
        len(doc_only),
    )
    assert len(unmodelled) <= 2
    assert "ai.onnx.DepthToSpace:28" in function_changes
    assert 0 < len(doc_only) < pairs // 5
    assert per_rule["TYPE-ADDED"] > 100 and per_rule["ATTR-REMOVED"] > 50
