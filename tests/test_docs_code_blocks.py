"""Every code block of the docs runs (#25.7).

- Each fenced ```python block of README.md and docs/**/*.md runs in a fresh interpreter (a block
  may register rules or import a generated package: nothing of it reaches this process), from
  the repository root; the blocks of a guide that builds a repository (vendor-domain: `opset
  init`; add-operator: `opset new`) run in that repository, with its generated package on the path.
- Each `opset ...` line of a ```sh / ```console / ```bash block is parsed by the real argument
  parser (a renamed command or flag fails), and the read-only commands (`READ_ONLY`) run, from the
  repository root (or the guide's repository); one whose shown output holds `opset: error:` must exit 2, any other 0.

A block opts out only with `<!-- not-run: reason -->` on the line before its fence; `OPT_OUTS`
lists them, so that adding one is a visible change of this test.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolkit.cli import build_parser, main

REPO = Path(__file__).resolve().parent.parent
DOCS = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
SHELL = ("sh", "console", "bash", "shell")
READ_ONLY = frozenset({"validate", "show", "inventory", "rules", "semver", "releases"})
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(.+?)\s*-->")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
# (file, fence, first line of the block) -> reason; every marker in the docs is listed here, nothing else.
OPT_OUTS: dict[tuple[str, str, str], str] = {}


@dataclass(frozen=True)
class Block:
    file: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    opt_out: str | None

    @property
    def name(self) -> str:
        return f"{self.file.relative_to(REPO).as_posix()}:{self.line}"


def blocks() -> Iterator[Block]:
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        index = 0
        while index < len(lines):
            fence = FENCE.match(lines[index])
            if fence is None or not fence.group(2):
                index += 1
                continue
            indent, lang = fence.group(1), fence.group(2)
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
            body = [
                line[len(indent) :] if line.startswith(indent) else line for line in lines[index + 1 : end]
            ]
            marker = NOT_RUN.search(lines[index - 1]) if index else None
            yield Block(path, index + 1, lang, "\n".join(body) + "\n", marker.group(1) if marker else None)
            index = end + 1


PYTHON = [b for b in blocks() if b.lang == "python"]
COMMANDS = [
    (b, n, line)
    for b in blocks()
    if b.lang in SHELL
    for n, line in enumerate(b.code.splitlines())
    # a console block shows output too: its commands are the `$ ` lines
    if line.startswith("$ opset " if b.lang == "console" else ("opset ", "$ opset "))
]


def _words(line: str) -> list[str]:
    return shlex.split(line.removeprefix("$ "), comments=True)[1:]


def _shown_error(block: Block, index: int) -> bool:
    """Whether the output shown after command `index` of a console block reports a usage error."""
    rest = block.code.splitlines()[index + 1 :]
    shown = []
    for line in rest:
        if line.startswith("$ "):
            break
        shown.append(line)
    return any(line.startswith("opset: error:") for line in shown)


@pytest.fixture(scope="module")
def vendor_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository of docs/guide/vendor-domain.md, scaffolded and generated as it says."""
    root = tmp_path_factory.mktemp("vendor") / "newco-ops"
    assert main(["init", str(root), "--domain", "com.newco.audio"]) == 0
    cwd = Path.cwd()
    os.chdir(root)
    try:
        assert main(["generate", "-q", "--only", "python"]) == 0
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture(scope="module")
def added_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository's specs after the steps of docs/guide/add-operator.md."""
    root = tmp_path_factory.mktemp("added")
    shutil.copytree(REPO / "opsets", root / "opsets")
    cwd = Path.cwd()
    os.chdir(root)
    try:
        assert main(["new", "com.acme.vision.Sharpen", "--add-opset"]) == 0
        assert main(["generate", "-q", "--only", "python"]) == 0
    finally:
        os.chdir(cwd)
    return root


def _context(block: Block, vendor_repo: Path, added_repo: Path) -> Path:
    """Where a block runs: the repository its guide has built, else this one."""
    return {"vendor-domain.md": vendor_repo, "add-operator.md": added_repo}.get(block.file.name, REPO)


@pytest.mark.parametrize("block", [b for b in PYTHON if b.opt_out is None], ids=lambda b: b.name)
def test_python_block_runs(block: Block, vendor_repo: Path, added_repo: Path, tmp_path: Path) -> None:
    cwd = _context(block, vendor_repo, added_repo)
    path = [str(REPO)] + ([str(cwd / "generated" / "python")] if cwd != REPO else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "OPSET_TOOLKIT_CACHE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", block.code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, f"{block.name}: the block fails:\n{block.code}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize(
    ("block", "index", "line"), COMMANDS, ids=lambda v: v.name if isinstance(v, Block) else ""
)
def test_shell_command_parses_and_read_only_ones_run(
    block: Block,
    index: int,
    line: str,
    vendor_repo: Path,
    added_repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = _words(line)
    try:
        build_parser().parse_args(words)
    except SystemExit as exc:  # --help/--version only
        assert exc.code == 0
    if words[0] not in READ_ONLY or block.opt_out is not None:
        return
    monkeypatch.chdir(_context(block, vendor_repo, added_repo))
    code = main(words)
    out = capsys.readouterr()
    assert code == (2 if _shown_error(block, index) else 0), f"{block.name}: `{line}`\n{out.out}\n{out.err}"
    assert "Traceback" not in out.err


def test_opt_outs_are_the_listed_few() -> None:
    found = {
        (b.name.rsplit(":", 1)[0], f"```{b.lang}", b.code.splitlines()[0]): b.opt_out
        for b in blocks()
        if b.opt_out is not None
    }
    assert found == OPT_OUTS
    assert len(PYTHON) >= 4 and len(COMMANDS) >= 30  # the extraction finds the blocks
