"""The gate over two cached trees, decoding only the operators that differ (`opset diff`'s fast
path beside `toolkit.compat.gate.run_gate`; tests/test_gate_fast.py holds them equal).

Both trees' load results come from the cache in parts (`toolkit.load.result_cache_parts`): the
domains, releases and diagnostics decoded, each operator encoded beside a digest of its content
without locations. An operator whose digests agree is equal in both trees, and the engine hands
no rule a pair whose sides are equal. What else must be decoded follows from the types of the
active rules' checks (`toolkit.compat.handlers.Reads`): nothing for operator and domain pair
handlers, the domains whose type sets differ (both trees' operators of them) for a type-set pair
handler (its pair names the old tree's users of the set), everything for a whole-tree handler.
So the gate runs on registries holding just what the rules can read and finds what it finds on
the full ones; plugins' rules are served the same way.

No answer (None) when the data is not at hand: a tree not in the cache (or caching off), a tree
with load errors (the plain path reports them), an operator listed twice in a tree. The old tree
may be a directory or a git ref (`toolkit.compat.gitref`): both are cached the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolkit.compat.config import GateConfig
from toolkit.compat.gate import GateResult, active_rules, run_gate
from toolkit.compat.handlers import Reads, reads
from toolkit.load.result_cache_parts import CachedOperator, CachedParts, fetch_parts
from toolkit.model.codec_digest import NO_DIGEST
from toolkit.model.diagnostics import Severity
from toolkit.model.spec import SpecSet
from toolkit.registry.core import Registry

__all__ = ["differing_registries", "run_gate_cached"]


def run_gate_cached(
    new_key: str | None, old: Callable[[], tuple[str | None, str]], config: GateConfig | None = None
) -> GateResult | None:
    """`run_gate` of two trees from their cache entries (`toolkit.load.result_cache`): the new
    tree's under `new_key`, the old tree's under the key `old()` gives, with its label. `old` is
    called only once the new tree is known to be cached without errors, so that what the plain
    path reports first (the new tree's errors, then a bad git ref) still comes first. None when
    the fast path cannot answer: then load the trees and run the plain gate."""
    config = config or GateConfig()
    rules = active_rules(config)  # loads the plugins, as run_gate would
    needs = max((reads(rule.check) for rule in rules if rule.check is not None), default=Reads.CHANGED_PAIRS)
    new = _parts(new_key)
    if new is None:
        return None
    old_key, old_label = old()
    old_parts = _parts(old_key)
    pair = differing_registries(old_parts, new, needs) if old_parts is not None else None
    if pair is None:
        return None
    return run_gate(pair[0], pair[1], config, old_label)


def _parts(key: str | None) -> CachedParts | None:
    parts = fetch_parts(key) if key else None
    if parts is None or any(d.severity is Severity.ERROR for d in parts.diagnostics):
        return None
    return parts


def differing_registries(
    old: CachedParts, new: CachedParts, needs: Reads = Reads.TYPE_SET_USERS
) -> tuple[Registry, Registry] | None:
    """Registries of the two trees with every domain and release but only the operators that
    checks reading `needs` can see: on one side only, digests that differ (or none), in a domain
    whose type sets differ (TYPE_SET_USERS), or all (TREE). None when a tree lists an operator
    twice."""
    old_ops = _by_key(old.operators)
    new_ops = _by_key(new.operators)
    if old_ops is None or new_ops is None:
        return None
    old_sets = {d.name: d.type_sets for d in old.domains}
    whole: set[str] = set()
    if needs >= Reads.TYPE_SET_USERS:
        whole = {d.name for d in new.domains if d.name in old_sets and old_sets[d.name] != d.type_sets}

    def differs(op: CachedOperator, other: CachedOperator | None) -> bool:
        return (
            needs >= Reads.TREE
            or other is None
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
