"""The ai.onnx adapter overlay: adapters for onnx's own operator versions, which the imported
catalog cannot carry in its specs (they come from `toolkit/data/onnx_adapters/*.yaml`), plus the
implicit adapters of the versions every old node follows unchanged (`toolkit.model.node_moves`). `apply_overlay(registry)` gives a registry
whose catalog schemas carry these adapters; `opset convert` runs on it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolkit.adapters import (
    inverse_steps,
)
from toolkit.load.adapter_build import build_adapter
from toolkit.load.discovery import display_path
from toolkit.load.schema import validate_document
from toolkit.load.yamlsrc import MarkedDict, YamlProblem, location_of, read_yaml
from toolkit.model.adapter_steps import type_changes, type_restrictions
from toolkit.model.diagnostics import Diagnostic, Severity, SpecError
from toolkit.model.node_moves import implicit_adapter
from toolkit.model.rules import register
from toolkit.model.spec import (
    Adapter,
    AdapterStep,
    Location,
    OperatorSpec,
    OpSchema,
    SpecSet,
    canonical_domain,
    display_domain,
)
from toolkit.registry.core import Registry

OVERLAY_DIR = Path(__file__).resolve().parent.parent / "data" / "onnx_adapters"
REPLACEMENTS_FILE = OVERLAY_DIR.parent / "onnx_replacements.yaml"
OVERLAY_SCHEMA = "adapter_overlay"  # schemas/adapter_overlay.schema.json
CATALOG_DOMAINS = frozenset({"", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"})

register(
    "ADAPTER-OVERLAY",
    "adapter",
    "error",
    "An adapter overlay file gives an operator version two adapters, or names one the onnx catalog "
    "does not have (or the operator's first version).",
    name="bad adapter overlay entry",
    hint="list each operator version of the catalog once, in one group",
    doc="""\
**Why:** the overlay (`toolkit/data/onnx_adapters/*.yaml`) attaches adapters to the onnx
catalog's operator versions, which cannot carry them in their specs; an entry that matches no
version (or a first version, which has nothing to adapt from) would be silently unused, and two
adapters for one version leave `opset convert` without a rule to pick one.

**Before:** `versions: [Relu:13, Relu:13]`, or `Relu:15` (no such version).

