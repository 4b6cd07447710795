"""Untrusted input the readers must bound: a committed `domain.yaml` symlink that pre-commit
would follow out of the repository, a ref pasted into a hint's shell command, integer literals
too long to convert, an `opset.toml` of any size, and spec names too long for a file name.

Every hostile input is built at test time; the CLI runs in-process (`toolkit.cli.main`).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from git_helpers import git as _git
from output_helpers import cli

REPO = Path(__file__).resolve().parent.parent
ABC = REPO / "opsets" / "org.example.abc"
SECRET = "API_TOKEN=hunter2"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code, out, err = cli(capsys, *argv)
    return code, err + out  # the findings (stderr) first


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """outer/repo, a git repository holding the shipped abc specs (committed), the current folder."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    root = tmp_path / "outer" / "repo"
    shutil.copytree(ABC, root / "opsets" / "org.example.abc")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "abc")
    monkeypatch.chdir(root)
    return root


# --------------------------------------------------------------------------- pre-commit's spec roots


def test_precommit_never_follows_a_committed_domain_yaml_symlink(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A committed `evil/link.x/domain.yaml -> <outside>/private.x/domain.yaml` made the target's
    grandparent (outside the repository) a `--specs` root: its files were read and the secret
    in them printed. A link to a domain file inside the repository is skipped too."""
    from toolkit.compat.gitref import spec_roots

    victim = repo.parent / "victim" / "private.x"
    victim.mkdir(parents=True)
    (victim / "domain.yaml").write_text("domain: private.x\nopset_versions: [{version: 1, ir_version: 9}]\n")
    (victim / "Secret.yaml").write_text(
        f'operator: Secret\ndomain: private.x\nversions:\n  - since_version: "{SECRET}"\n'
    )
    (repo / "evil" / "link.x").mkdir(parents=True)
    (repo / "evil" / "link.x" / "domain.yaml").symlink_to(victim / "domain.yaml")
    (repo / "inner" / "alias.x").mkdir(parents=True)
    (repo / "inner" / "alias.x" / "domain.yaml").symlink_to(
        repo / "opsets" / "org.example.abc" / "domain.yaml"
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "links")

    assert spec_roots(repo) == ["opsets"]
    code, text = _run(capsys, "pre-commit", "--no-gate")
    assert code == 0, text
    assert SECRET not in text and "victim" not in text and "private.x" not in text


# --------------------------------------------------------------------------- refs in hints


def test_a_ref_in_a_fetch_hint_is_shell_quoted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`git fetch origin $(...)` pasted unquoted would run the ref's command substitution when
    the user copies the hint into a shell; quoted, the shell reads it as one word."""
    ref = "x$(touch${IFS}pwned)"
    _git(repo, "remote", "add", "origin", "https://example.invalid/specs.git")  # else no fetch is hinted
    code, text = _run(capsys, "diff", f"--against={ref}")
    assert code == 2
    command = text.split("fetch it with `", 1)[1].split("`", 1)[0]
    assert shlex.split(command) == ["git", "fetch", "origin", f"{ref}:{ref}"]
    code, text = _run(capsys, "diff", "--against=^x;id")
    assert code == 2 and "--against 'x;id'" in text, text


def test_a_ref_starting_with_a_dash_gets_no_fetch_hint(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`git fetch origin --upload-pack=...` would be an option, not a ref: git refuses such names."""
    code, text = _run(capsys, "diff", "--against=--upload-pack=touch")
    assert code == 2 and "no such commit" in text
    assert "git fetch" not in text


# --------------------------------------------------------------------------- integers too long to convert

DOMAIN = """\
domain: com.evil
opset_versions:
  - {version: 1, ir_version: 9}
"""
GAIN = """\
operator: Gain
domain: com.evil
versions:
  - since_version: SINCE
    inputs:
      - {name: X, type: T}
    outputs:
      - {name: Y, type: T}
    attributes:
      gain: {type: float, default: DEFAULT}
    type_constraints:
      T: {allowed: [tensor(float)]}
EXAMPLES"""
EXAMPLE = """\
    examples:
      - name: x
        attributes: {gain: 2.0}
        inputs:
          - {file: x.npy}
        outputs:
          - {dtype: float, shape: [2], data: [2, 4]}
"""
LONG = "9" * 5000  # Python refuses to convert more than 4300 decimal digits


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project (opset.toml, opsets/com.evil/{domain,Gain}.yaml), the current folder."""
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    (tmp_path / "opsets" / "com.evil").mkdir(parents=True)
    (tmp_path / "opset.toml").write_text('spec_root = "opsets"\nout = "generated"\n')
    (tmp_path / "opsets" / "com.evil" / "domain.yaml").write_text(DOMAIN)
    _gain(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _gain(root: Path, since: str = "1", default: str = "1.0", examples: str = "") -> None:
    text = GAIN.replace("SINCE", since).replace("DEFAULT", default).replace("EXAMPLES", examples)
    (root / "opsets" / "com.evil" / "Gain.yaml").write_text(text)


@pytest.mark.parametrize(
    ("since", "default", "at"),
    [
        ("1", LONG, "opsets/com.evil/Gain.yaml:10:36: error[SCHEMA-VALUE]"),
        ("1", "1" + "0" * 400, "opsets/com.evil/Gain.yaml:10:36: error[SCHEMA-VALUE]"),  # past any double
        # int() converts hex of any length, and a message then printed it in decimal: refused as read
        ("0x" + "f" * 5000, "1.0", "opsets/com.evil/Gain.yaml:4:20: error[SCHEMA-VALUE]"),
    ],
)
def test_a_yaml_integer_too_long_is_located(
    tree: Path, capsys: pytest.CaptureFixture[str], since: str, default: str, at: str
) -> None:
    _gain(tree, since, default)
    code, text = _run(capsys, "validate")
    assert code == 1 and text.startswith(at), text
    assert "hint: " in text and len(text) < 2000  # the literal is shown cut short


def test_an_integer_in_a_function_body_too_long_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    shutil.copytree(REPO / "opsets" / "com.acme.vision", tmp_path / "opsets" / "com.acme.vision")
    path = tmp_path / "opsets" / "com.acme.vision" / "FusedConv.yaml"
    body = "group: int = @group> (X, W, B)"
    text = path.read_text()
    assert body in text
    path.write_text(text.replace(body, f"group: int = {LONG}> (X, W, B)", 1))
    line = text[: text.index(body)].count("\n") + 1
    monkeypatch.chdir(tmp_path)
    code, out = _run(capsys, "validate", "--specs", "opsets")
    assert code == 1, out
    assert f"opsets/com.acme.vision/FusedConv.yaml:{line}:" in out and "error[FUNCTION-SYNTAX]" in out
    assert "outside the 64-bit range" in out


def test_an_npy_shape_past_2_64_elements_is_located(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A shape of five 1000-digit sizes: its product (5000 digits) was printed in a message."""
    for dims, says in (
        (["9" * 1000] * 5, "not a tuple of sizes"),
        ([str(2**62)] * 3, "more than 2**64 elements"),
    ):
        shape = ", ".join(dims)
        header = ("{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + ",), }").encode()
        header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
        npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 8
        (tree / "opsets" / "com.evil" / "x.npy").write_bytes(npy)
        _gain(tree, examples=EXAMPLE)
        code, text = _run(capsys, "validate")
        assert code == 1 and text.startswith("opsets/com.evil/Gain.yaml:17:20: error[EXAMPLE-FILE]"), text
        assert says in text


# --------------------------------------------------------------------------- project files


@pytest.mark.parametrize("value", [LONG, "123456789012345678901234", "0x" + "f" * 17])
def test_an_integer_too_long_in_opset_toml_is_located(
    tree: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with (tree / "opset.toml").open("a") as handle:
        handle.write(f"max_example_bytes = {value}\n")
    code, text = _run(capsys, "validate")
    assert code == 2, text
    assert text.startswith("opset.toml:3:") and "error[SCHEMA-VALUE]" in text and "hint: " in text, text
    assert len(text) < 1000


@pytest.mark.parametrize("name", ["opset.toml", "pyproject.toml"])
def test_a_huge_project_file_is_not_read(tree: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    """A 1 GiB project file (a sparse file here; a comment line that compresses to ~1 MiB in a
    pull request) was read and parsed whole: 17 s and 1.6 GB for 512 MiB."""
    import resource

    (tree / "opset.toml").unlink()
    project = tree / name
    project.write_text("[tool.opset-toolkit]\n# ")
    subprocess.run(["truncate", "-s", "1G", str(project)], check=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, text = _run(capsys, "validate")
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB
    assert code == 2, text
    assert text.startswith(
        f"{name}:1:1: error[FILE-TOO-LARGE]: file is larger than the limit of 1048576 bytes"
    )
    assert grown < 100_000, grown


def test_a_project_file_that_is_not_utf8_is_located(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (tree / "opset.toml").open("ab") as handle:
        handle.write(b"# \xff\n")
    code, text = _run(capsys, "validate")
    assert code == 2 and text.startswith("opset.toml:3:3: error[FILE-ENCODING]"), text


# --------------------------------------------------------------------------- names too long for a file name

EXAMPLE_NAMED = """\
    examples:
      - name: NAME
        attributes: {gain: 2.0}
        inputs:
          - {dtype: float, shape: [2], data: [1, 2]}
        outputs:
          - {dtype: float, shape: [2], data: [2, 4]}
"""


def test_a_name_too_long_for_its_output_file_is_located(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`test_gain_<250 characters>` (260 bytes) passed validate, then `generate` failed with
    `File name too long` and no location. 245 characters (255 bytes) are fine."""
    _gain(tree, examples=EXAMPLE_NAMED.replace("NAME", "e" * 245))
    code, text = _run(capsys, "validate")
    assert code == 0, text
    _gain(tree, examples=EXAMPLE_NAMED.replace("NAME", "e" * 250))
    code, text = _run(capsys, "validate")
    assert code == 1 and text.startswith("opsets/com.evil/Gain.yaml:14:9: error[NAME-TOO-LONG]"), text
    assert "260 bytes (at most 255)" in text and "hint: shorten the name" in text
    code, text = _run(capsys, "generate")
    assert code == 1 and "error[NAME-TOO-LONG]" in text, text
    assert not (tree / "generated").exists()


def test_a_python_package_name_too_long_is_refused(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (tree / "opset.toml").open("a") as handle:
        handle.write(f'[python]\npackage = "{"p" * 256}"\n')
    code, text = _run(capsys, "generate")
    assert (
        code == 2
        and "is longer than 255 bytes" in text
        and "error[PROJECT-SETTING]: `python.package`" in text
    ), text
    assert not (tree / "generated").exists()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("      - {name: X, type: T}\n", "      - {name: X, type: T, option: BIG}\n"),
        ("      - {name: X, type: T}\n", "      - {name: 'BIG', type: T}\n"),
        ("  - since_version: 1\n", "  - since_version: 1\n    status: BIG\n"),
        ("  - since_version: 1\n", "  - since_version: 1\n    suppress: [BIG]\n"),
    ],
    ids=["option", "name", "status", "pattern"],
)
def test_a_huge_value_is_quoted_abridged_in_its_message(
    tree: Path, capsys: pytest.CaptureFixture[str], old: str, new: str
) -> None:
    """A value of 200,000 characters where a short one belongs: one finding, located, whose message
    quotes the value's start and says how long it is, not a 200 KB line."""
    path = tree / "opsets" / "com.evil" / "Gain.yaml"
    path.write_text(path.read_text().replace(old, new.replace("BIG", "a-" * 100_000), 1))
    code, text = _run(capsys, "validate")
    assert code == 1 and text.startswith("opsets/com.evil/Gain.yaml:"), text[:300]
    first = text.splitlines()[0]
    # (a pattern's message quotes the value's repr: two characters more)
    assert re.search(r"\.\.\. \(200,00[02] characters\)", first) and len(first) < 400, first[:400]
