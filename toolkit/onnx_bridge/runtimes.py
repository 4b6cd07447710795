"""Runtime catalogs: a runtime's own operator table, to check a model against instead of the
ONNX standard (PyTorch's operator-versioning RFC: a model is compatible with a runtime when
every node resolves in the runtime's table).

`--runtime` names one:

- `onnxruntime`: the installed onnxruntime's table, every schema `get_all_operator_schema()`
  returns. It is imported as DSL files on first use into the cache folder
  `onnxruntime-catalog-<onnxruntime version>-f<format>` (the same machinery as the onnx
  catalog, see catalog.py), so an upgrade of onnxruntime gets a fresh import. It holds the
  standard domains as onnxruntime has them, with onnxruntime's additions (LayerNormalization-1,
  SimplifiedLayerNormalization-1, ... in the default domain) and its vendor domains
  (com.microsoft, com.microsoft.nchwc, com.ms.internal.nhwc, ...);
- `PATH`: a catalog folder, i.e. a spec tree (what `opset import-onnx --source onnxruntime
  --out PATH` writes, or a vendor's own) or generated `.pb` schema documents.

A runtime catalog is the runtime's whole table: domains it does not define are not
available (vendor specs given with `--specs` are still added on top).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from toolkit.model.diagnostics import SpecError, UsageError
from toolkit.onnx_bridge.missing import not_installed
from toolkit.registry.core import Registry, load_registry

KNOWN_RUNTIMES = ("onnxruntime",)


@dataclass(frozen=True)
class RuntimeCatalog:
    name: str  # shown in reports, e.g. "onnxruntime 1.31.1"
    registry: Registry


def onnxruntime_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("onnxruntime")
    except metadata.PackageNotFoundError:
        error = not_installed("onnxruntime", "--runtime onnxruntime")
        raise UsageError(
            f"{error}; or give a catalog folder written by `opset import-onnx --source onnxruntime`"
        ) from None


def onnxruntime_catalog_dir(cache_root: str | os.PathLike[str] | None = None) -> Path:
    """Folder holding the installed onnxruntime's imported catalog; imported on first use."""
    from toolkit.onnx_bridge.catalog import imported_dir

    def fill(folder: Path) -> None:
        from toolkit.onnx_bridge.importer import import_catalog

        import_catalog(folder, source="onnxruntime")

    return imported_dir("onnxruntime-catalog", onnxruntime_version(), fill, cache_root)


_MEMO: dict[tuple[str, bool], RuntimeCatalog] = {}


def runtime_catalog(runtime: str, *, use_cache: bool = True) -> RuntimeCatalog:
    """The catalog `--runtime RUNTIME` names (memoised per process)."""
    key = (runtime, use_cache)
    if key not in _MEMO:
        _MEMO[key] = _load(runtime, use_cache)
    return _MEMO[key]


def _load(runtime: str, use_cache: bool) -> RuntimeCatalog:
    if runtime == "onnxruntime":
        folder = onnxruntime_catalog_dir()
        return RuntimeCatalog(
            f"onnxruntime {onnxruntime_version()}", load_registry([folder], cache=use_cache)
        )
    path = Path(runtime)
    if not path.exists():
        known = ", ".join(KNOWN_RUNTIMES)
        raise UsageError(
            f"--runtime {runtime}: not a known runtime ({known}) and no such catalog folder; "
            "write one with `opset import-onnx --source onnxruntime --out DIR`"
        )
    try:
        registry = load_registry([path], cache=use_cache)
    except SpecError as exc:
        raise UsageError(f"--runtime {runtime}: the catalog does not load\n{exc}") from None
    if not registry.domains():
        raise UsageError(f"--runtime {runtime}: no operator specs in this catalog folder")
    return RuntimeCatalog(path.name or runtime, registry)
