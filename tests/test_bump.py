"""`opset bump` and the authoring workflow end to end: edits keep every other byte, refusals, the gate."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest
from vision_copy import REPO, VISION, newest_opset, operator_older_than, since

from toolkit import load_registry
from toolkit.authoring.bump import STUB_COMMENT
from toolkit.cli import main

ABC = REPO / "opsets" / "org.example.abc"
DILATIONS = (
    "    attributes:\n      dilations: {type: ints, default: [1, 1], doc: Spacing between kernel taps.}\n"
)
# Required: old nodes lack it, so they cannot move to the new version unchanged (an adapter is needed).
DILATIONS_REQUIRED = DILATIONS.replace("default: [1, 1]", "required: true")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the shipped vendor domain (no release table: every opset counts as released)."""
    shutil.copytree(VISION, tmp_path / "specs" / "com.acme.vision")
    return tmp_path / "specs"


def _only_insertions(before: str, after: str) -> list[str]:
    """The lines `after` adds to `before`; fails when anything else changed."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        assert tag in ("equal", "insert"), f"bump changed existing lines: {a[i1:i2]} -> {b[j1:j2]}"
        if tag == "insert":
            added += b[j1:j2]
    return added


def _snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.yaml"))
    }


def test_bump_adds_lines_only(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(tree)
    top = newest_opset(tree / "com.acme.vision")
    new_opset, based_on = top.version + 1, since(tree, "FusedConv")
    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0
    out = capsys.readouterr().out
    after = _snapshot(tree)
    changed = sorted(k for k in after if after[k] != before[k])
    assert changed == ["com.acme.vision/FusedConv.yaml", "com.acme.vision/domain.yaml"]
    assert _only_insertions(before["com.acme.vision/domain.yaml"], after["com.acme.vision/domain.yaml"]) == [
        f"  - version: {new_opset}\n",
        f"    ir_version: {top.ir_version}\n",
    ]
    added = _only_insertions(
        before["com.acme.vision/FusedConv.yaml"], after["com.acme.vision/FusedConv.yaml"]
    )
    assert added[0] == f"  - since_version: {new_opset}\n"
    assert f"    based_on: {based_on}\n" in added
    assert added[-1] == "    adapter: {upgrade: []}\n"
    assert any("TODO(opset bump): list the steps" in line for line in added)
    assert after["com.acme.vision/FusedConv.yaml"].startswith(before["com.acme.vision/FusedConv.yaml"])
    assert f"bumped com.acme.vision.FusedConv to version {new_opset} (based_on: {based_on})" in out
    end = before["com.acme.vision/FusedConv.yaml"].count("\n")  # the new version starts below
    assert f"FusedConv.yaml:{end + 1}: write what changes in version {new_opset}" in out
    stub_lines = STUB_COMMENT.count("\n") + 1  # the TODO comment lists every step kind
    assert f"FusedConv.yaml:{end + 4 + stub_lines}: fill in the empty adapter stub" in out

    registry = load_registry([tree], cache=False)
    domain = registry.domain("com.acme.vision")
    assert domain.versions == tuple(range(1, new_opset + 1))
    assert domain.opset(new_opset).ir_version == top.ir_version  # type: ignore[union-attr]
    old, new = registry.versions("FusedConv", "com.acme.vision")[-2:]
    assert (new.since_version, new.based_on) == (new_opset, based_on)
    assert (new.inputs, new.attributes, new.type_constraints) == (
        old.inputs,
        old.attributes,
        old.type_constraints,
    )
    assert new.adapter is not None and new.adapter.upgrade == () and new.adapter.downgrade is None
    assert not registry.diagnostics


def test_refusals(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(tree)
    top = newest_opset(tree / "com.acme.vision")
    # an operator with no version in the newest opset yet: only "released" stops it joining
    joiner = operator_older_than(tree, top.version)
    cases = [
        (
            [f"com.acme.vision.{joiner}", "--opset", str(top.version)],
            f"not newer than every existing opset version (newest: {top.version})",
        ),
        (
            ["com.acme.vision.Normalize", "--opset", "2"],
            "opset 2 is not after com.acme.vision.Normalize's newest",
        ),
        (
            ["com.acme.vision.FusedConv", "--opset", "2"],
            "FusedConv already has a version with since_version 2",
        ),
        (["com.acme.vision.Blur"], "was removed in opset 3"),
        (["com.acme.vision.NoSuchOp"], "no operator 'NoSuchOp'"),
        (
            ["com.acme.vision.FusedConv", "--ir-version", str(top.ir_version - 1)],
            f"IR version {top.ir_version - 1} is lower than opset {top.version}'s {top.ir_version}",
        ),
        (["com.acme.vision.FusedConv:2"], "without :SINCE"),
    ]
    for args, message in cases:
        assert main(["bump", *args, "--specs", str(tree)]) == 2, args
        err = capsys.readouterr().err
        assert message in err, (args, err)
        assert "Traceback" not in err
    assert _snapshot(tree) == before, "a refused bump writes nothing"


def test_two_operators_into_one_new_opset(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new_opset, normalize_newest = newest_opset(tree / "com.acme.vision").version + 1, since(tree, "Normalize")
    opset = ["--opset", str(new_opset)]
    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0
    # The new opset exists now; without a release table it counts as released unless told otherwise.
    assert main(["bump", "com.acme.vision.Normalize", *opset, "--specs", str(tree)]) == 2
    assert f"pass --unreleased if opset {new_opset} has not been released yet" in capsys.readouterr().err
    assert main(["bump", "com.acme.vision.Normalize", *opset, "--unreleased", "--specs", str(tree)]) == 0
    assert main(["bump", "com.acme.vision.FusedConv", *opset, "--unreleased", "--specs", str(tree)]) == 2
    assert f"already has a version with since_version {new_opset}" in capsys.readouterr().err
    registry = load_registry([tree], cache=False)
    assert registry.domain("com.acme.vision").versions == tuple(range(1, new_opset + 1))
    assert registry.versions("Normalize", "com.acme.vision")[-1].based_on == normalize_newest


def test_release_table_decides_what_is_released(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "releases.yaml").write_text(
        'releases:\n  - {release: "1", ir_version: 10, opsets: {com.acme.vision: 2}}\n', encoding="utf-8"
    )
    assert main(["bump", "com.acme.vision.DecodeImage", "--opset", "2", "--specs", str(tree)]) == 2
    assert "not newer than released opset 2 (release table)" in capsys.readouterr().err
    # Opset 3 is not in any release: an operator with no version from opset 3 on may still join it.
    joiner = operator_older_than(tree, 3)
    assert main(["bump", f"com.acme.vision.{joiner}", "--opset", "3", "--specs", str(tree)]) == 0
    assert since(tree, joiner) == 3


def test_flow_style_domain_and_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(ABC, tmp_path / "org.example.abc")
    domain = tmp_path / "org.example.abc" / "domain.yaml"
    before = _snapshot(tmp_path)
    assert main(["bump", "org.example.abc.B", "--dry-run", "--specs", str(tmp_path)]) == 0
    assert "dry run: nothing written" in capsys.readouterr().out
    assert _snapshot(tmp_path) == before
    assert main(["bump", "org.example.abc.B", "--specs", str(tmp_path)]) == 0
    assert _only_insertions(before["org.example.abc/domain.yaml"], domain.read_text(encoding="utf-8")) == [
        "  - {version: 5, ir_version: 3}\n"
    ]
    # A domain written as one flow list gets the entry inside the brackets.
    domain.write_text(
        "domain: org.example.abc\nopset_versions: [{version: 1, ir_version: 3}, "
        "{version: 2, ir_version: 3}, {version: 3, ir_version: 3}, {version: 4, ir_version: 3},\n"
        "  {version: 5, ir_version: 3}]  # keep me\n"
        "type_sets: {numbers: [tensor(float), tensor(double), tensor(int32), tensor(int64)]}\n",
        encoding="utf-8",
    )
    assert main(["bump", "org.example.abc.C", "--ir-version", "4", "--specs", str(tmp_path)]) == 0
    assert "  {version: 5, ir_version: 3}, {version: 6, ir_version: 4}]  # keep me\n" in domain.read_text(
        encoding="utf-8"
    )
    assert load_registry([tmp_path], cache=False).domain("org.example.abc").versions == (1, 2, 3, 4, 5, 6)


def test_pyyaml_layout_of_imported_catalog(onnx_catalog_dir: Path, tmp_path: Path) -> None:
    """Imported files use indentless block lists; the new version matches their layout."""
    shutil.copytree(onnx_catalog_dir / "ai.onnx.ml", tmp_path / "ai.onnx.ml")
    op_file = tmp_path / "ai.onnx.ml" / "Binarizer.yaml"
    before = op_file.read_text(encoding="utf-8")
    assert main(["bump", "ai.onnx.ml.Binarizer", "--specs", str(tmp_path)]) == 0
    added = _only_insertions(before, op_file.read_text(encoding="utf-8"))
    assert added[0] == "- since_version: 6\n" and added[-1] == "  adapter: {upgrade: []}\n"
    registry = load_registry([tmp_path], cache=False)
    assert [v.since_version for v in registry.versions("Binarizer", "ai.onnx.ml")] == [1, 6]


# --------------------------------------------------------------------------- end to end + gate


def _gate(tree: Path, base: Path, *extra: str) -> int:
    return main(["diff", "--specs", str(tree), "--against", str(base), "--no-cache", *extra])


def _fused_conv_model(version: int):  # type: ignore[no-untyped-def]
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [1, 1, 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain="com.acme.vision", name="conv")
    graph = helper.make_graph([node], "g", [x, w], [y])
    return onnx.helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.acme.vision", version)]
    )


def test_end_to_end_bump_edit_validate_diff_generate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.onnx_bridge.convert import ConversionError, convert_model

    base = tmp_path / "base"
    shutil.copytree(VISION, base / "com.acme.vision")
    tree = tmp_path / "work"
    shutil.copytree(base, tree)
    new_opset = newest_opset(tree / "com.acme.vision").version + 1
    gen = tmp_path / "generated"
    assert main(["generate", "--specs", str(tree), "--out", str(gen), "-q"]) == 0

    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0
    op_file = tree / "com.acme.vision" / "FusedConv.yaml"
    text = op_file.read_text(encoding="utf-8")
    stub = "    adapter: {upgrade: []}\n"
    assert stub in text
    op_file.write_text(text.replace(stub, DILATIONS_REQUIRED + stub), encoding="utf-8")  # a breaking change
    capsys.readouterr()

    # The stub left empty is valid spec text but no adapter: the gate and convert still ask for it.
    assert main(["validate", str(tree)]) == 0
    assert _gate(tree, base) == 1
    out = capsys.readouterr().out
    assert "error[ADAPTER-MISSING]" in out and "attribute `dilations` added" in out
    assert "its `upgrade` list is empty" in out
    with pytest.raises(
        ConversionError, match=rf"FusedConv:{new_opset} declares no adapter \(its `upgrade` list is empty\)"
    ):
        convert_model(
            _fused_conv_model(2), load_registry([tree], cache=False), {"com.acme.vision": new_opset}
        )

    # The author fills in a real step: validate, gate and convert pass.
    real = "    adapter:\n      upgrade:\n        - {kind: set_attribute_if_absent, attribute: dilations, value: [1, 1]}\n"
    op_file.write_text(op_file.read_text(encoding="utf-8").replace(stub, real), encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(tree)]) == 0
    assert _gate(tree, base) == 0, capsys.readouterr()  # a legal bump: new version with an adapter
    assert "0 error(s)" in capsys.readouterr().out
    moved = convert_model(
        _fused_conv_model(2), load_registry([tree], cache=False), {"com.acme.vision": new_opset}
    )
    assert [(a.name, list(a.ints)) for a in moved.model.graph.node[0].attribute] == [("dilations", [1, 1])]
    assert main(["generate", "--specs", str(tree), "--out", str(gen), "--check"]) == 1  # outputs are stale
    assert main(["generate", "--specs", str(tree), "--out", str(gen), "-q"]) == 0
    assert main(["generate", "--specs", str(tree), "--out", str(gen), "--check"]) == 0

    # Without the adapter the same bump fails the gate under onnx-strict (require_adapters).
    op_file.write_text(op_file.read_text(encoding="utf-8").replace(real, ""), encoding="utf-8")
    capsys.readouterr()
    assert _gate(tree, base) == 1
    out = capsys.readouterr().out
    assert "error[ADAPTER-MISSING]" in out and "attribute `dilations` added" in out


def test_compatible_stub_with_a_new_required_attribute_is_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review's repro: `compatible` kept after adding a required attribute no longer passes."""
    tree = tmp_path / "work"
    shutil.copytree(VISION, tree / "com.acme.vision")
    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0
    op_file = tree / "com.acme.vision" / "FusedConv.yaml"
    text = op_file.read_text(encoding="utf-8").replace(
        "    adapter: {upgrade: []}\n",
        "    attributes:\n      alpha: {type: float, required: true}\n    adapter: {upgrade: [{kind: compatible}]}\n",
    )
    op_file.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(tree)]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "error[ADAPTER-NOT-COMPATIBLE]" in out and "attribute `alpha` added" in out
    step = text.splitlines().index("    adapter: {upgrade: [{kind: compatible}]}") + 1
    assert f"FusedConv.yaml:{step}:" in out, out  # at the `compatible` step


