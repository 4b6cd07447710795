"""`opset generate`: registry of generators, --check, pruning, atomicity, determinism."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from output_helpers import as_if_written

from toolkit.cli import main
from toolkit.generate import GENERATORS, GenerateContext, available_kinds, register_generator
from toolkit.generate.pipeline import GeneratorError, diff_text, generate_tree, run_generators, source_label
from toolkit.generate.python import builders as python_builders
from toolkit.load import manifest as writer_manifest
from toolkit.load import writer
from toolkit.load.output_folder import OutputRefused
from toolkit.registry.core import Registry

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"
KINDS = "proto,python"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (relative posix path -> bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def out(tmp_path: Path, shipped_registry: Registry) -> Path:
    target = tmp_path / "generated"
    generate_tree([OPSETS], target, kinds=["proto", "python"], registry=shipped_registry, source="opsets")
    return target


# -- registry ---------------------------------------------------------------------------------


def test_registry_has_proto_and_python() -> None:
    kinds = available_kinds()
    assert {"proto", "python"} <= set(kinds)
    assert list(kinds) == sorted(kinds)


def test_register_generator_rejects_duplicates_and_bad_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GENERATORS, "dummy", lambda r, c: {})
    with pytest.raises(ValueError, match="already registered"):
        register_generator("dummy")(lambda r, c: {})
    with pytest.raises(ValueError, match="invalid generator kind"):
        register_generator("a/b")


def test_generator_paths_must_stay_in_their_folder(
    monkeypatch: pytest.MonkeyPatch, shipped_registry: Registry
) -> None:
    monkeypatch.setitem(GENERATORS, "rogue", lambda r, c: {"proto/x.txt": b"x"})
    with pytest.raises(GeneratorError, match="outside its folder 'rogue/'"):
        run_generators(shipped_registry, GenerateContext(), ["rogue"])
    monkeypatch.setitem(GENERATORS, "rogue", lambda r, c: {"rogue/../x": b"x"})
    with pytest.raises(GeneratorError, match="unsafe path"):
        run_generators(shipped_registry, GenerateContext(), ["rogue"])
    monkeypatch.setitem(GENERATORS, "rogue", lambda r, c: {"rogue/x": "text"})
    with pytest.raises(GeneratorError, match="not bytes"):
        run_generators(shipped_registry, GenerateContext(), ["rogue"])


def test_source_label_is_relative(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert source_label([OPSETS]) == "opsets"
    assert source_label(["opsets/", "x/y"]) == "opsets, x/y"


# -- writing, pruning, --check -----------------------------------------------------------------


def test_generate_writes_only_changed_files_and_prunes(out: Path, shipped_registry: Registry) -> None:
    files = snapshot(out)
    assert any(p.startswith("proto/org.example.abc/opset_1.pb") for p in files)
    assert "python/opset_toolkit_generated/__init__.py" in files
    textproto = out / "proto/org.example.abc/opset_1.textproto"
    mtime = textproto.stat().st_mtime_ns
    stale = out / "proto/org.example.abc/opset_99.pb"
    stale.write_bytes(b"old")
    as_if_written(out, "proto/org.example.abc/opset_99.pb")  # as if an earlier run wrote it
    foreign = out / "notes.txt"  # not a generated kind's folder: never pruned
    foreign.write_text("keep me")
    unlisted = out / "proto/org.example.abc/mine.pb"  # not opset's (not in its manifest): left alone
    unlisted.write_bytes(b"mine")
    result = generate_tree(
        [OPSETS], out, kinds=["proto", "python"], registry=shipped_registry, source="opsets"
    )
    assert [c.path for c in result.changes] == ["proto/org.example.abc/opset_99.pb", writer_manifest.MANIFEST]
    assert not stale.exists()
    assert foreign.read_text() == "keep me" and unlisted.read_bytes() == b"mine"
    assert textproto.stat().st_mtime_ns == mtime  # unchanged files are not rewritten


def test_only_prunes_the_selected_kinds(out: Path, shipped_registry: Registry) -> None:
    generate_tree([OPSETS], out, kinds=["proto"], registry=shipped_registry, source="opsets")
    assert (out / "python/opset_toolkit_generated/_runtime.py").exists()


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_exit_codes_and_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    target = tmp_path / "gen"
    base = ["generate", "--specs", "opsets", "--out", str(target), "--only", KINDS, "--no-cache"]
    code, stdout, _ = run_cli([*base, "--check"], capsys)
    assert code == 1
    # a fresh output folder: every file named with its size, none printed
    assert f"would add {target}/proto/org.example.abc/opset_1.pb (" in stdout
    assert "+++ b/" not in stdout and "do not edit" not in stdout
    assert not target.exists()  # --check writes nothing

    code, stdout, _ = run_cli(base, capsys)
    assert code == 0 and "added" in stdout
    code, stdout, _ = run_cli([*base, "--check"], capsys)
    assert code == 0 and "up to date" in stdout

    textproto = target / "proto/org.example.abc/opset_2.textproto"
    textproto.write_bytes(textproto.read_bytes().replace(b'op_type: "B"', b'op_type: "Bee"'))
    (target / "proto/org.example.abc/opset_2.pb").write_bytes(b"\x00garbage")
    (target / "python/stale.py").write_text("x = 1\n")
    as_if_written(target, "python/stale.py")  # as if an earlier run wrote it
    as_if_written(  # and these bytes: outputs of older specs, not hand edits
        target, "proto/org.example.abc/opset_2.textproto", "proto/org.example.abc/opset_2.pb"
    )
    before = snapshot(target)
    code, stdout, stderr = run_cli([*base, "--check"], capsys)
    assert code == 1
    assert '-  op_type: "Bee"' in stdout and '+  op_type: "B"' in stdout
    assert f"Binary file {target}/proto/org.example.abc/opset_2.pb differs" in stdout
    assert f"would remove {target}/python/stale.py (6 bytes)" in stdout
    assert "4 generated file(s)" in stderr  # and the manifest, which lists stale.py
    assert snapshot(target) == before


def test_unknown_kind_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, stderr = run_cli(
        ["generate", "--specs", str(OPSETS), "--out", str(tmp_path), "--only", "nope"], capsys
    )
    assert code == 2 and "unknown generator kind(s) nope" in stderr


def test_spec_errors_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "domain.yaml").write_text("domain: x.y\nopset_versions: [{version: 1, ir_version: 9}]\n")
    (specs / "Bad.yaml").write_text("operator: Bad\ndomain: x.y\nversions:\n  - since_version: one\n")
    code, _, stderr = run_cli(
        ["generate", "--specs", str(specs), "--out", str(tmp_path / "gen"), "--no-cache"], capsys
    )
    assert code == 1 and "Bad.yaml:" in stderr and "error[" in stderr
    assert not (tmp_path / "gen").exists()


def test_diff_text_formats() -> None:
    changes = [
        writer.Change("proto/a.textproto", b"x\ny\n", b"x\nz"),
        writer.Change("proto/b.pb", None, b"\x00\x01"),
        writer.Change("proto/c.pb", b"\x00", None),
    ]
    text = diff_text(changes, "gen")
    assert "--- a/gen/proto/a.textproto\n+++ b/gen/proto/a.textproto\n" in text
    assert "-y\n+z\n\\ No newline at end of file\n" in text
    assert "would add gen/proto/b.pb (2 bytes)\n" in text
    assert "would remove gen/proto/c.pb (1 byte)\n" in text


# -- atomicity -----------------------------------------------------------------------------------


def test_failing_generator_leaves_output_byte_identical(
    out: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # make the proto output differ, so that a successful run would have rewritten files
    (out / "proto/org.example.abc/opset_1.textproto").write_text("changed")
    before = snapshot(out)
    calls = {"n": 0}
    real = python_builders.build_method

    def failing(*args: object, **kwargs: object) -> python_builders.Method:
        calls["n"] += 1
        if calls["n"] == 5:  # midway through the python generator, after proto ran
            raise RuntimeError("boom")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(python_builders, "build_method", failing)
    with pytest.raises(
        GeneratorError,
        match=r"generator 'python' failed on the builder method of com\.acme\.vision\.FusedConv:1 "
        r"\(opset 1\): RuntimeError: boom",
    ) as raised:
        generate_tree([OPSETS], out, kinds=["proto", "python"], registry=shipped_registry, source="opsets")
    assert snapshot(out) == before
    assert calls["n"] == 5
    diagnostic = raised.value.diagnostic
    assert diagnostic is not None and diagnostic.rule == "GEN-FAILED"
    assert Path(diagnostic.location.file).name == "FusedConv.yaml" and diagnostic.location.line > 1

    calls["n"] = 0  # the CLI reports the failure the same way
    code, _, stderr = run_cli(
        ["generate", "--specs", str(OPSETS), "--out", str(out), "--only", KINDS, "--no-cache"], capsys
    )
    assert code == 1 and "nothing was written" in stderr
    assert re.match(
        r"^\S*FusedConv\.yaml:\d+:\d+: error\[GEN-FAILED\]: generator 'python' failed on ", stderr
    )
    assert snapshot(out) == before


def test_kill_after_journal_is_rolled_forward(
    out: Path, shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    expected = snapshot(out)
    # damage several files so the next run must rewrite them
    for rel in ("proto/org.example.abc/opset_1.textproto", "python/opset_toolkit_generated/_runtime.py"):
        (out / rel).write_text("old")
    (out / "proto/org.example.abc/stale.pb").write_bytes(b"stale")
    # as if an earlier run wrote these bytes (hand edits would not be opset's to replace)
    as_if_written(out, "proto/org.example.abc/stale.pb", "proto/org.example.abc/opset_1.textproto")
    as_if_written(out, "python/opset_toolkit_generated/_runtime.py")
    real_replace = os.replace
    state = {"n": 0}

    def dying_replace(src: str, dst: str) -> None:
        # the journal itself goes in (first replace); the process dies after one file rename
        state["n"] += 1
        if state["n"] == 3:
            raise KeyboardInterrupt("killed")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", dying_replace)
    with pytest.raises(KeyboardInterrupt):
        generate_tree([OPSETS], out, kinds=["proto", "python"], registry=shipped_registry, source="opsets")
    monkeypatch.setattr(os, "replace", real_replace)
    assert (out / writer.JOURNAL).exists()  # interrupted mid-commit
    # a --check writes nothing: it reports the pending commit instead of comparing
    with pytest.raises(OutputRefused, match="interrupted"):
        generate_tree([OPSETS], out, kinds=["proto", "python"], check=True, registry=shipped_registry)
    # the next writing run finishes the commit (every step of it), then has nothing left to change
    result = generate_tree(
        [OPSETS], out, kinds=["proto", "python"], registry=shipped_registry, source="opsets"
    )
    assert result.changes == () and result.left_alone == ()
    assert snapshot(out) == expected


# -- determinism ---------------------------------------------------------------------------------


def _run(seed: str, specs: Path, target: Path) -> None:
    env = dict(os.environ, PYTHONHASHSEED=seed, OPSET_TOOLKIT_NO_CACHE="1")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "generate",
            "--specs",
            str(specs),
            "--out",
            str(target),
            "--only",
            KINDS,
        ],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )


def test_same_bytes_under_any_hash_seed(tmp_path: Path, onnx_catalog_dir: Path) -> None:
    for specs in (OPSETS, onnx_catalog_dir):
        first, second = tmp_path / f"{specs.name}-1", tmp_path / f"{specs.name}-2"
        _run("1", specs, first)
        _run("4242", specs, second)
        a, b = snapshot(first), snapshot(second)
        assert a.keys() == b.keys() and len(a) > 10
        assert [k for k in a if a[k] != b[k]] == []


def test_checked_in_generated_tree_is_current(
    shipped_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI gate: `generated/` holds exactly what `opset generate` writes for the shipped specs."""
    monkeypatch.chdir(REPO)
    result = generate_tree(["opsets"], REPO / "generated", kinds=["proto", "python"], check=True, cache=False)
    assert diff_text(result.changes) == ""
