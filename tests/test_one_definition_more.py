"""One definition of each thing (#24), the leftovers:

- every "did you mean" comes from `toolkit.model.suggest` (one policy: case-folded, one cutoff),
  and SCHEMA-REQUIRED is dropped only where a stray key's own suggestion names the missing key;
- the gate's old tree is mapped by one function for a git ref and an `--against` directory
  (`compat.base_paths.map_base`): the same layouts compare the same either way, and a directory
  is mapped once per diff;
- invalid TOML in the project file is PROJECT-TOML, located, in the CLI and the language server.

Trees are copies of the shipped specs written at test time; git bases are real commits.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from git_helpers import git
from lsprotocol import types as lsp
from output_helpers import cli
from pytest_lsp import LanguageClient
from test_lsp import _open, _until
from test_lsp_more import _start
from test_lsp_trust import _last_codes, _project, _told, client  # noqa: F401  (client: the fixture)

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "opsets"
ABC = "org.example.abc"
VISION = "com.acme.vision"
C_TYPES = "      T: {allowed: [tensor(float), tensor(double)]}\n"  # org.example.abc.C:3, released
BLUR_V4 = "  - since_version: 4\n"  # GaussianBlur's version of the open opset 4
FINDING = re.compile(r"^(\S+:[0-9]+:[0-9]+): [a-z]+\[([A-Z0-9-]+)\]", re.MULTILINE)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return cli(capsys, "--color", "never", *args)


def _findings(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FINDING.finditer(text)]


# --------------------------------------------------------------------------- did you mean


def test_no_module_but_suggest_picks_close_names_itself() -> None:
    """The policy (cutoff, case) is written once: no other module asks difflib for close matches."""
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "toolkit").rglob("*.py")
        if "get_close_matches" in path.read_text(encoding="utf-8") and path.name != "suggest.py"
    ]
    assert offenders == []


def test_a_command_typed_in_capitals_is_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "VALIDATE")
    assert (code, out) == (2, "")
    assert "unknown command 'VALIDATE'" in err and "hint: did you mean `opset validate`?" in err, err


@pytest.fixture()
def specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped specs in opsets/ of a fresh project folder (the working directory)."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPECS, tmp_path / "opsets")
    return tmp_path / "opsets"


INPUT_X = "      - {name: X, type: T, doc: Any numeric tensor.}\n"  # A.yaml:10


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        # a value in the wrong case: the schema's enum value is suggested, in the form a quick fix applies
        (
            "      - {name: X, type: T, option: OPTIONAL}\n",
            [("opsets/org.example.abc/A.yaml:10:36", "SCHEMA-ENUM", "did you mean 'optional'?")],
        ),
        # `tpye` is the missing `type` misspelt: one finding, whose hint names it
        (
            "      - {name: X, tpye: T}\n",
            [("opsets/org.example.abc/A.yaml:10:19", "SCHEMA-UNKNOWN-KEY", "did you mean 'type'?")],
        ),
        # `type_fro` is `type_from` misspelt: `type` is still missing, and said so
        (
            "      - {name: X, type_fro: T}\n",
            [
                ("opsets/org.example.abc/A.yaml:10:9", "SCHEMA-REQUIRED", "add `type:`"),
                ("opsets/org.example.abc/A.yaml:10:19", "SCHEMA-UNKNOWN-KEY", "did you mean 'type_from'?"),
            ],
        ),
    ],
    ids=["enum-case", "misspelt-required-key", "near-but-not-the-required-key"],
)
def test_schema_suggestions_follow_the_one_policy(
    specs: Path, capsys: pytest.CaptureFixture[str], written: str, expected: list[tuple[str, str, str]]
) -> None:
    _edit(specs / ABC / "A.yaml", INPUT_X, written)
    code, out, err = _run(capsys, "validate")
    assert code == 1, out + err
    blocks = [b for b in re.split(r"\n(?=\S)", err) if FINDING.match(b)]
    found = [(*_findings(b)[0], b) for b in blocks]
    assert [(where, rule) for where, rule, _ in found] == [(w, r) for w, r, _ in expected], out
    for (_, _, block), (_, _, hint) in zip(found, expected):
        assert f"hint: {hint}" in block, block


# --------------------------------------------------------------------------- the gate's base tree


def _shipped(top: Path) -> None:
    shutil.copytree(SPECS, top / "opsets")


def _with_archived_copy(top: Path) -> None:
    """The shipped specs, and an archived copy of org.example.abc (already without double in C:3)
    in a folder of the spec root: the same-named folder the new tree does not mean."""
    _shipped(top)
    archived = top / "opsets" / "archive" / ABC
    shutil.copytree(SPECS / ABC, archived)
    _edit(archived / "C.yaml", C_TYPES, "      T: {allowed: [tensor(float)]}\n")


def _without_vision(top: Path) -> None:
    shutil.copytree(SPECS / ABC, top / "opsets" / ABC)


def _abc_in_two_folders(top: Path) -> None:
    shutil.copytree(SPECS / VISION, top / "opsets" / VISION)
    for group in ("a", "b"):
        shutil.copytree(SPECS / ABC, top / "opsets" / group / ABC)


def _compare_both_ways(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    base: Callable[[Path], None],
    specs: str,
    move_abc_to: str | None = None,
) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """`opset diff --specs SPECS` of the same new tree against the base layout `base` as a git
    commit (`--against HEAD`) and as a directory (its spec root): the new tree is the shipped
    specs with C:3 narrowed (breaking) and an attribute added to GaussianBlur:4 (open opset)."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    repo, copy = tmp_path / "repo", tmp_path / "base"
    for top in (repo, copy):
        top.mkdir()
        base(top)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    shutil.rmtree(repo / "opsets")
    shutil.copytree(SPECS, repo / "opsets")
    _edit(repo / "opsets" / ABC / "C.yaml", C_TYPES, "      T: {allowed: [tensor(float)]}\n")
    blur = repo / "opsets" / VISION / "GaussianBlur.yaml"
    _edit(blur, BLUR_V4, BLUR_V4 + "    attributes:\n      extra: {type: int, default: 0}\n")
    if move_abc_to is not None:
        (repo / move_abc_to).mkdir()
        shutil.move(repo / "opsets" / ABC, repo / move_abc_to / ABC)
    monkeypatch.chdir(repo)
    as_ref = _run(capsys, "diff", "--against", "HEAD", "--specs", specs, "--fail-on", "info")
    as_directory = _run(capsys, "diff", "--against", "../base/opsets", "--specs", specs, "--fail-on", "info")
    return as_ref, as_directory


