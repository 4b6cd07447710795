"""The installed onnx's operator catalog for the hovers of function bodies (`bodies`): loaded
once, on first need, in the server's checking thread, never while a check runs."""

from __future__ import annotations

import logging
from concurrent.futures import Executor

from toolkit.model.diagnostics import SpecError, UsageError
from toolkit.registry.core import Registry

log = logging.getLogger(__name__)


class OnnxCatalog:
    """The installed onnx's catalog for the hovers, loaded on first need in `pool` (the checking
    thread: a load never runs beside a check)."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self.registry: Registry | None = None
        self.state = "idle"  # idle, loading, ready, missing
        self.reason = ""

    def get(self) -> Registry | None:
        """The catalog when loaded; else start loading it (once) and return None."""
        if self.state == "idle":
            self.state = "loading"
            self.pool.submit(self._load)
        return self.registry

    def _load(self) -> None:
        from toolkit.onnx_bridge.catalog import onnx_registry

        try:
            self.registry = onnx_registry(adapters=False)
            self.state = "ready"
        except ImportError as exc:  # onnx is not installed (or cannot be imported)
            self.reason = f"onnx cannot be imported ({exc.name or exc})"
            self.state = "missing"
        except (UsageError, SpecError, OSError) as exc:
            self.reason = str(exc).split("\n")[0]
            self.state = "missing"
        except Exception as exc:  # onnx's own failure: the hovers say so, the server goes on
            log.exception("opset: the onnx catalog did not load")
            self.reason = f"{type(exc).__name__}: {exc}"
            self.state = "missing"

    def status(self) -> str:
        if self.state == "missing":
            return f"the onnx catalog is not loaded: {self.reason} (install the [onnx] extra, then restart the server)"
        return "the onnx catalog is not loaded yet (it is loading: hover again in a moment)"
