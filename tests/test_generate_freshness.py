"""A rerun of `opset generate` whose inputs and outputs are unchanged skips loading and rendering
(toolkit/generate/freshness.py), and any change to either falls back to the full run."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.generate import freshness, pipeline
from toolkit.generate.pipeline import generate_tree

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    return tmp_path


def _no_load(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the specs were loaded although the outputs are current")


def _age(root: Path) -> None:
    """Date every output back, out of the racy window in which content is always compared."""
    past = os.stat(root).st_mtime_ns - 10 * freshness.RACY_NS
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))


def _rerecord(tree: Path) -> None:
    """Run once, age the outputs, and record again so that the record holds the aged stats."""
    generate_tree(["opsets"], "gen")
    _age(tree / "gen")
    freshness_entry = list((tree / "cache").glob("generate-*.entry"))
    for entry in freshness_entry:
        entry.unlink()
    generate_tree(["opsets"], "gen")


def test_current_outputs_skip_the_load_and_give_the_same_files(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = generate_tree(["opsets"], "gen")
    expected = dict(full.files)
    monkeypatch.setattr(pipeline, "load_registry", _no_load)
    again = generate_tree(["opsets"], "gen")
    assert not again.changes and again.written
    assert dict(again.files) == expected  # read back from disk, byte for byte
    check = generate_tree(["opsets"], "gen", check=True)
    assert not check.changes and len(check.files) == len(expected)


def test_aged_outputs_are_trusted_by_stat_and_an_edit_is_still_seen(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rerecord(tree)
    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "load_registry", _no_load)
        generate_tree(["opsets"], "gen", check=True)  # current: trusted without reading
    victim = next((tree / "gen" / "python").rglob("_opsets.py"))
    victim.write_bytes(victim.read_bytes().replace(b"Builders", b"builders"))  # same size, new mtime
    result = generate_tree(["opsets"], "gen", check=True)
    assert [c.path for c in result.changes] == [victim.relative_to(tree / "gen").as_posix()]


@pytest.mark.parametrize("edit", ["spec", "extra-output", "removed-output", "toolkit", "kinds"])
def test_any_change_falls_back_to_the_full_run(
    tree: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    generate_tree(["opsets"], "gen")
    loads: list[object] = []
    real = pipeline.load_registry

    def counting(*args: object, **kwargs: object) -> object:
        loads.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "load_registry", counting)
    kinds = None
    if edit == "spec":
        spec = next((tree / "opsets").rglob("A.yaml"))
        spec.write_text(spec.read_text() + "\n# a comment changes the bytes, not the outputs\n")
    elif edit == "extra-output":
        (tree / "gen" / "docs" / "stray.md").write_text("not generated\n")
    elif edit == "removed-output":
        next((tree / "gen" / "proto").rglob("*.pb")).unlink()
    elif edit == "toolkit":
        monkeypatch.setattr(freshness, "toolkit_stamp", lambda: "another toolkit")
    elif edit == "kinds":
        kinds = ["docs", "proto"]
    result = generate_tree(["opsets"], "gen", kinds=kinds, check=True)
    assert loads, f"{edit}: the full run did not happen"
    if edit == "removed-output":
        assert result.changes  # and the full run reports the difference
    if edit == "extra-output":
        assert not result.changes  # a file opset did not write is not its to remove


def test_cli_rerun_and_check_report_current_outputs(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "--specs", "opsets", "--out", "gen"]) == 0
    first = capsys.readouterr().out
    monkeypatch.setattr(pipeline, "load_registry", _no_load)
    assert main(["generate", "--specs", "opsets", "--out", "gen", "--check"]) == 0
    count = first.split(" files ")[0].rsplit(" ", 1)[1]
    assert f"up to date ({count} files" in capsys.readouterr().out


def test_no_cache_always_runs_in_full(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate_tree(["opsets"], "gen")
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.setattr(pipeline, "load_registry", _no_load)
    with pytest.raises(AssertionError, match="were loaded"):
        generate_tree(["opsets"], "gen", check=True)


@pytest.mark.parametrize(
    "relative", ["generate/python/templates/schema_module.py.j2", "generate/pipeline.py"]
)
def test_the_toolkit_stamp_covers_code_and_templates(relative: str) -> None:
    """A template edited alone must invalidate the records too: the outputs depend on it."""
    import toolkit
    from toolkit.registry.core import toolkit_stamp

    path = Path(toolkit.__file__).parent / relative
    before = path.stat()
    toolkit_stamp.cache_clear()
    stamp = toolkit_stamp()
    try:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
        toolkit_stamp.cache_clear()
        assert toolkit_stamp() != stamp
    finally:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        toolkit_stamp.cache_clear()


def test_the_toolkit_stamp_follows_dependency_upgrades(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library upgrade rewrites its files: records made with the old one are not used."""
    from toolkit.registry import core

    package = tmp_path / "stampdep"
    package.mkdir()
    (package / "__init__.py").write_text("VERSION = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(core, "STAMPED_DEPENDENCIES", ("stampdep", "no_such_dependency_here"))
    core.toolkit_stamp.cache_clear()
    try:
        before = core.toolkit_stamp()
        assert "no_such_dependency_here=missing" in before
        (package / "__init__.py").write_text("VERSION = 22\n")  # another size, another mtime
        core.toolkit_stamp.cache_clear()
        assert core.toolkit_stamp() != before
        assert "stampdep" not in sys.modules  # located, never imported
    finally:
        core.toolkit_stamp.cache_clear()


NEG = """\
operator: Neg
domain: com.x.y
versions:
  - since_version: 1
    doc: Negates.
    inputs: [{name: X, type: tensor(float)}]
    outputs: [{name: Y, type: tensor(float)}]
    examples:
      - {name: basic, inputs: [{file: x.npy}], outputs: [{file: y.npy}]}
"""


def test_an_edited_example_file_is_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An example's `.npy` is an input of the outputs (backend test data, the docs' Examples), so
    `--check` may not answer from the record when only that file changed: the record is keyed by
    the same digest of the inputs as the load cache (`registry.core.inputs_key`)."""
    np = pytest.importorskip("numpy")
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "opsets" / "com.x.y"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text("domain: com.x.y\nopset_versions:\n  - {version: 1, ir_version: 9}\n")
    (folder / "Neg.yaml").write_text(NEG)
    np.save(folder / "x.npy", np.array([1, 2], dtype=np.float32))
    np.save(folder / "y.npy", np.array([-1, -2], dtype=np.float32))
    assert main(["generate", "--quiet"]) == 0
    assert main(["generate", "--check"]) == 0
    capsys.readouterr()

    np.save(folder / "y.npy", np.array([-1, -3], dtype=np.float32))  # the spec file is unchanged

    assert main(["generate", "--check"]) == 1
    assert "stale" in capsys.readouterr().err
