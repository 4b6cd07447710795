"""The installed onnx catalog as a Registry: imported on demand, cached per onnx version.

The import writes ONNX's schemas as DSL files into the user's cache folder (never into the
repository), keyed by the onnx version so an upgrade of onnx gets a fresh import. The default
domain's schemas then get our adapter overlay (`toolkit/data/onnx_adapters/`) merged in, and
vendor specs given with `--specs` are added on top (a vendor tree may even replace a domain).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from toolkit.diagnostics import UsageError
from toolkit.model import DomainSpec, OperatorSpec, SpecSet
from toolkit.registry import Registry, _cache_dir, load_registry

CATALOG_FORMAT = 1
ONNX_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")


def onnx_version() -> str:
    try:
        import onnx
    except ImportError:
        raise UsageError("the onnx package is not installed: pip install onnx==1.23.2") from None
    return str(onnx.__version__)


def catalog_dir(cache_root: str | os.PathLike[str] | None = None) -> Path:
    """Folder holding the imported catalog of the installed onnx; imported on first use."""
    root = Path(cache_root) if cache_root is not None else _cache_dir()
    target = root / f"onnx-catalog-{onnx_version()}-f{CATALOG_FORMAT}"
    if (target / ".complete").exists():
        return target
    from toolkit.onnx_bridge.importer import import_catalog

    root.mkdir(parents=True, exist_ok=True)
    # Import into a sibling temp folder and rename: concurrent runs never see half a catalog.
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=root))
    try:
        import_catalog(tmp)
        (tmp / ".complete").write_text(onnx_version() + "\n", encoding="utf-8")
        try:
            os.replace(tmp, target)
        except OSError:
            if not (target / ".complete").exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


_MEMO: dict[tuple[str, ...], Registry] = {}


def onnx_registry(*, cache_root: str | os.PathLike[str] | None = None, adapters: bool = True) -> Registry:
    """The installed onnx catalog as a Registry, adapter overlay merged (memoised per process)."""
    key = (str(cache_root), str(adapters))
    if key not in _MEMO:
        registry = load_registry([catalog_dir(cache_root)], cache=True)
        if adapters:
            from toolkit.onnx_bridge.convert import apply_overlay

            registry = apply_overlay(registry)
        _MEMO[key] = registry
    return _MEMO[key]


def merge_registries(base: Registry, extra: Registry) -> Registry:
    """`base` plus every domain of `extra`; a domain present in both is taken from `extra`."""
    replaced = set(extra.domains())
    domains: list[DomainSpec] = [d for d in base.specs.domains if d.name not in replaced]
    domains.extend(extra.specs.domains)
    operators: list[OperatorSpec] = [o for o in base.specs.operators if o.domain not in replaced]
    operators.extend(extra.specs.operators)
    specs = SpecSet(
        domains=tuple(sorted(domains, key=lambda d: d.name)),
        operators=tuple(sorted(operators, key=lambda o: (o.domain, o.name))),
        releases=base.specs.releases + extra.specs.releases,
    )
    return Registry(specs, base.diagnostics + extra.diagnostics)


def model_registry(
    spec_paths: Sequence[str | os.PathLike[str]] = (),
    *,
    base: Registry | None = None,
    use_cache: bool = True,
) -> Registry:
    """The registry model tools check against: the onnx catalog plus vendor specs."""
    registry = base if base is not None else onnx_registry()
    if not spec_paths:
        return registry
    vendor = load_registry(list(spec_paths), cache=use_cache)
    return merge_registries(registry, vendor)
