"""`check-model --runtime`: whether the runtime can run the model, answered by the function
`opset compat` uses (`compat_model.node_support`), so the two commands never disagree (#25).

With `--runtime`, the nodes are checked against the runtime's catalog plus the vendor specs
(checker.py); a vendor operator that resolves in the specs is valid, but the runtime runs it only
with a kernel of its own or through its function body. The COMPAT-* findings say which.
"""

from __future__ import annotations

from typing import Any

from toolkit.model.diagnostics import Severity
from toolkit.model.rules import CATALOG
from toolkit.onnx_bridge.check.findings import ModelFinding
from toolkit.onnx_bridge.compat_model import CompatFinding, RuntimeTable, analyse
from toolkit.registry.core import Registry

# check-model's own walk reports an unresolved node with its cause (MODEL-OP-UNKNOWN, ...).
_WALK_REPORTS = frozenset({"COMPAT-UNRESOLVED"})


def model_finding(finding: CompatFinding) -> ModelFinding:
    """A compat finding located and reported like a model finding (its rule's hint included)."""
    rule = CATALOG.get(finding.rule)
    return ModelFinding(
        finding.rule,
        finding.message,
        finding.path,
        Severity(finding.severity),
        rule.hint if rule is not None else "",
        finding.operator,
    )


def runtime_findings(model: Any, registry: Registry, runtime: RuntimeTable, name: str) -> list[ModelFinding]:
    """What keeps `runtime` from running `model` as is, as check-model findings."""
    report = analyse(model, registry, runtime, name=name)
    return [model_finding(f) for f in report.findings if f.rule not in _WALK_REPORTS]
