"""Function bodies in the generated outputs (issue #16): the operator set documents carry them in
`functions` (read by onnx, valid for its checker), the operator pages have a "Function body"
section, and a context-dependent function is named on its page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolkit.generate.docs.functions import function_section

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "generated"


def test_operator_set_documents_carry_the_bodies(shipped_registry: Any) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import onnx_operators_pb

    for version in (1, 2, 3):
        document = onnx_operators_pb.OperatorSetProto()
        document.ParseFromString(
            (GENERATED / "proto" / "com.acme.vision" / f"opset_{version}.pb").read_bytes()
        )
        expected = sorted(
            name
            for name, schema in shipped_registry.inventory("com.acme.vision", version).items()
            if schema.function is not None
        )
        assert [f.name for f in document.functions] == expected, version
        for function in document.functions:
            assert function.domain == "com.acme.vision"
            schema = shipped_registry.get_schema(function.name, version, "com.acme.vision")
            assert list(function.input) == [p.name for p in schema.inputs]
            imports = {o.domain: o.version for o in function.opset_import}
            model_imports = [onnx.helper.make_opsetid(d, v) for d, v in imports.items()]
            onnx.checker.check_function(function, _context(onnx, model_imports))
    assert "FusedConv" in [f.name for f in document.functions]


def _context(onnx: Any, imports: list[Any]) -> Any:
    context = onnx.checker.C.CheckerContext()
    context.ir_version = 10
    context.opset_imports = {o.domain: o.version for o in imports}
    return context


def test_operator_page_shows_the_body() -> None:
    page = (GENERATED / "docs" / "com.acme.vision" / "ops" / "FusedConv.md").read_text(encoding="utf-8")
    assert page.count("### Function body") == 2
    assert "opset imports: `ai.onnx` 19" in page
    assert (
        "```text\nY = Conv <strides: ints = @strides, pads: ints = @pads, group: int = @group> (X, W, B)\n```"
        in page
    )


def test_context_dependent_function_is_named(onnx_registry: Any) -> None:
    old = onnx_registry.find_schema("DepthToSpace", 13)
    new = onnx_registry.find_schema("DepthToSpace", 28)
    assert function_section(old, 3) == ""
    assert "context-dependent function" in function_section(new, 3)
    static = function_section(onnx_registry.find_schema("Range", 11), 3)
    assert static.startswith("### Function body") and "Loop (" in static
