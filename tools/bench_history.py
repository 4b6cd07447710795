"""The gate on real release history (#26): one venv per onnx / onnxruntime release, each catalog
imported with that release installed, then `opset diff --against OLD --specs NEW` over each pair of
consecutive releases; per pair and per rule, how many findings.

    python tools/bench_history.py [--cache DIR] [--source onnx|onnxruntime|all] [--json FILE]
                                  [--no-cache] [--compare FILE]

Each release gets `<cache>/onnx-<version>/` or `<cache>/ort-<version>/`: `venv/` (python -m venv, then pip installs the
one release, its own dependencies and the toolkit's dependencies read from pyproject.toml; the
toolkit itself is not installed, it runs from this checkout through PYTHONPATH, so the import code
is the checkout's) and `catalog/` (what `opset import-onnx` wrote). Both are reused by later runs;
a catalog is imported again when the toolkit's import code changed (a digest of those files is
kept in `catalog/.import-key`). The diffs run in this interpreter. `--no-cache` imports every
catalog afresh into a temporary folder; `--compare` checks that a run gives an earlier run's
findings, pair by pair (cached against uncached: identical). Figures and how the findings
were judged: README, "The gate on real release history".
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent.parent
# The latest patch of each minor release (pip index versions onnx / onnxruntime, 2026-11-27).
ONNX = ["1.14.1", "1.15.0", "1.16.2", "1.17.0", "1.18.0", "1.19.1", "1.20.1", "1.21.0", "1.22.0", "1.23.2"]
ORT = [
    "1.16.3", "1.17.3", "1.18.1", "1.19.2", "1.20.1", "1.21.1", "1.22.1", "1.23.2",
    "1.24.4", "1.25.1", "1.26.0", "1.27.0", "1.28.0", "1.29.0", "1.30.0", "1.31.1",
]  # fmt: skip
# The onnx the onnxruntime venvs import standard domains' IR versions from (any release knowing
# every opset onnxruntime registers; `ignore_unknown=True` covers the rest).
ORT_ONNX = "onnx==1.23.2"
FOLDER = {"onnx": "onnx", "onnxruntime": "ort"}  # <cache>/onnx-1.14.1, <cache>/ort-1.16.3


def default_cache() -> Path:
    return Path(
        os.environ.get("OPSET_TOOLKIT_HISTORY_CACHE") or Path.home() / ".cache" / "opset-toolkit-history"
    )


def import_key() -> str:
    """A digest of every file of the toolkit package (code, data overlays, schemas): an imported
    catalog is stale when any of them changed. Derived from the package, not a list of the
    modules the importer happens to use today (such a list goes stale when one is added)."""
    digest = hashlib.sha256()
    package = ROOT / "toolkit"
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def toolkit_requirements() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        deps: list[str] = tomllib.load(handle)["project"]["dependencies"]
    return [d.split("#")[0].strip() for d in deps if "python_version<" not in d.replace(" ", "")]


def release_requirements(package: str, version: str) -> list[str]:
    reqs = [f"{package}=={version}"]
    if package == "onnxruntime":
        reqs.append(ORT_ONNX)
        if tuple(int(p) for p in version.split(".")[:2]) < (1, 19):
            reqs.append("numpy<2")  # built against numpy 1.x's C API
    return reqs


def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, text=True, capture_output=True, **kwargs)


def ensure_venv(folder: Path, package: str, version: str, log: Any) -> Path:
    venv = folder / "venv"
    python = venv / "bin" / "python"
    ready = venv / ".ready"
    wanted = " ".join(release_requirements(package, version) + toolkit_requirements())
    if ready.exists() and ready.read_text() == wanted:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    start = time.perf_counter()
    made = run([sys.executable, "-m", "venv", str(venv)])
    if made.returncode:
        raise RuntimeError(f"venv for {package} {version}: {made.stderr.strip()}")
    pip = run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted.split()])
    if pip.returncode:
        raise RuntimeError(f"pip install for {package} {version}:\n{pip.stderr.strip()[-2000:]}")
    ready.write_text(wanted)
    log(f"  venv {package} {version}: {time.perf_counter() - start:.1f} s")
    return python


def ensure_catalog(folder: Path, python: Path, package: str, version: str, log: Any) -> Path:
    catalog = folder / "catalog"
    key = import_key()
    stamp = catalog / ".import-key"
    if stamp.exists() and stamp.read_text() == key:
        return catalog
    staging = folder / "catalog.new"
    shutil.rmtree(staging, ignore_errors=True)
    cmd = [str(python), "-m", "toolkit", "import-onnx", "--out", str(staging)]
    if package == "onnxruntime":
        cmd += ["--source", "onnxruntime"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPSET_TOOLKIT_NO_CACHE": "1"}
    start = time.perf_counter()
    done = run(cmd, env=env, cwd=folder)
    if done.returncode:
        raise RuntimeError(
            f"import-onnx with {package} {version} (exit {done.returncode}):\n{done.stderr.strip()}"
        )
    (staging / ".import-key").write_text(key)
    shutil.rmtree(catalog, ignore_errors=True)
    staging.rename(catalog)
    log(
        f"  import {package} {version}: {time.perf_counter() - start:.1f} s ({done.stdout.strip().splitlines()[-1]})"
    )
    return catalog


def diff(old: Path, new: Path, extra: list[str], env: dict[str, str]) -> dict[str, Any]:
    # Both trees named relative to the folder holding them: the findings (locations, and messages
    # naming the old tree) are then the same wherever the catalogs live (cache or --no-cache).
    root = new.parent.parent
    cmd = [
        sys.executable,
        "-m",
        "toolkit",
        "diff",
        "--against",
        str(old.relative_to(root)),
        "--specs",
        str(new.relative_to(root)),
        "--format",
        "json",
    ]
    done = run(cmd + extra, env={**os.environ, "PYTHONPATH": str(ROOT), **env}, cwd=root)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"diff {old} -> {new} exited {done.returncode}:\n{done.stderr.strip()}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def history(
    package: str,
    versions: list[str],
    cache: Path,
    extra: list[str],
    log: Any,
    fresh: Path | None = None,
) -> list[dict[str, Any]]:
    """`fresh`: import every catalog into this folder instead of the cache (the venvs still
    come from the cache: they are pip's installs of the releases, not the toolkit's results)
    and run the diffs with the toolkit's load cache off."""
    pythons = []
    for version in versions:  # every venv first: the slow, network-bound part
        folder = cache / f"{FOLDER[package]}-{version}"
        folder.mkdir(parents=True, exist_ok=True)
        python = ensure_venv(folder, package, version, log)
        if fresh is not None:
            folder = fresh / folder.name
            folder.mkdir(parents=True)
        pythons.append((version, folder, python))
    catalogs = [(v, ensure_catalog(folder, python, package, v, log)) for v, folder, python in pythons]
    env = {"OPSET_TOOLKIT_NO_CACHE": "1"} if fresh is not None else {}
    pairs = []
    for (old_version, old), (new_version, new) in itertools.pairwise(catalogs):
        report = diff(old, new, extra, env)
        per_rule: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for finding in report["findings"]:
            per_rule[finding["rule"]][finding["severity"]] += 1
        pairs.append(
            {
                "package": package,
                "old": old_version,
                "new": new_version,
                "summary": report["summary"],
                "per_rule": {rule: dict(sorted(c.items())) for rule, c in sorted(per_rule.items())},
                "findings": report["findings"],
            }
        )
        log(_pair_text(pairs[-1]))
    return pairs


