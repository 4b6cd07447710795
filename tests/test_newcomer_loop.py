"""What a newcomer following the guides literally meets (r12): the guides' worked examples are what
the tool prints, natural mistakes get hints that say what to do, suggested commands work, and
nothing surprising happens silently.

The worked examples are checked with the docs code-block extraction of
`tests/test_docs_code_blocks.py` (`blocks()`): a block whose fence follows
`<!-- checked: output -->` is a console block whose `$ opset ...` commands run in order, in a
fresh copy of the guide's repository, each printing exactly the lines shown after it; one that
follows `<!-- checked: excerpt of PATH after `opset ...` -->` is a run of lines of PATH after
that command.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from test_docs_code_blocks import REPO, Block, blocks

from toolkit.cli import main
from toolkit.model.adapter_steps import STEP_KINDS

CHECKED = re.compile(r"<!--\s*checked:\s*(.+?)\s*-->")
EXCERPT = re.compile(r"excerpt of (\S+) after `([^`]+)`")


def _marker(block: Block) -> str | None:
    lines = block.file.read_text(encoding="utf-8").splitlines()
    found = CHECKED.search(lines[block.line - 2]) if block.line >= 2 else None
    return found.group(1) if found else None


CHECKED_BLOCKS = [(b, m) for b in blocks() if (m := _marker(b)) is not None]


def _fresh_context(block: Block, tmp_path: Path) -> Path:
    """A fresh copy of the repository the block's guide works in."""
    if block.file.name == "vendor-domain.md":
        root = tmp_path / "newco-ops"
        assert main(["init", "-q", str(root), "--domain", "com.newco.audio"]) == 0
        return root
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    return tmp_path


