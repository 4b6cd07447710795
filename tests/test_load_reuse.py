"""What the loader's workers compute for the per-operator checks comes back to this process
(`toolkit.load.loader.OperatorCheck.reuse`): the Markdown analyses of the DOC-* checks are handed
to `toolkit.checks.markdown`'s memo, so the docs generator, which reads the same docs here, does
not parse them a second time (issue #24). The memo is keyed by what each analysis read and
bounded. That the split load's findings equal the sequential ones: tests/test_load_parallel.py."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from load_helpers import slowed_here, write_tree

from toolkit.checks import markdown
from toolkit.checks.run import OPERATOR_CHECKS, load_specs
from toolkit.checks.spec import check_specs
from toolkit.cli import main
from toolkit.generate import mdsafe
from toolkit.load import loader, parallel
from toolkit.load.loader import OperatorCheck, read_specs
from toolkit.model.rules import CATALOG

OPERATORS = 96  # above parallel.MIN_FILES: read_specs shares the files out


def doc_of(index: int) -> str:
    return f"# Operator {index} squares x"  # a heading: DOC-HEADING, demoted on the pages


def reuse_tree(root: Path) -> Path:
    return write_tree(root, "com.example.reuse", OPERATORS, doc_of)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return reuse_tree(tmp_path)


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    """The texts this process parses, as lines (a forked worker records in its own copy)."""
    texts: list[tuple[str, ...]] = []
    parse = markdown._analysed

    def recorded(lines: tuple[str, ...]) -> markdown.Analysis:
        texts.append(lines)
        return parse(lines)

    monkeypatch.setattr(markdown, "_analysed", recorded)
    monkeypatch.setattr(markdown, "_memo", {})  # nothing analysed yet
    mdsafe.repaired.cache_clear()
    mdsafe.sanitize.cache_clear()
    mdsafe._prepared.cache_clear()
    yield texts
    mdsafe.repaired.cache_clear()
    mdsafe.sanitize.cache_clear()
    mdsafe._prepared.cache_clear()


def test_workers_analyses_reach_this_process(
    tree: Path, parsed: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    if not parallel.can_fork():
        pytest.skip("no process pool on this platform")
    monkeypatch.setattr("toolkit.checks.run.OPERATOR_CHECKS", slowed_here(OPERATOR_CHECKS))
    result = load_specs([tree], jobs=2)
    assert [d.rule for d in result.diagnostics] == ["DOC-HEADING"] * OPERATORS
    assert 0 < len(parsed) < OPERATORS  # the worker analysed some docs, this process the others
    loaded = len(parsed)
    # What the docs generator does with each doc: every analysis it needs is here already.
    for index in range(OPERATORS):
        assert mdsafe.sanitize(doc_of(index), 5).text == f"##### Operator {index} squares x"
    assert len(parsed) == loaded


def test_reuse_gets_every_file_result_in_load_order(tree: Path) -> None:
    if not parallel.can_fork():
        pytest.skip("no process pool on this platform")
    received: list[list[str]] = []
    names = OperatorCheck(lambda op, _: ([], [op.name, str(os.getpid())]), received.append)
    read_specs([tree], jobs=2, check_operator=slowed_here(names))  # type: ignore[arg-type]
    order = sorted((f"Op{i}" for i in range(OPERATORS)), key=lambda name: f"{name}.yaml")
    assert [name for name, _ in received] == order
    assert {pid for _, pid in received} - {str(os.getpid())}  # some came back from a worker


def test_generate_parses_each_doc_once(tree: Path, tmp_path: Path, parsed: list[tuple[str, ...]]) -> None:
    """The real command: each doc is parsed once, by the process that loaded it (before the
    workers' analyses came back, the docs kind parsed theirs again), and the pages show it
    demoted (the kind parses texts of its own too: the demoted summaries)."""
    out = tmp_path / "out"
    env = {"OPSET_TOOLKIT_NO_CACHE": "1", parallel.JOBS_ENV: "2"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        patch.setattr("toolkit.checks.run.OPERATOR_CHECKS", slowed_here(OPERATOR_CHECKS))
        patch.setattr(loader, "CHUNK_FILES", 8)
        assert main(["generate", "--specs", str(tree), "--out", str(out), "--only", "docs", "-q"]) == 0
    docs = {(doc_of(index),) for index in range(OPERATORS)}
    here = [lines for lines in parsed if lines in docs]
    assert len(here) == len(set(here))
    assert 0 < len(here) < OPERATORS  # this process's share of the load, no more
    page = next(out.rglob("Op7.md")).read_text()
    assert "# Operator 7 squares x" in page and "\n# Operator 7" not in page


def test_memo_is_keyed_by_what_an_analysis_read_and_bounded(
    parsed: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = markdown.analyse("  # a\n  c")
    assert first.lines == ("# a", "c") and first.headings and len(parsed) == 1
    assert markdown.analyse("# a\nc\n\n") is first  # texts that normalize alike share it
    monkeypatch.setattr(markdown, "_memo", {})
    markdown.remember([first])  # as the loader hands in a worker's analysis
    assert markdown.analyse("\t# a\n\tc") is first and len(parsed) == 1
    monkeypatch.setattr(markdown, "MEMO_SIZE", 4)
    for index in range(10):
        assert markdown.analyse(f"# line {index}").lines == (f"# line {index}",)
        assert len(markdown._memo) <= 4
    assert len(parsed) == 11


# --------------------------------------------------------------------------- per-operator checks


def write_bad_shapes(root: Path) -> Path:
    """A large tree in which every operator's shape rule is unreadable (SHAPE-SYNTAX), and one
    version silences it (`suppress`)."""
    tree = reuse_tree(root)
    for path in sorted((tree / "com.example.reuse").glob("Op*.yaml")):
        text = path.read_text().replace(
            "[{name: Y, type: tensor(float)}]", "[{name: Y, type: tensor(float), shape: '[X[0] X[1]]'}]"
        )
        if path.stem == "Op5":
            text += "    suppress: [SHAPE-SYNTAX]\n"
        path.write_text(text)
    return tree


def counted_rule(monkeypatch: pytest.MonkeyPatch, rule_id: str) -> list[int]:
    """Calls of the check of `rule_id` in this process (a forked worker counts in its copy)."""
    calls: list[int] = []
    rule = CATALOG.get(rule_id)
    assert rule is not None and rule.check is not None and rule.per_operator
    check = rule.check

    def counted(specs, domains):  # type: ignore[no-untyped-def]
        calls.append(len(specs.operators))
        return check(specs, domains)

    monkeypatch.setitem(CATALOG._rules, rule_id, dataclasses.replace(rule, check=counted))
    return calls


def test_per_operator_checks_run_where_the_operator_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not parallel.can_fork():
        pytest.skip("no process pool on this platform")
    tree = write_bad_shapes(tmp_path)
    calls = counted_rule(monkeypatch, "SHAPE-SYNTAX")
    monkeypatch.setattr("toolkit.checks.run.OPERATOR_CHECKS", slowed_here(OPERATOR_CHECKS))
    result = load_specs([tree], jobs=2)
    found = [d for d in result.diagnostics if d.rule == "SHAPE-SYNTAX"]
    # Once per operator but the one that silences it, each in its own file at the rule's column.
    assert sorted(Path(d.location.file).stem for d in found) == sorted(
        f"Op{i}" for i in range(OPERATORS) if i != 5
    )
    assert {(d.location.line, d.location.column) for d in found} == {(7, 60)}
    # This process checked its share of the operators, one at a time, and not the whole tree after.
    assert calls and set(calls) == {1} and len(calls) < OPERATORS


def test_check_specs_alone_still_runs_every_check(tmp_path: Path) -> None:
    """What the language server and the definition in tests/test_load_parallel.py run."""
    specs = read_specs([write_bad_shapes(tmp_path)], jobs=1).specs
    every = [d.rule for d in check_specs(specs)]
    assert every.count("SHAPE-SYNTAX") == OPERATORS - 1
    assert "SHAPE-SYNTAX" not in [d.rule for d in check_specs(specs, per_operator=False)]


def test_validate_reports_per_operator_findings_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = write_bad_shapes(tmp_path)
    assert main(["validate", "--specs", str(tree), "--no-cache"]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "Op7.yaml:7:60: error[SHAPE-SYNTAX]:" in out
    assert "Op5.yaml:7:60: error[SHAPE-SYNTAX]" not in out and "95 error(s)" in out
