"""The gate on real release history (#26 items 1, 4, 5): one compatibility model for the gate
and the converter, profile severities that follow from BC/FC by one rule, the vendor-additive
profile, and the successors of onnx's deprecated operators.

Every tree is written at test time: an old tree with opset 1 of a small domain, a new tree that
adds opset 2 with a new version of `Op` (a bump) or edits version 1 in place; the last section's
trees hold onnx's real MaxPool versions (onnxruntime's `com.ms.internal.nhwc` copies them), whose
version 8 adds an optional output `Indices` typed by a new type parameter: one change (no
adapter needed, one finding in place), converted by `opset convert` and checked by onnxruntime."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.adapters import MissingAdapter, Node, apply_downgrade, apply_upgrade
from toolkit.adapters.node import AdapterError
from toolkit.cli import main
from toolkit.compat.config import BUILTIN_PROFILES, kept_severity
from toolkit.compat.rules import all_rules
from toolkit.model.change_compat import FINDING_CLASSES
from toolkit.registry.core import load_registry

DOMAIN = "com.test.gate"
V1 = """\
  - since_version: 1
    doc: Adds a bias.
    inputs:
      - {name: X, type: T}
      - {name: B, type: T, option: optional}
    outputs:
      - {name: Y, type: T}
    attributes:
      alpha: {type: float, default: 1.0}
    type_constraints:
      T: {allowed: [tensor(float), tensor(double)]}
