"""onnxruntime's own verdict on onnx's backend node tests next to `opset test-runtime`'s verdict
on the same cases imported as examples (`opset import-onnx --examples`).

Usage: python tools/compare_backend_tests.py [WORK_DIR]   (needs onnx and onnxruntime)

Reference: every node test case the installed onnx builds (`onnx.backend.test.case.node`), run
directly on onnxruntime's InferenceSession with onnx's own model and data, judged as onnx's
backend test runner judges (same dtype, numpy.testing.assert_allclose with the case's rtol/atol).
Ours: the same cases after `import-onnx --examples` (one-node models rebuilt from the specs by the
toolkit), run by `opset test-runtime`. Prints both pass counts and how many verdicts agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path


def reference(names: set[str]) -> dict[str, bool]:
    import numpy as np
    import onnxruntime as ort
    from onnx.backend.test.case import node

    ort.set_default_logger_severity(4)  # a failing case's own log is not the verdict
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    verdicts = {}
    for case in cases:
        if case.name not in names:
            continue
        inputs, outputs = case.data_sets[0]
        try:
            options = ort.SessionOptions()
            options.log_severity_level = 4
            session = ort.InferenceSession(
                case.model.SerializeToString(), options, providers=["CPUExecutionProvider"]
            )
            feeds = {v.name: x for v, x in zip(case.model.graph.input, inputs, strict=False)}
            got = session.run(None, feeds)
            for want, have in zip(outputs, got, strict=True):
                assert have.dtype == want.dtype
                if want.dtype == object:
                    np.testing.assert_array_equal(have, want)
                else:
                    np.testing.assert_allclose(have, want, rtol=case.rtol, atol=case.atol)
            verdicts[case.name] = True
        except Exception:
            verdicts[case.name] = False
    return verdicts


def main() -> int:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="opset-backend-"))
    specs = work / "onnx-specs"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "import-onnx",
            "--out",
            str(specs),
            "--domain",
            "ai.onnx",
            "--examples",
        ],
        check=True,
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "test-runtime",
            "--specs",
            str(specs),
            "--no-cache",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    ours = {f"test_{r['example']}": r["status"] == "pass" for r in json.loads(run.stdout)["results"]}
    theirs = reference(set(ours))
    agree = sum(ours[name] == theirs.get(name) for name in ours)
    print(f"cases attached as examples:                 {len(ours)}")
    print(f"onnxruntime on onnx's own models (reference): {sum(theirs.values())} passed")
    print(f"opset test-runtime on the imported examples:  {sum(ours.values())} passed")
    print(f"same verdict on both:                         {agree} of {len(ours)}")
    for name in sorted(n for n in ours if ours[n] != theirs.get(n)):
        print(
            f"  differs: {name}: ours {'pass' if ours[name] else 'fail'}, reference {'pass' if theirs.get(name) else 'fail'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
