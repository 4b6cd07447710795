"""Which old tree the gate compares with, and which of its versions count as released.

Every tree is written at test time from a copy of the shipped specs (`org.example.abc`, and
`com.acme.vision` with releases.yaml: opsets 1-3 released, opset 4 open), in a real git
repository where the old side is a git ref. The cases are the ways a pull request could make
the gate read nothing, or too little, of the base:

- the spec folder moved (`git mv opsets specs` plus `spec_root = "specs"`) with a breaking edit;
- a `--specs` narrower than the spec root (a domain folder, one file), which used to leave the
  root's releases.yaml unread, so the open opset 4 counted as released;
- a base with no spec files at all (a ref, or an empty --against directory): no longer silent;
- function bodies and shape rules edited in the open opset 4 (not released: no finding);
- type parameters renamed in another key order, or two names swapped (matched by what they type);
- function bodies that compute the same thing (independent nodes swapped, a local value renamed).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from git_helpers import git as _git

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "opsets"
C_TYPES = "      T: {allowed: [tensor(float), tensor(double)]}\n"  # org.example.abc.C:3, released
BLUR = "com.acme.vision/GaussianBlur.yaml"
BLUR_V4 = "  - since_version: 4\n"  # the open opset's version of GaussianBlur
SIGMA = "      sigma: {type: float, required: true, doc: Standard deviation in pixels.}\n"  # GaussianBlur:2
FINDING = re.compile(r"^\S+:[0-9]+:[0-9]+: [a-z]+\[[A-Z0-9-]+\]", re.MULTILINE)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _diff_edited(
    root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    file: str,
    edits: list[tuple[str, str]],
) -> tuple[int, str, str]:
    """`opset diff` of a copy of the example specs against one whose `file` has `edits`."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(root)
    shutil.copytree(SPECS, "old")
    shutil.copytree(SPECS, "new")
    for old, new in edits:
        _edit(root / "new" / file, old, new)
    return _diff(capsys, "--against", "old", "--specs", "new", "--fail-on", "info")