NARROWED = ("opsets/org.example.abc/C.yaml:12:7", "TYPE-REMOVED")
NEW_NOTE = "holds spec files, but nothing of opsets/com.acme.vision/ nor of its domains"


@pytest.mark.parametrize(
    ("base", "specs", "move_to", "code", "findings", "note"),
    [
        (_shipped, f"opsets/{ABC}", None, 1, [NARROWED], None),
        (_shipped, f"opsets/{ABC}/C.yaml", None, 1, [NARROWED], None),
        (_shipped, f"opsets/{VISION}", None, 0, [], None),  # the open opset stays open
        (_with_archived_copy, f"opsets/{ABC}", None, 1, [NARROWED], None),
        (
            _shipped,
            f"vendor/{ABC}",
            "vendor",
            1,
            [("vendor/org.example.abc/C.yaml:12:7", "TYPE-REMOVED")],
            None,
        ),
        (_without_vision, f"opsets/{VISION}", None, 0, [], NEW_NOTE),
    ],
    ids=[
        "domain-folder",
        "operator-file",
        "open-opset",
        "same-named-folder",
        "renamed-root",
        "base-lacks-it",
    ],
)
def test_a_git_ref_and_a_directory_give_the_same_comparison(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    base: Callable[[Path], None],
    specs: str,
    move_to: str | None,
    code: int,
    findings: list[tuple[str, str]],
    note: str | None,
) -> None:
    as_ref, as_directory = _compare_both_ways(tmp_path, capsys, monkeypatch, base, specs, move_to)
    for kind, (got, out, err) in (("ref", as_ref), ("directory", as_directory)):
        assert (got, _findings(out)) == (code, findings), f"{kind}:\n{out}{err}"
        if note is None:
            assert "counts as new" not in err, f"{kind}: {err}"
        else:
            assert f"the {kind} {note}" in err, f"{kind}: {err}"


