"""The output folder's own bookkeeping (manifest, commit journal, `out` of opset.toml) is part of
the tree, which a pull request can commit: its word alone never deletes, replaces or writes a
file opset did not write.

Every test builds its hostile layout at run time (a journal and a manifest written by the test, a
user's file of unknown content, a planted temporary file) in a temporary project, drives the real
CLI in-process (`toolkit.cli.main`), and checks the exit code, the message and that nothing
outside the outputs changed (the whole project tree hashed before and after)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from output_helpers import LOCATED, as_if_written, project_with_specs, tree_state
from output_helpers import run_generate as _run

from toolkit.cli import main
from toolkit.load import writer
from toolkit.load.journal import JOURNAL, JOURNAL_FORMAT, TMP_SUFFIX
from toolkit.load.manifest import MANIFEST


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture()
def generated(here: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A project whose outputs `opset generate` wrote (generated/), with a fake `.git` folder."""
    project_with_specs(here)
    (here / ".git").mkdir()
    (here / ".git/HEAD").write_text("ref: refs/heads/main\n")
    assert _run(capsys)[0] == 0
    return here / "generated"


def _plant_journal(out: Path, renames: list[list[object]], removals: list[str]) -> None:
    record = {"format": JOURNAL_FORMAT, "renames": renames, "removals": removals, "last": MANIFEST}
    (out / JOURNAL).write_text(json.dumps(record))


# --------------------------------------------------------------------------- A: --check


