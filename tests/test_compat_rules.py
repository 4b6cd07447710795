"""Every rule of the breaking-change gate: a positive and a negative case.

Trees are small YAML folders written to tmp dirs and loaded by the real loader, so locations
and type-set expansion are the ones users get.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.compat.config import GateConfig, Profile
from toolkit.compat.gate import GateResult, run_gate
from toolkit.compat.rules import all_rules, get_rule
from toolkit.registry.core import load_registry

Tree = dict[str, Any]

DOMAIN: dict[str, Any] = {
    "domain": "com.test",
    "opset_versions": [{"version": 1, "ir_version": 8}, {"version": 2, "ir_version": 8}],
    "type_sets": {"floats": ["tensor(float)", "tensor(double)"]},
}
FOO_V1: dict[str, Any] = {
    "since_version": 1,
    "doc": "Foo does things.",
    "inputs": [{"name": "X", "type": "T", "doc": "x"}, {"name": "B", "type": "T", "option": "optional"}],
    "outputs": [{"name": "Y", "type": "T"}, {"name": "Z", "type": "T"}],
    "attributes": {
        "axis": {"type": "int", "default": 0},
        "mode": {"type": "string", "default": "nearest"},
        "scale": {"type": "float"},
    },
    "type_constraints": {"T": {"allowed": "@floats"}},
}
CAT_V1: dict[str, Any] = {
    "since_version": 2,
    "doc": "Concatenates.",
    "inputs": [{"name": "inputs", "type": "T", "option": "variadic"}],
    "outputs": [{"name": "outs", "type": "T", "option": "variadic"}],
    "type_constraints": {"T": {"allowed": ["tensor(float)"]}},
}
EXP_V1: dict[str, Any] = {
    "since_version": 1,
    "status": "experimental",
    "doc": "Experimental.",
    "inputs": [{"name": "X", "type": "tensor(float)"}],
    "outputs": [{"name": "Y", "type": "tensor(float)"}],
}


def base_tree() -> Tree:
    return {
        "domain": copy.deepcopy(DOMAIN),
        "ops": {
            "Foo": {"operator": "Foo", "domain": "com.test", "versions": [copy.deepcopy(FOO_V1)]},
            "Cat": {"operator": "Cat", "domain": "com.test", "versions": [copy.deepcopy(CAT_V1)]},
            "Exp": {"operator": "Exp", "domain": "com.test", "versions": [copy.deepcopy(EXP_V1)]},
        },
    }


def write_tree(root: Path, tree: Tree) -> Path:
    folder = root / "com.test"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(yaml.safe_dump(tree["domain"], sort_keys=False))
    for name, spec in tree["ops"].items():
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return root


def gate(tmp_path: Path, edit: Callable[[Tree], None], config: GateConfig | None = None) -> GateResult:
    old_tree, new_tree = base_tree(), base_tree()
    edit(new_tree)
    old = load_registry([write_tree(tmp_path / "old", old_tree)], cache=False)
    new = load_registry([write_tree(tmp_path / "new", new_tree)], cache=False)
    return run_gate(old, new, config or GATE)


# Every built-in rule; the authoring workflow's adapter rules (a plugin with its own tests)
# are switched off so that the "legal way" cases need no adapters.
GATE = GateConfig(Profile("test", disabled=frozenset({"ADAPTER-MISSING", "ADAPTER-RECOMMENDED"})))


def foo(tree: Tree, index: int = 0) -> dict[str, Any]:
    version: dict[str, Any] = tree["ops"]["Foo"]["versions"][index]
    return version


def as_new_version(edit: Callable[[dict[str, Any]], None]) -> Callable[[Tree], None]:
    """The legal way: the edit goes into a new Foo version in the new opset version 3."""

    def apply(tree: Tree) -> None:
        tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 8})
        new = copy.deepcopy(FOO_V1)
        new["since_version"] = 3
        edit(new)
        tree["ops"]["Foo"]["versions"].append(new)

    return apply


def in_place(edit: Callable[[dict[str, Any]], None]) -> Callable[[Tree], None]:
    def apply(tree: Tree) -> None:
        edit(foo(tree))

    return apply


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(version: dict[str, Any]) -> None:
        node = version
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _del(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def edit(version: dict[str, Any]) -> None:
        node = version
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return edit


def _swap_inputs(version: dict[str, Any]) -> None:
    version["inputs"] = [
        {"name": "B", "type": "T", "option": "optional"},
        {"name": "X", "type": "T", "doc": "x"},
    ]


def _swap_outputs(version: dict[str, Any]) -> None:
    version["outputs"] = list(reversed(version["outputs"]))


def _rename_type_param(version: dict[str, Any]) -> None:
    version["type_constraints"] = {"U": {"allowed": "@floats"}}
    for param in version["inputs"] + version["outputs"]:
        param["type"] = "U"


def _z_own_type(version: dict[str, Any]) -> None:
    version["type_constraints"]["I"] = {"allowed": ["tensor(int64)"]}
    version["outputs"][1]["type"] = "I"


# rule id -> edit of Foo v1 that triggers it (in place), or of the Cat operator
FOO_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "ATTR-ADDED": _set(["attributes", "axes"], {"type": "ints"}),
    "ATTR-REMOVED": _del(["attributes", "scale"]),
    "ATTR-RENAMED": lambda v: v.update(
        attributes={
            "axis": {"type": "int", "default": 0},
            "mode": {"type": "string", "default": "nearest"},
            "factor": {"type": "float"},
        }
    ),
    "ATTR-TYPE-CHANGED": _set(["attributes", "scale", "type"], "int"),
    "ATTR-DEFAULT-CHANGED": _set(["attributes", "mode", "default"], "linear"),
    "ATTR-REQUIRED-CHANGED": _set(["attributes", "scale"], {"type": "float", "required": True}),
    "INPUT-ADDED": lambda v: v["inputs"].append({"name": "C", "type": "T", "option": "optional"}),
    "INPUT-REMOVED": lambda v: v["inputs"].pop(),
    "INPUT-RENAMED": _set(["inputs", 1, "name"], "bias"),
    "INPUT-REORDERED": _swap_inputs,
    "INPUT-OPTION-CHANGED": _del(["inputs", 1, "option"]),
    "INPUT-TYPE-CHANGED": _set(["inputs", 1, "type"], "tensor(float)"),
    "OUTPUT-ADDED": lambda v: v["outputs"].append({"name": "W", "type": "T", "option": "optional"}),
    "OUTPUT-REMOVED": lambda v: v["outputs"].pop(),
    "OUTPUT-RENAMED": _set(["outputs", 1, "name"], "extra"),
    "OUTPUT-REORDERED": _swap_outputs,
    "OUTPUT-OPTION-CHANGED": _set(["outputs", 1, "option"], "optional"),
    "OUTPUT-TYPE-CHANGED": _z_own_type,
    # a new type parameter retyping an existing output (one typing only an added input or output
    # is that addition's finding: tests/test_gate_precision.py)
    "TYPE-PARAM-ADDED": _z_own_type,
    "TYPE-PARAM-RENAMED": _rename_type_param,
    "TYPE-ADDED": _set(
        ["type_constraints", "T", "allowed"], ["tensor(float)", "tensor(double)", "tensor(bfloat16)"]
    ),
    "TYPE-REMOVED": _set(["type_constraints", "T", "allowed"], ["tensor(float)"]),
    "STATUS-CHANGED": _set(["status"], "experimental"),
    "VERSION-MODIFIED": _set(["inputs", 0, "differentiability"], "differentiable"),
    "DOC-CHANGED": _set(["doc"], "Foo does things, clarified."),
}


def rules_of(result: GateResult) -> set[str]:
    return {f.rule for f in result.findings}


@pytest.mark.parametrize("rule_id", sorted(FOO_EDITS))
def test_in_place_change_is_reported(tmp_path: Path, rule_id: str) -> None:
    result = gate(tmp_path, in_place(FOO_EDITS[rule_id]))
    assert rule_id in rules_of(result), [(f.rule, f.message) for f in result.findings]
    finding = next(f for f in result.findings if f.rule == rule_id)
    assert finding.operator == "com.test.Foo:1"
    assert finding.location.file.endswith("Foo.yaml") and finding.location.line > 0
    assert finding.old_location is not None and finding.old_location.line > 0
    expected_exit = 0 if rule_id == "DOC-CHANGED" else 1
    assert result.exit_code("error") == expected_exit


@pytest.mark.parametrize("rule_id", sorted(FOO_EDITS))
def test_same_change_as_new_version_is_clean(tmp_path: Path, rule_id: str) -> None:
    result = gate(tmp_path, as_new_version(FOO_EDITS[rule_id]))
    assert result.findings == (), [(f.rule, f.message) for f in result.findings]
    assert result.exit_code("info") == 0


def test_type_param_removed(tmp_path: Path) -> None:
    def edit(version: dict[str, Any]) -> None:
        version["type_constraints"] = {"T": {"allowed": "@floats"}, "I": {"allowed": ["tensor(int64)"]}}
        version["outputs"][1]["type"] = "I"

    # positive: the old tree has T and I, the new tree only T
    def both(tree: Tree) -> None:
        pass

    old_tree, new_tree = base_tree(), base_tree()
    edit(foo(old_tree))
    old = load_registry([write_tree(tmp_path / "old", old_tree)], cache=False)
    new = load_registry([write_tree(tmp_path / "new", new_tree)], cache=False)
    result = run_gate(old, new, GATE)
    assert "TYPE-PARAM-REMOVED" in rules_of(result)
    # negative: unchanged tree
    assert "TYPE-PARAM-REMOVED" not in rules_of(gate(tmp_path / "neg", both))


def test_arity_changes(tmp_path: Path) -> None:
    def edit(tree: Tree) -> None:
        cat = tree["ops"]["Cat"]["versions"][0]
        cat["inputs"][0]["min_arity"] = 2
        cat["outputs"][0]["homogeneous"] = False

    result = gate(tmp_path, edit)
    assert {"INPUT-ARITY-CHANGED", "OUTPUT-ARITY-CHANGED"} <= rules_of(result)
    messages = {f.rule: f.message for f in result.findings}
    assert "min_arity changed from 1 to 2" in messages["INPUT-ARITY-CHANGED"]
    assert "became heterogeneous" in messages["OUTPUT-ARITY-CHANGED"]

    def legal(tree: Tree) -> None:
        tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 8})
        cat = copy.deepcopy(CAT_V1)
        cat["since_version"] = 3
        cat["inputs"][0]["min_arity"] = 2
        tree["ops"]["Cat"]["versions"].append(cat)

    assert gate(tmp_path / "neg", legal).findings == ()


def test_rename_is_reported_once(tmp_path: Path) -> None:
    result = gate(tmp_path, in_place(FOO_EDITS["ATTR-RENAMED"]))
    assert rules_of(result) == {"ATTR-RENAMED"}
    assert result.findings[0].message.startswith("attribute `scale` renamed to `factor`")


def test_type_param_rename_does_not_report_uses(tmp_path: Path) -> None:
    result = gate(tmp_path, in_place(_rename_type_param))
    assert rules_of(result) == {"TYPE-PARAM-RENAMED"}


# --------------------------------------------------------------------------- registry-level rules


def _new_foo_version(since: int, add_opset: bool) -> Callable[[Tree], None]:
    def apply(tree: Tree) -> None:
        if add_opset:
            tree["domain"]["opset_versions"].append({"version": since, "ir_version": 8})
        new = copy.deepcopy(FOO_V1)
        new["since_version"] = since
        new["attributes"]["axes"] = {"type": "ints"}
        tree["ops"]["Foo"]["versions"].append(new)

    return apply


def test_version_not_in_new_opset(tmp_path: Path) -> None:
    bad = gate(tmp_path / "a", _new_foo_version(2, add_opset=False))
    assert rules_of(bad) == {"VERSION-NOT-NEW-OPSET"}
    assert bad.findings[0].operator == "com.test.Foo:2"
    assert "since_version: 3" in bad.findings[0].hint
    good = gate(tmp_path / "b", _new_foo_version(3, add_opset=True))
    assert good.findings == ()


def test_version_removed(tmp_path: Path) -> None:
    def two_versions(tree: Tree) -> None:
        _new_foo_version(2, add_opset=False)(tree)

    old_tree = base_tree()
    two_versions(old_tree)
    old = load_registry([write_tree(tmp_path / "old", old_tree)], cache=False)
    new = load_registry([write_tree(tmp_path / "new", base_tree())], cache=False)
    assert rules_of(run_gate(old, new, GATE)) == {"VERSION-REMOVED"}
    # negative: an unreleased (old tree never had it) version is not "removed"
    assert "VERSION-REMOVED" not in rules_of(run_gate(new, new, GATE))


def _add_operator(since: int, add_opset: bool, status: str = "stable") -> Callable[[Tree], None]:
    def apply(tree: Tree) -> None:
        if add_opset:
            tree["domain"]["opset_versions"].append({"version": since, "ir_version": 8})
        version = copy.deepcopy(EXP_V1)
        version["since_version"] = since
        version["status"] = status
        tree["ops"]["Gelu"] = {"operator": "Gelu", "domain": "com.test", "versions": [version]}

    return apply


def test_operator_added_to_released_opset(tmp_path: Path) -> None:
    bad = gate(tmp_path / "a", _add_operator(2, add_opset=False))
    assert rules_of(bad) == {"OPSET-OP-ADDED"}
    assert gate(tmp_path / "b", _add_operator(3, add_opset=True)).findings == ()
    # experimental operators are exempt
    assert gate(tmp_path / "c", _add_operator(2, add_opset=False, status="experimental")).findings == ()


def test_operator_removed_from_released_opset(tmp_path: Path) -> None:
    deleted = gate(tmp_path / "a", lambda t: t["ops"].pop("Cat"))
    assert rules_of(deleted) == {"OPSET-OP-REMOVED"}
    assert deleted.findings[0].old_location is not None
    early = gate(tmp_path / "b", lambda t: t["ops"]["Foo"].update(removed_in=2, replaced_by="Cat"))
    assert rules_of(early) == {"OPSET-OP-REMOVED"}

    def legal(tree: Tree) -> None:
        tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 8})
        tree["ops"]["Cat"].update(removed_in=3, replaced_by="Foo")

    assert gate(tmp_path / "c", legal).findings == ()
    # experimental operators are exempt
    assert gate(tmp_path / "d", lambda t: t["ops"].pop("Exp")).findings == ()


def test_removed_without_replacement(tmp_path: Path) -> None:
    def removal(replaced_by: str | None) -> Callable[[Tree], None]:
        def apply(tree: Tree) -> None:
            tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 8})
            tree["ops"]["Cat"]["removed_in"] = 3
            if replaced_by:
                tree["ops"]["Cat"]["replaced_by"] = replaced_by

        return apply

    bad = gate(tmp_path / "a", removal(None))
    assert rules_of(bad) == {"REMOVED-WITHOUT-REPLACEMENT"}
    assert bad.findings[0].severity.value == "warning"
    assert bad.exit_code("error") == 0 and bad.exit_code("warning") == 1
    assert gate(tmp_path / "b", removal("Foo")).findings == ()


def test_deprecated_without_replacement(tmp_path: Path) -> None:
    def deprecation(replaced_by: str | None) -> Callable[[Tree], None]:
        def apply(tree: Tree) -> None:
            tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 8})
            new = copy.deepcopy(CAT_V1)
            new.update(since_version=3, deprecated=True)
            tree["ops"]["Cat"]["versions"].append(new)
            if replaced_by:
                tree["ops"]["Cat"]["replaced_by"] = replaced_by

        return apply

    assert rules_of(gate(tmp_path / "a", deprecation(None))) == {"DEPRECATED-WITHOUT-REPLACEMENT"}
    assert gate(tmp_path / "b", deprecation("Foo")).findings == ()


def test_opset_removed_and_ir_changed(tmp_path: Path) -> None:
    old_tree = base_tree()
    old_tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 8})
    old = load_registry([write_tree(tmp_path / "old", old_tree)], cache=False)
    new = load_registry([write_tree(tmp_path / "new", base_tree())], cache=False)
    removed = run_gate(old, new, GATE)
    assert rules_of(removed) == {"OPSET-REMOVED"}
    assert removed.findings[0].subject == "3"
    ir = gate(tmp_path / "b", lambda t: t["domain"]["opset_versions"][1].update(ir_version=9))
    assert rules_of(ir) == {"OPSET-IR-CHANGED"}

    def grow(tree: Tree) -> None:
        tree["domain"]["opset_versions"].append({"version": 3, "ir_version": 9})

    assert gate(tmp_path / "c", grow).findings == ()


def test_type_set_change_names_every_affected_operator(tmp_path: Path) -> None:
    def setup(tree: Tree) -> None:
        tree["domain"]["type_sets"]["floats"].append("tensor(float16)")

    result = gate(tmp_path / "a", setup)
    summary = [f for f in result.findings if f.rule == "TYPE-SET-CHANGED"]
    assert len(summary) == 1
    assert "com.test.Foo:1" in summary[0].message and "+tensor(float16)" in summary[0].message
    assert summary[0].location.file.endswith("domain.yaml")
    # The finding points at the set's own key in domain.yaml.
    domain_lines = (tmp_path / "a" / "new").rglob("domain.yaml")
    text = next(iter(domain_lines)).read_text(encoding="utf-8").splitlines()
    assert text[summary[0].location.line - 1].lstrip().startswith("floats:")
    per_op = [f for f in result.findings if f.rule == "TYPE-ADDED"]
    assert [f.operator for f in per_op] == ["com.test.Foo:1"]
    assert "via type set `@floats`" in per_op[0].message
    assert gate(tmp_path / "b", lambda t: None).findings == ()


def test_experimental_operator_edits_are_exempt(tmp_path: Path) -> None:
    def edit(tree: Tree) -> None:
        tree["ops"]["Exp"]["versions"][0]["inputs"].append({"name": "Z", "type": "tensor(float)"})

    assert gate(tmp_path, edit).findings == ()


# --------------------------------------------------------------------------- catalog


def test_every_rule_is_documented() -> None:
    rules = all_rules()
    assert len({r.id for r in rules}) == len(rules)
    for rule in rules:
        assert rule.summary and rule.name
        for part in ("**Why:**", "**Before:**", "**After:**", "**How to fix:**"):
            assert part in rule.doc, (rule.id, part)
        assert rule.help_uri.endswith("#" + rule.id.lower())


def test_every_rule_has_a_positive_test() -> None:
    tested = set(FOO_EDITS) | {
        "TYPE-PARAM-REMOVED",
        "INPUT-ARITY-CHANGED",
        "OUTPUT-ARITY-CHANGED",
        "VERSION-NOT-NEW-OPSET",
        "VERSION-REMOVED",
        "OPSET-OP-ADDED",
        "OPSET-OP-REMOVED",
        "REMOVED-WITHOUT-REPLACEMENT",
        "DEPRECATED-WITHOUT-REPLACEMENT",
        "OPSET-REMOVED",
        "OPSET-IR-CHANGED",
        "TYPE-SET-CHANGED",
        "FUNCTION-BODY-CHANGED",  # tests/test_function_gate.py
        "SHAPE-RULE-CHANGED",  # tests/test_shape_tools.py
        "SHAPE-RULE-ADDED",
        "ALLOWLIST-EXPIRED",  # tests/test_compat_config.py
        "ALLOWLIST-UNUSED",
        "PLUGINS-IGNORED",  # tests/test_sec_plugins.py
    }
    # built-in rules (plugins loaded by other tests are not); the adapter rules are tested in test_bump.py
    built_in = {
        r.id for r in all_rules() if r.check is None or r.check.__module__.startswith("toolkit.compat.rules.")
    } - {"ADAPTER-MISSING", "ADAPTER-RECOMMENDED"}
    missing = built_in - tested
    assert not missing


def test_get_rule_is_case_insensitive() -> None:
    rule = get_rule("attr-added")
    assert rule is not None and rule.id == "ATTR-ADDED"
