"""Docs generation for the installed onnx catalog next to `python -m onnx.defs.gen_doc`.

Everything runs in fresh subprocesses in the same run, so interpreter start-up and imports count
on both sides:

* onnx: `python -m onnx.defs.gen_doc`'s `__main__` (Operators.md, Changelog.md and the -ml
  twins), writing into a temp dir; best of 2.
* ours, the generator step alone: a fresh process loads the imported catalog (spec cache filled)
  and times only the `docs` generator (Operators.md, Changelog.md, one page per operator with
  diffs, inventories, DSL and CLI references for every domain), first call in the process;
* ours, full process, warm: `python -m toolkit generate --only docs --specs <catalog> --out <new
  dir>` with the spec cache filled (what a user sees on the second and later runs);
* ours, full process, cold: the same with `OPSET_TOOLKIT_NO_CACHE=1` (specs read, validated and
  resolved from YAML; the cache holds data only, so nothing compiled is reused either way);
* ours, full process, empty cache: the same with a fresh, empty cache folder (the very first run
  after installing);
* ours, full process, re-run: warm, into an output folder that is already up to date (the usual
  edit-generate loop: every file is compared, none is written).

All but the re-run write every file into a new folder (gen_doc also writes all of its files).

Both sides run with bytecode (.pyc) writing on, into a private PYTHONPYCACHEPREFIX, after one
untimed warm-up run each: an installed package has its .pyc files, even where the calling shell
sets PYTHONDONTWRITEBYTECODE. The toolkit's cache lives in a temp folder
(OPSET_TOOLKIT_CACHE), so the user's cache is neither used nor touched.

Usage: python benchmarks/bench_docs.py [--repeat N]   (run it on a quiet machine: see `uptime`)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

GEN_DOC = """
import os, sys, warnings
warnings.simplefilter("ignore")
import onnx.defs.gen_doc as gen_doc
root = os.path.abspath(sys.argv[1])
gen_doc.__file__ = os.path.join(root, "onnx", "defs", "gen_doc.py")  # main() writes <root>/docs
os.makedirs(os.path.join(root, "docs"), exist_ok=True)
if gen_doc.ONNX_ML:
    gen_doc.main(gen_doc.Args("Operators-ml.md", "Changelog-ml.md"))
gen_doc.main(gen_doc.Args("Operators.md", "Changelog.md"))
"""

GENERATOR_STEP = """
import json, sys, time
start = time.perf_counter()
from toolkit import load_registry
from toolkit.generate import GenerateContext, get_generator
registry = load_registry([sys.argv[1]])
loaded = time.perf_counter()
files = get_generator("docs")(registry, GenerateContext(source="onnx"))
generated = time.perf_counter()
print(json.dumps({"start": loaded - start, "generate": generated - loaded, "files": len(files),
                  "bytes": sum(len(d) for d in files.values())}))
"""


def _environment(tmp: Path, cache: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "OPSET_TOOLKIT_NO_CACHE")
    }
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    env["OPSET_TOOLKIT_CACHE"] = str(cache)
    return env


def _run(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO, env=env)
    return time.perf_counter() - start, result.stdout


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each of our variants")
    args = parser.parse_args()
    load_before = _load()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        cache = tmp / "cache"
        env = _environment(tmp, cache)
        cold_env = {**env, "OPSET_TOOLKIT_NO_CACHE": "1"}
        catalog = tmp / "catalog"
        _run([sys.executable, "-m", "toolkit", "import-onnx", "--out", str(catalog)], env)

        def ours(index: int, label: str, run_env: dict[str, str]) -> float:
            out = tmp / f"out-{label}-{index}"
            command = [sys.executable, "-m", "toolkit", "generate", "--only", "docs"]
            return _run([*command, "--specs", str(catalog), "--out", str(out), "-q"], run_env)[0]

        # Warm-up (untimed): .pyc files for both sides; the spec cache for ours.
        _run([sys.executable, "-c", GEN_DOC, str(tmp / "gen_doc-warmup")], env)
        ours(0, "warmup", env)

        onnx_times = [
            _run([sys.executable, "-c", GEN_DOC, str(tmp / f"gen_doc{i}")], env)[0] for i in range(2)
        ]
        step, warm, cold, empty, rerun = [], [], [], [], []
        info: dict[str, float] = {}
        for index in range(args.repeat):
            _, stdout = _run([sys.executable, "-c", GENERATOR_STEP, str(catalog)], env)
            info = json.loads(stdout)
            step.append(info["generate"])
            warm.append(ours(index, "warm", env))
            cold.append(ours(index, "cold", cold_env))
            fresh = tmp / f"empty-cache-{index}"
            empty.append(ours(index, "empty", {**env, "OPSET_TOOLKIT_CACHE": str(fresh)}))
            shutil.rmtree(fresh, ignore_errors=True)
            rerun.append(ours(0, "warmup", env))  # the warm-up's output folder, already current
        onnx_bytes = sum(p.stat().st_size for p in (tmp / "gen_doc0" / "docs").glob("*.md"))
    onnx_best = min(onnx_times)
    print(f"load average before: {load_before}; after: {_load()} ({os.cpu_count()} CPUs)")
    print(
        f"onnx catalog: ours {info['files']} docs files, {info['bytes'] / 1e6:.1f} MB; "
        f"gen_doc 4 files, {onnx_bytes / 1e6:.1f} MB"
    )
    print(f"{'python -m onnx.defs.gen_doc':44} best {onnx_best:6.2f} s  (runs: {_fmt(onnx_times)})")
    rows = [
        ("opset docs generator step (in-process)", step),
        ("opset generate --only docs, warm (cached)", warm),
        ("opset generate --only docs, cold (NO_CACHE)", cold),
        ("opset generate --only docs, empty cache", empty),
        ("opset generate --only docs, re-run (current)", rerun),
    ]
    for label, times in rows:
        best = min(times)
        print(
            f"{label:44} best {best:6.2f} s  median {statistics.median(times):6.2f} s"
            f"  -> {onnx_best / best:5.1f}x faster than gen_doc (median {onnx_best / statistics.median(times):5.1f}x)"
        )
    print("target: >= 10x faster than gen_doc")


def _fmt(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


if __name__ == "__main__":
    main()
