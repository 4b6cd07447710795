"""Resolution exactly as ONNX's Versioning.md defines it, over a loaded SpecSet.

In opset (d, v), operator `op` is its version with the largest since_version <= v, unless
the operator was removed at or before v.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from toolkit.load import cache as disk_cache
from toolkit.load import pbload
from toolkit.load.discovery import discover
from toolkit.load.files import MAX_EXAMPLE_FILE_BYTES, MAX_FILE_BYTES, SpecRoots, read_regular_file
from toolkit.load.parallel import gc_paused
from toolkit.load.result import LoadResult
from toolkit.model.diagnostics import Diagnostic, SpecError
from toolkit.model.resolution import index_at
from toolkit.model.spec import (
    DomainSpec,
    OperatorSpec,
    OpSchema,
    Release,
    SpecSet,
    canonical_domain,
    display_domain,
)
from toolkit.model.suggest import did_you_mean, suggest_operators

CACHE_FORMAT = 2


class SchemaNotFound(KeyError):
    """No operator version resolves for (domain, op, opset version)."""

    def __str__(self) -> str:
        return str(self.args[0])


class Registry:
    """Resolved, indexed view of a SpecSet, with the diagnostics of loading it. Immutable once
    built: `specs` and `diagnostics` are read-only."""

    def __init__(self, specs: SpecSet, diagnostics: Sequence[Diagnostic] = ()) -> None:
        self._specs = specs
        self._diagnostics = tuple(diagnostics)
        self._domains = {d.name: d for d in specs.domains}
        self._operators: dict[tuple[str, str], OperatorSpec] = {
            (o.domain, o.name): o for o in specs.operators
        }
        self._by_domain: dict[str, list[OperatorSpec]] = {}
        for op in specs.operators:
            self._by_domain.setdefault(op.domain, []).append(op)
        self._since: dict[tuple[str, str], list[int]] = {
            key: [v.since_version for v in op.versions] for key, op in self._operators.items()
        }
        self._resolved: dict[tuple[str, str, int], OpSchema | None] = {}

    @property
    def specs(self) -> SpecSet:
        return self._specs

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The warnings (and, when loaded with strict=False, errors) found loading the specs."""
        return self._diagnostics

    # -- domains ---------------------------------------------------------------------

    def domains(self) -> tuple[str, ...]:
        return tuple(sorted(self._domains))

    def domain(self, name: str) -> DomainSpec:
        try:
            return self._domains[canonical_domain(name)]
        except KeyError:
            raise SchemaNotFound(f"unknown domain '{display_domain(name)}'") from None

    def has_domain(self, name: str) -> bool:
        return canonical_domain(name) in self._domains

    @property
    def releases(self) -> tuple[Release, ...]:
        return self.specs.releases

    # -- operators -------------------------------------------------------------------

    def operators(self, domain: str = "") -> tuple[OperatorSpec, ...]:
        return tuple(self._by_domain.get(canonical_domain(domain), ()))

    def operator(self, op: str, domain: str = "") -> OperatorSpec:
        try:
            return self._operators[canonical_domain(domain), op]
        except KeyError:
            message = f"no operator '{op}' in domain '{display_domain(domain)}'"
            if not self.has_domain(domain):
                known = ", ".join(display_domain(d) for d in self.domains()) or "none"
                message += f" (domain not loaded; loaded: {known})"
            suggestions = self.suggest_operators(op)
            if suggestions:
                message += f"; {did_you_mean(suggestions)}"
            raise SchemaNotFound(message) from None

    def suggest_operators(self, op: str, limit: int = 3) -> list[str]:
        """`domain.Op` spellings of loaded operators named `op`, or close to it."""
        return suggest_operators(op, self._operators, limit)

    def versions(self, op: str, domain: str = "") -> tuple[OpSchema, ...]:
        return self.operator(op, domain).versions

    def find_schema(self, op: str, opset_version: int, domain: str = "") -> OpSchema | None:
        """The version of `op` in effect in opset (domain, opset_version), or None."""
        key = (domain, op, opset_version)
        try:
            return self._resolved[key]
        except KeyError:
            pass
        result = self._resolve(op, opset_version, canonical_domain(domain))
        self._resolved[key] = result
        return result

    def get_schema(self, op: str, opset_version: int, domain: str = "") -> OpSchema:
        """Like onnx.defs.get_schema: raise SchemaNotFound when nothing resolves."""
        key = (domain, op, opset_version)
        schema = (
            self._resolved.get(key) if key in self._resolved else self.find_schema(op, opset_version, domain)
        )
        if schema is None:
            raise SchemaNotFound(
                f"no version of '{op}' in domain '{display_domain(domain)}' at opset version {opset_version}"
            )
        return schema

    def _resolve(self, op: str, opset_version: int, domain: str) -> OpSchema | None:
        spec = self._operators.get((domain, op))
        if spec is None:
            return None
        index = index_at(self._since[domain, op], spec.removed_in, opset_version)
        return None if index is None else spec.versions[index]

    def inventory(self, domain: str, opset_version: int) -> dict[str, OpSchema]:
        """Operator name -> resolved version, for every operator available in the opset."""
        out = {}
        for spec in sorted(self.operators(domain), key=lambda o: o.name):
            schema = self.find_schema(spec.name, opset_version, spec.domain)
            if schema is not None:
                out[spec.name] = schema
        return out

    def all_schemas(self) -> tuple[OpSchema, ...]:
        return tuple(v for op in self.specs.operators for v in op.versions)


