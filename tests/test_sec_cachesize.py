"""The load cache's size cap (issue #24): a command keeps its own working set, so a warm
`opset diff` whose two trees pass the cap together reads both from the cache instead of each
write evicting the other; and the cap still bounds the folder against a tree from a stranger,
whose entry can be far larger than its files (every `based_on` version stores what it inherits).
The trees are built here; every command runs in its own process, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolkit.load import cache, result_cache
from toolkit.load.result import LoadResult
from toolkit.model import codec
from toolkit.model.spec import SpecSet

MIB = 1024 * 1024

_MEASURE = """\
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)
sys.stdout.write(proc.stdout + proc.stderr)
sys.stdout.write(f"\\nEXIT {proc.returncode} PEAK_KIB {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n")
"""


def _domain(folder: Path, opsets: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    versions = "".join(f"  - {{version: {v}, ir_version: 9}}\n" for v in range(1, opsets + 1))
    (folder / "domain.yaml").write_text(f"domain: com.test.cache\nopset_versions:\n{versions}")


def _operator(name: str, doc: str, extra_versions: int = 0) -> str:
    text = textwrap.dedent(f"""\
        operator: {name}
        domain: com.test.cache
        versions:
          - since_version: 1
            doc: {doc}
            inputs:
              - {{name: X, type: T}}
            outputs:
              - {{name: Y, type: T}}
            type_constraints:
              T: {{allowed: [tensor(float), tensor(double)]}}
        """)
    return text + "".join(
        f"  - {{since_version: {v}, based_on: {v - 1}}}\n" for v in range(2, extra_versions + 2)
    )


def _catalog(root: Path, operators: int, edited: int | None = None) -> Path:
    """A tree of `operators` plain operators; `edited`: that one's doc differs."""
    folder = root / "com.test.cache"
    _domain(folder, 1)
    for number in range(operators):
        doc = "Changed." if number == edited else f"Operator number {number} of the catalog."
        (folder / f"Op{number:03d}.yaml").write_text(_operator(f"Op{number:03d}", doc))
    return root


def _opset(args: list[str], cache_folder: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`opset ARGS` in a fresh process (one command, as a user runs it) with its own cache folder."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OPSET_TOOLKIT_")}
    environment.update(OPSET_TOOLKIT_CACHE=str(cache_folder), **env)
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=120,
    )


def _entries(folder: Path) -> dict[str, os.stat_result]:
    return {p.name: p.stat() for p in folder.glob(f"*{cache.ENTRY_SUFFIX}")}


def test_a_warm_diff_reads_both_trees_when_together_they_pass_the_cap(tmp_path: Path) -> None:
    _catalog(tmp_path / "old", 60)
    _catalog(tmp_path / "new", 60, edited=7)
    diff = ["diff", "--against", "old", "--specs", "new"]
    sizing = _opset(diff, tmp_path / "sizing", tmp_path)  # how large the two entries are
    sizes = sorted(s.st_size for s in _entries(tmp_path / "sizing").values())
    assert len(sizes) == 2, sizing.stdout + sizing.stderr
    cap_mb = str((sizes[1] + sizes[0] // 2) / MIB)  # each entry fits, the two together do not

    folder = tmp_path / "cache"
    first = _opset(diff, folder, tmp_path, OPSET_TOOLKIT_CACHE_MAX_MB=cap_mb)
    assert first.returncode == sizing.returncode, first.stdout + first.stderr
    filled = _entries(folder)
    assert len(filled) == 2  # the old tree's entry did not evict the new tree's
    second = _opset(diff, folder, tmp_path, OPSET_TOOLKIT_CACHE_MAX_MB=cap_mb)
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout)
    again = _entries(folder)
    # read, not loaded and written again: the same files (an atomic rewrite is a new inode)
    assert {n: s.st_ino for n, s in again.items()} == {n: s.st_ino for n, s in filled.items()}


def _git(cwd: Path, *args: str) -> None:
    identity = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER") for what, value in
                (("NAME", "t"), ("EMAIL", "t@example.com"))}  # fmt: skip
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **identity}, capture_output=True, check=True)