def test_a_domain_folder_the_base_holds_twice_elsewhere_is_refused_either_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    as_ref, as_directory = _compare_both_ways(
        tmp_path, capsys, monkeypatch, _abc_in_two_folders, f"opsets/{ABC}"
    )
    for kind, shown, (code, out, err) in (
        ("ref", "opsets/", as_ref),
        ("directory", "../base/opsets/", as_directory),
    ):
        assert (code, out) == (2, ""), f"{kind}: {err}"
        assert f"the {kind} holds domain folder {ABC} in {shown}a/{ABC}, {shown}b/{ABC}" in err, err
        assert "hint: pass --specs with the spec root that holds it in both trees" in err, err


def test_a_directory_base_is_listed_once_per_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the cache on (its fast path asks for the old tree's key, then the load reads it), the
    --against directory itself is listed once: the mapping is passed down, not worked out again."""
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SPECS, "base")
    shutil.copytree(SPECS, "new")
    against = os.path.realpath("base")
    listed: list[str] = []
    scandir = os.scandir

    def counting(path: str | os.PathLike[str] = ".") -> os.ScandirIterator[str]:  # type: ignore[type-var]
        if os.path.realpath(path) == against:
            listed.append(os.fspath(path))
        return scandir(path)  # type: ignore[return-value]

    monkeypatch.setattr(os, "scandir", counting)
    code, out, err = _run(capsys, "diff", "--against", "base", "--specs", f"new/{ABC}")
    assert (code, _findings(out)) == (0, []), out + err
    assert len(listed) == 1, listed


# --------------------------------------------------------------------------- PROJECT-TOML


@pytest.mark.parametrize(
    ("name", "text", "where", "message"),
    [
        ("opset.toml", "out = generated\n", "opset.toml:1:7", "invalid TOML: invalid value"),
        (
            "pyproject.toml",
            '[tool.opset-toolkit]\nspec_root = "opsets\n',
            "pyproject.toml:2:20",
            "invalid TOML: illegal character",
        ),
    ],
)
@pytest.mark.parametrize("command", [["validate"], ["generate"], ["diff", "--against", "opsets"]])
def test_invalid_toml_is_a_located_project_toml_error(
    specs: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    where: str,
    message: str,
    command: list[str],
) -> None:
    (specs.parent / ".git").mkdir()  # the project's top: no project file above it is read
    (specs.parent / name).write_text(text, encoding="utf-8")
    before = sorted(p.name for p in specs.parent.iterdir())
    code, out, err = _run(capsys, *command)
    assert code == 2, out + err
    assert f"{where}: error[PROJECT-TOML]: {message}" in err and "\n  hint: write TOML" in err, err
    assert "Traceback" not in err and "(at line" not in err
    assert sorted(p.name for p in specs.parent.iterdir()) == before  # nothing written


@pytest.mark.asyncio
async def test_the_language_server_publishes_invalid_toml_on_the_project_file(
    client: LanguageClient,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    repo = _project(tmp_path)
    toml = repo / "opset.toml"
    toml.write_text('spec_root = "opsets"\nout = generated\n')
    await _start(client, repo)
    path = repo / "opsets" / ABC / "A.yaml"
    _open(client, path, path.read_text())
    await _until(lambda: _told(client, "invalid TOML"), "the user told")
    await _until(
        lambda: _last_codes(client, toml.as_uri()) == [("PROJECT-TOML", 1)], "published on opset.toml"
    )
    found = [p for p in client.published if p.uri == toml.as_uri()][-1]  # type: ignore[attr-defined]
    assert found.diagnostics[0].range.start == lsp.Position(1, 6)
