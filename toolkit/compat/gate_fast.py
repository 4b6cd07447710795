"""The gate over two cached trees, decoding only the operators that differ (`opset diff`'s fast
path beside `toolkit.compat.gate.run_gate`; tests/test_gate_fast.py holds them equal).

Both trees' load results come from the cache in parts (`toolkit.load.result_cache_parts`): the
domains, releases and diagnostics decoded, each operator encoded beside a digest of its content
without locations. An operator whose digests agree is equal in both trees, and an operator equal
in both trees gives no finding: every built-in rule reads an operator pair only to compare its
two sides (edits, version bumps, removals, `removed_in`, deprecation, function bodies), except
TYPE-SET-CHANGED, which lists every operator of a domain whose type sets changed: such domains
are decoded whole. So the gate runs on registries holding just the differing operators and finds
what it finds on the full ones.

No answer (None) when that reasoning does not hold or the data is not at hand: a rule from a
plugin (it may read any operator), a tree not in the cache (or caching off), a tree with load
errors (the plain path reports them), an operator listed twice in a tree.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from toolkit.compat.config import GateConfig
from toolkit.compat.gate import GateResult, active_rules, run_gate
from toolkit.load.result_cache_parts import CachedOperator, CachedParts, fetch_parts
from toolkit.model.codec_digest import NO_DIGEST
from toolkit.model.diagnostics import Severity
from toolkit.model.spec import SpecSet
from toolkit.registry.core import Registry, cache_key

__all__ = ["BUILT_IN_RULES", "differing_registries", "run_gate_cached"]

BUILT_IN_RULES = "toolkit.compat.rules."
Paths = Sequence[str | os.PathLike[str]]


def run_gate_cached(
    old_paths: Paths, new_paths: Paths, config: GateConfig | None = None, old_label: str = "old tree"
) -> GateResult | None:
    """`run_gate` of the trees at `old_paths` and `new_paths` as `load_registry` loads them, from
    their cache entries; None when the fast path cannot answer (then load and run the plain gate)."""
    config = config or GateConfig()
    rules = active_rules(config)  # loads the plugins, as run_gate would
    if any(rule.check is not None and not rule.check.__module__.startswith(BUILT_IN_RULES) for rule in rules):
        return None
    new = _parts(new_paths)
    old = _parts(old_paths) if new is not None else None
    if old is None or new is None:
        return None
    pair = differing_registries(old, new)
    if pair is None:
        return None
    return run_gate(pair[0], pair[1], config, old_label)


def _parts(paths: Paths) -> CachedParts | None:
    key = cache_key(paths)
    parts = fetch_parts(key) if key is not None else None
    if parts is None or any(d.severity is Severity.ERROR for d in parts.diagnostics):
        return None
    return parts


def differing_registries(old: CachedParts, new: CachedParts) -> tuple[Registry, Registry] | None:
    """Registries of the two trees with every domain and release but only the operators whose
    findings can differ from nothing: on one side only, digests that differ (or none), or in a
    domain whose type sets changed. None when a tree lists an operator twice."""
    old_ops = _by_key(old.operators)
    new_ops = _by_key(new.operators)
    if old_ops is None or new_ops is None:
        return None
    old_sets = {d.name: d.type_sets for d in old.domains}
    whole = {d.name for d in new.domains if d.name in old_sets and old_sets[d.name] != d.type_sets}

    def differs(op: CachedOperator, other: CachedOperator | None) -> bool:
        return (
            other is None
            or op.domain in whole
            or op.digest == NO_DIGEST
            or other.digest == NO_DIGEST
            or op.digest != other.digest
        )

    kept_old = tuple(o.decode() for o in old.operators if differs(o, new_ops.get((o.domain, o.name))))
    kept_new = tuple(o.decode() for o in new.operators if differs(o, old_ops.get((o.domain, o.name))))
    return (
        Registry(SpecSet(old.domains, kept_old, old.releases), old.diagnostics),
        Registry(SpecSet(new.domains, kept_new, new.releases), new.diagnostics),
    )


def _by_key(operators: Sequence[CachedOperator]) -> dict[tuple[str, str], CachedOperator] | None:
    out = {(o.domain, o.name): o for o in operators}
    return out if len(out) == len(operators) else None
