"""Symbolic links in a spec tree on disk that lead out of it: never read, whatever names them.

A tree from a pull request may hold `Leak.yaml -> /proc/self/environ`, a link to a token file or
to `~/.ssh/...`; following it would copy the file into the generated outputs or its keys into
the diagnostics. Every file read from the tree (operator, domain and releases files, the
project file, the files the cache key reads) must really lie inside the root the invoker
named: else a located FILE-READ at 1:1 and nothing about the target. Links that stay inside
keep working, and so does a root that is itself a link. The hostile trees are built here.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from toolkit.cli import main

MARK = "OUTSIDE-7F3A"  # in every file outside the tree: no byte of it may reach an output
DOMAIN = "com.test.links"
LEFT = "error[FILE-READ]: cannot read file: a symbolic link leads out of the spec tree"
HINT = "hint: a spec file's symbolic link must stay inside the spec tree"


def _operator(name: str, doc: str, domain: str = DOMAIN) -> str:
    return (
        f"operator: {name}\ndomain: {domain}\nversions:\n"
        f"  - since_version: 1\n    doc: '{doc}'\n"
        "    inputs: [{name: X, type: tensor(float)}]\n"
        "    outputs: [{name: Y, type: tensor(float)}]\n"
    )


def _domain(name: str, doc: str) -> str:
    return f"domain: {name}\ndoc: '{doc}'\nopset_versions:\n  - {{version: 1, ir_version: 10}}\n"


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp/specs: a clean tree (a domain, one operator); tmp/outside: files the tree must not
    reach, each holding MARK. The cache is on (its key reads the files too)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    folder = tmp_path / "specs" / DOMAIN
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(_domain(DOMAIN, "Links."))
    (folder / "Good.yaml").write_text(_operator("Good", "Good doc."))
    outside = tmp_path / "outside"
    (outside / "vendored").mkdir(parents=True)
    (outside / "deep").mkdir()
    (outside / "Leak.yaml").write_text(_operator("Leak", f"{MARK} operator doc"))
    (outside / "Sneaky.yaml").write_text(_operator("Sneaky", f"{MARK} sneaky doc"))
    (outside / "domain.yaml").write_text(_domain("com.test.evil", f"{MARK} domain doc"))
    (outside / "releases.yaml").write_text(
        f"doc: '{MARK} releases doc'\nreleases:\n  - {{release: '1', ir_version: 10, opsets: {{{DOMAIN}: 1}}}}\n"
    )
    (outside / "keys.yaml").write_text(f"{MARK}_secret: {MARK}_value\n")
    (outside / "vendored" / "Via.yaml").write_text(_operator("Via", f"{MARK} vendored doc"))
    (outside / "vendored" / "domain.yaml").write_text(_domain("com.test.vendored", f"{MARK} vendored"))
    return tmp_path


def _link(at: Path, target: str) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(target)


# Each case: the links it adds under tmp/ and the spec files that must be reported (and only them).
CASES: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "operator": (
        lambda w: _link(w / "specs" / DOMAIN / "Leak.yaml", "../../outside/Leak.yaml"),
        [f"specs/{DOMAIN}/Leak.yaml"],
    ),
    "operator, absolute": (
        lambda w: _link(w / "specs" / DOMAIN / "Leak.yaml", str(w / "outside" / "Leak.yaml")),
        [f"specs/{DOMAIN}/Leak.yaml"],
    ),
    "domain": (
        lambda w: _link(w / "specs" / "com.test.evil" / "domain.yaml", "../../outside/domain.yaml"),
        ["specs/com.test.evil/domain.yaml"],
    ),
    "releases": (
        lambda w: _link(w / "specs" / "releases.yaml", "../outside/releases.yaml"),
        ["specs/releases.yaml"],
    ),
    # not an operator file: its keys would be named in SCHEMA-UNKNOWN-KEY messages
    "keys of another file": (
        lambda w: _link(w / "specs" / DOMAIN / "Keys.yaml", "../../outside/keys.yaml"),
        [f"specs/{DOMAIN}/Keys.yaml"],
    ),
    # a folder link out is not walked; a file link through it is refused
    "folder": (
        lambda w: (
            _link(w / "specs" / "vendored", "../outside/vendored"),
            _link(w / "specs" / DOMAIN / "Via.yaml", "../vendored/Via.yaml"),
        ),
        [f"specs/{DOMAIN}/Via.yaml"],
    ),
    # in -> in -> out: each hop looks harmless
    "chain": (
        lambda w: (
            _link(w / "specs" / DOMAIN / "hop.link", "../../outside/Leak.yaml"),
            _link(w / "specs" / DOMAIN / "Chain.yaml", "hop.link"),
        ),
        [f"specs/{DOMAIN}/Chain.yaml"],
    ),
    # spelled inside (`../hole/..` cancels out lexically), really outside: hole is a folder link
    "lexically inside": (
        lambda w: (
            _link(w / "specs" / "hole", "../outside/deep"),
            _link(w / "specs" / DOMAIN / "Sneaky.yaml", "../hole/../Sneaky.yaml"),
        ),
        [f"specs/{DOMAIN}/Sneaky.yaml"],
    ),
}


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


def _bytes_under(folder: Path) -> bytes:
    """Every file under `folder` (not following links), joined: what a run left there."""
    if not folder.exists():
        return b""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink())


def _outside_snapshot(work: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((work / "outside").rglob("*")) if p.is_file()}


def _assert_refused(output: str, reported: list[str]) -> None:
    located = sorted(line.split(":1:1: ")[0] for line in output.splitlines() if LEFT in line)
    assert located == sorted(reported), output
    assert all(f"{name}:1:1: {LEFT}" in output for name in reported)
    assert HINT in output
    assert MARK not in output and MARK.lower() not in output.lower()


@pytest.mark.parametrize("case", list(CASES))
def test_validate_and_generate_refuse_a_link_out_of_the_tree(work: Path, case: str) -> None:
    make, reported = CASES[case]
    make(work)
    before = _outside_snapshot(work)
    code, output = _run("validate", "--specs", "specs")
    assert code == 1
    _assert_refused(output, reported)
    code, output = _run("generate", "--specs", "specs", "--out", "out")
    assert code == 1
    _assert_refused(output, reported)
    # nothing of the target anywhere: the outputs, the cache; the targets untouched
    assert MARK.encode() not in _bytes_under(work / "out")
    assert MARK.encode() not in _bytes_under(work / "cache")
    assert _outside_snapshot(work) == before


def test_links_that_stay_inside_and_a_linked_root_keep_working(work: Path) -> None:
    """A link inside to inside (vendor repos share files so), a chain that leaves the tree and
    comes back to a file inside it (what is read is the tree's own), and a root that is itself a
    link (the invoker's choice): all read as the files they lead to, also beside a link that
    leads out (only that one is refused)."""
    specs = work / "specs"
    (specs / "shared").mkdir()
    (specs / "shared" / "Alias.txt").write_text(_operator("Alias", "Shared alias doc."))
    _link(specs / DOMAIN / "Alias.yaml", "../shared/Alias.txt")
    (specs / "shared" / "Back.txt").write_text(_operator("Back", "Came back doc."))
    _link(work / "outside" / "back.link", "../specs/shared/Back.txt")
    _link(specs / DOMAIN / "Back.yaml", "../../outside/back.link")
    _link(work / "root-link", "specs")
    _link(specs / DOMAIN / "Leak.yaml", "../../outside/Leak.yaml")
    code, output = _run("validate", "--specs", "root-link")
    assert code == 1
    _assert_refused(output, [f"root-link/{DOMAIN}/Leak.yaml"])
    assert "3 operators" in output  # Good, Alias, Back
    (specs / DOMAIN / "Leak.yaml").unlink()
    for root in ("specs", "root-link", str(work / "root-link")):
        code, output = _run("validate", "--specs", root)
        assert code == 0, output
    code, output = _run("generate", "--specs", "root-link", "--out", "out")
    assert code == 0, output
    written = _bytes_under(work / "out")
    assert b"Shared alias doc." in written and b"Came back doc." in written


def test_proc_self_environ_is_never_read() -> None:
    """`Env.yaml -> /proc/self/environ` in a real `opset` process whose environment holds a
    secret: the secret is in no output and in neither stream."""
    if not os.path.exists("/proc/self/environ"):
        pytest.skip("needs /proc")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        folder = work / "specs" / DOMAIN
        folder.mkdir(parents=True)
        (folder / "domain.yaml").write_text(_domain(DOMAIN, "Links."))
        (folder / "Env.yaml").symlink_to("/proc/self/environ")
        secret = f"{MARK}-environ-secret"
        env = {**os.environ, "OPSET_TEST_SECRET": secret, "OPSET_TOOLKIT_CACHE": str(work / "cache")}
        env.pop("OPSET_TOOLKIT_NO_CACHE", None)
        for argv in (["validate", "--specs", "specs"], ["generate", "--specs", "specs", "--out", "out"]):
            proc = subprocess.run(
                [sys.executable, "-m", "toolkit", *argv], cwd=work, env=env, capture_output=True, timeout=120
            )
            output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
            assert proc.returncode == 1, output
            _assert_refused(output, [f"specs/{DOMAIN}/Env.yaml"])
            assert "OPSET_TEST_SECRET" not in output and secret not in output
        assert secret.encode() not in _bytes_under(work / "out") + _bytes_under(work / "cache")


def test_diff_between_two_trees_refuses_links_out_of_either(work: Path) -> None:
    """`opset diff --against OLD --specs NEW`: a link out of either tree is its located FILE-READ,
    and the gate does not compare trees with errors (exit 2, as for any spec error of either
    tree). Neither reads the target."""
    old = work / "old"
    (old / DOMAIN).mkdir(parents=True)
    for name in ("domain.yaml", "Good.yaml"):
        (old / DOMAIN / name).write_bytes((work / "specs" / DOMAIN / name).read_bytes())
    _link(work / "specs" / DOMAIN / "Leak.yaml", "../../outside/Leak.yaml")
    code, output = _run("diff", "--against", "old", "--specs", "specs")
    assert code == 2
    _assert_refused(output, [f"specs/{DOMAIN}/Leak.yaml"])
    (work / "specs" / DOMAIN / "Leak.yaml").unlink()
    _link(old / DOMAIN / "Leak.yaml", "../../outside/Leak.yaml")
    code, output = _run("diff", "--against", "old", "--specs", "specs")
    assert code == 2
    _assert_refused(output, [f"old/{DOMAIN}/Leak.yaml"])


@pytest.mark.parametrize("name", ["opset.toml", "pyproject.toml"])
def test_a_project_file_linked_out_of_its_folder_is_not_read(
    work: Path, name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The project file (also the gate's configuration) is part of the tree: a link out is a
    located FILE-READ, exit 2 (a usage problem: the command cannot know its settings), and its
    keys are not named."""
    table = "" if name == "opset.toml" else "tool.opset-toolkit."
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # outside the project folder (tmp/)
    (elsewhere / name).write_text(
        f"[{table}python]\n{MARK}_py = '{MARK}'\n" if table else f"{MARK}_key = 1\n[python]\n{MARK}_py = 1\n"
    )
    _link(work / name, str(elsewhere / name))
    for argv in (
        ["validate"],
        ["generate", "--out", "out"],
        ["diff", "--against", "specs", "--specs", "specs"],
    ):
        code, output = _run(*argv)
        assert code == 2, (argv, output)
        assert (
            f"{name}:1:1: error[FILE-READ]: cannot read file: a symbolic link leads out of the project folder"
            in output
        )
        assert "hint: a project file's symbolic link must stay inside its folder" in output
        assert MARK not in output
    assert not (work / "out").exists()


def test_bump_does_not_write_through_a_domain_file_linked_out(work: Path) -> None:
    """`opset bump` rewrites domain.yaml when it adds an opset: a domain file linked out of the
    tree is not read, so nothing is written to its target."""
    domain = work / "specs" / DOMAIN / "domain.yaml"
    (work / "outside" / "domain.yaml").write_text(_domain(DOMAIN, f"{MARK} domain doc"))
    domain.unlink()
    _link(domain, "../../outside/domain.yaml")
    before = _outside_snapshot(work)
    code, output = _run("bump", f"{DOMAIN}.Good", "--specs", "specs", "--opset", "2")
    assert code in (1, 2) and "FILE-READ" in output and MARK not in output
    assert _outside_snapshot(work) == before


def test_the_cache_key_does_not_read_a_target_out_of_the_tree(work: Path) -> None:
    """The load cache's key hashes the spec files' content: a target out of the tree is not read
    for it either (editing the target leaves the key as it was)."""
    from toolkit.registry.core import cache_key

    _link(work / "specs" / DOMAIN / "Leak.yaml", "../../outside/Leak.yaml")
    before = cache_key(["specs"])
    (work / "outside" / "Leak.yaml").write_text(_operator("Leak", f"{MARK} edited"))
    assert cache_key(["specs"]) == before
    (work / "specs" / DOMAIN / "Good.yaml").write_text(_operator("Good", "Edited inside."))
    assert cache_key(["specs"]) != before  # the key still reads the tree's own files


def test_the_language_server_does_not_read_a_link_out(work: Path) -> None:
    """The LSP engine reads files that are not open in the editor from disk: inside the root."""
    from toolkit.lsp.workspace import SpecTree

    _link(work / "specs" / DOMAIN / "Leak.yaml", "../../outside/Leak.yaml")
    tree = SpecTree((work / "specs").resolve())
    findings = tree.reload()
    leak = (work / "specs").resolve() / DOMAIN / "Leak.yaml"
    shown = [d.format() for d in findings[leak]]
    assert len(shown) == 1 and LEFT in shown[0] and HINT in shown[0]
    assert MARK not in repr(findings) and MARK not in repr(tree.specs)


def test_generate_memo_does_not_read_a_file_linked_out_of_the_tree(work: Path) -> None:
    """Incremental generation hashes every file in a domain's folder (not only spec files): a
    link there out of the tree is not read for it (editing its target changes no digest), while
    a file of the tree still is."""
    from toolkit.generate.memo import RenderMemo
    from toolkit.load.files import SpecRoots

    folder = work / "specs" / DOMAIN
    _link(folder / "notes.txt", "../../outside/keys.yaml")
    memo = RenderMemo(work / "out", "label", None, SpecRoots.of(["specs"]))
    before = memo.inputs("docs", [f"specs/{DOMAIN}/Good.yaml"])
    (work / "outside" / "keys.yaml").write_text(f"{MARK}: edited\n")
    fresh = RenderMemo(work / "out", "label", None, SpecRoots.of(["specs"]))
    assert fresh.inputs("docs", [f"specs/{DOMAIN}/Good.yaml"]) == before
    (folder / "Good.yaml").write_text(_operator("Good", "Edited inside."))
    again = RenderMemo(work / "out", "label", None, SpecRoots.of(["specs"]))
    assert again.inputs("docs", [f"specs/{DOMAIN}/Good.yaml"]) != before
