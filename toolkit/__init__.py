"""opset-toolkit: ML operator sets written in YAML; registry, generators and a BC gate."""

from toolkit.diagnostics import Diagnostic, SpecError
from toolkit.registry import Registry, SchemaNotFound, load_registry

__version__ = "0.1.0"
__all__ = ["Diagnostic", "Registry", "SchemaNotFound", "SpecError", "__version__", "load_registry"]
