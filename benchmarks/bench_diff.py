"""Benchmark of the breaking-change gate: two full imported onnx catalogs, one with edits.

    python benchmarks/bench_diff.py [--edits N] [--repeat R]

Prints, for the diff of the imported onnx catalog against a copy with N in-place edits:
cold (no load cache) and warm (load caches filled) in-process times, the `opset diff` CLI
wall time (warm), and the same through a git ref (`--against HEAD`, blobs read with
`git cat-file --batch`), cold and warm. Target: <= 0.5 s warm in-process. The reference
figure is onnx's own `get_all_schemas_with_history()` (what any onnx-based tool pays first).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from toolkit.compat.gate import run_gate  # noqa: E402
from toolkit.onnx_bridge.importer import import_catalog  # noqa: E402
from toolkit.registry.core import load_registry  # noqa: E402


def timed(func: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def edit_catalog(root: Path, count: int) -> int:
    """In-place edits of released versions, cycling through kinds of change; returns edits made."""
    made = 0
    files = sorted(root.glob("*.yaml"))
    for path in (f for f in files if f.name != "domain.yaml"):
        if made >= count:
            break
        data: dict[str, Any] = yaml.safe_load(path.read_text())
        for version in data["versions"][: count - made]:
            if "based_on" in version:
                continue  # edit full versions only, so each edit is one version's change
            _edit_version(version, made % 4)
            made += 1
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    return made


def _edit_version(version: dict[str, Any], kind: int) -> None:
    if kind == 0:
        version["doc"] = (version.get("doc") or "") + "\nClarified."
    elif kind == 1:
        version.setdefault("attributes", {})["bench_flag"] = {"type": "int", "default": 0}
    elif kind == 2 and version.get("type_constraints"):
        first = next(iter(version["type_constraints"].values()))
        allowed = first["allowed"]
        if isinstance(allowed, list) and "tensor(float8e4m3fn)" not in allowed:
            allowed.append("tensor(float8e4m3fn)")
    elif version.get("inputs"):
        version["inputs"][-1]["doc"] = "Edited."


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env.update(GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def cli(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "toolkit", *args], cwd=cwd, env=env, capture_output=True)
    return time.perf_counter() - start, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-diff-"))
    cache = work / "cache"
    env = {**os.environ, "OPSET_TOOLKIT_CACHE": str(cache), "PYTHONPATH": str(REPO)}
    os.environ["OPSET_TOOLKIT_CACHE"] = str(cache)
    try:
        old, new = work / "old", work / "new"
        import_catalog(old)
        shutil.copytree(old, new)
        made = edit_catalog(new / "ai.onnx", args.edits)

        def diff(use_cache: bool) -> int:
            a = load_registry([old], cache=use_cache)
            b = load_registry([new], cache=use_cache)
            return len(run_gate(a, b).findings)

        findings = diff(True)
        cold = timed(lambda: diff(False), max(1, args.repeat // 2))
        warm = timed(lambda: diff(True), args.repeat)
        a, b = load_registry([old]), load_registry([new])
        gate_only = timed(lambda: run_gate(a, b), args.repeat)
        cli_warm = min(
            cli(["diff", "--against", str(old), "--specs", str(new), "-o", os.devnull], work, env)[0]
            for _ in range(3)
        )

        import onnx.defs

        ref = timed(onnx.defs.get_all_schemas_with_history, args.repeat)

        repo = work / "repo"
        (repo / "opsets").mkdir(parents=True)
        shutil.copytree(old / "ai.onnx", repo / "opsets" / "ai.onnx")
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", "catalog")
        shutil.rmtree(repo / "opsets" / "ai.onnx")
        shutil.copytree(new / "ai.onnx", repo / "opsets" / "ai.onnx")
        shutil.rmtree(cache)
        git_cold, code = cli(["diff", "--against", "HEAD", "-o", os.devnull], repo, env)
        git_warm = min(cli(["diff", "--against", "HEAD", "-o", os.devnull], repo, env)[0] for _ in range(3))

        from toolkit.compat.gitref import load_git_tree

        tree_warm = timed(lambda: load_git_tree("HEAD", [str(repo / "opsets")], cwd=repo), args.repeat)

        versions = sum(len(o.versions) for o in a.specs.operators)
        print(f"catalog: {versions} operator versions per tree; {made} in-place edits; {findings} findings")
        print(f"in-process cold (no cache) load x2 + gate : {cold[0]:.3f} s (median {cold[1]:.3f})")
        print(
            f"in-process warm (cached)   load x2 + gate : {warm[0]:.3f} s (median {warm[1]:.3f})  target <= 0.5 s"
        )
        print(f"gate only (registries in memory)          : {gate_only[0] * 1000:.1f} ms")
        print(f"CLI `opset diff --against DIR` warm (wall): {cli_warm:.3f} s (includes interpreter start)")
        print(f"CLI `opset diff --against HEAD` cold      : {git_cold:.3f} s (exit {code})")
        print(f"CLI `opset diff --against HEAD` warm      : {git_warm:.3f} s")
        print(f"git tree load, warm (tree-id cache hit)   : {tree_warm[0] * 1000:.1f} ms")
        print(
            f"reference onnx get_all_schemas_with_history: {ref[0]:.3f} s; warm diff / reference = "
            f"{warm[0] / ref[0]:.1f}x"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
