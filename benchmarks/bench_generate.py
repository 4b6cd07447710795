"""Benchmark `opset generate` on the imported onnx catalog, and generated-module import time.

    python benchmarks/bench_generate.py [--repeat N] [--import-repeat N] [--no-onnxscript]

Prints:
  * `opset generate --only proto,python` of the whole onnx catalog, cold (fresh process, empty
    load cache, empty output) and warm (load cache filled, outputs current: nothing written),
    plus an in-process breakdown (load / proto / python / plan+commit) and the size of the
    generated Python;
  * every kind, cold, next to `python -m onnx.defs.gen_doc` run in turn with it (medians), and
    `opset generate --check` when the outputs are current (answered from its freshness record);
  * import time of one generated opset module (the newest ai.onnx opset) with compiled bytecode,
    next to `import onnx.defs`, onnxscript's `onnx_opset` and the whole `python -c pass`, run in
    turn round after round, each in a fresh interpreter (medians of --import-repeat rounds);
    then the same module from source (no bytecode: it compiles).

onnxscript is not a dependency of the toolkit: when it is not importable, the benchmark installs
it into its own virtual environment (`--system-site-packages`, under the cache folder) and
measures it there; when that fails it says so.
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
import venv
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

IMPORT_SNIPPET = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def import_once(python: str, module: str, env: dict[str, str]) -> float:
    """Wall time (seconds) of the statement `import module` in a fresh interpreter."""
    out = subprocess.run(
        [python, "-c", IMPORT_SNIPPET.format(module=module)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def timed_import(python: str, module: str, *, env: dict[str, str], repeat: int) -> float:
    """Median wall time (seconds) of `import module` in a fresh interpreter."""
    return statistics.median(import_once(python, module, env) for _ in range(repeat))


def interleaved(figures: dict[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """Medians of each figure, measured in turn round after round so that a machine whose speed
    drifts affects them all alike."""
    runs: dict[str, list[float]] = {name: [] for name in figures}
    for _ in range(repeat):
        for name, measure in figures.items():
            runs[name].append(measure())
    return {name: statistics.median(values) for name, values in runs.items()}


def compiled_toolkit() -> dict[str, str]:
    """The environment for timed toolkit runs, with the toolkit's bytecode written first: as
    installed use has it (onnx, the reference, is installed with compiled bytecode too), not
    recompiled from source on every run where PYTHONDONTWRITEBYTECODE is set."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "toolkit")], check=True, capture_output=True
    )
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


BASE_ENV = dict(os.environ)


def run_generate(specs: Path, out: Path, cache_dir: Path) -> float:
    env = dict(BASE_ENV, OPSET_TOOLKIT_CACHE=str(cache_dir))
    env.pop("OPSET_TOOLKIT_NO_CACHE", None)
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "generate",
            "--specs",
            str(specs),
            "--out",
            str(out),
            "--only",
            "proto,python",
            "-q",
        ],
        cwd=REPO,
        env=env,
        check=True,
    )
    return time.perf_counter() - start


def breakdown(specs: Path, out: Path) -> dict[str, float]:
    from toolkit.generate import GenerateContext
    from toolkit.generate.pipeline import plan_outputs, run_generators
    from toolkit.load.writer import commit
    from toolkit.registry.core import load_registry

    times: dict[str, float] = {}
    start = time.perf_counter()
    registry = load_registry([specs], cache=False)
    times["load + check (no cache)"] = time.perf_counter() - start
    files: dict[str, bytes] = {}
    for kind in ("proto", "python"):
        start = time.perf_counter()
        files.update(run_generators(registry, GenerateContext(source="onnx-catalog"), [kind]))
        times[f"generator {kind}"] = time.perf_counter() - start
    start = time.perf_counter()
    commit(out, plan_outputs(out, files, ["proto", "python"]))
    times["plan + commit (empty out)"] = time.perf_counter() - start
    times["files"] = float(len(files))
    times["MB"] = sum(len(v) for v in files.values()) / 1e6
    return times


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


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, cwd=REPO, capture_output=True)
    return time.perf_counter() - start


