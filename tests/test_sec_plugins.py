"""Nothing the tree under review names is imported or run without the invoker's opt-in.

Each test builds the hostile tree at test time and drives the real command in a subprocess
(`opset ...` or `python -m toolkit ...`, the working directory being the tree): gate plugins
named by the tree's opset.toml, modules in the tree shadowing real ones, option-looking values
(`--against --output=/x`), spec folders named like options, python adapter steps, mkdocs
options pointing out of the repository, and .npy headers parsed as literals.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
OPSET = shutil.which("opset") or str(Path(sys.executable).with_name("opset"))

# A plugin that leaves a marker when imported and registers a rule that fires on every edit.
EVIL = """
import pathlib
pathlib.Path(__file__).with_name("MARKER").write_text("imported")

from toolkit.compat.rules import compat_rule, rule_doc


@compat_rule(
    "EVIL-RAN", name="evil-ran", severity="error", bc=False, fc=False, category="docs",
    summary="The plugin ran.", doc=rule_doc("why", "a: 1", "a: 2", "fix"),
)
def evil_ran(ctx):
    from toolkit.compat.engine import Hit

    for edit in ctx.edits:
        yield Hit(edit.new.id, "the plugin ran", edit.new.location)
"""
# A module that shadows a real one: it only leaves its marker (the real module is never reached).
SHADOW = 'import pathlib\npathlib.Path(__file__).with_name("MARKER").write_text("shadowed")\n'
CONFIG = '# the gate configuration of the tree under review\nplugins = ["evil"]\ndisable = ["DOC-CHANGED"]\n'


def _env(*path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPSET_TOOLKIT_")}
    env.update(PYTHONPATH=os.pathsep.join(str(p) for p in (*path, REPO)), OPSET_TOOLKIT_NO_CACHE="1", **extra)
    return env


def _run(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [OPSET, *argv] if argv[0] != "-m" else [sys.executable, *argv]
    return subprocess.run(command, cwd=cwd, env=env or _env(), capture_output=True, text=True, timeout=120)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """old/ and new/ (new edits a released version: ATTR-ADDED), an opset.toml naming the plugin
    `evil`, and evil.py beside it."""
    for side in ("old", "new"):
        shutil.copytree(ABC, tmp_path / side / "org.example.abc")
    c = tmp_path / "new" / "org.example.abc" / "C.yaml"
    c.write_text(
        c.read_text().replace(
            'T: {allowed: "@numbers"}',
            'T: {allowed: "@numbers"}\n    attributes:\n      axis: {type: int, default: 0}',
        )
    )
    (tmp_path / "opset.toml").write_text(CONFIG)
    (tmp_path / "evil.py").write_text(EVIL)
    return tmp_path


WARNING = "opset.toml:2:1: warning[PLUGINS-IGNORED]: plugins not imported (evil)"


@pytest.mark.parametrize(
    "argv",
    [
        ("diff", "--against", "old", "--specs", "new"),
        ("pre-commit", "--against", "old", "--specs", "new"),
        ("-m", "toolkit", "diff", "--against", "old", "--specs", "new"),
    ],
    ids=["opset diff", "opset pre-commit", "python -m toolkit diff"],
)
def test_the_trees_plugins_are_not_imported(tree: Path, argv: tuple[str, ...]) -> None:
    result = _run(tree, *argv)
    assert result.returncode == 1, result.stderr  # the built-in findings, as without the plugin
    assert "error[ATTR-ADDED]" in result.stdout and "EVIL-RAN" not in result.stdout
    assert WARNING in result.stderr and "hint: opt in where the configuration is trusted" in result.stderr
    assert "internal error" not in result.stderr
    assert not (tree / "MARKER").exists()


def test_rules_config_does_not_import_the_trees_plugins(tree: Path) -> None:
    result = _run(tree, "rules", "--config", "opset.toml")
    assert result.returncode == 0, result.stderr
    assert (
        "ATTR-ADDED" in result.stdout
        and "EVIL-RAN" not in result.stdout
        and "PLUGINS-IGNORED" in result.stdout
    )
    assert WARNING in result.stderr and not (tree / "MARKER").exists()


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        (("--plugins", "evil"), {}),
        (("--allow-plugins",), {}),
        ((), {"OPSET_TOOLKIT_PLUGINS": "evil"}),
        ((), {"OPSET_TOOLKIT_ALLOW_PLUGINS": "1"}),
    ],
    ids=["--plugins", "--allow-plugins", "OPSET_TOOLKIT_PLUGINS", "OPSET_TOOLKIT_ALLOW_PLUGINS"],
)
def test_the_invokers_opt_in_runs_the_plugin(
    tree: Path, argv: tuple[str, ...], extra: dict[str, str]
) -> None:
    if "--allow-plugins" not in argv and "OPSET_TOOLKIT_ALLOW_PLUGINS" not in extra:
        (tree / "opset.toml").write_text("")  # a module the invoker names needs no configuration
    result = _run(tree, "diff", "--against", "old", "--specs", "new", *argv, env=_env(tree, **extra))
    assert result.returncode == 1, result.stderr
    assert "error[EVIL-RAN]: org.example.abc.C:4: the plugin ran" in result.stdout
    assert "PLUGINS-IGNORED" not in result.stderr and (tree / "MARKER").exists()


def test_the_opt_in_reaches_the_gate_of_pre_commit(tree: Path) -> None:
    result = _run(
        tree, "pre-commit", "--against", "old", "--specs", "new", "--plugins", "evil", env=_env(tree)
    )
    assert result.returncode == 1 and "error[EVIL-RAN]" in result.stdout, result.stderr


def test_a_plugin_that_cannot_be_imported_is_a_usage_error(tree: Path) -> None:
    missing = _run(tree, "diff", "--against", "old", "--specs", "new", "--plugins", "no_such_plugin")
    assert missing.returncode == 2 and "internal error" not in missing.stderr
    assert (
        "opset: error: --plugins: cannot import plugin module 'no_such_plugin': not found" in missing.stderr
    )
    assert "hint: install the module" in missing.stderr
    (tree / "opset.toml").write_text(CONFIG.replace('"evil"', '"broken"'))
    (tree / "broken.py").write_text("raise RuntimeError('boom')\n")
    broken = _run(tree, "diff", "--against", "old", "--specs", "new", "--allow-plugins", env=_env(tree))
    assert broken.returncode == 2 and "internal error" not in broken.stderr
    assert "opset.toml:2:1: cannot import plugin module 'broken': RuntimeError: boom" in broken.stderr
    (tree / "exits.py").write_text("raise SystemExit(3)\n")
    exits = _run(tree, "rules", "--plugins", "exits", env=_env(tree))
    assert exits.returncode == 2 and "cannot import plugin module 'exits': SystemExit: 3" in exits.stderr
    bad = _run(tree, "rules", "--plugins", "../evil")
    assert bad.returncode == 2 and "'../evil' is not a module name" in bad.stderr
    assert not (tree / "MARKER").exists()


def test_an_installed_module_named_by_the_tree_is_not_imported(tree: Path) -> None:
    (tree / "opset.toml").write_text('plugins = ["this"]\n')  # importing `this` prints the Zen of Python
    result = _run(tree, "diff", "--against", "old", "--specs", "new")
    assert result.returncode == 1, result.stderr
    assert "Beautiful is better" not in result.stdout + result.stderr
    assert "opset.toml:1:1: warning[PLUGINS-IGNORED]: plugins not imported (this)" in result.stderr


def test_python_m_toolkit_does_not_import_the_trees_modules(tree: Path) -> None:
    (tree / "yaml.py").write_text(SHADOW)  # every command reads YAML
    result = _run(tree, "-m", "toolkit", "validate", "new")
    assert result.returncode == 0, result.stderr
    assert not (tree / "MARKER").exists()


@pytest.mark.parametrize("option", ["--against", "--specs", "--config", "--output"])
def test_an_option_like_value_is_refused_not_read_as_an_option(tree: Path, option: str) -> None:
    target = tree / "written"
    value = f"--output={target}"  # e.g. a CI template's "$BASE"
    argv = ["diff", "--against", "old", "--specs", "new", "--format", "json"]
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    result = _run(tree, *argv)
    assert result.returncode == 2
    assert f"{option}: the value '--output={target}' looks like an option" in result.stderr
    assert f"hint: join the option and its value: {option}=--output={target}" in result.stderr
    assert not target.exists()


def test_pre_commit_keeps_a_spec_folder_named_like_an_option_a_folder(tmp_path: Path) -> None:
    """A tree's spec folder `--output=report` given to `opset validate` as a word would be its
    `--output` option: validate's report would be written to `report`."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shutil.copytree(ABC, tmp_path / "--output=report" / "org.example.abc")
    result = _run(tmp_path, "pre-commit", "--no-gate")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "report").exists()


