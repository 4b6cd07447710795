"""Assumptions as types (issue #24 item 6).

- Gate rules are pair handlers (toolkit/compat/handlers.py): the engine hands a handler only the
  pairs whose sides differ, on the plain path and on `opset diff`'s cached fast path alike, so the
  fast path serves a plugin's pair handler too, and decodes whole domains only when a rule that
  reads type-set users is active.
- check-model's fast path is the conjunction of the preconditions its node rules declare.
- The adapter step kinds are listed once; each layer's functions name their kind.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rule_recorder
import yaml

from toolkit.compat import gate, gate_fast
from toolkit.compat.config import GateConfig, Profile
from toolkit.compat.engine import DomainPair, Hit, OperatorPair
from toolkit.compat.gate import active_rules, run_gate
from toolkit.compat.handlers import Reads, domain_pairs, operator_pairs
from toolkit.load.result_cache_parts import fetch_parts
from toolkit.model import adapter_steps
from toolkit.model.adapter_steps import STEP_KINDS, PerKind
from toolkit.registry.core import cache_key, load_registry

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "opsets"


@pytest.fixture()
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The shipped specs twice, cached: in the new tree C gains an attribute, Blur's file is
    laid out again (every location moves, the content stays) and a type set gains a type."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "")
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SPECS, old)
    shutil.copytree(SPECS, new)

    def rewrite(path: Path, edit: Any) -> None:
        doc = yaml.safe_load(path.read_text())
        edit(doc)
        path.write_text(yaml.safe_dump(doc, sort_keys=False))

    rewrite(
        new / "org.example.abc" / "C.yaml",
        lambda d: (
            d["versions"][0].setdefault("attributes", {}).update(fresh={"type": "string", "default": "x"})
        ),
    )
    rewrite(new / "com.acme.vision" / "Blur.yaml", lambda d: None)
    rewrite(
        new / "com.acme.vision" / "domain.yaml",
        lambda d: d["type_sets"]["index_types"].append("tensor(int16)"),
    )
    load_registry([old]), load_registry([new])
    return old, new


@pytest.fixture(autouse=True)
def _a_plugins_findings_are_not_the_toolkits() -> Iterator[None]:
    """X-PLUGIN stands for a user's rule: what it emits is not the toolkit's, and the catalog's
    completeness test (tests/test_zz_rule_catalog.py) counts only what the toolkit emits."""
    yield
    rule_recorder.EMITTED.pop("X-PLUGIN", None)


def _with_plugin(monkeypatch: pytest.MonkeyPatch, check: Any) -> None:
    """Run the gate with one more rule (a plugin's), the way `--plugins` adds one."""
    plugin = dataclasses.replace(active_rules(GateConfig())[0], id="X-PLUGIN", check=check)
    for module in (gate, gate_fast):
        monkeypatch.setattr(module, "active_rules", lambda config: [*active_rules(config), plugin])


def _fast(old: Path, new: Path, config: GateConfig | None = None) -> gate.GateResult | None:
    return gate_fast.run_gate_cached(cache_key([new]), lambda: (cache_key([old]), "old"), config)


def test_a_plugins_pair_handler_sees_only_changed_pairs_and_gets_the_fast_path(
    trees: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = trees
    seen: list[str] = []

    def every_changed_operator(pair: OperatorPair) -> Iterator[Hit]:
        seen.append(pair.any.name)
        yield Hit(pair.any.name, "changed", pair.any.location)

    _with_plugin(monkeypatch, operator_pairs(every_changed_operator))
    fast = _fast(old, new)
    assert fast is not None  # the fast path answered (it stepped aside for any plugin before)
    fast_seen, seen[:] = sorted(seen), []
    plain = run_gate(load_registry([old]), load_registry([new]), GateConfig(), old_label="old")
    # Blur moved but did not change; the type set's users changed their expanded types
    assert sorted(seen) == fast_seen == ["C", "NonMaxSuppressionLite"]
    assert fast == plain
    assert sorted(f.operator for f in plain.findings if f.rule == "X-PLUGIN") == [
        "C",
        "NonMaxSuppressionLite",
    ]


def test_a_domain_pair_handler_sees_only_changed_domains(
    trees: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = trees
    seen: list[str] = []

    def every_changed_domain(pair: DomainPair) -> Iterator[Hit]:
        seen.append(pair.name)
        return iter(())

    _with_plugin(monkeypatch, domain_pairs(every_changed_domain))
    run_gate(load_registry([old]), load_registry([new]), GateConfig())
    assert seen == ["com.acme.vision"]  # org.example.abc's domain file is the same


def test_whole_domains_are_decoded_only_for_a_rule_reading_type_set_users(trees: tuple[Path, Path]) -> None:
    old, new = trees
    old_parts, new_parts = fetch_parts(str(cache_key([old]))), fetch_parts(str(cache_key([new])))
    assert old_parts is not None and new_parts is not None
    vision = {p.stem for p in (old / "com.acme.vision").glob("*.yaml")} - {"domain"}
    names = {}
    for needs in Reads:
        pair = gate_fast.differing_registries(old_parts, new_parts, needs)
        assert pair is not None
        names[needs] = {o.name for o in pair[0].specs.operators}
    assert names[Reads.CHANGED_PAIRS] == {"C", "NonMaxSuppressionLite"}
    assert names[Reads.TYPE_SET_USERS] == vision | {"C"}
    assert len(names[Reads.TREE]) == len(old_parts.operators)
    # without TYPE-SET-CHANGED the gate needs the changed pairs only, and finds the same
    profile = Profile("no-type-sets", disabled=frozenset({"TYPE-SET-CHANGED"}))
    config = GateConfig(profile=profile)
    assert max(gate_fast.reads(r.check) for r in active_rules(config) if r.check) is Reads.CHANGED_PAIRS
    assert _fast(old, new, config) == run_gate(load_registry([old]), load_registry([new]), config, "old")


def test_every_built_in_gate_rule_is_a_pair_handler() -> None:
    kinds = {rule.id: gate_fast.reads(rule.check) for rule in active_rules(GateConfig()) if rule.check}
    assert kinds["TYPE-SET-CHANGED"] is Reads.TYPE_SET_USERS
    assert {k for k, v in kinds.items() if v is not Reads.CHANGED_PAIRS} == {"TYPE-SET-CHANGED"}


# -- check-model: the fast path derived from the node rules ----------------------------------


def test_clean_is_the_conjunction_of_the_node_rules_preconditions(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnx")
    from toolkit.onnx_bridge.check import fastpath
    from toolkit.onnx_bridge.check.rules import MODEL_RULES, NODE_RULES, Precondition

    node_rules = {
        "INPUT-COUNT",
        "OUTPUT-COUNT",
        "INPUT-EMPTY",
        "OUTPUT-EMPTY",
        "ATTR-UNKNOWN",
        "ATTR-TYPE",
        "ATTR-REQUIRED",
        "ATTR-DUPLICATE",
        "ATTR-VALUE-MISSING",
        "TYPE-NOT-ALLOWED",
        "TYPE-INCONSISTENT",
    }
    assert {f"MODEL-{r}" for r in node_rules} <= set(NODE_RULES) <= {r.id for r in MODEL_RULES}
    used = set(NODE_RULES.values()) - {Precondition.RESOLVED}
    assert set(fastpath._BY_TYPING) | set(fastpath._PER_NODE) == {fastpath.GUARDS[p].test for p in used}
    # a precondition with no test of the fast path fails loudly instead of passing nodes unchecked
    monkeypatch.setattr(fastpath, "GUARDS", {})
    with pytest.raises(LookupError, match="no test of precondition"):
        fastpath._guards({Precondition.ATTRIBUTES}, by_typing=False)


def test_a_node_rule_the_fast_path_does_not_test_is_never_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Derived, not hand-kept: without the ATTRIBUTES precondition among the node rules', clean()
    tests no attribute (and still finds graph attributes), so a node with an unknown attribute
    passes; with it (as registered) the node is DIRTY."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    from toolkit.onnx_bridge.check import fastpath
    from toolkit.onnx_bridge.check.rules import NODE_RULES, Precondition

    node = helper.make_node("Relu", ["x"], ["y"], bogus=1)
    fast = fastpath.FastSchema(1, 1, 1, 1, (0,), (0,), {}, (), False, (), ())
    assert fastpath.clean(node, fast, None) == fastpath.DIRTY
    without = frozenset(p for p in NODE_RULES.values() if p is not Precondition.ATTRIBUTES)
    monkeypatch.setattr(fastpath, "_PER_NODE", fastpath._guards(without, by_typing=False))
    monkeypatch.setattr(fastpath, "_SEES_GRAPHS", False)
    assert fastpath.clean(node, fast, None) == 0
    branch = helper.make_graph([], "g", [], [])
    assert fastpath.clean(helper.make_node("If", ["c"], ["y"], then_branch=branch), fast, None) == 1
    assert onnx is not None


# -- adapter step kinds: listed once ------------------------------------------------------------


def test_each_layer_has_one_function_per_step_kind() -> None:
    from toolkit.adapters import steps
    from toolkit.checks import adapters

    assert set(steps._HANDLERS) == set(adapters._STEP_CHECKS) == set(STEP_KINDS)
    table: PerKind[Any] = PerKind("test layer")
    with pytest.raises(ValueError, match="'rename' is not a step kind"):
        table.of("rename")
    for kind in list(STEP_KINDS)[1:]:
        table.of(kind)(lambda *args: None)
    with pytest.raises(ValueError, match="two functions"):
        table.of(kind)(lambda *args: None)
    with pytest.raises(ValueError, match=f"no function for step kind\\(s\\) {next(iter(STEP_KINDS))}"):
        table.complete()
    assert adapter_steps.STEP_KINDS is STEP_KINDS