def _open_attribute(path: Path) -> None:
    """An attribute added to GaussianBlur:4, the version of the open opset 4."""
    _edit(path, BLUR_V4, BLUR_V4 + "    attributes:\n      extra: {type: int, default: 0}\n")


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose one commit holds the shipped specs in opsets/."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    root = tmp_path / "repo"
    shutil.copytree(SPECS, root / "opsets")
    (root / "README").write_text("specs\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "specs")
    monkeypatch.chdir(root)
    return root


def _diff(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", "--color", "never", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _findings(out: str) -> list[str]:
    """`file:line:col: severity[RULE]` of every finding line."""
    return [m.group(0) for m in FINDING.finditer(out)]


def test_moving_the_spec_folder_does_not_hide_a_breaking_change(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(repo, "mv", "opsets", "specs")
    (repo / "opset.toml").write_text('spec_root = "specs"\n')
    _edit(repo / "specs/org.example.abc/C.yaml", C_TYPES, "      T: {allowed: [tensor(float)]}\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "move the specs, and drop a type from C:3")
    code, out, err = _diff(capsys, "--against", "HEAD~1")
    assert code == 1, out + err
    assert _findings(out) == ["specs/org.example.abc/C.yaml:12:7: error[TYPE-REMOVED]"]
    assert "the ref keeps opsets/com.acme.vision, opsets/org.example.abc" in err
    # the moved tree without the edit: the base's domains are found, nothing is new or removed
    _edit(repo / "specs/org.example.abc/C.yaml", "      T: {allowed: [tensor(float)]}\n", C_TYPES)
    code, out, err = _diff(capsys, "--against", "HEAD~1")
    assert (code, _findings(out)) == (0, []), out + err


def test_a_spec_path_given_explicitly_is_matched_by_its_domains_too(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The invoker's --specs names the new place: the old domains are still read where the base
    keeps them (one domain folder moved into another root)."""
    (repo / "vendor").mkdir()
    _git(repo, "mv", "opsets/org.example.abc", "vendor/org.example.abc")
    _edit(repo / "vendor/org.example.abc/C.yaml", C_TYPES, "      T: {allowed: [tensor(float)]}\n")
    code, out, err = _diff(capsys, "--against", "HEAD", "--specs", "vendor")
    assert code == 1, out + err
    assert _findings(out) == ["vendor/org.example.abc/C.yaml:12:7: error[TYPE-REMOVED]"]


@pytest.mark.parametrize("specs", ["opsets/com.acme.vision", f"opsets/{BLUR}"])
def test_a_narrow_specs_reads_the_release_table_of_its_root_in_git_mode(
    repo: Path, capsys: pytest.CaptureFixture[str], specs: str
) -> None:
    _open_attribute(repo / "opsets" / BLUR)
    code, out, err = _diff(capsys, "--against", "HEAD", "--specs", specs)
    assert (code, _findings(out)) == (0, []), out + err
    # the same edit in the released opset 3 (GaussianBlur:2) is still reported
    _git(repo, "checkout", "-q", "--", ".")
    _edit(repo / "opsets" / BLUR, SIGMA, SIGMA + "      extra: {type: int}\n")
    code, out, err = _diff(capsys, "--against", "HEAD", "--specs", specs)
    assert code == 1 and f"opsets/{BLUR}:22:7: error[ATTR-ADDED]" in out, out + err


def test_a_narrow_specs_reads_the_release_table_of_its_root_in_directory_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPECS, "old")
    shutil.copytree(SPECS, "new")
    _open_attribute(tmp_path / "new" / BLUR)
    code, out, err = _diff(capsys, "--against", "old/com.acme.vision", "--specs", "new/com.acme.vision")
    assert (code, _findings(out)) == (0, []), out + err


@pytest.mark.parametrize(
    "specs", ["new/com.acme.vision", "new/com.acme.vision/GaussianBlur.yaml", "new/org.example.abc/C.yaml"]
)
def test_a_narrow_specs_is_compared_with_the_same_domain_of_a_whole_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, specs: str
) -> None:
    """`--against old` (the whole spec root) with `--specs` one domain folder or one file: the
    domains and operators left out are not removed, an open-opset edit passes, and a breaking edit
    in what --specs names is still found."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPECS, "old")
    shutil.copytree(SPECS, "new")
    _open_attribute(tmp_path / "new" / BLUR)
    code, out, err = _diff(capsys, "--against", "old", "--specs", specs)
    assert (code, _findings(out)) == (0, []), out + err
    _edit(tmp_path / "new/org.example.abc/C.yaml", C_TYPES, "      T: {allowed: [tensor(float)]}\n")
    code, out, err = _diff(capsys, "--against", "old", "--specs", specs)
    expected = ["new/org.example.abc/C.yaml:12:7: error[TYPE-REMOVED]"] if "org.example.abc" in specs else []
    assert (code, _findings(out)) == (1 if expected else 0, expected), out + err


def test_a_narrow_specs_naming_a_domain_the_directory_lacks_is_new_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPECS / "org.example.abc", "old/org.example.abc")
    shutil.copytree(SPECS, "new")
    code, out, err = _diff(capsys, "--against", "old", "--specs", "new/com.acme.vision")
    assert (code, _findings(out)) == (0, []), out + err
    assert "the directory holds spec files, but nothing of new/com.acme.vision/ nor of its domains" in err


def test_a_ref_without_spec_files_is_an_empty_base_and_says_so(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = _git(repo, "rev-parse", "HEAD:README").strip()
    empty = subprocess.run(
        ["git", "mktree"],
        cwd=repo,
        input=f"100644 blob {readme}\tREADME\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commit = _git(repo, "commit-tree", empty, "-m", "no specs").strip()
    code, out, err = _diff(capsys, "--against", commit)
    assert code == 0, out + err
    assert f"note: --against {commit}: the ref holds no spec files" in err


def test_an_empty_against_directory_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    shutil.copytree(SPECS, "new")
    code, out, err = _diff(capsys, "--against", "empty", "--specs", "new")
    assert code == 0, out + err
    assert "note: --against empty: the directory holds no spec files" in err


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        (
            "        Y = CastLike (result, X)\n",
            "        Y = CastLike (blurred, X)\n",
            "FUNCTION-BODY-CHANGED",
        ),
        (
            BLUR_V4,
            BLUR_V4 + '    outputs:\n      - {name: Y, type: T, shape: "[X[0], X[1], X[2], X[3]]"}\n',
            "SHAPE-RULE-CHANGED",
        ),
    ],
    ids=["function-body", "shape-rule"],
)
def test_bodies_and_shape_rules_of_an_open_opset_may_change(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    old: str,
    new: str,
    rule: str,
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPECS, "old")
    shutil.copytree(SPECS, "new")
    _edit(tmp_path / "new" / BLUR, old, new)
    code, out, err = _diff(capsys, "--against", "old", "--specs", "new")
    assert (code, _findings(out)) == (0, []), out + err
    # without the release table every opset of the base is released: the rule reports the edit
    for tree in ("old", "new"):
        (tmp_path / tree / "releases.yaml").unlink()
    code, out, err = _diff(capsys, "--against", "old", "--specs", "new", "--fail-on", "info")
    assert code == 1 and f"[{rule}]" in out and out.startswith(f"new/{BLUR}:"), out + err


NMS = "com.acme.vision/NonMaxSuppressionLite.yaml"
NMS_T = "      T: {allowed: [tensor(float), tensor(float16)]}\n"
NMS_I = '      I: {allowed: "@index_types", doc: Index tensors.}\n'
NMS_SELECTED = "      - {name: selected, type: I, doc: Indices of the kept boxes in visiting order., "


@pytest.mark.parametrize(
    ("edits", "renamed"),
    [
        # I renamed to J, and J written first: key order means nothing
        (
            [
                (NMS_T + NMS_I, NMS_I.replace("I:", "J:") + NMS_T),
                (NMS_SELECTED, NMS_SELECTED.replace("I,", "J,")),
            ],
            ["34:7"],
        ),
        # T and I swapped: each one renamed to the other's name
        (
            [
                (NMS_T + NMS_I, NMS_T.replace("T:", "I:") + NMS_I.replace("I:", "T:")),
                (NMS_SELECTED, NMS_SELECTED.replace("I,", "T,")),
                ("{name: boxes, type: T,", "{name: boxes, type: I,"),
                ("{name: scores, type: T,", "{name: scores, type: I,"),
            ],
            ["34:7", "35:7"],
        ),
        # only the keys reordered: no change at all
        ([(NMS_T + NMS_I, NMS_I + NMS_T)], []),
    ],
    ids=["rename-and-reorder", "swap", "reorder-only"],
)
def test_type_parameters_are_matched_by_what_they_type_not_by_key_order(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    edits: list[tuple[str, str]],
    renamed: list[str],
) -> None:
    code, out, err = _diff_edited(tmp_path, capsys, monkeypatch, NMS, edits)
    # versions 1 and 2 (2 inherits the constraints) report each rename, and nothing else
    expected = sorted(f"new/{NMS}:{at}: error[TYPE-PARAM-RENAMED]" for at in renamed for _ in (1, 2))
    assert (code, sorted(_findings(out))) == (1 if renamed else 0, expected), out + err


FUSED = "com.acme.vision/FusedConv.yaml"  # FusedConv:2 (released opset 2) has a function body
RELU_NAME = '        relu_name = Constant <value: tensor = string {"relu"}> ()\n'
SIGMOID_NAME = '        sigmoid_name = Constant <value: tensor = string {"sigmoid"}> ()\n'
IS_RELU = "        is_relu = Equal (activation, relu_name)\n"


@pytest.mark.parametrize(
    ("edits", "finding"),
    [
        ([(RELU_NAME + SIGMOID_NAME, SIGMOID_NAME + RELU_NAME)], None),  # two independent nodes swapped
        (
            [
                (RELU_NAME, RELU_NAME.replace("relu_name", "rname")),
                (IS_RELU, IS_RELU.replace("relu_name", "rname")),
            ],
            None,
        ),
        # a swap that changes what is computed: relu and sigmoid compared with the other's name
        (
            [
                (IS_RELU, IS_RELU.replace("relu_name", "sigmoid_name")),
                (
                    "        is_sigmoid = Equal (activation, sigmoid_name)\n",
                    "        is_sigmoid = Equal (activation, relu_name)\n",
                ),
            ],
            f"new/{FUSED}:62:5: error[FUNCTION-BODY-CHANGED]",
        ),
        # a graph output renamed: not a local value
        (
            [
                (
                    "        Y = Where (is_relu, relu, with_sigmoid)\n",
                    "        Z = Where (is_relu, relu, with_sigmoid)\n        Y = Identity (Z)\n",
                )
            ],
            f"new/{FUSED}:62:5: error[FUNCTION-BODY-CHANGED]",
        ),
    ],
    ids=["independent-nodes-swapped", "local-renamed", "comparison-swapped", "output-through-identity"],
)
def test_function_bodies_are_compared_in_canonical_form(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    edits: list[tuple[str, str]],
    finding: str | None,
) -> None:
    code, out, err = _diff_edited(tmp_path, capsys, monkeypatch, FUSED, edits)
    assert (code, _findings(out)) == ((1, [finding]) if finding else (0, [])), out + err
