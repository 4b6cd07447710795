"""Scale benchmark: validate, diff and generate on synthetic catalogs of 6k and 60k operator
versions (benchmarks/synth_catalog.py), each step in fresh processes.

    python benchmarks/bench_scale.py [--sizes 6000,60000] [--repeat 3] [--work DIR]

Prints per size, medians of --repeat runs:
  * parse floor: a fresh interpreter that only parses every spec file with PyYAML's libyaml
    loader (`yaml.load(..., CSafeLoader)`), interleaved with
  * `opset validate` cold (no cache): our figure and its ratio to the floor (target <= 2x);
  * `opset diff --against OLD` warm (caches filled) of the tree against a copy with ~1% of the
    operator files edited (target <= 5 s at 60k);
  * `opset generate` of every kind into an empty folder, cold: wall time and peak RSS of the
    process (target <= 1 GiB at 60k);
and, with two sizes, the ratio large/small of each (target: linear, <= 11x for 10x data).
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from synth_catalog import write_tree  # noqa: E402

PARSE_FLOOR = (
    "import sys, yaml\n"
    "from pathlib import Path\n"
    "for path in sorted(Path(sys.argv[1]).rglob('*.yaml')):\n"
    "    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)\n"
)


def run(cmd: list[str], env: dict[str, str], *, ok: tuple[int, ...] = (0,)) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB of the process) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {code}")
    return wall, usage.ru_maxrss


def edit_tree(root: Path, fraction: float = 0.01) -> int:
    """Add an optional attribute to the newest version of every 1/fraction-th operator file."""
    files = sorted(p for p in root.rglob("*.yaml") if p.name != "domain.yaml")
    step = max(1, round(1 / fraction))
    for path in files[::step]:
        text = path.read_text()
        path.write_text(text + "  attributes:\n    added_attr:\n      type: int\n      default: 7\n"
                        if "\n  attributes:" not in text.rsplit("- since_version", 1)[1] else
                        text.replace("      type: int\n", "      type: float\n", 1))
    return len(files[::step])


def measure(size: int, work: Path, repeat: int) -> dict[str, float]:
    tree = work / f"s{size}"
    old = work / f"s{size}-old"
    if not tree.exists():
        write_tree(old, size, 108)
        shutil.copytree(old, tree)
        edit_tree(tree)
    py = sys.executable
    cold = dict(os.environ, OPSET_TOOLKIT_NO_CACHE="1")
    warm = dict(os.environ, OPSET_TOOLKIT_CACHE=str(work / f"cache{size}"))
    warm.pop("OPSET_TOOLKIT_NO_CACHE", None)
    floor, validate, diff, gen, rss = [], [], [], [], []
    run([py, "-m", "toolkit", "diff", "--against", str(old), "--specs", str(tree)], warm, ok=(0, 1))  # fill caches
    for i in range(repeat):
        floor.append(run([py, "-c", PARSE_FLOOR, str(tree)], cold)[0])
        validate.append(run([py, "-m", "toolkit", "validate", str(tree)], cold)[0])
        diff.append(run([py, "-m", "toolkit", "diff", "--against", str(old), "--specs", str(tree)], warm, ok=(0, 1))[0])
        out = work / f"gen{size}-{i}"
        shutil.rmtree(out, ignore_errors=True)
        wall, peak = run([py, "-m", "toolkit", "generate", "--specs", str(tree), "--out", str(out), "-q"], cold)
        gen.append(wall)
        rss.append(peak / 1024)
        shutil.rmtree(out, ignore_errors=True)
    return {
        "parse floor (s)": statistics.median(floor),
        "validate cold (s)": statistics.median(validate),
        "diff warm (s)": statistics.median(diff),
        "generate cold (s)": statistics.median(gen),
        "generate peak RSS (MiB)": max(rss),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6000,60000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, help="keep the synthetic trees here (default: a temp folder)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="opset-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    results = {size: measure(size, work, args.repeat) for size in sizes}
    names = list(next(iter(results.values())))
    print(f"{'':28}" + "".join(f"{size:>14,}" for size in sizes) + ("   ratio" if len(sizes) == 2 else ""))
    for name in names:
        row = [results[size][name] for size in sizes]
        line = f"{name:28}" + "".join(f"{value:14.2f}" for value in row)
        if len(sizes) == 2:
            line += f"   {row[1] / row[0]:5.1f}x"
        print(line)
    for size in sizes:
        r = results[size]
        print(f"{size:,}: validate / parse floor = {r['validate cold (s)'] / r['parse floor (s)']:.2f}x (target <= 2x)")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
