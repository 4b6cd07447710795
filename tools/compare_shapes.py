"""Shape inference judged by onnx's own backend node test cases: onnx's C++ inference
(`onnx.shape_inference.infer_shapes`) and ours (`toolkit.infer_shapes`, the specs' shape rules)
on the same stripped models in one run, each output counted right / wrong / unknown against the
shape of the case's expected output.

Usage: python tools/compare_shapes.py [--list-wrong] [--list-missed]
"""

from __future__ import annotations

import sys
import time
import warnings


def main(argv: list[str]) -> int:
    import onnx
    from onnx.backend.test.case import node

    from toolkit.onnx_bridge.catalog import onnx_registry
    from toolkit.onnx_bridge.shape_compare import judge
    from toolkit.onnx_bridge.shape_write import infer_shapes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [case for case in node.collect_testcases(None) if len(case.model.graph.node) == 1]
    registry = onnx_registry(adapters=False)
    started = time.perf_counter()
    theirs = judge(cases, onnx.shape_inference.infer_shapes)
    middle = time.perf_counter()
    ours = judge(cases, lambda model: infer_shapes(model, registry))
    done = time.perf_counter()
    total = theirs.right + theirs.wrong + theirs.unknown
    print(f"{len(cases)} one-node cases, {total} tensor outputs")
    print(
        f"onnx {onnx.__version__}: right {theirs.right}, wrong {theirs.wrong}, unknown {theirs.unknown} ({middle - started:.2f} s)"
    )
    print(
        f"opset-toolkit:  right {ours.right}, wrong {ours.wrong}, unknown {ours.unknown} ({done - middle:.2f} s)"
    )
    if "--list-wrong" in argv:
        print("ours wrong:", *ours.wrong_cases, sep="\n  ")
        print("onnx wrong:", *theirs.wrong_cases, sep="\n  ")
    if "--list-missed" in argv:
        theirs_right = set(theirs.unknown_cases + theirs.wrong_cases)
        missed = [c for c in ours.unknown_cases if c not in theirs_right]
        print("onnx right, ours unknown:", *missed, sep="\n  ")
        ops = {case.name: case.model.graph.node[0].op_type for case in cases}
        by_op: dict[str, int] = {}
        for item in missed:
            op = ops[item.split(":")[0]]
            by_op[op] = by_op.get(op, 0) + 1
        print("by operator:", ", ".join(f"{op} {n}" for op, n in sorted(by_op.items(), key=lambda x: -x[1])))
    return 1 if ours.wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
