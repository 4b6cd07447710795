"""check-model benchmark: `opset check-model` on a generated model of >= 10k nodes, next to
`onnx.checker.check_model` on the same model in the same run.

The model is a chain of elementwise and shape operators (Add, Mul, Relu, Sigmoid, Cast, Reshape
with an initializer shape, Transpose, Concat, Identity inside If branches every 500 nodes), with
value_info declared for every value so that the type-binding check runs on every node.

Prints median seconds of: our check (in-process, registry already loaded; against the onnx
catalog and against onnxruntime's catalog, `--runtime onnxruntime`), onnx.checker (structural)
and onnx.checker full_check=True (plus shape inference), interleaved, the ratios, the same for
the ~150 small models of onnx's backend test data (per-model costs), and the whole
`opset check-model` command in a fresh interpreter (catalogs cached; with and without
`--runtime onnxruntime`) next to a fresh interpreter loading and checking the model with
onnx.checker (with and without full_check), interleaved, then where a fresh process spends its
time (interpreter start, imports, registry load, model parse, checks, report).

Run: python benchmarks/bench_check_model.py [NODES]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The phases of `opset check-model MODEL --specs DIR`, timed in a fresh interpreter the way the
# command runs them (toolkit/cli/model_commands.py); prints one "phase seconds" line each.
PHASES = """
import sys, time
start = time.perf_counter()
import toolkit.cli
toolkit.cli.build_parser()
parser_built = time.perf_counter()
from toolkit.onnx_bridge import catalog, check as cm
from toolkit.reporting.model_check import render
imported = time.perf_counter()
base = catalog.onnx_registry(adapters=False)
catalog_loaded = time.perf_counter()
registry = catalog.model_registry([sys.argv[2]], base=base)
unchecked = catalog.onnx_unchecked_attributes()
specs_loaded = time.perf_counter()
model = cm.load_model(sys.argv[1])
parsed = time.perf_counter()
result = cm.check_model(model, registry, name=sys.argv[1], unchecked_attributes=unchecked)
checked = time.perf_counter()
render([result], "text")
rendered = time.perf_counter()
marks = [("argument parser (command modules, imports deferred)", start, parser_built),
         ("check-model modules (catalog, check, reporting)", parser_built, imported),
         ("onnx catalog registry (cache entry; onnx not imported)", imported, catalog_loaded),
         ("vendor specs (cached) + merge", catalog_loaded, specs_loaded),
         ("model parse", specs_loaded, parsed), ("checks", parsed, checked), ("report", checked, rendered)]
for label, a, b in marks:
    print(f"{label}\t{b - a}")
