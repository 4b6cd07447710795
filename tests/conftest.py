"""Shared fixtures. The onnx catalog is imported once per test session, into a temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"


@pytest.fixture(scope="session")
def onnx_catalog_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed onnx package's catalog written as DSL files (never committed)."""
    pytest.importorskip("onnx")
    from toolkit.onnx_bridge.importer import import_catalog

    out = tmp_path_factory.mktemp("onnx-catalog")
    import_catalog(out)
    return out


@pytest.fixture(scope="session")
def onnx_registry(onnx_catalog_dir: Path):  # type: ignore[no-untyped-def]
    from toolkit import load_registry

    return load_registry([onnx_catalog_dir], cache=False)


@pytest.fixture(scope="session")
def shipped_registry():  # type: ignore[no-untyped-def]
    from toolkit import load_registry

    return load_registry([OPSETS], cache=False)


@pytest.fixture(scope="session")
def node_models(onnx_node_cases):  # type: ignore[no-untyped-def]
    """onnx's node test models, [(name, ModelProto)] (the `data/node` folder is not installed:
    onnx's test cases build them in-process; shared by every test that needs them)."""
    return [(f"node/{case.name}", case.model) for case in onnx_node_cases]


@pytest.fixture(scope="session")
def producer_corpus(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The real producers' models of tests/producer_corpus.py, built once per session.
    OPSET_TEST_CORPUS_DIR names a folder to keep them in between runs (reused while the
    producer versions are the same)."""
    for package in ("onnxruntime", "skl2onnx", "sklearn", "onnxconverter_common", "sympy"):
        pytest.importorskip(package)
    import os

    from producer_corpus import build_corpus

    kept = os.environ.get("OPSET_TEST_CORPUS_DIR")
    return build_corpus(Path(kept) if kept else tmp_path_factory.mktemp("producer-corpus"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "report: the test prints figures worth showing in the summary")
    import rule_recorder

    rule_recorder.install()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Show the figures conformance tests print (counts compared, findings per rule) even though
    pytest captures the output of passing tests."""
    reports = [
        r
        for r in terminalreporter.stats.get("passed", [])
        if r.when == "call" and "report" in r.keywords and r.capstdout.strip()
    ]
    if not reports:
        return
    terminalreporter.section("figures reported by the tests")
    for report in reports:
        lines = report.capstdout.strip().splitlines()
        terminalreporter.write_line(f"{report.nodeid}:")
        for line in lines[:40]:
            terminalreporter.write_line(f"    {line}")
        if len(lines) > 40:
            terminalreporter.write_line(f"    ... ({len(lines) - 40} more lines)")


@pytest.fixture(scope="session")
def onnx_node_cases():  # type: ignore[no-untyped-def]
    """onnx's node test cases (onnx.backend.test.case.node: model, inputs, expected outputs,
    tolerances), built in-process once per session: the `data/node` folder is not installed."""
    import warnings

    pytest.importorskip("onnx")
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(node.collect_testcases(None))


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder (`tmp_path/project`) as the working folder, with a cache of its own
    beside it (the output-folder tests build their trees here)."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    return project


@pytest.fixture()
def opset_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """`opset ARGS...` run in this process (toolkit.cli.main) from the repository root, as a
    CompletedProcess. For tests of what a command prints and returns, where the process itself
    is not what is tested: a subprocess pays the interpreter, the imports and the catalog load
    again (about half a second a run), and only rules emitted in this process are recorded
    (tests/test_zz_rule_catalog.py)."""
    import subprocess

    from toolkit.cli import main

    monkeypatch.chdir(REPO)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(["opset", *args], code, captured.out, captured.err)

    return run
