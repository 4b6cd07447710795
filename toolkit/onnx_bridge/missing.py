"""The one message for an optional package the model tools need but cannot import (#25.8).

onnx and onnxruntime are never core dependencies: the extra `opset-toolkit[onnx]` installs both
at the versions the toolkit is tested with, so every message that asks for one names the extra.
"""

from __future__ import annotations

from toolkit.model.diagnostics import UsageError

ONNX_EXTRA = "opset-toolkit[onnx]"
# The toolkit is not on PyPI yet: the extra is installed from a checkout or from git (README).
INSTALL_ONNX = (
    f"pip install -e '.[onnx]' in a checkout, or pip install '{ONNX_EXTRA} @ "
    "git+https://github.com/opset-toolkit/opset-toolkit@<commit>'"
)


def not_installed(package: str, needed_for: str) -> UsageError:
    """The usage error (exit 2) for `package` (onnx or onnxruntime) missing when `needed_for` runs."""
    return UsageError(
        f"{needed_for} needs the {package} package, which is not installed\n"
        f"  hint: the extra {ONNX_EXTRA} installs onnx and onnxruntime for the model tools: {INSTALL_ONNX}"
    )
