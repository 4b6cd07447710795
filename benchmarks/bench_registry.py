"""Foundation benchmark: load + validate the imported ONNX catalog, and schema resolution.

Prints, for the catalog of the installed onnx package (imported into a temp dir):
- cold load+validate: in-process `load_specs` with no cache (median of 5 runs); `load_registry`
  in a fresh interpreter, the imports it needs included (median of 9, two processes and one);
  and the whole `opset validate` command in a fresh interpreter;
- warm load: `load_registry` served from the on-disk cache (a data-only entry: protobuf schema
  documents plus a JSON header, keyed by a content hash of the files), and the entry's size;
- `Registry.get_schema` next to `onnx.defs.get_schema` (µs per call, same lookups, same run).

Run: python benchmarks/bench_registry.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def median_seconds(func, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# Timed inside a fresh interpreter: the imports `load_registry` triggers are part of a cold load.
FRESH_LOAD = """
import sys, time
start = time.perf_counter()
from toolkit.registry.core import load_registry
load_registry([sys.argv[1]], cache=False)
print(time.perf_counter() - start)
"""


def fresh_load_seconds(catalog: Path, jobs: str, repeat: int = 9) -> float:
    env = {**os.environ, "OPSET_TOOLKIT_NO_CACHE": "1", "OPSET_TOOLKIT_JOBS": jobs}
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", FRESH_LOAD, str(catalog)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for _ in range(repeat)
    ]
    return statistics.median(times)


def main() -> None:
    from onnx import defs

    from toolkit.checks.run import load_specs
    from toolkit.onnx_bridge.importer import import_catalog
    from toolkit.registry.core import load_registry

    with tempfile.TemporaryDirectory() as tmp:
        catalog = Path(tmp) / "catalog"
        cache = Path(tmp) / "cache"
        os.environ["OPSET_TOOLKIT_CACHE"] = str(cache)
        import_catalog(catalog)
        files = sum(1 for _ in catalog.rglob("*.yaml"))
        megabytes = sum(p.stat().st_size for p in catalog.rglob("*.yaml")) / 1e6

        load_specs([catalog])  # warm-up: imports, validators loaded (once per process)
        cold = median_seconds(lambda: load_specs([catalog]))
        cold_serial = median_seconds(lambda: load_specs([catalog], jobs=1))
        fresh = fresh_load_seconds(catalog, "2")
        fresh_serial = fresh_load_seconds(catalog, "1")
        env = {**os.environ, "OPSET_TOOLKIT_NO_CACHE": "1"}
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "toolkit", "validate", str(catalog)],
            env=env,
            check=True,
            capture_output=True,
        )
        command = time.perf_counter() - start

        load_registry(catalog)  # fill the cache
        warm = median_seconds(lambda: load_registry(catalog))
        entry_bytes = sum(p.stat().st_size for p in cache.glob("*.entry"))
        registry = load_registry(catalog)

        lookups = [
            (s.name, v, s.domain)
            for s in defs.get_all_schemas_with_history()
            for v in (s.since_version, s.since_version + 1)
            if v <= defs.C.schema_version_map()[s.domain][1]
        ]
        rounds = 20
        start = time.perf_counter()
        for _ in range(rounds):
            for name, version, domain in lookups:
                registry.get_schema(name, version, domain)
        ours = (time.perf_counter() - start) / (rounds * len(lookups)) * 1e6
        start = time.perf_counter()
        for _ in range(rounds):
            for name, version, domain in lookups:
                defs.get_schema(name, version, domain)
        theirs = (time.perf_counter() - start) / (rounds * len(lookups)) * 1e6

    versions = len(registry.all_schemas())
    print(
        f"catalog: {files} files, {megabytes:.1f} MB, {versions} operator versions (onnx {defs.onnx_opset_version()} opsets)"
    )
    print(f"cold load+validate (in-process, 2 processes): {cold:.3f} s   (target <= 0.5 s)")
    print(f"cold load+validate (in-process, 1 process):   {cold_serial:.3f} s")
    print(
        f"cold load_registry, fresh interpreter (imports included), 2 processes: {fresh:.3f} s, "
        f"1 process: {fresh_serial:.3f} s"
    )
    print(f"`opset validate` command, fresh interpreter:   {command:.3f} s")
    print(f"warm load (cache):                            {warm:.3f} s   (target <= 0.1 s)")
    print(f"cache entry for the catalog:                  {entry_bytes / 1e6:.1f} MB")
    print(
        f"get_schema: ours {ours:.2f} µs, onnx.defs {theirs:.2f} µs -> {theirs / ours:.1f}x faster "
        f"({len(lookups)} lookups x {rounds})"
    )


if __name__ == "__main__":
    main()