"""


def fresh_env(pycache: Path) -> dict[str, str]:
    """Environment of the fresh processes: byte code cached (in `pycache`, not in the tree) as an
    installed tool has it, even where PYTHONDONTWRITEBYTECODE is set (compiling the toolkit's
    sources costs ~70 ms per run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def fresh_phases(path: Path, specs: Path, env: dict[str, str], repeat: int = 3) -> list[tuple[str, float]]:
    """Median seconds per phase of a fresh `opset check-model` process (see PHASES)."""
    runs: list[dict[str, float]] = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", PHASES, str(path), str(specs)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout
        runs.append({label: float(value) for label, value in (line.split("\t") for line in out.splitlines())})
    return [(label, statistics.median(run[label] for run in runs)) for label in runs[0]]


def median_seconds(func: Any, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved_medians(funcs: list[Any], repeat: int = 11) -> list[float]:
    """Median seconds of each function, run in rounds so that a load change on a shared machine
    hits all of them alike."""
    times: list[list[float]] = [[] for _ in funcs]
    for _ in range(repeat):
        for func, samples in zip(funcs, times):
            start = time.perf_counter()
            func()
            samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]


def small_models() -> list[Any]:
    """The models shipped in onnx's backend test data that onnx.checker accepts (per-model costs)."""
    import glob

    import onnx

    root = Path(onnx.__file__).parent / "backend" / "test" / "data"
    models = []
    for kind in ("pytorch-converted", "pytorch-operator", "simple", "light"):
        for file in sorted(glob.glob(str(root / kind / "**" / "*.onnx"), recursive=True)):
            model = onnx.load(file, load_external_data=False)
            try:
                onnx.checker.check_model(model)
            except Exception:  # onnx's ValidationError: not a fair comparison
                continue
            models.append(model)
    return models


def build_model(count: int) -> Any:
    import numpy
    from onnx import TensorProto, helper, numpy_helper

    f32 = TensorProto.FLOAT
    nodes, infos = [], []
    shape = numpy_helper.from_array(numpy.array([4, 8], dtype="int64"), "shape48")
    prev = "x"
    k = 0
    while len(nodes) < count:
        out = f"v{k}"
        kind = k % 8
        if kind == 0:
            nodes.append(helper.make_node("Add", [prev, "x"], [out], name=f"n{k}"))
        elif kind == 1:
            nodes.append(helper.make_node("Mul", [prev, prev], [out], name=f"n{k}"))
        elif kind == 2:
            nodes.append(helper.make_node("Relu", [prev], [out], name=f"n{k}"))
        elif kind == 3:
            nodes.append(helper.make_node("Sigmoid", [prev], [out], name=f"n{k}"))
        elif kind == 4:
            nodes.append(helper.make_node("Reshape", [prev, "shape48"], [out], name=f"n{k}"))
        elif kind == 5:
            nodes.append(helper.make_node("Transpose", [prev], [out], name=f"n{k}", perm=[0, 1]))
        elif kind == 6:
            nodes.append(helper.make_node("Cast", [prev], [out], name=f"n{k}", to=f32))
        else:
            nodes.append(helper.make_node("Concat", [prev], [out], name=f"n{k}", axis=0))
        infos.append(helper.make_tensor_value_info(out, f32, [4, 8]))
        prev = out
        k += 1
        if k % 500 == 0:
            branch = helper.make_graph(
                [helper.make_node("Identity", [prev], ["b"])],
                "branch",
                [],
                [helper.make_tensor_value_info("b", f32, [4, 8])],
            )
            out = f"v{k}"
            nodes.append(
                helper.make_node("If", ["cond"], [out], name=f"n{k}", then_branch=branch, else_branch=branch)
            )
            infos.append(helper.make_tensor_value_info(out, f32, [4, 8]))
            prev = out
            k += 1
    graph = helper.make_graph(
        nodes,
        "big",
        [
            helper.make_tensor_value_info("x", f32, [4, 8]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info(prev, f32, [4, 8])],
        initializer=[shape],
        value_info=infos[:-1],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def main() -> None:
    import onnx

    from toolkit.onnx_bridge.catalog import onnx_registry, onnx_unchecked_attributes
    from toolkit.onnx_bridge.check import check_model

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    model = build_model(count)
    start = time.perf_counter()
    registry = onnx_registry(adapters=False)
    unchecked = onnx_unchecked_attributes()
    load = time.perf_counter() - start
    result = check_model(model, registry, unchecked_attributes=unchecked)
    assert not result.findings, result.findings[:3]
    onnx.checker.check_model(model, full_check=True)

    from toolkit.onnx_bridge.runtimes import runtime_catalog

    ort_registry = runtime_catalog("onnxruntime").registry  # imported into the cache on first use
    assert not check_model(model, ort_registry, unchecked_attributes=unchecked).findings
    ours, ours_nodes, ours_ort, theirs, theirs_full = interleaved_medians(
        [
            lambda: check_model(model, registry, unchecked_attributes=unchecked),
            lambda: check_model(model, registry, unchecked_attributes=unchecked, graph_level=False),
            lambda: check_model(model, ort_registry, unchecked_attributes=unchecked),
            lambda: onnx.checker.check_model(model),
            lambda: onnx.checker.check_model(model, full_check=True),
        ]
    )

    small = small_models()
    small_nodes = sum(check_model(m, registry, unchecked_attributes=unchecked).nodes for m in small)

    def ours_small() -> None:
        for m in small:
            check_model(m, registry, unchecked_attributes=unchecked)

    def theirs_small() -> None:
        for m in small:
            onnx.checker.check_model(m)

    ours_many, theirs_many = interleaved_medians([ours_small, theirs_small], repeat=7)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.onnx"
        onnx.save(model, path)
        repo = Path(__file__).resolve().parent.parent
        env = fresh_env(Path(tmp) / "pycache")

        def run(command: list[str]) -> Any:
            return subprocess.run(command, check=True, capture_output=True, env=env)

        cmd = [sys.executable, "-m", "toolkit", "check-model", str(path), "--specs", str(repo / "opsets")]
        ort_cmd = [sys.executable, "-m", "toolkit", "check-model", str(path), "--runtime", "onnxruntime"]
        onnx_cmd = [
            sys.executable,
            "-c",
            "import sys, onnx; onnx.checker.check_model(onnx.load(sys.argv[1]))",
            str(path),
        ]
        onnx_full_cmd = [
            sys.executable,
            "-c",
            "import sys, onnx; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)",
            str(path),
        ]
        commands = [cmd, ort_cmd, onnx_cmd, onnx_full_cmd]
        for command in commands:
            run(command)  # warm the caches (registry cache entries, byte code)
        cli, ort_cli, onnx_cli, onnx_full_cli = interleaved_medians(
            [lambda c=command: run(c) for command in commands], repeat=5
        )
        bare = median_seconds(lambda: run([sys.executable, "-c", "pass"]), repeat=5)
        phases = fresh_phases(path, repo / "opsets", env)

    print(
        f"model: {result.nodes} nodes checked (If branches included), "
        f"{len(model.SerializeToString()) / 1e6:.1f} MB"
    )
    print(f"registry (onnx catalog, cached) load:        {load * 1000:8.1f} ms")
    print(
        f"opset check-model (in-process):              {ours * 1000:8.1f} ms  "
        f"({ours / result.nodes * 1e6:.2f} us/node)"
    )
    print(
        f"  nodes only (graph_level=False: no graph checks, no type inference): {ours_nodes * 1000:8.1f} ms"
    )
    print(f"  same, --runtime onnxruntime (847 schemas):  {ours_ort * 1000:8.1f} ms")
    print(
        f"onnx.checker.check_model:                    {theirs * 1000:8.1f} ms  (ratio ours/onnx {ours / theirs:.2f})"
    )
    print(
        f"onnx.checker.check_model(full_check=True):   {theirs_full * 1000:8.1f} ms  "
        f"(ratio ours/onnx {ours / theirs_full:.2f})"
    )
    print(
        f"{len(small)} small models (onnx's backend test data, {small_nodes} nodes): "
        f"ours {ours_many * 1000:.1f} ms, onnx.checker {theirs_many * 1000:.1f} ms "
        f"(ratio {ours_many / theirs_many:.2f})"
    )
    print(
        f"`opset check-model` command, fresh process:  {cli * 1000:8.1f} ms  "
        f"(onnx.load + onnx.checker.check_model, fresh process: {onnx_cli * 1000:.1f} ms; "
        f"with full_check=True: {onnx_full_cli * 1000:.1f} ms)"
    )
    print(f"  same with --runtime onnxruntime:            {ort_cli * 1000:8.1f} ms")
    print("where a fresh `opset check-model` spends its time:")
    print(f"  {'interpreter start (python -c pass)':46s} {bare * 1000:8.1f} ms")
    for label, seconds in phases:
        print(f"  {label:46s} {seconds * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
