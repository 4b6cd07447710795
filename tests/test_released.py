"""One definition of "released" (toolkit.model.released), used by the gate and by `opset bump`.

With a release table naming the domain, an opset version is frozen once a release row ships it;
without one, once it exists in the old tree. The trees are copies of the shipped vendor domain
(opsets 1..3) run through the real CLI.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolkit import load_registry
from toolkit.cli import main
from toolkit.model.released import is_released, open_opset, released_through

REPO = Path(__file__).resolve().parent.parent
VISION = REPO / "opsets" / "com.acme.vision"
# The shipped table's rows up to 2025.1: opset 3 of com.acme.vision is declared but not shipped.
TABLE_THROUGH_2 = (
    "releases:\n"
    '  - {release: "2024.1", ir_version: 9, opsets: {com.acme.vision: 1}}\n'
    '  - {release: "2025.1", ir_version: 10, opsets: {com.acme.vision: 2}}\n'
)
ATTR = "    attributes:\n      mean: null\n      std: null\n"
ATTR_ADDED = (
    "    attributes:\n      mean: null\n      std: null\n      epsilon: {type: float, default: 0.0}\n"
)
NEW_OP = (
    "operator: Sharpen\ndomain: com.acme.vision\nversions:\n  - since_version: 3\n    doc: Sharpens.\n"
    "    inputs:\n      - {name: X, type: T}\n    outputs:\n      - {name: Y, type: T}\n"
    '    type_constraints:\n      T: {allowed: "@float_types"}\n'
)


def _tree(root: Path, table: bool) -> Path:
    shutil.copytree(VISION, root / "com.acme.vision")
    if table:
        (root / "releases.yaml").write_text(TABLE_THROUGH_2, encoding="utf-8")
    return root


def _second_pr(new: Path) -> None:
    """More work on opset 3 after a first pull request declared it: Normalize:3 gets an
    attribute, a new operator joins opset 3, opset 3's IR version is raised."""
    normalize = new / "com.acme.vision" / "Normalize.yaml"
    text = normalize.read_text(encoding="utf-8")
    assert ATTR in text
    normalize.write_text(text.replace(ATTR, ATTR_ADDED), encoding="utf-8")
    (new / "com.acme.vision" / "Sharpen.yaml").write_text(NEW_OP, encoding="utf-8")
    domain = new / "com.acme.vision" / "domain.yaml"
    text = domain.read_text(encoding="utf-8")
    marker = "  - version: 3\n    ir_version: 10\n"
    assert marker in text
    domain.write_text(text.replace(marker, "  - version: 3\n    ir_version: 11\n"), encoding="utf-8")


def _diff(capsys: pytest.CaptureFixture[str], old: Path, new: Path) -> tuple[int, set[str]]:
    code = main(["diff", "--against", str(old), "--specs", str(new), "--format", "json", "--no-cache"])
    out = capsys.readouterr().out
    return code, {f["rule"] for f in json.loads(out)["findings"] if f["severity"] == "error"}


@pytest.mark.parametrize("table", [True, False], ids=["release-table", "no-table"])
def test_gate_follows_the_release_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: bool
) -> None:
    old = _tree(tmp_path / "old", table)
    new = _tree(tmp_path / "new", table)
    _second_pr(new)
    code, rules = _diff(capsys, old, new)
    if table:
        # opset 3 is declared but no release ships it: the work may go on, the gate passes
        assert (code, rules) == (0, set())
    else:
        # today's rule: every opset of the old tree counts as released
        assert code == 1
        assert {"ATTR-ADDED", "OPSET-OP-ADDED", "OPSET-IR-CHANGED"} <= rules


def test_released_versions_stay_frozen_with_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _tree(tmp_path / "old", True)
    new = _tree(tmp_path / "new", True)
    fused = new / "com.acme.vision" / "FusedConv.yaml"  # FusedConv:2 shipped in release 2025.1
    text = fused.read_text(encoding="utf-8")
    activation = "      activation: {type: string, default: none"
    assert text.count(activation) == 1
    fused.write_text(
        text.replace(activation, "      groups: {type: int, default: 1}\n" + activation), encoding="utf-8"
    )
    code, rules = _diff(capsys, old, new)
    assert (code, rules) == (1, {"ATTR-ADDED"})


def test_adding_a_release_row_in_the_same_change_does_not_freeze_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate asks the OLD tree's table: the pull request that cuts the release may still
    finish the opset; one that deletes a row cannot unfreeze what the base shipped."""
    old = _tree(tmp_path / "old", True)
    new = _tree(tmp_path / "new", True)
    _second_pr(new)
    (new / "releases.yaml").write_text(
        TABLE_THROUGH_2 + '  - {release: "2026.1", ir_version: 11, opsets: {com.acme.vision: 3}}\n',
        encoding="utf-8",
    )
    assert _diff(capsys, old, new) == (0, set())
    # the other way round: the base shipped opset 3, the change deletes that row
    assert _diff(capsys, new, old)[0] == 1


def test_the_definition(tmp_path: Path) -> None:
    with_table = load_registry([_tree(tmp_path / "a", True)], cache=False)
    without = load_registry([_tree(tmp_path / "b", False)], cache=False)
    dom_a, dom_b = with_table.domain("com.acme.vision"), without.domain("com.acme.vision")
    assert released_through(dom_a, with_table.releases) == 2
    assert released_through(dom_b, without.releases) == 3
    assert is_released(dom_a, with_table.releases, 2) and not is_released(dom_a, with_table.releases, 3)
    assert is_released(dom_b, without.releases, 3)
    assert open_opset(dom_a, with_table.releases) == 3  # join the declared, unshipped opset
    assert open_opset(dom_b, without.releases) == 4
    assert open_opset(dom_b, without.releases, newest_unreleased=True) == 3
    # --unreleased cannot reopen what a release row shipped
    assert open_opset(dom_a, with_table.releases, newest_unreleased=True) == 3


def _since(tree: Path, op: str) -> int:
    return load_registry([tree], cache=False).versions(op, "com.acme.vision")[-1].since_version


def test_bump_joins_the_open_opset_with_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _tree(tmp_path / "old", True)
    tree = _tree(tmp_path / "new", True)
    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0
    assert "bumped com.acme.vision.FusedConv to version 3" in capsys.readouterr().out
    assert _since(tree, "FusedConv") == 3
    assert load_registry([tree], cache=False).domain("com.acme.vision").versions == (1, 2, 3)
    # the bump the command made passes the gate that uses the same definition
    code = main(["diff", "--against", str(old), "--specs", str(tree), "--no-cache"])
    out = capsys.readouterr().out
    assert "VERSION-NOT-NEW-OPSET" not in out and "OPSET-OP-ADDED" not in out, out
    assert code in (0, 1)  # ADAPTER-MISSING for the empty stub is the only error possible
    assert all("ADAPTER-" in line for line in out.splitlines() if "error[" in line), out


def test_bump_unreleased_without_opset_joins_the_newest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _tree(tmp_path / "specs", False)
    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0  # opens opset 4
    assert main(["bump", "com.acme.vision.ColorConvert", "--unreleased", "--specs", str(tree)]) == 0
    capsys.readouterr()
    assert _since(tree, "FusedConv") == 4 and _since(tree, "ColorConvert") == 4
    assert load_registry([tree], cache=False).domain("com.acme.vision").versions == (1, 2, 3, 4)