def load_registry(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    cache: bool = True,
    strict: bool = True,
) -> Registry:
    """Load specs (YAML trees, or generated `.pb` schema documents), check them and resolve them:
    the specs come from the cache when it holds them, else they are read and checked
    (`toolkit.checks.run.load_specs`) and the result is stored in the cache.

    Raises SpecError with every diagnostic when an error is found (strict=True);
    warnings stay available as `registry.diagnostics`.
    """
    path_list = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if path_list and all(pbload.is_pb_tree(p) for p in path_list):
        return Registry(pbload.load_specset_from_pb(path_list))
    key = None
    if cache and disk_cache.enabled():
        key = inputs_key(path_list)
        from toolkit.load import result_cache  # protobuf: paid only when the cache is used

        cached = result_cache.fetch(key)
        if cached is not None:
            return _checked(cached, strict)
    # The loader and the checks are imported on a cache miss only: a warm command never pays
    # for PyYAML, the JSON-Schema validators or the rule modules.
    from toolkit.checks.run import load_specs

    # What is loaded lives as long as the command, as a cached load's does (`result_cache.fetch`):
    # frozen out of the cyclic collector's sight, or its next collections walk every object of
    # the catalog again (and, in a forked generator worker, write to every page it inherited).
    with gc_paused(freeze=True):
        result = load_specs(path_list)
    return _checked(_stored(key, result), strict)


def _checked(result: LoadResult, strict: bool) -> Registry:
    if strict and result.errors:
        raise SpecError(result.diagnostics)
    return Registry(result.specs, result.diagnostics)


def _stored(key: str | None, result: LoadResult) -> LoadResult:
    if key is not None:
        from toolkit.load import result_cache

        result_cache.store(key, result)
    return result


def cache_key(paths: Sequence[str | os.PathLike[str]]) -> str | None:
    """The cache entry `load_registry(paths)` reads and fills (`toolkit.load.result_cache`), or
    None when it uses none (caching off, `.pb` trees)."""
    path_list = list(paths)
    if not disk_cache.enabled() or (path_list and all(pbload.is_pb_tree(p) for p in path_list)):
        return None
    return inputs_key(path_list)