def versus_gen_doc(specs: Path, tmp: Path, repeat: int) -> dict[str, float]:
    """Medians of: `opset generate` of every kind cold, `opset generate --check` with the outputs
    current (its record in a warm cache), gen_doc, and a cold run right after deleting the
    previous cold output; run in turn, each in a fresh process.

    Each cold run writes a new folder and the folders are deleted only after the last run: on
    ext4, files created within a minute of deleting many others are slow to create (the inode
    allocator skips recently freed inodes, reading their inode table blocks), so a loop that
    deletes its last output before each run times the file system's handling of its own
    deletions (gen_doc, which writes two files, is untouched by it). The last figure shows that
    case on its own."""
    cold_env = dict(BASE_ENV, OPSET_TOOLKIT_NO_CACHE="1")
    warm_env = dict(BASE_ENV, OPSET_TOOLKIT_CACHE=str(tmp / "cache-all"))
    warm_env.pop("OPSET_TOOLKIT_NO_CACHE", None)
    generate = [sys.executable, "-m", "toolkit", "generate", "--specs", str(specs), "-q"]
    current_out = tmp / "all-current"
    subprocess.run(
        [*generate, "--out", str(current_out)], env=warm_env, check=True, cwd=REPO, capture_output=True
    )
    runs: dict[str, list[float]] = {"cold": [], "current": [], "gen_doc": [], "after delete": []}
    for i in range(repeat):
        runs["cold"].append(_wall([*generate, "--out", str(tmp / f"all-cold-{i}")], cold_env))
        runs["current"].append(_wall([*generate, "--out", str(current_out), "--check"], warm_env))
        runs["gen_doc"].append(_wall([sys.executable, "-c", GEN_DOC, str(tmp / f"gen_doc-{i}")], cold_env))
    # Then, and only then, the case of a loop that deletes its last output before each run.
    for i in range(repeat):
        shutil.rmtree(tmp / f"all-cold-{i}")
        runs["after delete"].append(_wall([*generate, "--out", str(tmp / f"all-cold-{i}")], cold_env))
    return {name: statistics.median(times) for name, times in runs.items()}