def _run(line: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    words = shlex.split(line.removeprefix("$ "), comments=True)
    assert words[0] == "opset", line
    capsys.readouterr()
    main(words[1:])
    out = capsys.readouterr()
    return (out.out + out.err).rstrip("\n").splitlines()


def test_the_guides_check_their_worked_examples() -> None:
    names = {b.file.name for b, _ in CHECKED_BLOCKS}
    assert {"authoring.md", "add-operator.md", "new-operator-version.md"} <= names


@pytest.mark.parametrize(
    ("block", "marker"), CHECKED_BLOCKS, ids=lambda v: v.name if isinstance(v, Block) else ""
)
def test_worked_example_is_what_the_tool_prints(
    block: Block,
    marker: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(_fresh_context(block, tmp_path))
    excerpt = EXCERPT.fullmatch(marker)
    if excerpt is not None:
        _run(excerpt.group(2), capsys)
        text = Path(excerpt.group(1)).read_text(encoding="utf-8")
        assert block.code in text, f"{block.name}: not a run of lines of {excerpt.group(1)}:\n{text[-2000:]}"
        return
    assert marker == "output" and block.lang == "console", block.name
    shown: list[tuple[str, list[str]]] = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            shown.append((line, []))
        else:
            shown[-1][1].append(line)
    for command, expected in shown:
        assert _run(command, capsys) == expected, f"{block.name}: `{command}` prints otherwise"


def test_authoring_guide_tables_every_step_kind() -> None:
    page = (REPO / "docs" / "guide" / "authoring.md").read_text(encoding="utf-8")
    section = page[page.index("## Version adapters") : page.index("### What an absent attribute")]
    assert re.findall(r"^\| `(\w+)` \|", section, flags=re.M) == list(STEP_KINDS)


def test_bump_stub_names_every_step_kind_and_whose_guide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    monkeypatch.chdir(tmp_path)
    assert main(["bump", "com.acme.vision.FusedConv"]) == 0
    text = (tmp_path / "opsets" / "com.acme.vision" / "FusedConv.yaml").read_text(encoding="utf-8")
    stub = text[text.index("# TODO(opset bump)") : text.index("adapter: {upgrade: []}")]
    words = " ".join(line.strip().removeprefix("# ") for line in stub.splitlines())
    for kind in STEP_KINDS:
        assert re.search(rf"\b{kind}\b", words), kind
    assert "see opset-toolkit's docs/guide/authoring.md" in words


def test_vendor_guide_lists_every_file_init_writes(tmp_path: Path) -> None:
    root = tmp_path / "newco-ops"
    assert main(["init", "-q", str(root), "--domain", "com.newco.audio"]) == 0
    written = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    page = (REPO / "docs" / "guide" / "vendor-domain.md").read_text(encoding="utf-8")
    section = page[page.index("## 1. Create the repository") : page.index("### Editors")]
    listed: set[str] = set()
    for row in re.findall(r"^\| (.+?) \|", section, flags=re.M):
        for pattern in re.findall(r"`([^`]+)`", row):
            listed |= {p.relative_to(root).as_posix() for p in root.glob(pattern) if p.is_file()}
    assert listed == written


# --------------------------------------------------------------------------- natural YAML mistakes

GAIN = Path("opsets/com.newco.audio/Gain.yaml")


@pytest.fixture
def newco(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The repository `opset init` makes (docs/guide/vendor-domain.md), as the working directory."""
    root = tmp_path / "newco-ops"
    assert main(["init", "-q", str(root), "--domain", "com.newco.audio"]) == 0
    monkeypatch.chdir(root)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _validate(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["validate"])
    out = capsys.readouterr()
    return code, (out.err + out.out).splitlines()


@pytest.mark.parametrize(
    ("old", "new", "located", "hint"),
    [
        (
            '{allowed: "@float_types",',
            "{allowed: @float_types,",
            "Gain.yaml:16:20: error[YAML-SYNTAX]",
            'a value cannot start with `@` unquoted: quote it, "@float_types"',
        ),
        (
            "    outputs:",
            "\toutputs:",
            "Gain.yaml:11:1: error[YAML-SYNTAX]",
            "YAML does not allow tabs for indentation; use spaces",
        ),
        (
            "    doc: |\n      Multiplies every element of `X`",
            "    doc: |\n    TODO: multiplies every element of `X`",
            "Gain.yaml:8:5: error[SCHEMA-UNKNOWN-KEY]: unknown key 'TODO'",
            "the `doc:` block on line 7 is empty: indent its text more than `doc:`",
        ),
        (
            "    doc: |\n      Multiplies",
            "    doc: |\n    Multiplies",
            "Gain.yaml:9:5: error[YAML-SYNTAX]",
            "the `doc:` block on line 7 is empty: indent its text more than `doc:`",
        ),
        (
            "{type: float, default: 1.0,",
            "{type: int, default: true,",
            "Gain.yaml:14:34: error[ATTR-DEFAULT-TYPE]: default true is not a valid int value",
            "write a whole number",
        ),
        (
            "{type: float, default: 1.0,",
            '{type: float, default: "1.5",',
            'Gain.yaml:14:36: error[ATTR-DEFAULT-TYPE]: default "1.5" is not a valid float value',
            "write the number without quotes",
        ),
    ],
    ids=["unquoted-at", "tab-indent", "dedented-doc-key", "dedented-doc-text", "yaml-true", "quoted-number"],
)
def test_natural_yaml_mistake_gets_a_hint_that_says_what_to_do(
    newco: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, located: str, hint: str
) -> None:
    _edit(newco / GAIN, old, new)
    code, lines = _validate(capsys)
    assert code == 1
    at = next(i for i, line in enumerate(lines) if located in line)
    assert lines[at].startswith(f"{GAIN.as_posix().rsplit('/', 1)[0]}/")
    assert lines[at + 1] == f"  hint: {hint}"


def test_doc_html_hint_says_whose_ir_md(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(newco / GAIN, "Multiplies every element", "Multiplies <b>every</b> element")
    code, lines = _validate(capsys)
    assert code == 0  # a warning
    at = next(i for i, line in enumerate(lines) if "warning[DOC-HTML]" in line)
    assert lines[at].startswith("opsets/com.newco.audio/Gain.yaml:8:")
    assert (
        lines[at + 1]
        == "  hint: ONNX's IR.md allows Markdown only: use Markdown syntax or put the markup in `code`"
    )


# --------------------------------------------------------------------------- hints that propose commands


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=root,
        check=True,
        capture_output=True,
    )


def _opset(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, (out.err + out.out).splitlines()


def test_adapter_missing_after_bump_names_the_stub_line_and_the_step(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(newco, "init", "-q")
    _git(newco, "add", "-A")
    _git(newco, "commit", "-qm", "opset 1")
    assert main(["bump", "com.newco.audio.Gain"]) == 0
    with (newco / GAIN).open("a", encoding="utf-8") as file:
        file.write("    attributes:\n      gain: {type: float, default: 2.0, doc: The factor.}\n")
    stub = next(n for n, line in enumerate((newco / GAIN).read_text().splitlines(), 1) if "adapter:" in line)
    code, lines = _opset(capsys, "diff", "--against", "HEAD")
    assert code == 1
    at = next(i for i, line in enumerate(lines) if "error[ADAPTER-MISSING]" in line)
    assert lines[at].startswith(f"opsets/com.newco.audio/Gain.yaml:{stub}:")
    assert "(attribute `gain` default changed from 1.0 to 2.0)" in lines[at]
    hint = next(line for line in lines[at:] if line.startswith("  hint: "))
    assert hint == (
        f"  hint: fill in the `upgrade` list on line {stub}: "
        "`{kind: set_attribute_if_absent, attribute: gain, value: 1.0}` (the old default)"
    )


def test_diff_against_head_before_the_first_commit_says_commit_first(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(newco, "init", "-q")
    code, lines = _opset(capsys, "diff", "--against", "HEAD")
    assert code == 2
    assert lines[:2] == [
        "opset: error: --against HEAD: this repository has no commit yet, so there is nothing to compare "
        "with (every spec is new)",
        "  hint: commit the specs first (`git add -A && git commit`); later changes are then compared with a commit",
    ]
    assert not any("git fetch" in line for line in lines)


@pytest.mark.parametrize("committed", [False, True], ids=["fresh", "committed"])
def test_diff_against_origin_without_origin_says_the_remote_is_missing(
    newco: Path, capsys: pytest.CaptureFixture[str], committed: bool
) -> None:
    _git(newco, "init", "-q")
    if committed:
        _git(newco, "add", "-A")
        _git(newco, "commit", "-qm", "opset 1")
    code, lines = _opset(capsys, "diff", "--against", "origin/main")
    assert code == 2
    assert lines[0] == (
        "opset: error: --against origin/main: no such git ref or commit, and this repository has no remote named origin"
    )
    assert lines[1].startswith("  hint: check the spelling") and "`git remote add origin URL`" in lines[1]
    assert not any("git fetch" in line for line in lines)


# --------------------------------------------------------------------------- silent surprises

EXAMPLE = """    examples:
      - name: double
        attributes: {gain: 2.0}
        inputs:
          - {dtype: float, data: [1, 2]}
        outputs:
          - {dtype: float, data: [2, 5]}
"""


def test_test_runtime_where_nothing_ran_is_exit_1_unless_allowed(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    with (newco / GAIN).open("a", encoding="utf-8") as file:
        file.write(EXAMPLE)  # a wrong expected output that no kernel checks
    code, lines = _opset(capsys, "test-runtime")
    assert code == 1
    assert lines[0].startswith(
        "opset test-runtime: nothing ran: every example was skipped, so none was tested;"
    )
    assert "`function:` body" in lines[0] and "--custom-op-library PATH" in lines[0]
    assert lines[1].startswith("  hint: ") and "--allow-all-skipped" in lines[1]
    assert "      opsets/com.newco.audio/Gain.yaml:18:9: " in [
        line[:45] for line in lines
    ]  # where it was skipped
    code, lines = _opset(capsys, "test-runtime", "--allow-all-skipped")
    assert code == 0 and not any("nothing ran" in line for line in lines)


def test_generate_prunes_the_folders_its_removals_emptied_only(
    newco: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "-q", "--only", "python"]) == 0
    old = newco / "generated" / "python" / "com_newco_audio_ops"
    assert (old / "com_newco_audio" / "schemas").is_dir()
    (old / "mine").mkdir()  # a folder of the user's under the old package: held, never opset's
    (old / "mine" / "notes.txt").write_text("mine\n")
    (newco / "generated" / "python" / "empty-of-mine").mkdir()
    _edit(newco / "opset.toml", 'package = "com_newco_audio_ops"', 'package = "newco"')
    assert main(["generate", "-q", "--only", "python"]) == 0
    assert (newco / "generated" / "python" / "newco").is_dir()
    left = sorted(p.relative_to(old).as_posix() for p in old.rglob("*"))
    assert left == ["mine", "mine/notes.txt"]  # com_newco_audio/ and its schemas/ went with their files
    assert (newco / "generated" / "python" / "empty-of-mine").is_dir()  # no removal emptied it


def test_generate_summary_counts_the_files_it_names(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _opset(capsys, "generate")
    assert code == 0
    found = re.fullmatch(r"generated/: (\d+) files \(.*\); (\d+) added, 0 changed, 0 removed", lines[-1])
    assert found is not None and found.group(1) == found.group(2), lines[-1]


def test_validate_summary_says_one_domain(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _validate(capsys)
    assert code == 0
    assert lines[-1] == "2 files, 1 domain, 1 operator, 1 operator version: 0 error(s), 0 warning(s)"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["bump", "com.newco.audio.Gian"],
            [
                "opset: error: no operator 'Gian' in domain 'com.newco.audio'",
                "  hint: did you mean com.newco.audio.Gain?",
            ],
        ),
        (
            ["bump", "com.newco.audoi.Gain"],
            ["opset: error: no domain 'com.newco.audoi' under opsets (known: com.newco.audio)"],
        ),
        (
            ["generate", "--only", "pyhton"],
            [
                "opset: error: unknown generator kind(s) pyhton (known: backend_tests, docs, proto, python); "
                "did you mean python?"
            ],
        ),
    ],
    ids=["bump-op", "bump-domain", "only-kind"],
)
def test_a_typo_gets_did_you_mean(
    newco: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: list[str]
) -> None:
    code, lines = _opset(capsys, *args)
    assert code == 2
    assert lines[: len(expected)] == expected
    if args[1].startswith("com.newco.audoi"):
        assert lines[1].startswith("  hint: did you mean com.newco.audio? Else write DOMAIN.OP")
    assert not (newco / "generated").exists()


def test_dry_runs_say_would(newco: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _opset(capsys, "new", "com.newco.audio.Sharpen", "--add-opset", "--dry-run")
    assert code == 0 and lines[0] == "would create com.newco.audio.Sharpen (since_version 2)", lines
    assert lines[-1] == "(dry run: nothing written)"
    code, lines = _opset(capsys, "bump", "com.newco.audio.Gain", "--dry-run")
    assert code == 0 and lines[0].startswith("would bump com.newco.audio.Gain to version 2"), lines
    assert not (newco / "opsets" / "com.newco.audio" / "Sharpen.yaml").exists()
