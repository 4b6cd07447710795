"""Work `opset generate` no longer does twice (issue #24's cold-generate guard rail).

A function body is parsed by its check (FUNCTION-*) and again when the proto and backend_tests
kinds encode it as a FunctionProto; the parse is kept (`onnx_text.parse_nodes`), bounded in count
and text length, and a failed parse is never kept.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.model import onnx_text

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the body parser really parses (cache misses), in order; the cache starts empty."""
    seen: list[str] = []
    real = onnx_text._Parser.__init__

    def counting(self: onnx_text._Parser, text: str) -> None:
        seen.append(text)
        real(self, text)

    monkeypatch.setattr(onnx_text._Parser, "__init__", counting)
    onnx_text._parse_cached.cache_clear()
    yield seen
    onnx_text._parse_cached.cache_clear()


def test_generate_parses_each_function_body_once(
    tmp_path: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = tmp_path / "opsets"
    shutil.copytree(REPO / "opsets", specs)
    monkeypatch.setenv("OPSET_TOOLKIT_JOBS", "1")  # every parse in this process, where it is counted
    out = tmp_path / "out"
    assert main(["generate", "--specs", str(specs), "--out", str(out), "--no-cache", "-q"]) == 0
    assert (out / "proto").is_dir() and (out / "backend_tests").is_dir()
    assert parses, "the shipped specs have function bodies: the check parses them"
    assert len(parses) == len(set(parses))  # the check's parse served the encoding too


def test_failed_parse_is_not_kept(parses: list[str]) -> None:
    bad = "y = Relu(x"
    for _ in range(2):
        with pytest.raises(onnx_text.TextParseError):
            onnx_text.parse_nodes(bad)
    assert parses == [bad, bad]


def test_long_bodies_are_parsed_without_being_kept(parses: list[str]) -> None:
    line = "y = Identity(x)\n"
    long_text = line * (onnx_text.MAX_CACHED_TEXT // len(line) + 1)
    assert len(long_text) > onnx_text.MAX_CACHED_TEXT
    first = onnx_text.parse_nodes(long_text)
    assert onnx_text.parse_nodes(long_text) == first
    assert len(parses) == 2 and onnx_text._parse_cached.cache_info().currsize == 0
    short = onnx_text.parse_nodes(line)
    assert onnx_text.parse_nodes(line) is short and len(parses) == 3