**After:** `versions: [Relu:13]`.""",
)


# -- the adapter overlay ------------------------------------------------------------------------


def load_overlay(folder: str | os.PathLike[str] = OVERLAY_DIR) -> dict[tuple[str, str, int], Adapter]:
    """(domain, op, since_version) -> Adapter from every `*.yaml` overlay file in `folder`.

    Each file is read with the located YAML reader, validated against
    `schemas/adapter_overlay.schema.json` and its steps built by the loader's `build_adapter`,
    so they are the same AdapterStep objects an operator file's `adapter:` gives. SpecError
    (located diagnostics) for a bad file.
    """
    out: dict[tuple[str, str, int], Adapter] = {}
    diags: list[Diagnostic] = []
    for path in sorted(Path(folder).glob("*.yaml")):
        display = display_path(path)
        try:
            root = read_yaml(path, display)
        except YamlProblem as exc:
            diags.append(exc.diagnostic)
            continue
        problems = validate_document(root, OVERLAY_SCHEMA, display)
        if problems:
            diags.extend(problems)
            continue
        _overlay_file(root, display, out, diags)
    if diags:
        raise SpecError(diags)
    return out


def _overlay_file(
    root: MarkedDict, display: str, out: dict[tuple[str, str, int], Adapter], diags: list[Diagnostic]
) -> None:
    """Adapters of one schema-valid overlay document."""

    def where(*path: str | int) -> Location:
        return location_of(root, path, display)

    domain = canonical_domain(root["domain"])
    for g, group in enumerate(root["groups"]):
        adapter = build_adapter(group, lambda *path, g=g: where("groups", g, *path))
        for v, ref in enumerate(group["versions"]):
            op, _, since = ref.partition(":")
            key = (domain, op, int(since))
            at = where("groups", g, "versions", v)
            if key in out:
                diags.append(
                    Diagnostic(
                        "ADAPTER-OVERLAY",
                        f"{display_domain(domain)}.{ref} has two adapters (the first at {out[key].location})",
                        at,
                        "list each operator version in one group",
                    )
                )
                continue
            out[key] = replace(adapter, location=at)


@functools.lru_cache(maxsize=1)
def _overlay_facts() -> Mapping[tuple[str, str, int], Adapter]:
    return load_overlay()


def overlay_adapter_entry(old: OpSchema, new: OpSchema) -> dict[str, Any] | None:
    """The overlay's adapter of catalog version `new` (from `old`, the one before it) as the
    `adapter:` mapping of an operator file, or None. `opset import-onnx` writes it into the
    imported specs so that every tool reading the catalog as a spec tree, the gate first, sees
    the facts `opset convert` applies; as a spec states it, with the type checks the converter
    adds (`with_type_checks`). `old` and `new` need only their inputs, outputs and types."""
    fact = _overlay_facts().get((canonical_domain(new.domain), new.name, new.since_version))
    if fact is None:
        return None
    adapter = with_type_checks(old, new, fact)
    entry: dict[str, Any] = {"upgrade": [_step_entry(step) for step in adapter.upgrade]}
    if adapter.downgrade is not None:
        entry["downgrade"] = [_step_entry(step) for step in adapter.downgrade]
    return entry


def _step_entry(step: AdapterStep) -> dict[str, Any]:
    return {"kind": step.kind, **{key: _plain(value) for key, value in step.args}}


def _plain(value: object) -> object:
    """A frozen step argument (tuples, from `build_adapter`) as YAML-writable lists."""
    return [_plain(item) for item in value] if isinstance(value, tuple) else value


def adapter_for(old: OpSchema, new: OpSchema, declared: Adapter | None) -> Adapter | None:
    """The adapter of `new`: the declared one with the catalog's type changes checked, or the
    implicit one of a version every old node follows unchanged (`toolkit.model.node_moves`,
    which the gate asks too)."""
    if declared is not None and not declared.upgrade and declared.downgrade is None:
        declared = None  # an empty stub (`opset bump`) declares nothing
    if declared is None:
        return implicit_adapter(old, new)
    checked = with_type_checks(old, new, declared)
    if checked.downgrade is None:  # an implied downgrade starts with the added types' checks
        return replace(checked, downgrade=inverse_steps(declared.upgrade, new, old))
    return checked


def with_type_checks(old: OpSchema, new: OpSchema, declared: Adapter) -> Adapter:
    """`declared` with the checks of the catalog's type changes first (they are about the node
    as it is at the source version): a removed type cannot go up, an added one cannot go back.
    An implied downgrade (None) stays None."""
    added, removed = type_changes(old, new)
    return Adapter(
        upgrade=type_restrictions(removed, declared.location) + declared.upgrade,
        downgrade=None
        if declared.downgrade is None
        else type_restrictions(added, declared.location) + declared.downgrade,
        location=declared.location,
    )


def apply_overlay(
    registry: Registry,
    overlay: Mapping[tuple[str, str, int], Adapter] | None = None,
    domains: frozenset[str] = CATALOG_DOMAINS,
) -> Registry:
    """A registry whose catalog schemas carry adapters: overlay facts plus computed type-only ones.

    Overlay steps get the spec checks of declared adapters (`check_step`: arguments, and that
    the attributes, inputs and type parameters they name exist on their side); SpecError when
    one fails.
    """
    facts = dict(load_overlay() if overlay is None else overlay)
    problems: list[Diagnostic] = []
    operators: list[OperatorSpec] = []
    for op in registry.specs.operators:
        if op.domain not in domains:
            operators.append(op)
            continue
        versions = [op.versions[0]]
        for old, new in zip(op.versions, op.versions[1:]):
            fact = facts.pop((op.domain, op.name, new.since_version), None)
            if fact is not None:
                problems.extend(_overlay_problems(fact, old, new))
            # The overlay's current fact first: a catalog imported by an older toolkit carries
            # the adapters of its day (`overlay_adapter_entry`).
            adapter = adapter_for(old, new, fact or new.adapter)
            versions.append(replace(new, adapter=adapter) if adapter is not None else new)
        operators.append(replace(op, versions=tuple(versions)))
    if problems:
        raise SpecError(problems)
    if facts:
        (domain, name, since), adapter = sorted(facts.items(), key=lambda item: item[0])[0]
        raise SpecError(
            [
                Diagnostic(
                    "ADAPTER-OVERLAY",
                    f"{display_domain(domain)}.{name}:{since} is not a version of the catalog "
                    "(or is the operator's first version)",
                    adapter.location,
                )
            ]
        )
    specs = SpecSet(registry.specs.domains, tuple(operators), registry.specs.releases)
    return Registry(specs, registry.diagnostics)


def _overlay_problems(fact: Adapter, old: OpSchema, new: OpSchema) -> Iterator[Diagnostic]:
    from toolkit.checks.adapters import check_step

    moves = [(step, old, new) for step in fact.upgrade] + [(step, new, old) for step in fact.downgrade or ()]
    for step, source, target in moves:
        yield from (d for d in check_step(step, source, target) if d.severity is Severity.ERROR)


# -- successors of deprecated operators ----------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _replacements() -> dict[tuple[str, str], str]:
    """(domain, operator) -> successor, from `toolkit/data/onnx_replacements.yaml` (our facts)."""
    root = read_yaml(REPLACEMENTS_FILE, display_path(REPLACEMENTS_FILE))
    out: dict[tuple[str, str], str] = {}
    for domain, operators in root.items():
        for name, successor in operators.items():
            out[canonical_domain(str(domain)), str(name)] = str(successor)
    return out


def replacement(domain: str, name: str) -> str | None:
    """The successor onnx names (in prose) for its deprecated operator `name`, or None."""
    return _replacements().get((canonical_domain(domain), name))