@pytest.mark.parametrize("form", ["current", "old"])
def test_check_applies_no_journal_and_writes_nothing(
    generated: Path, here: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """A journal (as this version writes it, or the older form of the review's reproducer) makes
    `--check` report a pending commit and exit 2, with not one byte of the project changed."""
    (generated / "docs/KEEP.md").write_text("user file\n")
    (generated / ("python/pyproject.toml" + TMP_SUFFIX)).write_text("planted\n")
    rename = ["python/pyproject.toml" + TMP_SUFFIX, "python/pyproject.toml"]
    if form == "current":
        _plant_journal(generated, [[*rename, _sha(b"planted\n")]], ["docs/KEEP.md"])
    else:
        (generated / JOURNAL).write_text(json.dumps({"renames": [rename], "removals": ["docs/KEEP.md"]}))
    before = tree_state(here)
    code, text = _run(capsys, "--check")
    assert code == 2, text
    assert f"generated/{JOURNAL}: a commit of `opset generate` was interrupted" in text
    assert "hint: run `opset generate` (without --check) to finish it" in text
    assert tree_state(here) == before


# --------------------------------------------------------------------------- B: the journal


def test_a_planted_journal_touches_only_opsets_own_outputs(
    generated: Path, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each step of a well-formed journal that names something opset did not write is left alone
    and named in a warning: a user's file in a kind's folder, a file outside the kinds' folders, a
    staged file whose bytes are not those the journal records. The run then finishes normally;
    outside the outputs nothing changed. (A journal naming a `.git` component is no journal opset
    wrote, refused whole: tests/test_sec_round13.py.)"""
    (generated / "docs/KEEP.md").write_text("user file\n")  # not listed in the manifest
    (generated / "docs/.git").mkdir()
    (generated / "docs/.git/HEAD").write_text("ref: refs/heads/main\n")
    (generated / "notes.txt").write_text("mine\n")  # beside the kinds' folders
    pyproject = generated / "python/pyproject.toml"
    generated_pyproject = pyproject.read_bytes()
    (generated / ("python/pyproject.toml" + TMP_SUFFIX)).write_text("planted\n")
    _plant_journal(
        generated,
        [["python/pyproject.toml" + TMP_SUFFIX, "python/pyproject.toml", "0" * 64]],
        ["docs/KEEP.md", "notes.txt"],
    )
    outside = {k: v for k, v in tree_state(here).items() if not k.startswith("generated/")}
    code, text = _run(capsys)
    assert code == 0, text
    for name in ("docs/KEEP.md", "notes.txt", "python/pyproject.toml"):
        assert re.search(
            rf"^opset: warning: generated/{re.escape(name)}: not (removed|replaced)", text, re.M
        ), text
    assert "not among the outputs" in text
    assert "opset did not write it" in text and "not the one the journal records" in text
    assert (generated / "docs/KEEP.md").read_text() == "user file\n"
    assert (generated / "docs/.git/HEAD").read_text() == "ref: refs/heads/main\n"
    assert (generated / "notes.txt").read_text() == "mine\n"
    assert pyproject.read_bytes() == generated_pyproject  # the generated file, not the planted one
    assert not (generated / JOURNAL).exists()
    assert {k: v for k, v in tree_state(here).items() if not k.startswith("generated/")} == outside
    assert _run(capsys, "--check")[0] == 0


def test_the_reviewers_journal_at_the_project_root_is_refused_whole(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review's reproducer: `--out .` (the invoker's choice) and a journal at the project root
    naming `.git/HEAD`, an untracked file and a spec file. Nothing of it is applied by a check or by
    a writing run (the older form: refused whole, exit 2)."""
    project_with_specs(here)
    (here / ".git").mkdir()
    (here / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (here / "untracked-notes.txt").write_text("secret local notes\n")
    removals = [".git/HEAD", "untracked-notes.txt", "specs/org.example.abc/A.yaml"]
    (here / JOURNAL).write_text(json.dumps({"renames": [], "removals": removals}))
    before = tree_state(here)
    for argv in (["--check"], []):
        code, text = _run(capsys, "--out", ".", *argv)
        assert code == 2, text
        assert JOURNAL in text
        assert tree_state(here) == before


def test_a_journal_in_the_current_form_at_the_project_root_removes_nothing_of_the_project(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same removals in this version's journal form: every one is left alone and named, the run
    goes on (with no manifest, the kinds' folders are new). (`.git/HEAD` is no path a journal opset
    wrote names: such a journal is refused whole, tests/test_sec_round13.py.)"""
    project_with_specs(here)
    (here / ".git").mkdir()
    (here / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (here / "untracked-notes.txt").write_text("secret local notes\n")
    _plant_journal(here, [], ["untracked-notes.txt", "specs/org.example.abc/A.yaml"])
    kept = {rel: (here / rel).read_bytes() for rel in (".git/HEAD", "untracked-notes.txt", "opset.toml")}
    code, text = _run(capsys, "--out", ".")
    assert code == 0, text
    assert text.count("opset: warning: ./") == 2, text
    assert {rel: (here / rel).read_bytes() for rel in kept} == kept
    assert (here / "specs/org.example.abc").is_dir() and list((here / "specs/org.example.abc").iterdir())


def test_a_commit_killed_during_its_removals_is_finished_by_the_next_run(
    generated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real interrupted commit (killed after its renames, while removing a stale file) is still
    finished by the next writing run: the manifest goes in last, so the stale file is judged by the
    manifest that listed it. A check in between reports it pending and changes nothing."""
    stale = generated / "docs/org.example.abc/ops/Gone.md"
    stale.write_text("<!-- generated by opset-toolkit from specs; do not edit -->\nold page\n")
    as_if_written(generated, "docs/org.example.abc/ops/Gone.md")
    (generated / "docs/index.md").write_text("an older index\n")
    as_if_written(generated, "docs/index.md")
    real_unlink = os.unlink

    def dying_unlink(path: str | os.PathLike[str], *args: object, **kwargs: object) -> None:
        if os.fspath(path).endswith("Gone.md"):
            raise KeyboardInterrupt("killed")
        real_unlink(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "unlink", dying_unlink)
    code = main(["generate", "--no-cache", "--only", "docs,python"])
    monkeypatch.setattr(os, "unlink", real_unlink)
    assert code != 0 and "interrupted" in capsys.readouterr().err
    assert (generated / JOURNAL).exists() and stale.exists()
    assert (generated / "docs/index.md").read_text() != "an older index\n"  # renamed in already
    before = tree_state(generated)
    assert _run(capsys, "--check")[0] == 2
    assert tree_state(generated) == before
    code, text = _run(capsys)
    assert code == 0 and "warning" not in text, text
    assert not stale.exists() and not (generated / JOURNAL).exists()
    assert (
        "docs/org.example.abc/ops/Gone.md"
        not in json.loads((generated / MANIFEST).read_text())["kinds"]["docs"]
    )
    assert _run(capsys, "--check")[0] == 0


# --------------------------------------------------------------------------- B: the manifest


def test_a_listed_file_with_other_bytes_is_never_deleted(
    generated: Path, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review's reproducer: the manifest lists a user's untracked file (any digest). It is not
    opset's: the run is refused naming it (exit 2); `--adopt` does not delete it either."""
    notes = generated / "docs/NOTES.md"
    notes.write_text("my local, untracked notes\n")
    data = json.loads((generated / MANIFEST).read_text())
    data["kinds"]["docs"]["docs/NOTES.md"] = "0" * 64
    (generated / MANIFEST).write_text(json.dumps(data))
    before = tree_state(here)
    code, text = _run(capsys)
    assert code == 2 and "generated/docs/NOTES.md" in text and "--adopt" in text, text
    assert tree_state(here) == before
    code, text = _run(capsys, "--adopt")
    assert code == 0, text
    assert notes.read_text() == "my local, untracked notes\n"
    assert "docs/NOTES.md" not in json.loads((generated / MANIFEST).read_text())["kinds"]["docs"]


def test_a_manifest_that_lists_a_git_path_is_not_trusted(
    generated: Path, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A manifest entry with a `.git` component, even with the right digest, makes the manifest
    count as absent: the file is not removed as stale (refused; `--adopt` leaves it)."""
    (generated / "docs/.git").mkdir()
    (generated / "docs/.git/config").write_text("[core]\n")
    as_if_written(generated, "docs/.git/config")
    before = tree_state(here)
    code, text = _run(capsys)
    assert code == 2 and "generated/docs/.git/config" in text, text
    assert tree_state(here) == before
    assert _run(capsys, "--adopt")[0] == 0
    assert (generated / "docs/.git/config").read_text() == "[core]\n"


def test_a_listed_output_edited_by_hand_is_regenerated_while_it_keeps_its_header(
    generated: Path, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A generated page edited since (by hand, by a merge) is still opset's by its header: --check
    reports it stale (exit 1, nothing written) and a writing run replaces it."""
    page = generated / "docs/index.md"
    page.write_text("<!-- generated by opset-toolkit from specs; do not edit -->\nmy edits\n")
    before = tree_state(here)
    code, text = _run(capsys, "--check")
    assert code == 1 and "docs/index.md" in text, text
    assert tree_state(here) == before
    assert _run(capsys)[0] == 0
    assert "my edits" not in page.read_text()


def test_a_listed_output_replaced_by_a_headerless_file_is_not_overwritten_without_adopt(
    generated: Path, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Listed, but neither the recorded digest nor the generated header: not opset's (a manifest
    can list a user's own file), so refused with and without --check; --adopt overwrites it."""
    page = generated / "docs/index.md"
    page.write_text("my own notes\n")
    before = tree_state(here)
    for argv in ([], ["--check"]):
        code, text = _run(capsys, *argv)
        assert code == 2 and "generated/docs/index.md (would be overwritten)" in text, text
        assert tree_state(here) == before
    assert _run(capsys, "--adopt")[0] == 0
    assert "my own notes" not in page.read_text()


# --------------------------------------------------------------------------- C: `out`, `spec_root`


@pytest.mark.parametrize(
    "value",
    [".git", ".git/out", ".GIT/out", ".git./out", ".git /out", "x/../.git", "git~1/out", ".", "./", "x/.."],
)
def test_out_in_gits_folder_or_the_project_folder_is_refused(
    here: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    project_with_specs(here, f"out = {json.dumps(value)}\n")
    (here / ".git").mkdir()
    (here / ".git/HEAD").write_text("ref: refs/heads/main\n")
    before = tree_state(here)
    code, text = _run(capsys)
    assert code == 2, text
    found = LOCATED.search(text)
    assert found and found["file"] == "opset.toml" and found["line"] == "2", text
    assert "hint:" in text and "--out" in text
    assert tree_state(here) == before


def test_spec_root_in_gits_folder_is_refused(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "opset.toml").write_text('spec_root = ".Git/objects"\n')
    (here / ".git/objects").mkdir(parents=True)
    code, text = _run(capsys)
    assert code == 2, text
    found = LOCATED.search(text)
    assert found and found["file"] == "opset.toml" and found["line"] == "1", text
    assert "--specs" in text and not (here / "generated").exists()


def test_the_invokers_out_stays_trusted(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project_with_specs(here, 'out = ".git/out"\n')
    assert _run(capsys)[0] == 2
    code, text = _run(capsys, "--out", ".git/out")  # the invoker's own choice
    assert code == 0, text
    assert (here / ".git/out" / MANIFEST).is_file()


def test_the_staged_digest_is_recorded_in_the_journal(tmp_path: Path) -> None:
    """What a roll-forward compares: the journal names each staged file with its digest."""
    staging = writer.Staging(tmp_path)
    staging.stage("a/b.txt", b"bytes")
    assert staging.staged == [
        (str(tmp_path / ("a/b.txt" + TMP_SUFFIX)), str(tmp_path / "a/b.txt"), _sha(b"bytes"))
    ]
    staging.abandon()


# --------------------------------------------------------------------------- D: name clashes

GAIN = """\
operator: {name}
domain: com.evil
versions:
  - since_version: 1
    doc: Multiplies every element of `X` by `gain`.
    inputs:
      - {{name: X, type: T, doc: The input signal.}}
    outputs:
      - {{name: Y, type: T, doc: The output.}}
    attributes:
      gain: {{type: float, default: 1.0, doc: The factor.}}
    type_constraints:
      T: {{allowed: [float], doc: Floating-point tensors.}}
    examples:
      - name: {example}
        attributes: {{gain: 2.0}}
        inputs:
          - {{dtype: float, shape: [2], data: [1, 2]}}
        outputs:
          - {{dtype: float, shape: [2], data: [2, 4]}}
"""


@pytest.mark.parametrize(
    ("second", "example", "line"),
    [("gain", "x", 1), ("Gain_a", "b", 15)],  # one docs page (case) / one test folder test_gain_a_b
)
def test_generated_names_equal_ignoring_case_are_an_error(
    here: Path, capsys: pytest.CaptureFixture[str], second: str, example: str, line: int
) -> None:
    folder = here / "specs/com.evil"
    folder.mkdir(parents=True)
    (here / "opset.toml").write_text('spec_root = "specs"\n')
    (folder / "domain.yaml").write_text(
        "domain: com.evil\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
    )
    (folder / "Gain.yaml").write_text(GAIN.format(name="Gain", example="x" if second == "gain" else "a_b"))
    (folder / f"{second}.yaml").write_text(GAIN.format(name=second, example=example))
    code = main(["generate", "--no-cache", "--only", "docs,backend_tests"])
    text = "".join(capsys.readouterr())
    assert code == 1, text
    found = re.search(r"^(\S+):(\d+):(\d+): error\[OUTPUT-NAME-CLASH\]: .*'Gain'", text, re.M)
    assert found and found[1].endswith(f"com.evil/{second}.yaml") and int(found[2]) == line, text
    assert "hint: rename one of them" in text
    assert not (here / "generated").exists()
