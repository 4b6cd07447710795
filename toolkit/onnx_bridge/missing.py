"""The one message for an optional package the model tools need but cannot import (#25.8).

onnx and onnxruntime are never core dependencies: the extra `opset-toolkit[onnx]` installs both
at the versions the toolkit is tested with, so every message that asks for one names the extra.
"""

from __future__ import annotations

from toolkit.model.diagnostics import UsageError
from toolkit.model.install import install_line

ONNX_EXTRA = "opset-toolkit[onnx]"
INSTALL_ONNX = install_line("onnx")


def not_installed(package: str, needed_for: str) -> UsageError:
    """The usage error (exit 2) for `package` (onnx or onnxruntime) missing when `needed_for` runs."""
    return UsageError(
        f"{needed_for} needs the {package} package, which is not installed\n"
        f"  hint: the extra {ONNX_EXTRA} installs onnx and onnxruntime for the model tools: {INSTALL_ONNX}"
    )