def test_python_adapter_steps_of_the_specs_need_the_opt_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.adapters import load_callable
    from toolkit.adapters.steps import AdapterError

    (tmp_path / "spec_adapter.py").write_text(SHADOW + "def upgrade(node, ctx):\n    return node\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("OPSET_TOOLKIT_ALLOW_PYTHON_ADAPTERS", raising=False)
    with pytest.raises(
        AdapterError, match="OPSET_TOOLKIT_ALLOW_PYTHON_ADAPTERS=1 where the specs are trusted"
    ):
        load_callable("spec_adapter:upgrade")
    assert not (tmp_path / "MARKER").exists()
    assert callable(load_callable("toolkit.adapters.onnx_ops:inference_only"))  # the toolkit's own
    monkeypatch.setenv("OPSET_TOOLKIT_ALLOW_PYTHON_ADAPTERS", "1")
    assert callable(load_callable("spec_adapter:upgrade")) and (tmp_path / "MARKER").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("      specs: ../outside\n", "is outside the repository"),
        ("      mount: ../../escaped\n", "must be a relative folder"),
    ],
)
def test_mkdocs_options_stay_inside_the_repository(tmp_path: Path, options: str, message: str) -> None:
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (work / ".git").mkdir()
    shutil.copytree(ABC, work / "opsets" / "org.example.abc")
    shutil.copytree(ABC, tmp_path / "outside" / "org.example.abc")
    (work / "docs" / "index.md").write_text("# Home\n")
    (work / "mkdocs.yml").write_text(f"site_name: t\nplugins:\n  - opset:\n{options}")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", str(work / "mkdocs.yml"), "-d", str(work / "site")],
        capture_output=True,
        text=True,
        env=_env(NO_MKDOCS_2_WARNING="1"),
        timeout=120,
        cwd=work,
    )
    assert result.returncode != 0 and message in result.stderr, result.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "work"]


def test_npy_header_parsed_as_a_literal_is_bounded() -> None:
    from toolkit.model.npy import NpyError, read_npy

    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (" + b"1, " * 20_000 + b")}"
    data = b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header
    with pytest.raises(NpyError, match=r"the .npy header is \d+ bytes \(at most 10000"):
        read_npy(data)


def test_the_ignored_plugins_warning_in_process(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same refusal through `toolkit.cli.main` in this process (the rule catalog's
    completeness test records what this process emits): the gate runs, the plugin does not."""
    from toolkit.cli import main

    monkeypatch.chdir(tree)
    monkeypatch.syspath_prepend(str(tree))  # importable, were it imported
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    code = main(["diff", "--against", "old", "--specs", "new"])
    out, err = capsys.readouterr()
    assert code == 1 and WARNING in err and "ATTR-ADDED" in out
    assert not (tree / "MARKER").exists() and "evil" not in sys.modules
