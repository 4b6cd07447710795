"""`Source.loc_in` (the builder's shortcut: the marks of the collection in hand) gives what
`Source.loc` gives by walking the path from the document's root, for every key and item of every
collection of the shipped specs, the bad-input corpus and the onnx catalog."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolkit.load.discovery import discover, display_path
from toolkit.load.yamlsrc import MarkedDict, MarkedList, Source, YamlProblem, read_yaml

TESTS = Path(__file__).resolve().parent


def sources(paths: list[Path]) -> list[Source]:
    out = []
    for path in discover(paths):
        try:
            out.append(Source(path, display_path(path), read_yaml(path, display_path(path))))
        except (YamlProblem, OSError):
            continue
    return out


def containers(node: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(node, (MarkedDict, MarkedList)):
        yield at, node
        steps = node.keys() if isinstance(node, MarkedDict) else range(len(node))
        for step in steps:
            yield from containers(node[step], (*at, step))


def assert_agree(source: Source) -> int:
    checked = 0
    for at, container in containers(source.data):
        steps: list[str | int] = list(
            container.keys() if isinstance(container, MarkedDict) else range(len(container))
        )
        for step in [*steps, "missing", 10_000]:  # and steps that are not there: the walk's fallback
            for key in (False, True):
                assert source.loc_in(container, at, step, key=key) == source.loc(*at, step, key=key), (
                    at,
                    step,
                )
                checked += 1
    return checked


def test_loc_in_agrees_on_the_corpus() -> None:
    assert sum(assert_agree(s) for s in sources([TESTS.parent / "opsets", TESTS / "bad_inputs"])) > 10_000


def test_loc_in_agrees_on_the_onnx_catalog(onnx_catalog_dir: Path) -> None:
    assert sum(assert_agree(s) for s in sources([onnx_catalog_dir])) > 100_000