def _pair_text(pair: dict[str, Any]) -> str:
    summary = pair["summary"]
    lines = [
        f"{pair['package']} {pair['old']} -> {pair['new']}: "
        f"{summary['error']} error(s), {summary['warning']} warning(s), {summary['info']} info"
    ]
    for rule, counts in pair["per_rule"].items():
        lines.append(f"    {rule}: " + ", ".join(f"{n} {severity}" for severity, n in counts.items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="venvs and catalogs (default: $OPSET_TOOLKIT_HISTORY_CACHE, else ~/.cache/opset-toolkit-history)",
    )
    parser.add_argument("--source", choices=["onnx", "onnxruntime", "all"], default="all")
    parser.add_argument(
        "--versions", help="comma-separated releases of the one --source instead of the built-in list"
    )
    parser.add_argument("--json", type=Path, help="write every pair's findings here")
    parser.add_argument("--profile", help="the gate profile (default: the gate's)")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="import every catalog again into a temporary folder (removed afterwards) and diff with "
        "the toolkit's load cache off; the venvs still come from the cache",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="JSON",
        help="a --json file of an earlier run: exit 1 unless every pair has the same findings",
    )
    args = parser.parse_args(argv)
    cache = (args.cache or default_cache()).resolve()
    extra = ["--profile", args.profile] if args.profile else []
    start = time.perf_counter()
    lists = {"onnx": ONNX, "onnxruntime": ORT}
    chosen = ["onnx", "onnxruntime"] if args.source == "all" else [args.source]
    results = []
    fresh = Path(tempfile.mkdtemp(prefix="opset-history-")) if args.no_cache else None
    try:
        for package in chosen:
            versions = args.versions.split(",") if args.versions else lists[package]
            print(f"{package}: {', '.join(versions)} (cache {cache})", flush=True)
            log = lambda text: print(text, flush=True)  # noqa: E731
            results += history(package, versions, cache, extra, log, fresh)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
    wall = time.perf_counter() - start
    print(f"wall time {wall:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"wall_seconds": round(wall, 1), "pairs": results}, indent=1) + "\n")
    return compare(results, args.compare) if args.compare else 0


def compare(results: list[dict[str, Any]], earlier: Path) -> int:
    """0 when every pair of `results` has exactly the findings the pair has in `earlier`."""
    before = {
        (p["package"], p["old"], p["new"]): p["findings"] for p in json.loads(earlier.read_text())["pairs"]
    }
    differ = [
        f"{p['package']} {p['old']} -> {p['new']}"
        for p in results
        if before.get((p["package"], p["old"], p["new"])) != p["findings"]
    ]
    if differ:
        print(f"findings differ from {earlier} in: {', '.join(differ)}")
        return 1
    print(
        f"every pair's findings are identical to {earlier}'s ({sum(len(p['findings']) for p in results)} findings)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