def test_same_edit_in_place_fails_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "base"
    shutil.copytree(VISION, base / "com.acme.vision")
    tree = tmp_path / "work"
    shutil.copytree(base, tree)
    op_file = tree / "com.acme.vision" / "FusedConv.yaml"
    text = op_file.read_text(encoding="utf-8")
    anchor = "      activation: {type: string"
    op_file.write_text(
        text.replace(anchor, DILATIONS.split("\n")[1] + "\n" + anchor, 1), encoding="utf-8"
    )  # dilations added to the released version 2
    assert main(["validate", str(tree)]) == 0
    capsys.readouterr()
    assert _gate(tree, base) == 1
    out = capsys.readouterr().out
    assert "com.acme.vision.FusedConv:2" in out and "dilations" in out


def test_adapter_gate_rule_severity_follows_profile_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "base"
    shutil.copytree(VISION, base / "com.acme.vision")
    tree = tmp_path / "work"
    shutil.copytree(base, tree)
    assert main(["bump", "com.acme.vision.Normalize", "--specs", str(tree)]) == 0
    op_file = tree / "com.acme.vision" / "Normalize.yaml"
    text = op_file.read_text(encoding="utf-8")
    assert "    adapter: {upgrade: []}\n" in text  # the stub stays: it counts as no adapter
    capsys.readouterr()
    # No change from version 3: the same signature, so the new version is about what nodes
    # compute and old nodes may not mean the same there: an adapter is needed (the converter
    # moves no node across it either).
    relaxed = tmp_path / "opset.toml"
    relaxed.write_text("options = { require_adapters = false }\n", encoding="utf-8")
    assert _gate(tree, base, "--config", str(relaxed)) == 0
    out = capsys.readouterr().out
    assert "warning[ADAPTER-RECOMMENDED]" in out and "ADAPTER-MISSING" not in out
    assert "the signature is unchanged" in out
    assert _gate(tree, base) == 1
    out = capsys.readouterr().out
    assert "error[ADAPTER-MISSING]" in out and "ADAPTER-RECOMMENDED" not in out
    # The built-in bc-only profile does not set require_adapters: the warning, not the error.
    assert _gate(tree, base, "--profile", "bc-only") == 0
    out = capsys.readouterr().out
    assert "warning[ADAPTER-RECOMMENDED]" in out and "ADAPTER-MISSING" not in out
    assert _gate(tree, base, "--profile", "bc-only", "--fail-on", "warning") == 1
    # An optional attribute with a default: every old node moves unchanged, no adapter is needed.
    op_file.write_text(
        text + "    attributes:\n      epsilon: {type: float, default: 0.0}\n", encoding="utf-8"
    )
    capsys.readouterr()
    assert _gate(tree, base) == 0
    assert "ADAPTER-" not in capsys.readouterr().out


def test_docs_name_the_profiles_that_require_adapters() -> None:
    from toolkit.compat.config import BUILTIN_PROFILES
    from toolkit.compat.rules import adapters as gate_rules

    strict = sorted(name for name, p in BUILTIN_PROFILES.items() if p.options.get("require_adapters"))
    assert strict == ["onnx-strict"]
    assert "only `onnx-strict` sets it" in (gate_rules.__doc__ or "")
    assert "built-in `bc-only`" in (gate_rules.__doc__ or "")
    authoring = (REPO / "docs" / "guide" / "authoring.md").read_text(encoding="utf-8")
    assert "(of the built-in profiles only `onnx-strict`)" in authoring
    ci_gate = (REPO / "docs" / "guide" / "ci-gate.md").read_text(encoding="utf-8")
    flat = " ".join(ci_gate.split())
    assert "`onnx-strict` (sets `require_adapters`)" in flat
    assert "`bc-only` and `vendor-additive` do not set `require_adapters`" in flat
