"""check-model on real producers' models (tests/producer_corpus.py), with onnxruntime as the
judge: faults seeded into vendor (com.microsoft...) nodes are rejected with their rule, as
onnxruntime rejects them, when the model is checked against onnxruntime's catalog."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

from toolkit.onnx_bridge.catalog import onnx_registry, onnx_unchecked_attributes  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.runtimes import runtime_catalog  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

STANDARD = ("", "ai.onnx", "ai.onnx.ml")
FAULT_RULES = {
    "wrong_attribute_type": "MODEL-ATTR-TYPE",
    "unknown_attribute": "MODEL-ATTR-UNKNOWN",
    "missing_required": "MODEL-ATTR-REQUIRED",
    "too_many_inputs": "MODEL-INPUT-COUNT",
    "unknown_op": "MODEL-OP-UNKNOWN",
}


@pytest.fixture(scope="module")
def ort_registry() -> Registry:
    return runtime_catalog("onnxruntime").registry


def ort_loads(model: Any) -> bool:
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception:  # onnxruntime's Fail / InvalidGraph / NotImplemented ...
        return False
    return True


def errors(model: Any, registry: Registry) -> list[str]:
    result = check_model(model, registry, name="model.onnx", unchecked_attributes=onnx_unchecked_attributes())
    return [f.rule for f in result.errors]


def _schema(node: Any, model: Any, registry: Registry) -> Any:
    version = next(o.version for o in model.opset_import if o.domain == node.domain)
    return registry.get_schema(node.op_type, version, node.domain)


def seed_vendor_fault(model: Any, index: int, kind: str, registry: Registry) -> Any | None:
    """A copy of `model` whose node `index` (a vendor node) has one fault of `kind`, or None
    when the node admits no such fault."""
    faulty = copy.deepcopy(model)
    node = faulty.graph.node[index]
    schema = _schema(node, model, registry)
    if kind == "wrong_attribute_type":
        if not node.attribute:
            return None
        old = node.attribute[0]
        value: Any = "not-a-number" if old.type != onnx.AttributeProto.STRING else 3
        node.attribute[0].CopyFrom(helper.make_attribute(old.name, value))
    elif kind == "unknown_attribute":
        node.attribute.append(helper.make_attribute("opset_not_an_attribute", 1))
    elif kind == "missing_required":
        required = {a.name for a in schema.attributes if a.required}
        present = [i for i, a in enumerate(node.attribute) if a.name in required]
        if not present:
            return None
        del node.attribute[present[0]]
    elif kind == "too_many_inputs":
        if schema.max_input >= 2**31 - 1:
            return None
        while len(node.input) <= schema.max_input:
            node.input.append(next(n for n in node.input if n))
    elif kind == "unknown_op":
        node.op_type = "OpsetNoSuchOp"
    return faulty


@pytest.mark.report
def test_seeded_vendor_faults_are_rejected_like_onnxruntime(
    producer_corpus: list[Any], ort_registry: Registry
) -> None:
    counts: Counter[str] = Counter()
    misses: list[str] = []
    for produced in producer_corpus:
        if not (produced.vendor and produced.runs_in_ort):
            continue
        model = onnx.load(str(produced.path))
        assert errors(model, ort_registry) == [], produced.name  # clean before the fault
        seen: set[tuple[str, str]] = set()
        for index, node in enumerate(model.graph.node):
            if node.domain in STANDARD or (node.domain, node.op_type) in seen:
                continue
            seen.add((node.domain, node.op_type))
            for kind, rule in FAULT_RULES.items():
                faulty = seed_vendor_fault(model, index, kind, ort_registry)
                if faulty is None:
                    continue
                where = f"{produced.name} {node.domain}.{node.op_type} {kind}"
                rejected_by_ort = not ort_loads(faulty)
                counts[f"{kind} ort-{'rejects' if rejected_by_ort else 'accepts'}"] += 1
                found = errors(faulty, ort_registry)
                if rule not in found:
                    misses.append(f"{where}: expected {rule}, got {found}")
                if not rejected_by_ort:
                    misses.append(f"{where}: onnxruntime loads the faulty model")
    print("seeded vendor faults:", dict(sorted(counts.items())))
    assert misses == [], "\n".join(misses[:30])
    for kind in FAULT_RULES:
        assert counts[f"{kind} ort-rejects"] >= 3, (kind, counts)


def test_runtime_additions_are_valid_for_the_runtime_only(
    producer_corpus: list[Any], ort_registry: Registry
) -> None:
    """onnxruntime's offline optimizer writes its own LayerNormalization-1 and
    SimplifiedLayerNormalization-1 into the default domain: not ONNX (onnx.checker and
    check-model against the standard reject it), valid for onnxruntime (`--runtime`)."""
    produced = next(m for m in producer_corpus if m.name == "ort_offline_norms_extended")
    assert produced.runs_in_ort and not produced.checker_ok
    model = onnx.load(str(produced.path))
    assert {n.op_type for n in model.graph.node} == {"LayerNormalization", "SimplifiedLayerNormalization"}
    assert errors(model, ort_registry) == []
    assert set(errors(model, onnx_registry(adapters=False))) == {"MODEL-OP-UNKNOWN", "MODEL-OP-NOT-IN-OPSET"}
