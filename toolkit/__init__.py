"""opset-toolkit: ML operator sets written in YAML; registry, generators and a BC gate.

Importing the package costs nothing: the public names below are loaded on first use, so that
`toolkit.model.semver` (say) can be used without PyYAML or the loader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "Diagnostic",
    "Registry",
    "SchemaNotFound",
    "SpecError",
    "__version__",
    "infer_shapes",
    "load_registry",
    "register_onnx",
]

if TYPE_CHECKING:
    from toolkit.model.diagnostics import Diagnostic, SpecError
    from toolkit.onnx_bridge.register import register_onnx
    from toolkit.onnx_bridge.shape_write import infer_shapes
    from toolkit.registry.core import Registry, SchemaNotFound, load_registry


def __getattr__(name: str) -> Any:
    # Plain imports inside the function (no importlib): the package's layering stays visible to
    # import-linter, and `import toolkit` does not pull in the loader.
    if name in ("Diagnostic", "SpecError"):
        from toolkit.model import diagnostics

        return getattr(diagnostics, name)
    if name in ("Registry", "SchemaNotFound", "load_registry"):
        from toolkit.registry import core

        return getattr(core, name)
    if name == "infer_shapes":
        from toolkit.onnx_bridge import shape_write

        return shape_write.infer_shapes
    if name == "register_onnx":
        from toolkit.onnx_bridge import register

        return register.register_onnx
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