def onnxscript_python(cache: Path) -> tuple[str | None, str]:
    """A python that can import onnxscript: this one, or a private venv we install it into."""
    probe = subprocess.run([sys.executable, "-c", "import onnxscript"], capture_output=True)
    if probe.returncode == 0:
        return sys.executable, "installed in this environment"
    env_dir = cache / "bench-onnxscript-venv"
    python = env_dir / "bin" / "python"
    try:
        if not python.exists():
            venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
        check = subprocess.run([str(python), "-c", "import onnxscript"], capture_output=True)
        if check.returncode != 0:
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", "onnxscript"], check=True, capture_output=True
            )
        version = subprocess.run(
            [str(python), "-c", "import onnxscript; print(onnxscript.__version__)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (subprocess.CalledProcessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        text = detail.decode(errors="replace").strip().splitlines()[-1:] if isinstance(detail, bytes) else []
        return None, f"not installable here ({type(exc).__name__}{': ' + text[0] if text else ''})"
    return str(python), f"onnxscript {version} in a private venv ({env_dir})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="fresh-interpreter runs per import figure")
    parser.add_argument(
        "--import-repeat", type=int, default=21, help="rounds of the interleaved import figures"
    )
    parser.add_argument("--no-onnxscript", action="store_true", help="skip the onnxscript comparison")
    args = parser.parse_args()
    global BASE_ENV
    BASE_ENV = compiled_toolkit()

    from toolkit.onnx_bridge.importer import import_catalog

    with tempfile.TemporaryDirectory(prefix="bench-generate-") as tmp_name:
        tmp = Path(tmp_name)
        specs = tmp / "onnx-catalog"
        import_catalog(specs)
        cache = tmp / "cache"

        print("== opset generate --only proto,python (onnx catalog) ==")
        cold = run_generate(specs, tmp / "out", cache)
        warm = run_generate(specs, tmp / "out", cache)
        print(f"cold (fresh process, empty load cache, empty output): {cold:7.2f} s")
        print(f"warm (load cache filled, outputs current)            : {warm:7.2f} s")
        for key, value in breakdown(specs, tmp / "out2").items():
            unit = "" if key in ("files", "MB") else " s"
            print(f"  {key:32s} {value:9.2f}{unit}")

        py_bytes = sum(p.stat().st_size for p in (tmp / "out" / "python").rglob("*.py"))
        print(f"  generated Python source: {py_bytes / 1e6:.2f} MB")

        print("\n== every kind vs python -m onnx.defs.gen_doc, interleaved, median of", args.repeat, "==")
        versus = versus_gen_doc(specs, tmp, args.repeat)
        gen_doc = versus["gen_doc"]
        print(
            f"opset generate, cold (no cache, new output folder): {versus['cold']:7.2f} s  "
            f"gen_doc {gen_doc:.2f} s: {gen_doc / versus['cold']:.1f}x (target 10x)"
        )
        print(
            f"opset generate --check, outputs current          : {versus['current']:7.2f} s  (target <= 0.25 s)"
        )
        print(
            f"cold, right after deleting the previous output    : {versus['after delete']:7.2f} s  "
            f"{gen_doc / versus['after delete']:.1f}x (ext4 slows file creation after mass deletes)"
        )

        print("\n== import time, fresh interpreter, in turn, median of", args.import_repeat, "rounds ==")
        python_dir = tmp / "out" / "python"
        from toolkit.generate.python import PACKAGE

        versions = sorted(
            int(p.stem[5:])
            for p in (python_dir / PACKAGE / "ai_onnx").glob("opset*.py")
            if p.stem[5:].isdigit()
        )
        module = f"{PACKAGE}.ai_onnx.opset{versions[-1]}"
        base_env = dict(os.environ, PYTHONPATH=str(python_dir))
        no_pyc = dict(base_env, PYTHONDONTWRITEBYTECODE="1")
        with_pyc = dict(base_env)
        with_pyc.pop("PYTHONDONTWRITEBYTECODE", None)
        source = timed_import(sys.executable, module, env=no_pyc, repeat=args.repeat)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(python_dir)], check=True)
        figures: dict[str, Callable[[], float]] = {
            "ours": lambda: import_once(sys.executable, module, with_pyc),
            "onnx.defs": lambda: import_once(sys.executable, "onnx.defs", with_pyc),
            "pass": lambda: _wall([sys.executable, "-c", "pass"], with_pyc),
        }
        note = "skipped (--no-onnxscript)"
        if not args.no_onnxscript:
            cache_root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "opset-toolkit"
            script_python, note = onnxscript_python(cache_root)
            if script_python is not None:
                figures["onnxscript"] = lambda: import_once(script_python, "onnxscript.onnx_opset", with_pyc)
        medians = interleaved(figures, args.import_repeat)
        compiled = medians["ours"]
        package = python_dir / PACKAGE / "ai_onnx"
        size = sum(p.stat().st_size for p in (package / f"opset{versions[-1]}.py", package / "_opsets.py"))
        print(f"{module} ({size / 1e3:.0f} kB source with the domain's _opsets module)")
        print(f"  with .pyc (normal installed use) : {compiled * 1e3:8.1f} ms  (target <= 10 ms)")
        print(
            f"  from source (no .pyc, compiles)  : {source * 1e3:8.1f} ms  (median of {args.repeat}, not in turn)"
        )
        print(
            f"import onnx.defs                   : {medians['onnx.defs'] * 1e3:8.1f} ms  "
            f"(generated module is {medians['onnx.defs'] / compiled:.0f}x faster)"
        )
        if "onnxscript" in medians:
            print(
                f"import onnxscript.onnx_opset       : {medians['onnxscript'] * 1e3:8.1f} ms  "
                f"(generated module is {medians['onnxscript'] / compiled:.0f}x faster; {note})"
            )
        else:
            print(f"onnxscript onnx_opset              : {note}")
        print(
            f"python -c pass, whole process      : {medians['pass'] * 1e3:8.1f} ms  (interpreter start-up, for scale)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
