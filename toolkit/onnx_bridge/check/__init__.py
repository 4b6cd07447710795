"""`opset check-model`: check an ONNX model against a Registry, in any domain.

- rules.py: the MODEL-* rules (family "model" of the unified catalog)
- checker.py: the reporting checker, `check_model` / `check_model_file`
- fastpath.py: passes certainly-clean nodes without the reporting code (same findings)
- schema_facts.py: what the checks read from a schema, kept per registry
- findings.py, model_io.py, types.py: results, reading a model file, value type strings
"""

from toolkit.onnx_bridge.check.checker import check_model, check_model_file
from toolkit.onnx_bridge.check.findings import CheckResult, ModelFinding, exit_code
from toolkit.onnx_bridge.check.model_io import load_model
from toolkit.onnx_bridge.check.rules import MODEL_RULES
from toolkit.onnx_bridge.check.types import declared_types, type_string

__all__ = [
    "MODEL_RULES",
    "CheckResult",
    "ModelFinding",
    "check_model",
    "check_model_file",
    "declared_types",
    "exit_code",
    "load_model",
    "type_string",
]
