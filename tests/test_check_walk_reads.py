"""check-model's reads beside the model walk (#27): a graph's declarations read list by list in C
loops (check.types.declarations), and the SSA rule as one call per node (GraphScope.step, the
walk's `repeated` hook). What they give must be what a field-by-field reading and the separate
passes give, for hostile entries too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from toolkit.cli import main  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.check.types import declarations, shape_of, type_string  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

F32 = TensorProto.FLOAT


def _hostile_infos() -> list[Any]:
    """value_info entries as a stranger's model may hold them: a doc_string, metadata_props, an
    unknown field, a name of 100,000 characters, a name that is not UTF-8, no type, an empty type."""
    plain = helper.make_tensor_value_info("a", F32, [2, 3])
    documented = helper.make_tensor_value_info("b", F32, [2, 3], doc_string="x" * 1000)
    tagged = helper.make_tensor_value_info("c", TensorProto.INT64, ["n"])
    tagged.metadata_props.add(key="k", value="v")
    unknown = onnx.ValueInfoProto.FromString(
        helper.make_tensor_value_info("d", F32, [4]).SerializeToString() + b"\xa2\x06\x03abc"
    )
    long_name = helper.make_tensor_value_info("L" * 100_000, F32, [5])
    not_utf8 = onnx.ValueInfoProto.FromString(
        helper.make_tensor_value_info("ab", F32, [6]).SerializeToString().replace(b"ab", b"a\xff", 1)
    )
    untyped = onnx.ValueInfoProto(name="e")
    empty = onnx.ValueInfoProto(name="f")
    empty.type.SetInParent()
    return [plain, documented, tagged, unknown, long_name, not_utf8, untyped, empty]


def _by_fields(infos: list[Any]) -> tuple[dict[Any, Any], list[tuple[Any, Any]]]:
    """The reference: each entry's name, type string and shape read field by field."""
    types = {info.name: type_string(info.type) for info in infos if info.HasField("type")}
    return types, [(info.name, shape_of(info.type)) for info in infos]


@pytest.mark.parametrize("where", ["value_info", "input", "output"])
def test_hostile_declarations_read_as_their_fields_say(where: str) -> None:
    infos = _hostile_infos()
    graph = onnx.GraphProto(name="g")
    getattr(graph, where).extend(infos)
    memo: dict[bytes, Any] = {}
    for _ in range(2):  # a cold and a warm memo
        found = declarations(graph, memo)
        types, pairs = _by_fields(infos)
        assert found.types == types
        assert (
            getattr(found, "inputs" if where == "input" else "outputs" if where == "output" else where)
            == pairs
        )
    assert found.types["L" * 100_000] == "tensor(float)"
    assert found.types[b"a\xff"] == "tensor(float)"  # (upb reads a name that is not UTF-8 as bytes)
    assert "e" not in found.types and found.types["f"] is None


def _chain(value_info: list[Any], nodes: list[Any]) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, [2])],
        [helper.make_tensor_value_info(nodes[-1].output[0], F32, [2])],
        value_info=value_info,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def test_hostile_declarations_give_the_separate_passes_findings(
    onnx_registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chain's values declared among the hostile entries (x's Relu output 'a' is declared
    float [2, 3]: a shape conflict, found alike by the walk and the separate passes)."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["a"], ["y"])]
    model = _chain(_hostile_infos(), nodes)
    folded = check_model(model, onnx_registry)
    assert folded.findings == check_model(model, onnx_registry, fast=False).findings
    path = tmp_path / "hostile.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 1
    out = capsys.readouterr().out
    assert "Traceback" not in out and "g/Relu/0" in out


def test_a_clean_node_repeated_still_gets_the_ssa_rule(
    onnx_registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Relu nodes alike (one memo entry, clean after the first: the walk's `repeated` hook, the SSA
    rule alone): the third redefines 'b', the fourth reads 'zz' that nothing defines."""
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Relu", ["a"], ["b"]),
        helper.make_node("Relu", ["a"], ["b"]),
        helper.make_node("Relu", ["zz"], ["c"]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    infos = [helper.make_tensor_value_info(n, F32, [2]) for n in ("a", "b", "c", "zz")]
    model = _chain(infos, nodes)
    folded = check_model(model, onnx_registry)
    assert folded.findings == check_model(model, onnx_registry, fast=False).findings
    graph_findings = [(f.rule, f.path) for f in folded.findings if f.rule.startswith("MODEL-VALUE")]
    assert graph_findings == [("MODEL-VALUE-REDEFINED", "g/Relu/2"), ("MODEL-VALUE-UNDEFINED", "g/Relu/3")]
    path = tmp_path / "ssa.onnx"
    path.write_bytes(model.SerializeToString())
    assert main(["check-model", str(path)]) == 1
    out = capsys.readouterr().out
    assert "error[MODEL-VALUE-REDEFINED]" in out and "error[MODEL-VALUE-UNDEFINED]" in out
