"""Docs generation for the installed onnx catalog next to `python -m onnx.defs.gen_doc`.

Both run in fresh subprocesses in the same run, so start-up and imports count on both sides:

* onnx: `python -m onnx.defs.gen_doc`'s `__main__` (Operators.md, Changelog.md and the -ml
  twins), writing into a temp dir;
* ours: load the imported catalog (specs -> registry, no cache) and run the `docs` generator
  (Operators.md, Changelog.md, one page per operator with diffs, inventories, references for
  every domain), writing into a temp dir. The generator alone is timed too.

Usage: python benchmarks/bench_docs.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
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

OURS = """
import json, sys, time
start = time.perf_counter()
sys.path.insert(0, sys.argv[3])
from pathlib import Path
from toolkit import load_registry
from toolkit.generate import GenerateContext, get_generator
registry = load_registry([sys.argv[1]], cache=False)
loaded = time.perf_counter()
files = get_generator("docs")(registry, GenerateContext(source="onnx"))
generated = time.perf_counter()
out = Path(sys.argv[2])
for path, data in files.items():
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
print(json.dumps({"load": loaded - start, "generate": generated - loaded, "files": len(files),
                  "bytes": sum(len(d) for d in files.values())}))
"""


def _timed(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        catalog = Path(tmp) / "catalog"
        subprocess.run(
            [sys.executable, "-m", "toolkit", "import-onnx", "--out", str(catalog)],
            check=True,
            capture_output=True,
            cwd=REPO,
        )
        onnx_times, our_times, gen_times = [], [], []
        info: dict[str, float] = {}
        for index in range(args.repeat):
            seconds, _ = _timed([sys.executable, "-c", GEN_DOC, str(Path(tmp) / f"gen_doc{index}")])
            onnx_times.append(seconds)
            seconds, stdout = _timed(
                [sys.executable, "-c", OURS, str(catalog), str(Path(tmp) / f"ours{index}"), str(REPO)]
            )
            our_times.append(seconds)
            info = json.loads(stdout)
            gen_times.append(info["generate"])
        onnx_bytes = sum(p.stat().st_size for p in (Path(tmp) / "gen_doc0" / "docs").glob("*.md"))
    onnx_best, ours_best, gen_best = min(onnx_times), min(our_times), min(gen_times)
    print(
        f"onnx catalog: {info['files']} docs files, {info['bytes'] / 1e6:.1f} MB (gen_doc: 4 files, {onnx_bytes / 1e6:.1f} MB)"
    )
    print(
        f"python -m onnx.defs.gen_doc          best {onnx_best:6.2f} s  median {statistics.median(onnx_times):6.2f} s"
    )
    print(
        f"opset docs (process: load+generate)  best {ours_best:6.2f} s  median {statistics.median(our_times):6.2f} s"
        f"  -> {onnx_best / ours_best:5.1f}x faster"
    )
    print(
        f"opset docs generator only            best {gen_best:6.2f} s  median {statistics.median(gen_times):6.2f} s"
        f"  -> {onnx_best / gen_best:5.1f}x faster (target >= 10x)"
    )


if __name__ == "__main__":
    main()