def inputs_key(paths: Sequence[str | os.PathLike[str]]) -> str:
    """Covers what a LoadResult of the spec `paths` depends on: the input files' paths and content,
    the example files they name, the toolkit version, and the working directory (diagnostics hold
    paths relative to it). The one digest of a tree's inputs: the load cache and generate's
    freshness record key on it. Files are read as the loader reads them, inside the tree's roots."""
    import hashlib  # imported on use: a cold run with the cache off hashes nothing

    roots = SpecRoots.of(paths)
    digest = hashlib.sha256(f"{CACHE_FORMAT}:{os.getcwd()}:{toolkit_stamp()}".encode())
    named: dict[Path, Path] = {}  # an example file -> the spec naming it (whose root it stays in)
    for path in discover(paths):
        content = _key_content(path, digest, roots)
        if b"file:" in content:  # an example's `.npy` / `.pb` file, read by load.build_examples
            for m in _EXAMPLE_FILE.findall(content):
                named.setdefault(path.parent / m.decode("utf-8", "replace"), path)
    for path in sorted(named):
        _key_content(path, digest, roots, named[path], MAX_EXAMPLE_FILE_BYTES)
    return "registry-" + digest.hexdigest()


# `file: NAME.npy` / `file: NAME.pb` in a spec's text (found without parsing it; a name that is not
# a file is the loader's EXAMPLE-FILE to report).
_EXAMPLE_FILE = re.compile(rb"""\bfile:\s*["']?([^"'\s,}\]]+\.(?:npy|pb))""")


def _key_content(
    path: Path, digest: Any, roots: SpecRoots, named_by: Path | None = None, limit: int = MAX_FILE_BYTES
) -> bytes:
    digest.update(f"{os.path.abspath(path)}\0".encode())  # what diagnostics are named after
    try:
        # never a FIFO, /dev/zero or a link out of the tree (an example file: of its spec's root)
        content = read_regular_file(path, limit, roots, named_by)
    except OSError as exc:  # the loader reports it as FILE-READ; the key still differs
        content = f"\0unreadable: {exc.strerror}".encode()
    digest.update(f"{len(content)}\0".encode())
    digest.update(content)
    return content


@functools.cache
def toolkit_stamp() -> str:
    """Changes whenever the toolkit's code, templates or schemas change, or one of the libraries
    it depends on is upgraded, so stale caches are never used."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    schemas = os.path.join(here, "schemas")
    for root, _dirs, files in [*os.walk(here), *os.walk(schemas)]:  # schemas/ may be a symlink
        for name in files:
            # the code, the generators' templates, and the schemas
            if name.endswith((".py", ".j2")) or (root == schemas and name.endswith(".json")):
                stat = os.stat(os.path.join(root, name))
                parts.append(f"{os.path.relpath(root, here)}/{name}:{stat.st_mtime_ns}:{stat.st_size}")
    return ";".join([*sorted(parts), *_dependency_stamps()])


# The libraries whose behaviour shapes loaded specs and generated bytes (YAML parsing, schema
# validation, Markdown analysis, templates, protobuf encoding and text format).
STAMPED_DEPENDENCIES = ("yaml", "fastjsonschema", "jsonschema", "markdown_it", "jinja2", "google.protobuf")


def _dependency_stamps() -> list[str]:
    """Where each dependency is installed (the first `sys.path` entry holding its package, as the
    import system finds it) and its `__init__.py`'s mtime and size: an upgrade or a downgrade
    rewrites them. Found without importing the packages, which a warm command avoids."""
    stamps = []
    for name in STAMPED_DEPENDENCIES:
        found = "missing"
        for entry in sys.path:
            init = os.path.join(entry or ".", *name.split("."), "__init__.py")
            try:
                stat = os.stat(init)
            except OSError:
                continue
            found = f"{init}:{stat.st_mtime_ns}:{stat.st_size}"
            break
        stamps.append(f"{name}={found}")
    return stamps


def load_registry_from_pb(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Registry:
    """A Registry rebuilt from `schemas.pb` documents under `paths` (folders or files)."""
    return Registry(pbload.load_specset_from_pb(paths))
