"""Every YAML and shell example in README.md and docs/ is checked against the tool (issue 15), so
the docs cannot drift from it again.

- YAML blocks are read with the toolkit's own reader (YAML 1.2, located errors). Spec files and
  spec fragments (`versions:` lists, version items) are validated against the JSON Schemas;
  the blocks of one page whose first line names a spec file (`# opsets/<domain>/<File>.yaml`)
  are written into a spec tree and must load and check without errors. A pre-commit config is
  read by pre-commit's own `load_config`, a GitHub workflow is checked by actionlint when it is
  installed.
- Shell blocks (`sh`, `console`: the `$ ` lines): every `opset` command is parsed by the real
  argument parser; the read-only ones (validate, show, inventory, rules) are run in a copy of
  the repository and must succeed. No example may install `opset-toolkit` from PyPI (it is not
  there) or pin a pre-commit `rev:` tag (none exists).
- A block that is not an example of the tool (a sketch with `...`, another tool's file) is marked
  by an HTML comment on the line before it: `<!-- docs-test: skip WHY -->`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from toolkit.checks.run import load_specs
from toolkit.cli import build_parser, main
from toolkit.load.schema import schema_diagnostics
from toolkit.load.yamlsrc import Source, YamlProblem, parse_yaml_text

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\b(?P<why>[^>]*)-->")
SPEC_PATH = re.compile(r"^#\s*(opsets/[^\s]+\.yaml)\s*$")
RUN_COMMANDS = {"validate", "show", "inventory", "rules"}
FROM_PYPI = re.compile(
    r"pip install\s+(-\S+\s+)*['\"]?opset-toolkit(\[[a-z,]+\])?['\"]?[ \t]*($|[;&|#])", re.MULTILINE
)
TAG_REV = re.compile(r"^\s*rev:\s*['\"]?v?\d", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence
    lang: str
    text: str
    skipped: bool
    before: bool = False  # a rule's "Before" example (the defect); only read, not validated

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        start = index
        body = []
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            row = lines[index]
            body.append(row[indent:] if row[:indent].strip() == "" else row.lstrip())
            index += 1
        index += 1
        previous = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        lang = (match["info"].split() or [""])[0].lower()
        # A spec rule's "Before" example shows the defect the rule reports (its test emits it).
        before = previous.strip() == "**Before:**"
        skipped = SKIP.search(previous) is not None or (before and page.name == "spec-rules.md")
        found.append(Block(page, start + 1, lang, "\n".join(body) + "\n", skipped, before))
    return found


ALL = [b for page in PAGES for b in blocks(page)]
YAML = [b for b in ALL if b.lang in ("yaml", "yml") and not b.skipped]
SHELL = [b for b in ALL if b.lang in ("sh", "bash", "shell", "console") and not b.skipped]
TOML = [b for b in ALL if b.lang == "toml" and not b.skipped]


def test_the_docs_have_examples_to_check() -> None:
    assert len(YAML) >= 40 and len(SHELL) >= 15, (len(YAML), len(SHELL))


# --------------------------------------------------------------------------- YAML


def _spec_kind(data: object) -> tuple[str, object] | None:
    """(schema kind, document) for a spec file or a fragment of one; None for other YAML.
    A fragment (no `domain:`, or a `versions:` list alone) gets the keys it leaves out."""
    if isinstance(data, dict):
        if "operator" in data:
            return "operator", data if "domain" in data else {"domain": "com.example.docs", **data}
        if "opset_versions" in data:
            return "domain", data if "domain" in data else {"domain": "com.example.docs", **data}
        if "releases" in data:
            return "releases", data
        if set(data) <= {"versions", "removed_in", "replaced_by"} and "versions" in data:
            return "operator", {"operator": "Op", "domain": "com.example.docs", **data}
    if isinstance(data, list) and data and all(isinstance(i, dict) and "since_version" in i for i in data):
        return "operator", {"operator": "Op", "domain": "com.example.docs", "versions": data}
    return None


@pytest.mark.parametrize("block", YAML, ids=[b.where for b in YAML])
def test_yaml_example(block: Block, tmp_path: Path) -> None:
    assert not TAG_REV.search(block.text), f"{block.where}: `rev:` names a tag, and opset-toolkit has none"
    assert not FROM_PYPI.search(block.text), f"{block.where}: opset-toolkit is not on PyPI"
    try:
        data = parse_yaml_text(block.text, block.where)
    except YamlProblem as problem:
        if problem.diagnostic.rule != "YAML-AMBIGUOUS" or not re.search(r"(?m)^jobs:", block.text):
            pytest.fail(f"{block.where}: {problem}")
        # A GitHub workflow's `on:` key, which the spec reader refuses (a spec key must mean one
        # thing to YAML 1.1 readers too); actionlint checks the workflow below.
        data = yaml.safe_load(block.text)
    spec = _spec_kind(data)
    if spec is not None:
        kind, document = spec
        from toolkit.load.yamlsrc import parse_yaml_text as reparse

        # validate the (possibly wrapped) document with located diagnostics
        rebuilt = reparse(_dump(document), block.where) if document is not data else data
        problems = schema_diagnostics(Source(tmp_path / "x.yaml", block.where, rebuilt), kind)
        if "..." in block.text:  # a sketch eliding parts (`versions: ...`): check what it shows
            problems = [d for d in problems if d.rule != "SCHEMA-REQUIRED" and "'...'" not in d.message]
        assert not problems, "\n".join(d.format() for d in problems)
    elif isinstance(data, dict) and "repos" in data:
        from pre_commit.clientlib import InvalidConfigError, load_config

        config = tmp_path / ".pre-commit-config.yaml"
        config.write_text(block.text, encoding="utf-8")
        try:
            load_config(str(config))
        except InvalidConfigError as exc:
            pytest.fail(f"{block.where}: pre-commit rejects it: {exc}")
    elif isinstance(data, dict) and "jobs" in data and shutil.which("actionlint"):
        workflow = tmp_path / ".github" / "workflows" / "w.yml"
        workflow.parent.mkdir(parents=True)
        workflow.write_text(block.text, encoding="utf-8")
        proc = subprocess.run(
            ["actionlint", "-no-color", str(workflow)], capture_output=True, text=True, cwd=tmp_path
        )
        assert proc.returncode == 0, f"{block.where}: actionlint:\n{proc.stdout}{proc.stderr}"


def _dump(document: object) -> str:
    import json

    return json.dumps(document)  # JSON is YAML: keeps every value's type


def _spec_trees() -> dict[Path, list[tuple[str, Block]]]:
    trees: dict[Path, list[tuple[str, Block]]] = {}
    for block in YAML:
        first = block.text.splitlines()[0] if block.text.strip() else ""
        match = SPEC_PATH.match(first)
        if match:
            trees.setdefault(block.page, []).append((match[1], block))
    return trees


@pytest.mark.parametrize("page", sorted(_spec_trees()), ids=lambda p: str(p.relative_to(REPO)))
def test_the_spec_files_of_a_page_load_and_check(page: Path, tmp_path: Path) -> None:
    files = _spec_trees()[page]
    for path, block in files:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")
        schemas = tmp_path / "schemas"  # the modelines' target, as in a vendor repository
        if not schemas.exists():
            shutil.copytree(REPO / "schemas", schemas)
    for domain_folder in {(tmp_path / p).parent for p, _ in files}:
        if not (domain_folder / "domain.yaml").exists():
            # an operator shown alone: its domain's file comes from the repository's specs
            shipped = REPO / "opsets" / domain_folder.name / "domain.yaml"
            assert shipped.exists(), (
                f"{page}: no domain.yaml for {domain_folder.name} in the page or in opsets/"
            )
            shutil.copy(shipped, domain_folder / "domain.yaml")
    result = load_specs([tmp_path / "opsets"], jobs=1)
    assert not result.errors, "\n".join(d.format() for d in result.errors)


@pytest.mark.parametrize("block", TOML, ids=[b.where for b in TOML])
def test_toml_example(block: Block, tmp_path: Path) -> None:
    """Settings examples: read by the project settings and the gate configuration readers."""
    from toolkit.compat.config import load_config
    from toolkit.load.project import load_project

    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    tomllib.loads(block.text)
    if block.before:
        return  # a gate rule's "Before" shows the configuration mistake the rule reports
    target = tmp_path / ("pyproject.toml" if "[tool.opset-toolkit" in block.text else "opset.toml")
    target.write_text(block.text, encoding="utf-8")
    load_project(tmp_path)
    load_config(target)


# --------------------------------------------------------------------------- shell


def _commands(block: Block) -> list[list[str]]:
    lines = block.text.splitlines()
    if block.lang == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    joined = "\n".join(lines).replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            pytest.fail(f"{block.where}: cannot split {line!r}: {exc}")
        current: list[str] = []
        for word in [*words, "&&"]:
            if word in ("&&", "||", ";", "|"):
                if current:
                    commands.append(current)
                current = []
            else:
                current.append(word)
    return commands


@pytest.mark.parametrize("block", SHELL, ids=[b.where for b in SHELL])
def test_shell_example(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not FROM_PYPI.search(block.text), f"{block.where}: opset-toolkit is not on PyPI"
    if any(b.page == block.page and re.search(r"^opset init ", b.text, re.MULTILINE) for b in SHELL):
        # a page that starts a vendor repository: its commands run in one `opset init` wrote
        monkeypatch.chdir(tmp_path)
        assert main(["init", "repo", "--domain", "com.newco.audio"]) == 0
        work = tmp_path / "repo"
    else:
        work = tmp_path / "repo"
        shutil.copytree(REPO / "opsets", work / "opsets")
    monkeypatch.chdir(work)
    parser = build_parser()
    for words in _commands(block):
        if words[0] in ("python", "python3") and words[1:3] == ["-m", "toolkit"]:
            words = ["opset", *words[3:]]
        if words[0] != "opset":
            continue
        try:
            parser.parse_args(words[1:])
        except SystemExit as exc:  # --help / --version
            assert exc.code == 0, f"{block.where}: {shlex.join(words)}"
            continue
        except Exception as exc:
            pytest.fail(f"{block.where}: `{shlex.join(words)}` does not parse: {exc}")
        if words[1] in RUN_COMMANDS:
            code = main(words[1:])
            assert code in (0, 1), f"{block.where}: `{shlex.join(words)}` exited {code}"


def test_the_inventory_table_shown_is_the_commands_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """getting-started shows `opset inventory org.example.abc` rendered: the same table."""
    monkeypatch.chdir(REPO)
    assert main(["inventory", "org.example.abc"]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    page = (REPO / "docs" / "guide" / "getting-started.md").read_text(encoding="utf-8").splitlines()
    start = page.index(printed[0])
    assert page[start : start + len(printed)] == printed
