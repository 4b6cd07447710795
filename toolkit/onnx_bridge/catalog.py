"""The installed onnx catalog as a Registry: imported on demand, cached per onnx version.

The import writes ONNX's schemas as DSL files into the user's cache folder (never into the
repository), keyed by the onnx version, the data overlays and the toolkit's code, so an upgrade of
onnx or of the toolkit gets a fresh import. The default
domain's schemas then get our adapter overlay (`toolkit/data/onnx_adapters/`) merged in, and
vendor specs given with `--specs` are added on top (a vendor tree may even replace a domain).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from toolkit.load import cache
from toolkit.model.spec import DomainSpec, OperatorSpec, SpecSet
from toolkit.onnx_bridge.missing import not_installed
from toolkit.registry.core import Registry, load_registry, toolkit_stamp

UNCHECKED_FILE = "unchecked_attributes.txt"
ONNX_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")


def onnx_version() -> str:
    """The installed onnx's version, read from its metadata (importing onnx is slow)."""
    from importlib import metadata

    try:
        return metadata.version("onnx")
    except metadata.PackageNotFoundError:
        raise not_installed("onnx", "the onnx operator catalog") from None


def catalog_dir(cache_root: str | os.PathLike[str] | None = None) -> Path:
    """Folder holding the imported catalog of the installed onnx; imported on first use.
    With caching off (`--no-cache`, OPSET_TOOLKIT_NO_CACHE) and no `cache_root`, the catalog is
    imported into a temporary folder that lives as long as this process."""

    def fill(folder: Path) -> None:
        from toolkit.onnx_bridge.importer import import_catalog

        import_catalog(folder)
        unchecked = "".join(f"{i}\n" for i in probe_unchecked_attributes())
        (folder / UNCHECKED_FILE).write_text(unchecked, "utf-8")

    # The toolkit's data overlays (shapes, adapters, replacements, release facts) are written into
    # the import, so an edit of any of them is a new catalog (and a change of the code, below).
    return imported_dir("onnx-catalog", f"{onnx_version()}-d{data_digest()}", fill, cache_root)


DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def data_digest(folder: Path = DATA_DIR) -> str:
    """A short digest of every file under the toolkit's data folder (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def imported_dir(
    kind: str, version: str, fill: Callable[[Path], None], cache_root: str | os.PathLike[str] | None = None
) -> Path:
    """The cache folder `<kind>-<version>-c<code>`, filled by `fill` on first use, where `<code>`
    is a digest of `toolkit_stamp()`: what a catalog holds is made by the toolkit's code (the
    importer, the overlays' application, the shape checker that picks an overlay's alternative),
    so any change of it is a new catalog, with no format number to remember to bump. The onnx
    catalog and the runtime catalogs (toolkit/onnx_bridge/runtimes.py) share this machinery."""
    if cache_root is None and not cache.enabled():
        return _private_dir(kind, version, fill)
    root = Path(cache_root) if cache_root is not None else cache.cache_dir()
    target = root / f"{kind}-{version}-c{code_digest()}"
    if (target / ".complete").exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    # Import into a sibling temp folder and rename: concurrent runs never see half a catalog.
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=root))
    try:
        fill(tmp)
        (tmp / ".complete").write_text(version + "\n", encoding="utf-8")
        try:
            os.replace(tmp, target)
        except OSError:
            if not (target / ".complete").exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def code_digest() -> str:
    """A short digest of the toolkit's code and the libraries it depends on (`toolkit_stamp`)."""
    return hashlib.sha256(toolkit_stamp().encode()).hexdigest()[:12]


_PRIVATE: dict[tuple[str, str], Path] = {}


def _private_dir(kind: str, version: str, fill: Callable[[Path], None]) -> Path:
    """One temporary import per kind and version for this process (caching is off)."""
    if (kind, version) not in _PRIVATE:
        root = Path(tempfile.mkdtemp(prefix=f"opset-{kind}-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _PRIVATE[kind, version] = imported_dir(kind, version, fill, root)
    return _PRIVATE[kind, version]


def probe_unchecked_attributes() -> list[str]:
    """Schema ids whose onnx schema accepts attributes it does not declare (onnx's
    AllowUncheckedAttributes, e.g. LayerNormalization-17). The flag is not exposed to Python,
    so each schema is asked: does onnx's node check reject an undeclared attribute?"""
    import onnx.checker
    import onnx.defs
    import onnx.helper

    found = []
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.deprecated:
            continue  # onnx rejects deprecated operators before looking at attributes
        node = onnx.helper.make_node(
            schema.name,
            ["x"] * schema.min_input,
            ["y"] * max(1, schema.min_output),
            domain=schema.domain,
            opset_probe_attribute=1,
        )
        ctx = onnx.checker.C.CheckerContext()
        ctx.ir_version = onnx.IR_VERSION
        ctx.opset_imports = {schema.domain: schema.since_version}
        try:
            onnx.checker.C.check_node(node.SerializeToString(), ctx, onnx.checker.C.LexicalScopeContext())
        except Exception:  # onnx raises its ValidationError: the attribute was checked
            continue
        domain = schema.domain or "ai.onnx"
        found.append(f"{domain}.{schema.name}:{schema.since_version}")
    return sorted(found)


def onnx_unchecked_attributes(cache_root: str | os.PathLike[str] | None = None) -> frozenset[str]:
    """Ids of the onnx schemas that let undeclared attributes through (see the probe)."""
    path = catalog_dir(cache_root) / UNCHECKED_FILE
    return frozenset(line for line in path.read_text("utf-8").splitlines() if line)


_MEMO: dict[tuple[str, ...], Registry] = {}


def onnx_registry(
    *, cache_root: str | os.PathLike[str] | None = None, adapters: bool = True, use_cache: bool = True
) -> Registry:
    """The installed onnx catalog as a Registry, adapter overlay merged (memoised per process).
    `use_cache=False` loads the catalog without the registry cache."""
    key = (str(cache_root), str(adapters), str(use_cache))
    if key not in _MEMO:
        registry = load_registry([catalog_dir(cache_root)], cache=use_cache)
        if adapters:
            from toolkit.onnx_bridge.overlay import apply_overlay

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
    adapters: bool = True,
    use_cache: bool = True,
) -> Registry:
    """The registry model tools check against: the onnx catalog (with the adapter overlay when
    `adapters`, which only `convert` needs) plus vendor specs; `base` replaces the catalog."""
    registry = base if base is not None else onnx_registry(adapters=adapters, use_cache=use_cache)
    if not spec_paths:
        return registry
    vendor = load_registry(list(spec_paths), cache=use_cache)
    return merge_registries(registry, vendor)
