"""`import-onnx --examples` on a deterministic sample of onnx's backend node test cases, and
`opset test-runtime` on the import reproducing onnxruntime's own verdict case by case.

The full comparison (every case onnx builds) is `tools/compare_backend_tests.py`; here a fixed
set of onnx's case modules keeps the test inside its time budget. Importing a case module makes
its cases (onnx's metaclass registers them), so only the sample is built.
"""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from toolkit.checks.run import load_specs
from toolkit.onnx_bridge.importer import import_catalog
from toolkit.onnx_bridge.runtime_test import PASS, run_examples
from toolkit.registry.core import Registry
from toolkit.registry.test_cases import all_cases

ort = pytest.importorskip("onnxruntime")

# Elementwise, reductions, convolutions, shape operators, optional inputs, several outputs,
# per-case tolerances, and cases that must be skipped (subgraph attributes, float8, sequences).
SAMPLE = (
    "relu", "add", "gemm", "conv", "averagepool", "softmax", "concat", "split", "topk", "where",
    "reshape", "resize", "transpose", "clip", "layernormalization", "argmax", "cast", "if_", "gelu",
)  # fmt: skip


# The sample's cases by name: what the modules above make, whether or not another test made
# every case already (the names of other modules' cases never match).
NAMES = re.compile(
    r"^test_(relu|add|gemm|conv|averagepool|softmax|concat|split|top_k|where|reshape|resize|transpose|clip"
    r"|layer_normalization|argmax|cast|if|gelu)(_|$)(?!.*(to_sequence|cross_entropy))"
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], list[Any]]:
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module in SAMPLE:
            importlib.import_module(f"onnx.backend.test.case.node.{module}")
    cases = sorted((c for c in node._NodeTestCases if NAMES.match(c.name)), key=lambda c: c.name)
    out = tmp_path_factory.mktemp("onnx-examples")
    stats: dict[str, Any] = {}
    monkey = pytest.MonkeyPatch()
    monkey.setattr(node, "collect_testcases", lambda op_type=None: cases)
    try:
        import_catalog(out, domains=["ai.onnx"], examples=True, stats=stats)
    finally:
        monkey.undo()
    return out, stats, cases


def test_cases_attach_to_the_versions_their_opset_resolves_to(
    imported: tuple[Path, dict[str, Any], list[Any]],
) -> None:
    out, stats, cases = imported
    result = load_specs([out])
    assert not result.errors, result.diagnostics[:5]
    registry = Registry(result.specs)
    attached = all_cases(registry)
    print(
        f"\nsample: {len(cases)} onnx node test cases, {stats['examples']} attached, skipped {stats['skipped']}"
    )
    assert stats["examples"] == len(attached) > 100
    assert stats["skipped"].get("not one node", 0) > 0  # the *_expanded function bodies
    by_name = {f"test_{e.name}": s for s, e in attached}
    assert by_name["test_relu"].since_version == 14
    assert by_name["test_gemm_all_attributes"].name == "Gemm"
    imports = {c.name: {o.domain: o.version for o in c.model.opset_import} for c in cases}
    for name, schema in by_name.items():
        opset = imports[name][""]
        versions = [v.since_version for v in registry.versions(schema.name)]
        assert schema.since_version == max(v for v in versions if v <= opset), name
    assert not any(n.startswith("test_if") for n in by_name)  # a graph attribute: skipped


def test_test_runtime_reproduces_onnxruntime_on_the_same_cases(
    imported: tuple[Path, dict[str, Any], list[Any]],
) -> None:
    out, _, cases = imported
    registry = Registry(load_specs([out]).specs)
    ours = {f"test_{r.example}": r.status == PASS for r in run_examples(registry, all_cases(registry))}
    theirs = {c.name: _onnxruntime_verdict(c) for c in cases if c.name in ours}
    print(f"\nonnxruntime on onnx's models: {sum(theirs.values())} of {len(theirs)} pass; "
          f"opset test-runtime: {sum(ours.values())} of {len(ours)} pass")  # fmt: skip
    assert theirs == ours
    assert sum(ours.values()) > 100


def _onnxruntime_verdict(case: Any) -> bool:
    """What onnx's backend test runner decides with onnxruntime: run onnx's own model, same
    dtype, then assert_allclose with the case's rtol/atol."""
    inputs, outputs = case.data_sets[0]
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 4
        session = ort.InferenceSession(
            case.model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        feeds = {v.name: x for v, x in zip(case.model.graph.input, inputs, strict=False)}
        got = session.run(None, feeds)
        for want, have in zip(outputs, got, strict=True):
            assert have.dtype == want.dtype
            if want.dtype == object:
                np.testing.assert_array_equal(have, want)
            else:
                np.testing.assert_allclose(have, want, rtol=case.rtol, atol=case.atol)
    except Exception:
        return False
    return True