def test_a_diff_against_a_git_ref_prunes_the_others_and_keeps_its_own(tmp_path: Path) -> None:
    """Other commands' entries go first; the diff's own two (the git ref's and the work tree's)
    stay though together they pass the cap, and the next run reads both."""
    repo = tmp_path / "repo"
    _catalog(repo / "specs", 60)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "specs")
    _catalog(repo / "specs", 60, edited=3)
    diff = ["diff", "--against", "HEAD", "--specs", "specs"]
    sizing = _opset(diff, tmp_path / "sizing", repo)
    own = {n: s.st_size for n, s in _entries(tmp_path / "sizing").items()}
    assert len(own) == 2 and any(n.startswith("git-") for n in own), sizing.stdout + sizing.stderr
    folder = tmp_path / "cache"
    for number in range(2):  # two earlier commands on other trees, under the default cap
        other = _catalog(tmp_path / f"other{number}", 20)
        assert (
            _opset(["show", "com.test.cache.Op000", "--specs", str(other)], folder, tmp_path).returncode == 0
        )
    cap_mb = str((max(own.values()) + min(own.values()) // 2) / MIB)  # each fits, the pair does not

    first = _opset(diff, folder, repo, OPSET_TOOLKIT_CACHE_MAX_MB=cap_mb)
    assert (first.returncode, first.stdout) == (sizing.returncode, sizing.stdout)
    filled = _entries(folder)
    assert set(filled) == set(own)
    second = _opset(diff, folder, repo, OPSET_TOOLKIT_CACHE_MAX_MB=cap_mb)
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout)
    assert {n: s.st_ino for n, s in _entries(folder).items()} == {n: s.st_ino for n, s in filled.items()}


def test_a_process_protects_only_its_latest_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived process (`mkdocs serve`, `opset pre-commit` over many folders) uses entry after
    entry: only its last WORKING_SET stay protected, so the cap still holds it."""
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE_MAX_MB", str(2.5 * 1024 / MIB))  # two 1 KiB entries
    monkeypatch.setattr(cache, "_working_set", [])
    names = [f"e{i}" for i in range(cache.WORKING_SET + 3)]
    for number, name in enumerate(names):
        cache.write_entry(name, b"x" * 1024)
        os.utime(cache.entry_path(name), (1000 + number, 1000 + number))
    assert sorted(_entries(tmp_path / "cache")) == sorted(f"{n}.entry" for n in names[-cache.WORKING_SET :])


def _hostile(root: Path, doc_kib: int, versions: int) -> Path:
    """One small file whose `based_on` chain repeats a long doc in every version."""
    folder = root / "com.test.cache"
    _domain(folder, versions + 1)
    doc = ("word " * (doc_kib * 1024 // 5)).strip()
    (folder / "Big.yaml").write_text(_operator("Big", doc, extra_versions=versions))
    return root


def test_a_tree_cannot_make_an_entry_larger_than_the_cap(tmp_path: Path) -> None:
    """Under 128 KiB of YAML would encode to a ~38 MiB entry: with a 1 MiB cap (the invoker's), nothing
    over the cap is written and the encoding stops near it (peak memory stays low)."""
    hostile = _hostile(tmp_path / "new", doc_kib=48, versions=800)
    assert sum(p.stat().st_size for p in hostile.rglob("*.yaml")) < 128 * 1024
    _catalog(tmp_path / "old", 5)
    folder = tmp_path / "cache"
    assert _opset(["show", "com.test.cache.Op000", "--specs", "old"], folder, tmp_path).returncode == 0
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OPSET_TOOLKIT_")}
    cap = {"OPSET_TOOLKIT_CACHE_MAX_MB": "1"}
    environment.update(OPSET_TOOLKIT_CACHE=str(folder), **cap)
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "toolkit", "diff", "--against", "old"]
    proc = subprocess.run(
        [*command, "--specs", "new"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=150,
    )
    exit_code, peak_kib = (int(word) for word in proc.stdout.rsplit("EXIT ", 1)[1].split(" PEAK_KIB "))
    assert exit_code in (0, 1), proc.stdout
    assert peak_kib < 100 * 1024  # the whole entry would be ~38 MiB, built in memory twice (~190 MiB)
    # a command on that tree alone: still nothing over the cap
    assert _opset(["show", "com.test.cache.Big", "--specs", "new"], folder, tmp_path, **cap).returncode == 0
    entries = _entries(folder)
    assert len(entries) == 1  # the old tree's; the hostile one is not cached
    assert all(s.st_size <= MIB for s in entries.values())


def test_the_encoding_stops_at_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`codec.schema_set_document(max_bytes=)` raises once it passes the budget, having encoded
    only a few versions more than fit, and `result_cache.store` then stores nothing."""
    from toolkit.registry.core import load_registry

    tree = _hostile(tmp_path / "t", doc_kib=16, versions=200)
    registry = load_registry([tree], cache=False)
    (domain,) = registry.specs.domains
    operators = list(registry.specs.operators)
    full = len(codec.schema_set_document(domain, operators).SerializeToString())
    assert full > 3 * MIB
    encoded: list[None] = []  # one per version encoded
    real = codec._encode_schema
    monkeypatch.setattr(codec, "_encode_schema", lambda *a: encoded.append(real(*a)))
    with pytest.raises(codec.DocumentTooLarge):
        codec.schema_set_document(domain, operators, max_bytes=MIB)
    assert len(encoded) <= MIB // (16 * 1024) + 2  # of the 201 versions
    result = LoadResult(SpecSet(registry.specs.domains, registry.specs.operators, ()), [], 2)
    with pytest.raises(codec.DocumentTooLarge):
        result_cache.encode(result, "k", max_bytes=MIB)
    assert len(result_cache.encode(result, "k", max_bytes=4 * MIB)) > 3 * MIB  # what fits is encoded
