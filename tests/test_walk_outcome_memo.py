"""check-model's node outcome memo (#27): a node of the main graph whose walk signature (operator
version, input types, shapes and known values, the attributes its rules read, output count) and
attribute facts (name, type, value held: all the fast path reads of its attributes) equal those
of a node the fast path found clean is known clean, and its fast-path check is skipped; the graph
checks still run per node. Findings stay those of the reporting checker (`fast=False`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.onnx_bridge.catalog import onnx_unchecked_attributes  # noqa: E402
from toolkit.onnx_bridge.check import check_model, walk_checks  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F32 = TensorProto.FLOAT
COUNT = 40


def _chain(extra: dict[int, dict[str, Any]], declared: dict[int, int] | None = None) -> Any:
    """Relu after Relu on float [4, 8], every value declared; node i gets the attributes
    `extra[i]` (Relu declares none), its output the element type `declared[i]` (else float)."""
    nodes, infos = [], []
    for i in range(COUNT):
        nodes.append(
            helper.make_node("Relu", ["x" if i == 0 else f"v{i - 1}"], [f"v{i}"], **extra.get(i, {}))
        )
        elem = (declared or {}).get(i, F32)
        infos.append(helper.make_tensor_value_info(f"v{i}", elem, [4, 8]))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, [4, 8])],
        [infos[-1]],
        value_info=infos[:-1],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The fast-path verdicts the walk's node checks ask for, in order."""
    verdicts: list[int] = []
    clean_view = walk_checks.clean_view

    def counting(*args: Any) -> int:
        verdict = clean_view(*args)
        verdicts.append(verdict)
        return verdict

    monkeypatch.setattr(walk_checks, "clean_view", counting)
    return verdicts


def _findings(model: Any, registry: Registry, fast: bool = True) -> list[tuple[str, str, str]]:
    result = check_model(model, registry, unchecked_attributes=onnx_unchecked_attributes(), fast=fast)
    return [(f.rule, f.path, f.message) for f in result.findings]


def test_a_repeated_clean_node_is_checked_once(
    onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 Relus alike: the fast path runs for the first (its memo entry, recorded clean, is the
    signature of the others), not for the other 39 (it ran for all 40, then for the first two)."""
    verdicts = _counted(monkeypatch)
    assert _findings(_chain({}), onnx_registry) == []
    assert len(verdicts) == 1 and walk_checks.DIRTY not in verdicts


def test_a_repeated_node_with_a_finding_is_reported_at_every_occurrence(
    onnx_registry: Registry,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every 4th Relu carries an undeclared attribute (its rules read none: the walk's signature is
    the clean Relus'; only the attribute facts differ): each is checked and reported, the clean
    ones between are skipped once known, and the findings are the reporting checker's."""
    odd = {i: {"bogus": 1} for i in range(0, COUNT, 4)}
    model = _chain(odd)
    verdicts = _counted(monkeypatch)
    found = _findings(model, onnx_registry)
    assert verdicts.count(walk_checks.DIRTY) == len(odd)
    assert len(verdicts) < COUNT  # the clean ones' check skipped once known
    assert found == _findings(model, onnx_registry, fast=False)
    assert {path.rsplit("/", 1)[1] for _, path, _ in found} == {str(i) for i in odd}
    path = tmp_path / "bogus.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.count("'bogus'") >= len(odd), out


@pytest.mark.parametrize(
    "variant",
    [
        {"extra": {"bogus": 1}},  # an attribute the rules do not read: only the facts differ
        {"extra": {"bogus": helper.make_tensor("t", F32, [1], [1.0])}},  # of a message type
        {"declared": TensorProto.INT64},  # its output declared another type
    ],
    ids=["undeclared-attribute", "undeclared-tensor-attribute", "output-type"],
)
def test_a_change_of_what_the_checks_read_misses_the_memo(
    onnx_registry: Registry, monkeypatch: pytest.MonkeyPatch, variant: dict[str, Any]
) -> None:
    """After 20 clean Relus are known, a 21st differing in one thing the fast path reads is checked
    anew and reported, and the findings are the reporting checker's."""
    at = COUNT // 2
    extra = {at: variant["extra"]} if "extra" in variant else {}
    declared = {at: variant["declared"]} if "declared" in variant else None
    model = _chain(extra, declared)
    verdicts = _counted(monkeypatch)
    found = _findings(model, onnx_registry)
    assert found and found == _findings(model, onnx_registry, fast=False)
    assert any(path.endswith(f"/{at}") for _, path, _ in found)
    assert len(verdicts) < COUNT  # the memo applied to the others
