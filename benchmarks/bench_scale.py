"""Scale benchmark: validate, diff and generate on synthetic catalogs of 6k and 60k operator
versions (benchmarks/synth_catalog.py), each step in fresh processes.

    python benchmarks/bench_scale.py [--sizes 6000,60000] [--repeat 3] [--work DIR]
                                     [--steps validate,diff,generate] [--reference CHECKOUT]

Prints per size, medians of --repeat runs:
  * parse floor: a fresh interpreter that only parses every spec file with PyYAML's libyaml
    loader (`yaml.load(..., CSafeLoader)`), interleaved with
  * `opset validate` cold (no cache): our figure and its ratio to the floor (target <= 2x);
  * `opset diff --against OLD` warm (caches filled, default cache settings) of the tree against a
    copy with ~1% of the operator files edited (target <= 5 s at 60k), and the size of the cache
    folder afterwards;
  * `opset generate` of every kind into an empty folder, cold: wall time and peak RSS of the
    process (target <= 1 GiB at 60k);
and, with two sizes, the ratio large/small of each (target: linear, <= 11x for 10x data).

--reference CHECKOUT times another checkout of the toolkit (a worktree of main, say) in the same
run: every step runs with this checkout, then with that one, in turn, each with its own cache
folder, and both figures are printed.
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
STEPS = ("validate", "diff", "generate")
# `python -m toolkit` would import the package from the working directory (this checkout) before
# PYTHONPATH: run it from PYTHONPATH alone, so that --reference times the other checkout.
RUN_TOOLKIT = (
    "import runpy, sys; del sys.path[0]; runpy.run_module('toolkit', run_name='__main__', alter_sys=True)"
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
        path.write_text(
            text + "  attributes:\n    added_attr:\n      type: int\n      default: 7\n"
            if "\n  attributes:" not in text.rsplit("- since_version", 1)[1]
            else text.replace("      type: int\n", "      type: float\n", 1)
        )
    return len(files[::step])


def folder_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / (1 << 20)


class Toolkit:
    """One checkout of the toolkit under test: its environments and its figures."""

    def __init__(self, label: str, checkout: Path, cache: Path) -> None:
        self.label = label
        self.cache = cache
        base = {k: v for k, v in os.environ.items() if not k.startswith("OPSET_TOOLKIT_")}
        base["PYTHONPATH"] = str(checkout)
        self.cold = dict(base, OPSET_TOOLKIT_NO_CACHE="1")
        self.warm = dict(base, OPSET_TOOLKIT_CACHE=str(cache))  # default cap: the user's setting
        self.times: dict[str, list[float]] = {}

    def add(self, name: str, value: float) -> None:
        self.times.setdefault(name, []).append(value)


def measure(size: int, work: Path, repeat: int, steps: set[str], toolkits: list[Toolkit]) -> None:
    tree = work / f"s{size}"
    old = work / f"s{size}-old"
    if not tree.exists():
        write_tree(old, size, 108)
        shutil.copytree(old, tree)
        edit_tree(tree)
    py = sys.executable
    opset = [py, "-c", RUN_TOOLKIT]
    diff = [*opset, "diff", "--against", str(old), "--specs", str(tree)]
    if "diff" in steps:
        for kit in toolkits:
            shutil.rmtree(kit.cache, ignore_errors=True)
            run(diff, kit.warm, ok=(0, 1))  # fill the caches
    for i in range(repeat):
        for kit in toolkits:
            if "validate" in steps:
                kit.add("parse floor (s)", run([py, "-c", PARSE_FLOOR, str(tree)], kit.cold)[0])
                kit.add("validate cold (s)", run([*opset, "validate", str(tree)], kit.cold)[0])
            if "diff" in steps:
                kit.add("diff warm (s)", run(diff, kit.warm, ok=(0, 1))[0])
                kit.add("diff cache on disk (MiB)", folder_mib(kit.cache))
            if "generate" in steps:
                out = work / f"gen{size}-{i}"
                shutil.rmtree(out, ignore_errors=True)
                wall, peak = run(
                    [*opset, "generate", "--specs", str(tree), "--out", str(out), "-q"], kit.cold
                )
                kit.add("generate cold (s)", wall)
                kit.add("generate peak RSS (MiB)", peak / 1024)
                shutil.rmtree(out, ignore_errors=True)


def figure(name: str, values: list[float]) -> float:
    return max(values) if "RSS" in name else statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="6000,60000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, help="keep the synthetic trees here (default: a temp folder)")
    parser.add_argument("--steps", default=",".join(STEPS), help=f"which of {', '.join(STEPS)} to time")
    parser.add_argument(
        "--reference", type=Path, help="another checkout of the toolkit, timed in turn with this one"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    steps = set(args.steps.split(","))
    if not steps <= set(STEPS):
        parser.error(f"--steps: choose from {', '.join(STEPS)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="opset-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    checkouts = [("this", REPO)] + ([("reference", args.reference.resolve())] if args.reference else [])
    results: dict[int, list[Toolkit]] = {}
    for size in sizes:
        kits = [Toolkit(label, path, work / f"cache{size}-{label}") for label, path in checkouts]
        measure(size, work, args.repeat, steps, kits)
        results[size] = kits
    for index, (label, path) in enumerate(checkouts):
        print(f"{label} ({path}):")
        by_size = {size: results[size][index] for size in sizes}
        names = list(by_size[sizes[0]].times)
        print(
            f"{'':28}" + "".join(f"{size:>14,}" for size in sizes) + ("   ratio" if len(sizes) == 2 else "")
        )
        for name in names:
            row = [figure(name, by_size[size].times[name]) for size in sizes]
            line = f"{name:28}" + "".join(f"{value:14.2f}" for value in row)
            if len(sizes) == 2:
                line += f"   {row[1] / row[0]:5.1f}x"
            print(line)
        for size in sizes:
            times = by_size[size].times
            if "validate cold (s)" in times:
                ratio = figure("", times["validate cold (s)"]) / figure("", times["parse floor (s)"])
                print(f"{size:,}: validate / parse floor = {ratio:.2f}x (target <= 2x)")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
