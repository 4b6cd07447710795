"""The authoring loop as a newcomer meets it (issue 25, items 2, 4 and the spec-rule points of 6).

Every case builds its repository at test time with `opset init` and real git, and drives the
real CLI: the pre-commit hooks the scaffold writes (under the real pre-commit, unmodified, with
`opset` on PATH), the gate's messages, hints, legend and SARIF, and the spec checks' report of
one cause once.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from output_helpers import cli_text as _cli

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DOMAIN = "com.newco.audio"
GAIN = f"opsets/{DOMAIN}/Gain.yaml"
LINE = re.compile(
    r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>\w+)\[(?P<rule>[A-Z0-9-]+)\]: ", re.M
)


def _env(tmp_path: Path) -> dict[str, str]:
    """The environment of a developer who installed the toolkit beside pre-commit: this venv's
    `opset` first on PATH, running this checkout's code; no network, no shared caches."""
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(REPO),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "OPSET_TOOLKIT_NO_CACHE": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def _run(cwd: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _ok(cwd: Path, env: dict[str, str], *argv: str) -> str:
    proc = _run(cwd, env, *argv)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _rules(text: str) -> list[str]:
    return [m["rule"] for m in LINE.finditer(text)]


def _rename_gain(root: Path) -> None:
    gain = root / GAIN
    gain.write_text(gain.read_text().replace("      gain: {type", "      factor: {type"))


@pytest.fixture()
def newco(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """A fresh `opset init` repository with one commit (no releases.yaml), as the cwd."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    for name in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(name, "t@example.com" if "EMAIL" in name else "t")
    root = tmp_path / "newco"
    assert _cli(capsys, "init", str(root), "--domain", DOMAIN)[0] == 0
    env = _env(tmp_path)
    _ok(root, env, "git", "init", "-q", "-b", "main")
    _ok(root, env, "git", "add", "-A")
    _ok(root, env, "git", "commit", "-q", "-m", "opset 1")
    monkeypatch.chdir(root)
    return root


# --------------------------------------------------------------------------- #25.2 the hooks


def test_the_scaffolds_hooks_refuse_a_breaking_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`opset init`, commit, rename an attribute of the released version, regenerate: `git commit`
    is refused by the hooks as written (real pre-commit, `language: system`, no network)."""
    if not (BIN / "pre-commit").exists():
        pytest.skip("pre-commit is not installed (test extra)")
    env = _env(tmp_path)
    root = tmp_path / "newco"
    assert _cli(capsys, "init", str(root), "--domain", DOMAIN)[0] == 0
    _ok(root, env, "git", "init", "-q", "-b", "main")
    _ok(root, env, "opset", "generate")
    _ok(root, env, "pre-commit", "install")
    _ok(root, env, "git", "add", "-A")
    first = _run(root, env, "git", "commit", "-m", "opset 1")  # no HEAD yet: validated, not gated
    assert first.returncode == 0, first.stdout + first.stderr
    _rename_gain(root)
    _ok(root, env, "opset", "generate")  # generated/ is current: only the gate can refuse it
    _ok(root, env, "git", "add", "-A")
    commit = _run(root, env, "git", "commit", "-m", "rename gain")
    text = commit.stdout + commit.stderr
    assert commit.returncode != 0, text
    assert f"{GAIN}:14:7: error[ATTR-RENAMED]: {DOMAIN}.Gain:1: attribute `gain` renamed to `factor`" in text
    assert _ok(root, env, "git", "rev-list", "--count", "HEAD").strip() == "1"  # nothing committed


def _local_hook_languages(text: str) -> set[str]:
    return {
        hook["language"]
        for repo in (yaml.safe_load(text) or {}).get("repos", [])
        if repo.get("repo") == "local"
        for hook in repo["hooks"]
        if hook["entry"].split()[0] == "opset"
    }


def test_init_and_the_docs_recommend_the_same_hook_language() -> None:
    from toolkit.authoring.init import PRE_COMMIT

    written = _local_hook_languages(PRE_COMMIT)
    assert written == {"system"}
    guide = (REPO / "docs" / "guide" / "ci-gate.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", guide, re.S)
    documented = set().union(*(_local_hook_languages(b) for b in blocks if "repo: local" in b))
    assert documented == written
    assert "entry: opset pre-commit" in PRE_COMMIT


# --------------------------------------------------------------------------- #25.4 messages


def test_released_is_explained_and_the_hint_is_a_real_bump(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _rename_gain(newco)
    code, out = _cli(capsys, "diff", "--against", "HEAD")
    assert code == 1 and _rules(out) == ["ATTR-RENAMED"], out
    assert (
        f"in released version {DOMAIN}.Gain:1 (opset 1 of {DOMAIN} is in HEAD, which has no "
        "releases.yaml naming the domain)" in out
    )
    hint = next(line for line in out.splitlines() if line.startswith("  hint: "))
    assert "declared in domain.yaml" not in hint  # opset 2 is not declared
    assert "and opset 2 to domain.yaml" in hint and "releases.yaml" in hint
    assert out.count("legend: BC=yes: ") == 1 and "FC=yes: " in out
    command = re.search(r"`(opset bump [^`]+)`", hint)
    assert command is not None and command.group(1) == f"opset bump {DOMAIN}.Gain --opset 2"
    # the command the hint names runs and starts exactly the version the gate asks for
    subprocess.run(["git", "checkout", "-q", "--", GAIN], check=True)
    assert _cli(capsys, *shlex.split(command.group(1))[1:])[0] == 0
    domain = yaml.safe_load((newco / f"opsets/{DOMAIN}/domain.yaml").read_text())
    assert [v["version"] for v in domain["opset_versions"]] == [1, 2]
    assert "since_version: 2" in (newco / GAIN).read_text()


def test_with_a_release_table_the_hint_says_what_shipped(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (newco / "opsets" / "releases.yaml").write_text(
        f"releases:\n  - {{release: '1.0', ir_version: 9, opsets: {{{DOMAIN}: 1}}}}\n"
    )
    dom = newco / f"opsets/{DOMAIN}/domain.yaml"
    dom.write_text(
        dom.read_text().replace("doc: First release of the domain.}", "}\n  - {version: 2, ir_version: 9}")
    )
    subprocess.run(["git", "add", "-A"], check=True)
    subprocess.run(["git", "commit", "-q", "-m", "1.0 shipped; opset 2 open"], check=True)
    _rename_gain(newco)
    code, out = _cli(capsys, "diff", "--against", "HEAD")
    assert code == 1 and _rules(out) == ["ATTR-RENAMED"], out
    assert f"(releases.yaml of HEAD ships {DOMAIN} up to opset 1)" in out
    assert (
        f"`opset bump {DOMAIN}.Gain --opset 2` adds `since_version: 2` (opset 2, declared in domain.yaml)"
        in out
    )
    assert "without a release table" not in out


def test_doc_changed_lists_what_changed(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gain = newco / GAIN
    gain.write_text(
        gain.read_text()
        .replace("Multiplies every element", "Scales every element")
        .replace("`X` times `gain`, same shape.", "The scaled signal.")
    )
    code, out = _cli(capsys, "diff", "--against", "HEAD")
    assert code == 0 and _rules(out) == ["DOC-CHANGED"], out
    assert (
        f"only documentation changed in released version {DOMAIN}.Gain:1 (allowed): "
        "output `Y` documentation changed; operator documentation changed"
    ) in out
    assert "operator)" not in out


def test_sarif_lists_the_rules_that_fired_with_help_that_exists(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sarif_pydantic

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    from toolkit.model.rules import DOCS_URL, REPOSITORY_URL

    urls = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Repository"] == REPOSITORY_URL and DOCS_URL.startswith(REPOSITORY_URL + "/blob/main/docs/")
    _rename_gain(newco)
    (newco / f"opsets/{DOMAIN}/domain.yaml").write_text(
        (newco / f"opsets/{DOMAIN}/domain.yaml").read_text().replace("ir_version: 9", "ir_version: 10")
    )
    code, out = _cli(capsys, "diff", "--against", "HEAD", "--format", "sarif")
    assert code == 1
    run = sarif_pydantic.Sarif.model_validate_json(out).runs[0]
    fired = {r.rule_id for r in run.results or []}
    listed = [r for r in run.tool.driver.rules or []]
    assert fired == {"ATTR-RENAMED", "OPSET-IR-CHANGED"} and {r.id for r in listed} == fired
    assert str(run.tool.driver.information_uri).rstrip("/") == REPOSITORY_URL
    for rule in listed:
        uri = str(rule.help_uri)
        assert uri.startswith(DOCS_URL), uri
        page, _, anchor = uri[len(DOCS_URL) :].partition("#")
        source = REPO / "docs" / page
        assert source.is_file(), uri
        assert f"\n### {anchor.upper()}\n" in source.read_text(), uri
    for result in run.results or []:
        assert listed[result.rule_index or 0].id == result.rule_id


# --------------------------------------------------------------------------- #25.6 spec rules


def _write_gain(root: Path, versions: str) -> None:
    text = (root / GAIN).read_text()
    first = text[text.index("  - since_version: 1") :]
    (root / GAIN).write_text(text[: text.index("  - since_version: 1")] + versions.replace("{V1}", first))
    dom = root / f"opsets/{DOMAIN}/domain.yaml"
    dom.write_text(
        dom.read_text().replace(
            "doc: First release of the domain.}",
            "}\n  - {version: 2, ir_version: 9}\n  - {version: 3, ir_version: 9}\n  - {version: 4, ir_version: 9}",
        )
    )


def test_a_missing_base_is_reported_once(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """based_on naming a missing version: one BASED-ON-INVALID, no ADAPTER-NOT-COMPATIBLE for the
    version that inherited nothing, nothing for the versions based on it."""
    _write_gain(
        newco,
        "{V1}  - since_version: 3\n    based_on: 2\n    adapter: {upgrade: [{kind: compatible}]}\n"
        "  - since_version: 4\n    based_on: 3\n    adapter: {upgrade: [{kind: compatible}]}\n",
    )
    code, out = _cli(capsys, "validate")
    assert code == 1 and _rules(out) == ["BASED-ON-INVALID"], out
    assert f"{GAIN}:18:15: error[BASED-ON-INVALID]: based_on: 2 names no version of this operator" in out


def test_versions_out_of_order_are_reported_once(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Listed 2 (based_on 1, with an adapter) then 1: the cause is the order, said once."""
    _write_gain(
        newco, "  - since_version: 2\n    based_on: 1\n    adapter: {upgrade: [{kind: compatible}]}\n{V1}"
    )
    code, out = _cli(capsys, "validate")
    assert code == 1 and _rules(out) == ["VERSION-ORDER"], out
    assert f"{GAIN}:8:5: error[VERSION-ORDER]: since_version 1 is not after 2" in out


def test_a_version_without_outputs_is_a_warning(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gain = newco / GAIN
    gain.write_text(
        gain.read_text().replace(
            '    outputs:\n      - {name: Y, type: T, doc: "`X` times `gain`, same shape."}\n', ""
        )
    )
    code, out = _cli(capsys, "validate")
    assert _rules(out) == ["VERSION-NO-OUTPUTS"], out
    assert code == 0 and f"{GAIN}:5:5: warning[VERSION-NO-OUTPUTS]: {DOMAIN}.Gain:1 has no outputs" in out
    assert _cli(capsys, "validate", "--warnings-as-errors")[0] == 1


@pytest.mark.parametrize("word", ["on", "Off", "yes"])
def test_yaml_1_1_booleans_are_ambiguous_as_keys_as_values(
    newco: Path, capsys: pytest.CaptureFixture[str], word: str
) -> None:
    gain = newco / GAIN
    original = gain.read_text()
    gain.write_text(original.replace("      gain: {type: float", f"      {word}: {{type: float"))
    code, out = _cli(capsys, "validate")
    assert code == 1 and _rules(out) == ["YAML-AMBIGUOUS"], out
    assert f"{GAIN}:14:7: error[YAML-AMBIGUOUS]: key `{word}` is the name '{word}' in YAML 1.2" in out
    assert "but the boolean" in out and f"quote the key ('{word}')" in out
    gain.write_text(original.replace("      gain: {type: float", f"      '{word}': {{type: float"))
    assert _cli(capsys, "validate")[0] == 0  # quoted, it is a name for every reader
    gain.write_text(
        original.replace("gain: {type: float, default: 1.0", f"gain: {{type: string, default: {word}")
    )
    code, out = _cli(capsys, "validate")
    assert code == 1 and _rules(out) == ["YAML-AMBIGUOUS"], out  # the same rule as for the value
