"""One definition of "released" (toolkit.model.released), used by the gate and by `opset bump`.

With a release table naming the domain, an opset version is frozen once a release row ships it;
without one, once it exists in the old tree. The trees are copies of the shipped vendor domain
(opsets 1..N, N read from the copy) run through the real CLI; their table ships 1..N-1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from vision_copy import VISION, newest_opset, operator_in, operator_older_than, opsets, since

from toolkit import load_registry
from toolkit.cli import main
from toolkit.model.released import is_released, open_opset, released_through

# An optional attribute no operator of the domain has: adding it breaks a released version only.
EXTRA_ATTR = "      sharpness_extra: {type: float, default: 0.0}\n"
NEW_OP = (
    "operator: Sharpen\ndomain: com.acme.vision\nversions:\n  - since_version: {opset}\n"
    "    doc: Sharpens.\n"
    "    inputs:\n      - {{name: X, type: T}}\n    outputs:\n      - {{name: Y, type: T}}\n"
    '    type_constraints:\n      T: {{allowed: "@float_types"}}\n'
)


def _table_through(domain_dir: Path, last: int) -> str:
    """A release table whose rows ship the copy's opset versions 1..`last`, one row each."""
    return "releases:\n" + "".join(
        f'  - {{release: "r{o.version}", ir_version: {o.ir_version}, opsets: {{com.acme.vision: {o.version}}}}}\n'
        for o in opsets(domain_dir)
        if o.version <= last
    )


def _tree(root: Path, table: bool) -> Path:
    """A copy of the shipped domain; with `table`, a release table shipping every opset version
    but the newest, which is declared and not shipped (open)."""
    shutil.copytree(VISION, root / "com.acme.vision")
    if table:
        last = newest_opset(root / "com.acme.vision").version - 1
        (root / "releases.yaml").write_text(_table_through(root / "com.acme.vision", last), encoding="utf-8")
    return root


def _add_attribute(op_file: Path, opset: int) -> None:
    """Give `op_file`'s version `opset` (its last version) the optional attribute EXTRA_ATTR,
    into its own `attributes:` block if it has one."""
    text = op_file.read_text(encoding="utf-8")
    head = f"  - since_version: {opset}\n"
    assert text.count(head) == 1, f"{op_file.name}: no block-style version {opset}"
    start = text.index(head)
    assert "\n  - since_version:" not in text[start + 1 :], f"{op_file.name}: version {opset} is not the last"
    block = text[start:]
    if "\n    attributes:\n" in block:
        anchor = start + block.index("\n    attributes:\n") + len("\n    attributes:\n")
        text = text[:anchor] + EXTRA_ATTR + text[anchor:]
    else:
        anchor = start + len(head)
        text = text[:anchor] + "    attributes:\n" + EXTRA_ATTR + text[anchor:]
    op_file.write_text(text, encoding="utf-8")


def _second_pr(new: Path) -> None:
    """More work on the newest opset N after a first pull request declared it: an operator
    version of opset N gets an attribute, a new operator joins opset N, opset N's IR version
    is raised."""
    domain_dir = new / "com.acme.vision"
    top = newest_opset(domain_dir)
    _add_attribute(domain_dir / f"{operator_in(new, top.version)}.yaml", top.version)
    (domain_dir / "Sharpen.yaml").write_text(NEW_OP.format(opset=top.version), encoding="utf-8")
    domain = domain_dir / "domain.yaml"
    text = domain.read_text(encoding="utf-8")
    marker = f"  - version: {top.version}\n    ir_version: {top.ir_version}\n"
    assert marker in text
    raised = f"  - version: {top.version}\n    ir_version: {top.ir_version + 1}\n"
    domain.write_text(text.replace(marker, raised), encoding="utf-8")


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
        # opset N is declared but no release ships it: the work may go on, the gate passes
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
    # the row ships opset N as this change leaves it (its IR version raised)
    (new / "releases.yaml").write_text(
        _table_through(new / "com.acme.vision", newest_opset(new / "com.acme.vision").version),
        encoding="utf-8",
    )
    assert _diff(capsys, old, new) == (0, set())
    # the other way round: the base shipped opset N, the change deletes that row
    assert _diff(capsys, new, old)[0] == 1


def test_the_definition(tmp_path: Path) -> None:
    with_table = load_registry([_tree(tmp_path / "a", True)], cache=False)
    without = load_registry([_tree(tmp_path / "b", False)], cache=False)
    dom_a, dom_b = with_table.domain("com.acme.vision"), without.domain("com.acme.vision")
    n = newest_opset(tmp_path / "a" / "com.acme.vision").version
    assert released_through(dom_a, with_table.releases) == n - 1
    assert released_through(dom_b, without.releases) == n
    assert is_released(dom_a, with_table.releases, n - 1) and not is_released(dom_a, with_table.releases, n)
    assert is_released(dom_b, without.releases, n)
    assert open_opset(dom_a, with_table.releases) == n  # join the declared, unshipped opset
    assert open_opset(dom_b, without.releases) == n + 1
    assert open_opset(dom_b, without.releases, newest_unreleased=True) == n
    # --unreleased cannot reopen what a release row shipped
    assert open_opset(dom_a, with_table.releases, newest_unreleased=True) == n


def test_bump_joins_the_open_opset_with_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _tree(tmp_path / "old", True)
    tree = _tree(tmp_path / "new", True)
    n = newest_opset(tree / "com.acme.vision").version
    op = operator_older_than(tree, n)  # one that has no version in the open opset N yet
    assert main(["bump", f"com.acme.vision.{op}", "--specs", str(tree)]) == 0
    assert f"bumped com.acme.vision.{op} to version {n} " in capsys.readouterr().out
    assert since(tree, op) == n
    assert load_registry([tree], cache=False).domain("com.acme.vision").versions == tuple(range(1, n + 1))
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
    opened = newest_opset(tree / "com.acme.vision").version + 1
    assert main(["bump", "com.acme.vision.FusedConv", "--specs", str(tree)]) == 0  # opens opset N+1
    assert main(["bump", "com.acme.vision.ColorConvert", "--unreleased", "--specs", str(tree)]) == 0
    capsys.readouterr()
    assert since(tree, "FusedConv") == opened and since(tree, "ColorConvert") == opened
    assert load_registry([tree], cache=False).domain("com.acme.vision").versions == tuple(
        range(1, opened + 1)
    )
