"""Conversion benchmark: `opset convert` next to `onnx.version_converter` on the same
(model, target opset) pairs, both judged by onnxruntime against the models' expected outputs
(tests/convert_harness.py).

Models: onnx's node test cases (built in-process from the installed onnx) that onnxruntime
runs and matches, and the producer models of the real-model corpus (tests/producer_corpus.py:
skl2onnx, onnxruntime's quantizer and optimizers, float16 conversion; onnxruntime's outputs on
the originals are the expected ones), converted to the neighbouring opsets and, with --far,
also to opset 7, six below, six above and 26 (the newest onnxruntime 1.31 loads). Prints the success table by direction
(ok / refused / wrong output / invalid model / crash, for each converter) and the conversion
time of each converter over the same pairs (total and median per pair, measured in the same
run, interleaved pair by pair).

Run: python benchmarks/bench_convert.py [--far] [--sample N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from convert_harness import (  # noqa: E402
    Case,
    Tally,
    Tool,
    evaluate,
    node_cases,
    producer_cases,
    runnable,
    sampled,
    targets,
)


def corpus_cases(folder: Path) -> list[Case]:
    """The producer models of the real-model corpus (tests/producer_corpus.py), built in `folder`
    (reused while the producer versions are the same)."""
    from producer_corpus import build_corpus

    return list(producer_cases(build_corpus(folder)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--far", action="store_true", help="also convert to far targets")
    parser.add_argument("--sample", type=int, default=1, help="keep one case in N (default: all)")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(tempfile.gettempdir()) / "opset-bench-corpus",
        help="folder for the producer models (built once, then reused)",
    )
    parser.add_argument("--no-producers", action="store_true", help="onnx's node test cases only")
    args = parser.parse_args()

    from onnx.backend.test.case import node

    from toolkit.onnx_bridge.catalog import model_registry, onnx_unchecked_attributes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = node.collect_testcases(None)
    producers = [] if args.no_producers else corpus_cases(args.corpus)
    cases = [c for c in [*node_cases(raw), *producers] if sampled(c.name, args.sample) and runnable(c)]
    ours = Tool("ours", model_registry([], adapters=True), onnx_unchecked_attributes())
    theirs = Tool("onnx")
    tally = Tally()
    per_pair: dict[str, list[float]] = {"ours": [], "onnx": []}
    started = time.perf_counter()
    for case in cases:
        for target in targets(case.opset, args.far):
            for tool in (ours, theirs):  # interleaved: same pair, one after the other
                before = tool.seconds
                outcome, detail = evaluate(case, target, tool)
                per_pair[tool.name].append(tool.seconds - before)
                tally.add(tool.name, case, target, outcome, detail)
    elapsed = time.perf_counter() - started
    producers_kept = sum(1 for c in cases if c.name.startswith("producer/"))
    print(
        f"{len(cases)} models onnxruntime runs and matches ({len(cases) - producers_kept} node test cases, "
        f"{producers_kept} producer models); {len(per_pair['ours'])} (model, target) pairs "
        f"({'far targets too' if args.far else 'neighbouring opsets'}), {elapsed:.0f} s in all\n"
    )
    print(tally.table())
    print("\n| converter | conversion time, all pairs | median per pair |")
    print("| --- | ---: | ---: |")
    for tool, label in (
        (ours, "opset convert (in-process, registry loaded)"),
        (theirs, "onnx.version_converter"),
    ):
        median = statistics.median(per_pair[tool.name]) * 1000 if per_pair[tool.name] else 0.0
        print(f"| {label} | {tool.seconds:.1f} s | {median:.2f} ms |")
    failures = [f for f in tally.failures if f[0] == "ours"]
    if failures:
        print("\nopset convert failures:")
        for failure in failures:
            print("  ", failure)


if __name__ == "__main__":
    main()
