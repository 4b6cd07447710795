"""Records every rule id the toolkit emits while the test suite runs (in this process).

Each object that carries a rule id — a load/spec Diagnostic, a gate Finding, a check-model
ModelFinding, a compat CompatFinding, a model-diff SignatureChange, a test-runtime ExampleResult (a pass has no rule) — is created through its
dataclass __init__; the recorder wraps those constructors and notes the id. The model-diff
verdict (MDIFF-VERSION) exists only in the rendered report, so that renderer is wrapped too.
tests/test_zz_rule_catalog.py compares what was recorded with the catalog.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from typing import Any

EMITTED: Counter[str] = Counter()

# (module, class) of every record that carries a rule id in its `rule` field.
CARRIERS = (
    ("toolkit.model.diagnostics", "Diagnostic"),
    ("toolkit.compat.engine", "Finding"),
    ("toolkit.onnx_bridge.check.findings", "ModelFinding"),
    ("toolkit.onnx_bridge.compat_model", "CompatFinding"),
    ("toolkit.onnx_bridge.model_diff", "SignatureChange"),
    ("toolkit.onnx_bridge.runtime_test", "ExampleResult"),
)


def install() -> None:
    import importlib

    for module_name, class_name in CARRIERS:
        cls = getattr(importlib.import_module(module_name), class_name)  # fails loudly if moved
        original = cls.__init__

        @functools.wraps(original)
        def init(self: Any, *args: Any, __original: Any = original, **kwargs: Any) -> None:
            __original(self, *args, **kwargs)
            # Only what the toolkit emits counts: a test building a record by hand emits nothing.
            if str(sys._getframe(1).f_globals.get("__name__", "")).startswith("toolkit.") and self.rule:
                EMITTED[self.rule] += 1

        cls.__init__ = init

    from toolkit.reporting import model_diff

    render = model_diff.render

    @functools.wraps(render)
    def recording_render(report: Any, fmt: str) -> str:
        if report.version_ok is False:
            EMITTED["MDIFF-VERSION"] += 1
        return render(report, fmt)

    model_diff.render = recording_render