"""
# name -> (the new version's lines after `based_on: 1`, an old node moves unchanged)
BUMPS: dict[str, tuple[str, bool]] = {
    "type-widened": (
        "    type_constraints:\n      T: {allowed: [tensor(float), tensor(double), tensor(int4)]}\n",
        True,
    ),
    "trailing-optional-input": (
        "    inputs:\n      - {name: X, type: T}\n      - {name: B, type: T, option: optional}\n"
        "      - {name: scale, type: T, option: optional}\n",
        True,
    ),
    "attribute-with-default": ("    attributes:\n      beta: {type: float, default: 0.0}\n", True),
    "input-renamed": (
        "    inputs:\n      - {name: input, type: T}\n      - {name: B, type: T, option: optional}\n",
        True,
    ),
    "attribute-removed": ("    attributes:\n      alpha: null\n", False),
    "type-narrowed": ("    type_constraints:\n      T: {allowed: [tensor(float)]}\n", False),
    "required-input-added": (
        "    inputs:\n      - {name: X, type: T}\n      - {name: B, type: T, option: optional}\n"
        "      - {name: scale, type: T}\n",
        False,
    ),
    "same-signature": ("    doc: Adds a bias, rounding half to even.\n", False),
    # a trailing optional output typed by a new type parameter (MaxPool 8's Indices): no old node
    # has it, so the parameter constrains none; the same parameter retyping Y breaks them
    "optional-output-with-its-type-parameter": (
        "    outputs:\n      - {name: Y, type: T}\n      - {name: mask, type: M, option: optional}\n"
        "    type_constraints:\n      T: {allowed: [tensor(float), tensor(double)]}\n"
        "      M: {allowed: [tensor(bool)]}\n",
        True,
    ),
    "output-retyped-to-a-new-type-parameter": (
        "    outputs:\n      - {name: Y, type: U}\n"
        "    type_constraints:\n      T: {allowed: [tensor(float), tensor(double)]}\n"
        "      U: {allowed: [tensor(float)]}\n",
        False,
    ),
}


def _domain(versions: int) -> str:
    lines = "".join(f"  - {{version: {v}, ir_version: 9}}\n" for v in range(1, versions + 1))
    return f"domain: {DOMAIN}\nopset_versions:\n{lines}"


def write_tree(root: Path, operator_versions: str, opsets: int, extra: dict[str, str] | None = None) -> Path:
    folder = root / DOMAIN
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(_domain(opsets), encoding="utf-8")
    (folder / "Op.yaml").write_text(
        f"operator: Op\ndomain: {DOMAIN}\nversions:\n{operator_versions}", encoding="utf-8"
    )
    for name, text in (extra or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return root


def bump_trees(tmp_path: Path, change: str) -> tuple[Path, Path]:
    old = write_tree(tmp_path / "old", V1, 1)
    new = write_tree(tmp_path / "new", V1 + "  - since_version: 2\n    based_on: 1\n" + change, 2)
    return old, new


def gate(
    capsys: pytest.CaptureFixture[str], old: Path, new: Path, *args: str
) -> tuple[int, list[dict[str, object]], str]:
    code = main(["diff", "--no-cache", "--against", str(old), "--specs", str(new), "--format", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)["findings"], out


# --------------------------------------------------------------------------- item 1: one model


@pytest.mark.parametrize("case", sorted(BUMPS))
def test_adapter_needed_exactly_where_the_converter_cannot_move_an_old_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    change, moves = BUMPS[case]
    old, new = bump_trees(tmp_path, change)
    code, findings, _ = gate(capsys, old, new)
    adapters = [f for f in findings if f["rule"] == "ADAPTER-MISSING"]
    if moves:
        assert code == 0 and adapters == [], findings
    else:
        (finding,) = adapters
        assert code == 1 and finding["operator"] == f"{DOMAIN}.Op:2"
        assert finding["location"]["file"].endswith("Op.yaml") and finding["location"]["line"] > 0
        assert finding["bc"] is True and finding["fc"] is False
        assert "breaking way" not in str(finding["message"])
    # The converter asks the same model: it moves a version-1 node exactly when the gate asked
    # for no adapter, and refuses for want of one otherwise.
    registry = load_registry([new], cache=False)
    v1, v2 = registry.get_schema("Op", 1, DOMAIN), registry.get_schema("Op", 2, DOMAIN)
    node = Node("Op", ["x", "b"], ["y"], {"alpha": 2.0}, DOMAIN)
    if moves:
        moved = apply_upgrade(node, v1, v2)
        assert moved.node.inputs == ["x", "b"] and moved.node.attributes.get("alpha") == 2.0
    else:
        with pytest.raises(MissingAdapter):
            apply_upgrade(node, v1, v2)


def test_a_type_widening_is_never_shown_as_breaking_backward_compatibility(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write_tree(tmp_path / "old", V1, 1)
    widened = V1.replace("tensor(double)]", "tensor(double), tensor(int4)]")
    more = BUMPS["type-widened"][0].replace("tensor(int4)]", "tensor(int4), tensor(int8)]")
    new = write_tree(tmp_path / "new", widened + "  - since_version: 2\n    based_on: 1\n" + more, 2)
    code = main(["diff", "--no-cache", "--against", str(old), "--specs", str(new)])
    out = capsys.readouterr().out
    assert code == 1  # int4 added to the released version 1 in place; version 2 adds int8
    assert "error[TYPE-ADDED]" in out and "breaks: BC=no FC=yes" in out
    findings = "\n".join(line for line in out.splitlines() if not line.startswith("legend:"))
    assert "BC=yes" not in findings and "ADAPTER-" not in out


def test_implicit_adapter_checks_what_an_old_runtime_would_reject_on_the_way_back(tmp_path: Path) -> None:
    both = BUMPS["trailing-optional-input"][0] + BUMPS["attribute-with-default"][0] + BUMPS["type-widened"][0]
    new = write_tree(tmp_path / "new", V1 + "  - since_version: 2\n    based_on: 1\n" + both, 2)
    registry = load_registry([new], cache=False)
    v1, v2 = registry.get_schema("Op", 1, DOMAIN), registry.get_schema("Op", 2, DOMAIN)
    plain = Node("Op", ["x"], ["y"], {"beta": 0.0}, DOMAIN)
    back = apply_downgrade(plain, v2, v1, value_types={"x": "tensor(float)", "y": "tensor(float)"})
    assert back.node.inputs == ["x"] and "beta" not in back.node.attributes
    for node, types, why in (
        (Node("Op", ["x", "", "s"], ["y"], {}, DOMAIN), {}, "input 2"),
        (Node("Op", ["x"], ["y"], {"beta": 3.0}, DOMAIN), {}, "beta"),
        (Node("Op", ["x"], ["y"], {}, DOMAIN), {"x": "tensor(int4)", "y": "tensor(int4)"}, "int4"),
    ):
        with pytest.raises(AdapterError, match=why):
            apply_downgrade(node, v2, v1, value_types=types or None)


def test_convert_moves_a_vendor_node_across_a_widening_without_a_declared_adapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    new = write_tree(
        tmp_path / "new", V1 + "  - since_version: 2\n    based_on: 1\n" + BUMPS["type-widened"][0], 2
    )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Op", ["x"], ["y"], domain=DOMAIN)], "g", [x], [y])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(DOMAIN, 1)], ir_version=10
    )
    source, target = tmp_path / "m.onnx", tmp_path / "out.onnx"
    onnx.save(model, source)
    code = main(["convert", str(source), "--specs", str(new), "--to", f"{DOMAIN}=2", "-o", str(target)])
    _, err = capsys.readouterr()
    assert code == 0, err
    moved = onnx.load(target)
    assert {o.domain: o.version for o in moved.opset_import}[DOMAIN] == 2


# --------------------------------------------------------------------------- item 4: profiles


def _in_place(tmp_path: Path, edited_v1: str) -> tuple[Path, Path]:
    return write_tree(tmp_path / "old", V1, 1), write_tree(tmp_path / "new", edited_v1, 1)


def test_bc_only_keeps_exactly_the_findings_that_break_bc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = (
        V1.replace("{name: X, type: T}", "{name: input, type: T}")  # renamed: neither
        .replace("tensor(double)]", "tensor(double), tensor(int4)]")  # type added: FC only
        .replace("alpha: {type: float, default: 1.0}", "alpha: {type: float, default: 2.0}")  # both
        .replace("Adds a bias.", "Adds a bias to X.")  # docs: neither
    )
    old, new = _in_place(tmp_path, edited)
    code, strict, _ = gate(capsys, old, new)
    assert code == 1
    assert {f["rule"] for f in strict} == {
        "INPUT-RENAMED",
        "TYPE-ADDED",
        "ATTR-DEFAULT-CHANGED",
        "DOC-CHANGED",
    }
    code, bc_only, _ = gate(capsys, old, new, "--profile", "bc-only")
    assert code == 1 and [f["rule"] for f in bc_only] == ["ATTR-DEFAULT-CHANGED"]
    assert [f for f in strict if f["bc"]] == bc_only
    # Without the default change nothing that breaks BC is left: bc-only passes, INPUT-RENAMED
    # (an error of onnx-strict that breaks neither BC nor FC) does not survive it.
    old2, new2 = _in_place(tmp_path / "2", edited.replace("default: 2.0", "default: 1.0"))
    assert gate(capsys, old2, new2, "--profile", "bc-only")[:2] == (0, [])
    code, findings, _ = gate(capsys, old2, new2)
    assert code == 1 and "INPUT-RENAMED" in {f["rule"] for f in findings}


def test_every_builtin_profile_follows_one_rule_from_the_flags() -> None:
    """Every gate rule, every class, every built-in profile: kept at its own severity unless the
    profile tolerates the class; the classes each profile tolerates are what its doc says."""
    from toolkit.model.change_compat import finding_class

    assert BUILTIN_PROFILES["onnx-strict"].tolerates == frozenset()
    assert BUILTIN_PROFILES["bc-only"].tolerates == frozenset(FINDING_CLASSES) - {"bc"}
    assert BUILTIN_PROFILES["vendor-additive"].tolerates == {"additive"}
    for profile in BUILTIN_PROFILES.values():
        for rule in all_rules():
            for bc in (False, True):
                for fc in (False, True):
                    kept = kept_severity(profile, rule, bc, fc, rule.severity)
                    dropped = (
                        rule.category != "config" and finding_class(rule.id, bc, fc) in profile.tolerates
                    )
                    assert kept is (None if dropped else rule.severity), (profile.name, rule.id, bc, fc)
    assert finding_class("INPUT-ADDED", False, True) == "additive"
    assert finding_class("TYPE-ADDED", False, True) == "fc"
    assert finding_class("INPUT-RENAMED", False, False) == "neither"


def test_a_profile_of_the_config_may_tolerate_classes_and_a_bad_one_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _in_place(tmp_path, V1.replace("{name: X, type: T}", "{name: input, type: T}"))
    config = tmp_path / "opset.toml"
    config.write_text('[profiles.names]\ntolerate = ["neither"]\n', encoding="utf-8")
    assert gate(capsys, old, new, "--config", str(config), "--profile", "names")[:2] == (0, [])
    config.write_text('[profiles.names]\ntolerate = ["renames"]\n', encoding="utf-8")
    code = main(
        [
            "diff",
            "--no-cache",
            "--against",
            str(old),
            "--specs",
            str(new),
            "--config",
            str(config),
            "--profile",
            "names",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "`tolerate` must be a list of finding classes" in err and "Traceback" not in err


# --------------------------------------------------------------------------- item 5: vendor policy


OTHER = f"operator: Extra\ndomain: {DOMAIN}\nversions:\n  - since_version: 1\n    inputs: [{{name: X, type: tensor(float)}}]\n    outputs: [{{name: Y, type: tensor(float)}}]\n"


def test_vendor_additive_allows_additions_to_a_released_opset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grown = V1.replace(
        "      - {name: B, type: T, option: optional}\n",
        "      - {name: B, type: T, option: optional}\n      - {name: scale, type: T, option: optional}\n",
        1,
    ).replace(
        "alpha: {type: float, default: 1.0}",
        "alpha: {type: float, default: 1.0}\n      beta: {type: int, default: 0}",
    )
    old = write_tree(tmp_path / "old", V1, 1)
    new = write_tree(tmp_path / "new", grown, 1, {"Extra.yaml": OTHER})
    code, strict, _ = gate(capsys, old, new)
    assert code == 1 and {f["rule"] for f in strict} == {"INPUT-ADDED", "ATTR-ADDED", "OPSET-OP-ADDED"}
    assert gate(capsys, old, new, "--profile", "vendor-additive")[:2] == (0, [])


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (("      - {name: B, type: T, option: optional}\n", ""), "INPUT-REMOVED"),
        (("{name: X, type: T}", "{name: input, type: T}"), "INPUT-RENAMED"),
        (("tensor(double)]", "tensor(double), tensor(int8)]"), "TYPE-ADDED"),
        (
            (
                "      alpha: {type: float, default: 1.0}\n",
                "      alpha: {type: float, default: 1.0}\n      k: {type: int, required: true}\n",
            ),
            "ATTR-ADDED",
        ),
    ],
)
def test_vendor_additive_refuses_removals_renames_and_type_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], rule: str
) -> None:
    old, new = _in_place(tmp_path, V1.replace(*edit))
    code, findings, _ = gate(capsys, old, new, "--profile", "vendor-additive")
    assert code == 1 and rule in {f["rule"] for f in findings if f["severity"] == "error"}


# --------------------------------------------------------------------------- item 4: replacements


def test_imported_deprecated_operators_name_the_successor_onnx_states(
    onnx_catalog_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from toolkit.onnx_bridge.overlay import replacement

    ml = onnx_catalog_dir / "ai.onnx.ml" / "TreeEnsembleClassifier.yaml"
    text = ml.read_text(encoding="utf-8")
    assert "\nreplaced_by: TreeEnsemble\n" in text
    assert replacement("", "Scatter") == "ScatterElements" and replacement("ai.onnx", "Upsample") == "Resize"
    # The gate between a tree where version 5 is not there yet and the imported one: the
    # deprecation names its successor, so DEPRECATED-WITHOUT-REPLACEMENT has nothing to say.
    old, new = tmp_path / "old", tmp_path / "new"
    for root in (old, new):
        shutil.copytree(onnx_catalog_dir / "ai.onnx.ml", root / "ai.onnx.ml")
    cut = text.index("- since_version: 5")
    (old / "ai.onnx.ml" / "TreeEnsembleClassifier.yaml").write_text(text[:cut], encoding="utf-8")
    _, findings, _ = gate(capsys, old, new)
    assert "DEPRECATED-WITHOUT-REPLACEMENT" not in {f["rule"] for f in findings}
    # Without the fact (what the importer wrote before) the rule fires.
    (new / "ai.onnx.ml" / "TreeEnsembleClassifier.yaml").write_text(
        text.replace("replaced_by: TreeEnsemble\n", ""), encoding="utf-8"
    )
    _, findings, _ = gate(capsys, old, new)
    assert "DEPRECATED-WITHOUT-REPLACEMENT" in {f["rule"] for f in findings}


# --------------------------------------------------------------------------- item 1: MaxPool 8

NHWC = "com.ms.internal.nhwc"


def _maxpool(catalog: Path) -> dict[int, dict[str, Any]]:
    data = yaml.safe_load((catalog / "ai.onnx" / "MaxPool.yaml").read_text(encoding="utf-8"))
    versions = {v["since_version"]: v for v in data["versions"]}
    if 8 not in versions or "Indices" not in [o["name"] for o in versions[8]["outputs"]]:
        pytest.skip("the installed onnx has no MaxPool 8 with an Indices output")
    return versions


def _nhwc_tree(root: Path, versions: list[dict[str, Any]], top: int) -> Path:
    """onnx's MaxPool versions in a vendor domain, as onnxruntime's NHWC copies hold them, with
    no adapter (the overlay's are for onnx's own domains)."""
    folder = root / NHWC
    folder.mkdir(parents=True)
    opsets = [{"version": v, "ir_version": 3} for v in range(1, top + 1)]
    (folder / "domain.yaml").write_text(yaml.safe_dump({"domain": NHWC, "opset_versions": opsets}), "utf-8")
    kept = [
        {k: copy.deepcopy(v) for k, v in version.items() if k not in ("adapter", "examples")}
        for version in versions
    ]
    operator = {"operator": "MaxPool", "domain": NHWC, "versions": kept}
    (folder / "MaxPool.yaml").write_text(yaml.safe_dump(operator, sort_keys=False), "utf-8")
    return root


def _text(capsys: pytest.CaptureFixture[str], old: Path, new: Path) -> tuple[int, str]:
    code = main(["diff", "--no-cache", "--color", "never", "--against", str(old), "--specs", str(new)])
    return code, capsys.readouterr().out


def test_maxpool_8_needs_no_adapter_and_a_retyping_still_does(
    onnx_catalog_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    versions = _maxpool(onnx_catalog_dir)
    old = _nhwc_tree(tmp_path / "old", [versions[1]], 7)
    new = _nhwc_tree(tmp_path / "new", [versions[1], versions[8]], 8)
    assert gate(capsys, old, new)[:2] == (0, [])  # onnx-strict: require_adapters
    # the new parameter binding Y, which MaxPool 1 has: old nodes may not keep their types
    retyped = copy.deepcopy(versions[8])
    retyped["outputs"][0]["type"] = "T2"
    retyped["type_constraints"]["T2"] = {"allowed": ["tensor(float)"]}
    new = _nhwc_tree(tmp_path / "retyped", [versions[1], retyped], 8)
    code, findings, _ = gate(capsys, old, new)
    assert code == 1 and [f["rule"] for f in findings] == ["ADAPTER-MISSING"], findings
    message = str(findings[0]["message"])
    assert "type parameter `T2` added" in message and "output `Y` type changed" in message
    assert "type parameter `I`" not in message  # Indices' own parameter is still no blocker
    code, out = _text(capsys, old, new)
    assert code == 1 and re.search(r"MaxPool\.yaml:\d+:\d+: error\[ADAPTER-MISSING\]", out), out


def test_maxpool_indices_added_in_place_is_one_finding(
    onnx_catalog_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    versions = _maxpool(onnx_catalog_dir)
    edited = copy.deepcopy(versions[1])
    edited["outputs"] += [o for o in versions[8]["outputs"] if o["name"] == "Indices"]
    edited["type_constraints"]["I"] = versions[8]["type_constraints"]["I"]
    old = _nhwc_tree(tmp_path / "old", [versions[1]], 7)
    new = _nhwc_tree(tmp_path / "new", [edited], 7)
    code, findings, _ = gate(capsys, old, new)
    assert code == 1 and [f["rule"] for f in findings] == ["OUTPUT-ADDED"], findings
    assert str(findings[0]["message"]).startswith(
        "output `Indices` added (I, optional) with its new type parameter `I` (`tensor(int64)`)"
    )
    assert findings[0]["bc"] is False and findings[0]["fc"] is True
    code, out = _text(capsys, old, new)
    assert re.search(r"MaxPool\.yaml:\d+:\d+: error\[OUTPUT-ADDED\]", out) and "hint:" in out, out
    # a vendor's additive policy allows a trailing optional output, its type parameter and its
    # shape rule with it (no SHAPE-RULE-ADDED for an output that was not there)
    assert gate(capsys, old, new, "--profile", "vendor-additive")[:2] == (0, [])
    # taking both out again is one removal
    code, findings, _ = gate(capsys, new, old)
    assert code == 1 and [f["rule"] for f in findings] == ["OUTPUT-REMOVED"], findings
    assert "with its type parameter `I`" in str(findings[0]["message"])
    # a new parameter retyping Y in place is still a change of its own (and back a removal)
    retyped = copy.deepcopy(versions[1])
    retyped["outputs"][0]["type"] = "T2"
    retyped["type_constraints"]["T2"] = {"allowed": ["tensor(float)"]}
    new = _nhwc_tree(tmp_path / "retyped", [retyped], 7)
    assert sorted(f["rule"] for f in gate(capsys, old, new)[1]) == ["OUTPUT-TYPE-CHANGED", "TYPE-PARAM-ADDED"]
    assert sorted(f["rule"] for f in gate(capsys, new, old)[1]) == [
        "OUTPUT-TYPE-CHANGED",
        "TYPE-PARAM-REMOVED",
    ]


POOL_X = [[[[0.1 * ((3 * r + 7 * c + ch) % 11) for c in range(5)] for r in range(5)] for ch in range(2)]]


def _pool_model(opset: int, outputs: list[str], domain: str = "") -> Any:
    from onnx import TensorProto, helper

    node = helper.make_node("MaxPool", ["x"], outputs, domain=domain, kernel_shape=[2, 2])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])
    graph_outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])]
    if "i" in outputs:
        graph_outputs.append(helper.make_tensor_value_info("i", TensorProto.INT64, [1, 2, 4, 4]))
    opsets = [helper.make_opsetid("", 17 if domain else opset)]
    if domain:
        opsets.append(helper.make_opsetid(domain, opset))
    graph = helper.make_graph([node], "pool", [x], graph_outputs)
    return helper.make_model(graph, opset_imports=opsets, ir_version=7)


def test_opset_convert_moves_a_maxpool_7_node_to_8_and_refuses_indices_going_back(
    onnx_catalog_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx = pytest.importorskip("onnx")
    np = pytest.importorskip("numpy")
    ort = pytest.importorskip("onnxruntime")

    def run(model: Any) -> Any:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, {"x": np.array(POOL_X, dtype=np.float32)})[0]

    source, target = tmp_path / "pool7.onnx", tmp_path / "pool8.onnx"
    onnx.save(_pool_model(7, ["y"]), source)
    assert main(["convert", str(source), "--to", "ai.onnx=8", "--out", str(target)]) == 0, capsys.readouterr()
    converted = onnx.load(target)
    assert [(o.domain, o.version) for o in converted.opset_import] == [("", 8)]
    onnx.checker.check_model(converted, full_check=True)
    assert np.array_equal(run(onnx.load(source)), run(converted))
    # a MaxPool-8 node giving Indices has no MaxPool-1 counterpart: refused, nothing written
    source, target = tmp_path / "pool8i.onnx", tmp_path / "back.onnx"
    onnx.save(_pool_model(8, ["y", "i"]), source)
    capsys.readouterr()
    assert main(["convert", str(source), "--to", "ai.onnx=7", "--out", str(target)]) == 1
    out, err = capsys.readouterr()
    assert "ai.onnx.MaxPool:1 takes 1 outputs, the node has 2" in out + err and not target.exists()
    # the vendor copy moves the same way, with no adapter declared in its specs
    specs = _nhwc_tree(tmp_path / "specs", [_maxpool(onnx_catalog_dir)[v] for v in (1, 8)], 8)
    source, target = tmp_path / "nhwc7.onnx", tmp_path / "nhwc8.onnx"
    onnx.save(_pool_model(7, ["y"], NHWC), source)
    argv = ["convert", str(source), "--specs", str(specs), "--to", f"{NHWC}=8", "--out", str(target)]
    assert main(argv) == 0, capsys.readouterr()
    assert {o.domain: o.version for o in onnx.load(target).opset_import}[NHWC] == 8
