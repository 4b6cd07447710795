"""BC/FC of each signature finding, argued from the law (toolkit.compat.rules.bcfc) and checked
per case: the flags a finding carries, not only the rule's usual ones.

BC breaks when a node written for the old version is invalid (or means something else) under
the new one; FC breaks when a node written for the new version is invalid under the old one.
Inputs and outputs bind by position, attributes by name.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.compat.config import GateConfig, Profile
from toolkit.compat.gate import run_gate
from toolkit.compat.rules import all_rules
from toolkit.registry.core import load_registry

Version = dict[str, Any]

FOO: Version = {
    "since_version": 1,
    "doc": "Foo.",
    "inputs": [
        {"name": "X", "type": "T"},
        {"name": "B", "type": "T", "option": "optional"},
        {"name": "C", "type": "T", "option": "optional"},
    ],
    "outputs": [{"name": "Y", "type": "T"}, {"name": "Z", "type": "T", "option": "optional"}],
    "attributes": {"alpha": {"type": "float", "required": True}, "axis": {"type": "int", "default": 0}},
    "type_constraints": {"T": {"allowed": ["tensor(float)"]}},
}
ONE: Version = {  # one input, one output: room to change their option
    "since_version": 1,
    "doc": "One.",
    "inputs": [{"name": "X", "type": "T"}],
    "outputs": [{"name": "Y", "type": "T"}],
    "type_constraints": {"T": {"allowed": ["tensor(float)"]}},
}
GATE = GateConfig(Profile("test", disabled=frozenset({"ADAPTER-MISSING", "ADAPTER-RECOMMENDED"})))


def _write(root: Path, ops: dict[str, Version]) -> Path:
    folder = root / "com.test"
    folder.mkdir(parents=True)
    domain = {"domain": "com.test", "opset_versions": [{"version": 1, "ir_version": 8}]}
    (folder / "domain.yaml").write_text(yaml.safe_dump(domain, sort_keys=False))
    for name, version in ops.items():
        spec = {"operator": name, "domain": "com.test", "versions": [version]}
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return root


def _flags(tmp_path: Path, op: str, edit: Callable[[Version], None]) -> dict[str, tuple[bool, bool]]:
    old_ops = {"Foo": copy.deepcopy(FOO), "One": copy.deepcopy(ONE)}
    new_ops = copy.deepcopy(old_ops)
    edit(new_ops[op])
    old = load_registry([_write(tmp_path / "old", old_ops)], cache=False)
    new = load_registry([_write(tmp_path / "new", new_ops)], cache=False)
    result = run_gate(old, new, GATE)
    return {f.rule: (f.bc, f.fc) for f in result.findings if f.rule != "DOC-CHANGED"}


def _attr(name: str, value: Any) -> Callable[[Version], None]:
    def edit(v: Version) -> None:
        if value is None:
            del v["attributes"][name]
        else:
            v["attributes"][name] = value

    return edit


def _drop(key: str, name: str) -> Callable[[Version], None]:
    return lambda v: v.update({key: [p for p in v[key] if p["name"] != name]})


def _insert(key: str, index: int, param: dict[str, Any]) -> Callable[[Version], None]:
    return lambda v: v[key].insert(index, param)


def _option(key: str, option: str, **extra: Any) -> Callable[[Version], None]:
    return lambda v: v[key][-1].update(option=option, **extra)


# (rule, operator, edit, expected (BC breaks, FC breaks), why)
CASES = [
    ("ATTR-ADDED", "Foo", _attr("beta", {"type": "int", "default": 1}), (False, True), "optional attribute"),
    (
        "ATTR-ADDED",
        "Foo",
        _attr("beta", {"type": "int", "required": True}),
        (True, True),
        "required attribute",
    ),
    ("ATTR-REMOVED", "Foo", _attr("axis", None), (True, False), "optional: default on old runtimes"),
    ("ATTR-REMOVED", "Foo", _attr("alpha", None), (True, True), "required: new nodes lack it"),
    ("INPUT-REMOVED", "Foo", _drop("inputs", "C"), (True, False), "trailing optional input"),
    ("INPUT-REMOVED", "Foo", _drop("inputs", "B"), (True, True), "middle optional: C shifts"),
    (
        "INPUT-ADDED",
        "Foo",
        _insert("inputs", 3, {"name": "D", "type": "T", "option": "optional"}),
        (False, True),
        "optional at the end",
    ),
    (
        "INPUT-ADDED",
        "Foo",
        _insert("inputs", 1, {"name": "D", "type": "T", "option": "optional"}),
        (True, True),
        "optional in the middle: B and C shift",
    ),
    ("INPUT-ADDED", "One", _insert("inputs", 1, {"name": "D", "type": "T"}), (True, True), "required"),
    (
        "OUTPUT-ADDED",
        "Foo",
        _insert("outputs", 2, {"name": "W", "type": "T", "option": "optional"}),
        (False, True),
        "optional output at the end keeps old nodes working",
    ),
    ("OUTPUT-ADDED", "One", _insert("outputs", 1, {"name": "W", "type": "T"}), (True, True), "required"),
    ("OUTPUT-REMOVED", "Foo", _drop("outputs", "Z"), (True, False), "trailing optional output"),
    ("INPUT-OPTION-CHANGED", "One", _option("inputs", "variadic"), (False, True), "single -> variadic"),
    ("INPUT-OPTION-CHANGED", "One", _option("inputs", "optional"), (False, True), "single -> optional"),
    (
        "INPUT-OPTION-CHANGED",
        "One",
        _option("inputs", "variadic", min_arity=2),
        (True, True),
        "single -> variadic of at least 2",
    ),
    ("OUTPUT-OPTION-CHANGED", "One", _option("outputs", "variadic"), (False, True), "single -> variadic"),
    (
        "OUTPUT-OPTION-CHANGED",
        "Foo",
        lambda v: v["outputs"][-1].pop("option"),
        (True, False),
        "optional -> single",
    ),
]


@pytest.mark.parametrize(("rule", "op", "edit", "expected", "why"), CASES, ids=[c[4] for c in CASES])
def test_flags_follow_the_law(
    tmp_path: Path,
    rule: str,
    op: str,
    edit: Callable[[Version], None],
    expected: tuple[bool, bool],
    why: str,
) -> None:
    flags = _flags(tmp_path, op, edit)
    assert rule in flags, flags
    assert flags[rule] == expected, (why, flags)


def test_variadic_arity_changes(tmp_path: Path) -> None:
    """min_arity and homogeneity of a variadic input: the wider rule keeps old nodes valid."""
    base = copy.deepcopy(ONE)
    base["inputs"][0].update(option="variadic", min_arity=1)

    def run(name: str, change: dict[str, Any]) -> tuple[bool, bool]:
        old_v, new_v = copy.deepcopy(base), copy.deepcopy(base)
        new_v["inputs"][0].update(change)
        old = load_registry([_write(tmp_path / name / "old", {"One": old_v})], cache=False)
        new = load_registry([_write(tmp_path / name / "new", {"One": new_v})], cache=False)
        found = {f.rule: (f.bc, f.fc) for f in run_gate(old, new, GATE).findings}
        return found["INPUT-ARITY-CHANGED"]

    assert run("raise", {"min_arity": 2}) == (True, False)
    assert run("lower", {"min_arity": 0}) == (False, True)
    assert run("hetero", {"homogeneous": False}) == (False, True)


def test_every_gate_rule_argues_its_flags() -> None:
    for rule in all_rules():
        assert f"**BC/FC** (BC {'yes' if rule.bc else 'no'}, FC {'yes' if rule.fc else 'no'}" in rule.doc, (
            rule.id
        )
