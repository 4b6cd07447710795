"""Function bodies in the model tools (issue #16): check-model checks the bodies of model-local
functions and of the vendor operators a model uses; `opset compat` reports an operator the runtime
lacks but whose body it can run as runnable after inlining; `opset convert --inline-missing`
inlines it, and the result runs on onnxruntime with no vendor kernel and matches numpy."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import onnx.helper as oh  # noqa: E402
from onnx import parser as onnx_parser  # noqa: E402

from toolkit.cli import main  # noqa: E402
from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.compat_model import analyse, load_runtime  # noqa: E402
from toolkit.registry.core import load_registry  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VISION = REPO / "opsets" / "com.acme.vision"
FLOAT = onnx.TensorProto.FLOAT
RNG = np.random.default_rng(7)
ORT_MANIFEST = "runtime: onnxruntime (no vendor kernels)\ndomains:\n  ai.onnx: {max_opset: 21}\n"


def fused_conv_model(ai_onnx: int | None = 19, activation: str = "relu") -> Any:
    node = oh.make_node(
        "FusedConv",
        ["X", "W", "B"],
        ["Y"],
        domain="com.acme.vision",
        name="fc",
        activation=activation,
        pads=[1, 1, 1, 1],
    )
    after = oh.make_node("Identity", ["Y"], ["Z"]) if ai_onnx else None
    graph = oh.make_graph(
        [node, *([after] if after else [])],
        "g",
        [
            oh.make_tensor_value_info("X", FLOAT, [1, 2, 5, 5]),
            oh.make_tensor_value_info("W", FLOAT, [4, 2, 3, 3]),
            oh.make_tensor_value_info("B", FLOAT, [4]),
        ],
        [oh.make_tensor_value_info("Z" if after else "Y", FLOAT, [1, 4, 5, 5])],
    )
    imports = [oh.make_opsetid("com.acme.vision", 2)] + ([oh.make_opsetid("", ai_onnx)] if ai_onnx else [])
    return oh.make_model(graph, opset_imports=imports, ir_version=10)


@pytest.fixture(scope="module")
def registry(onnx_registry: Any, shipped_registry: Any) -> Any:
    return merge_registries(onnx_registry, shipped_registry)


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "ort.yaml"
    path.write_text(ORT_MANIFEST, encoding="utf-8")
    return path


def test_compat_reports_runnable_after_inlining(registry: Any, manifest: Path) -> None:
    report = analyse(fused_conv_model(), registry, load_runtime(manifest, registry))
    assert [(f.rule, f.operator, f.severity) for f in report.findings] == [
        ("COMPAT-OP-INLINABLE", "com.acme.vision.FusedConv:2", "warning")
    ]
    assert not report.compatible and report.runnable_after_inlining


def test_compat_says_why_a_body_cannot_run(registry: Any, manifest: Path) -> None:
    # the body is written against ai.onnx 19; at the model's 17, Constant (and Equal) are older versions
    report = analyse(fused_conv_model(ai_onnx=17), registry, load_runtime(manifest, registry))
    (finding,) = report.findings
    assert finding.rule == "COMPAT-OP-MISSING"
    assert "uses ai.onnx.Constant:19, but at the model's ai.onnx opset 17" in finding.message
    assert "convert the model first" in finding.message
    assert not report.runnable_after_inlining


@pytest.mark.parametrize("ai_onnx", [19, None])
@pytest.mark.parametrize("activation", ["none", "sigmoid"])
def test_convert_inline_missing_runs_on_onnxruntime(
    tmp_path: Path, manifest: Path, ai_onnx: int | None, activation: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "m.onnx", tmp_path / "inlined.onnx"
    onnx.save(fused_conv_model(ai_onnx, activation), source)
    code = main(
        ["convert", str(source), "--out", str(out), "--inline-missing", str(manifest), "--specs", str(VISION)]
    )
    assert code == 0, capsys.readouterr()
    assert (
        "inlined 1 node(s) for runtime onnxruntime (no vendor kernels): com.acme.vision.FusedConv:2 x1"
        in (capsys.readouterr().out)
    )
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert {n.domain for n in model.graph.node} == {""}
    assert len({o for n in model.graph.node for o in n.output}) == sum(
        len(n.output) for n in model.graph.node
    )
    assert ("", 19) in {(o.domain, o.version) for o in model.opset_import}
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((4, 2, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"X": x, "W": w, "B": b})
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.stack(
        [
            np.array(
                [[(padded[0, :, i : i + 3, j : j + 3] * w[f]).sum() for j in range(5)] for i in range(5)]
            )
            + b[f]
            for f in range(4)
        ]
    )[None]
    want = conv if activation == "none" else 1 / (1 + np.exp(-conv))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_convert_inline_missing_refuses_what_cannot_run(
    tmp_path: Path, manifest: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "m.onnx"
    onnx.save(fused_conv_model(ai_onnx=17), source)
    code = main(
        [
            "convert",
            str(source),
            "--out",
            str(tmp_path / "o.onnx"),
            "--inline-missing",
            str(manifest),
            "--specs",
            str(VISION),
        ]
    )
    assert code == 1
    assert "lacks com.acme.vision.FusedConv:2" in capsys.readouterr().err
    assert main(["convert", str(source), "--out", str(tmp_path / "o.onnx")]) == 2


def test_check_model_checks_model_local_function_bodies(registry: Any) -> None:
    model = onnx_parser.parse_model("""
        <ir_version: 10, opset_import: ["" : 19, "local" : 1]>
        g (float[2] x) => (float[2] y) { y = local.F <alpha: float = 2.0> (x) }
        <domain: "local", opset_import: ["" : 19]>
        F <alpha> (X) => (Y, Unused) {
            A = Constant <value_float: float = @beta> ()
            T = Mul (X, A)
            Y = Relu (U)
        }""")
    findings = check_model(model, registry).findings
    body = [f.message for f in findings if f.rule == "MODEL-FUNCTION-BODY"]
    assert len(body) == 1 and body[0].startswith("FUNCTION-REF (node 0): ") and "'@beta'" in body[0]
    assert all(f.path == "function:local.F" for f in findings if f.rule == "MODEL-FUNCTION-BODY")
    # the value flow is the graph checks': reported once, by them
    rules = {f.rule for f in findings}
    assert {"MODEL-VALUE-UNDEFINED", "MODEL-OUTPUT-UNDEFINED"} <= rules


def test_check_model_checks_the_vendor_bodies_against_the_catalog(tmp_path: Path, onnx_registry: Any) -> None:
    clean = check_model(
        fused_conv_model(), merge_registries(onnx_registry, load_registry([VISION], cache=False))
    )
    assert not [f for f in clean.findings if f.rule == "MODEL-FUNCTION-BODY"]
    tree = tmp_path / "com.acme.vision"
    shutil.copytree(VISION, tree)
    spec = tree / "FusedConv.yaml"
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("{ai.onnx: 19}", "{ai.onnx: 18}"), encoding="utf-8"
    )
    vendor = load_registry([tree], cache=False)
    assert not vendor.diagnostics  # alone, the vendor tree cannot see ai.onnx
    findings = check_model(fused_conv_model(), merge_registries(onnx_registry, vendor)).findings
    broken = [f for f in findings if f.rule == "MODEL-FUNCTION-BODY"]
    assert len(broken) == 3  # is_relu, is_sigmoid, is_tanh: Equal-13 takes no strings
    for finding in broken:
        assert finding.message.startswith("FUNCTION-TYPE: com.acme.vision.FusedConv:2 function body: 'Equal'")
        assert "FusedConv.yaml:" in finding.path


def test_attach_functions_adds_bodies_and_refuses_conflicting_imports(shipped_registry: Any) -> None:
    from toolkit.onnx_bridge.local_functions import FunctionImportConflict, attach_functions

    model = fused_conv_model(ai_onnx=None)
    assert attach_functions(model, shipped_registry) == ["com.acme.vision.FusedConv:2"]
    assert [(f.domain, f.name) for f in model.functions] == [("com.acme.vision", "FusedConv")]
    assert ("", 19) in {(o.domain, o.version) for o in model.opset_import}
    assert attach_functions(model, shipped_registry) == []  # already there
    with pytest.raises(FunctionImportConflict, match=r"imports ai\.onnx 19, the model 17"):
        attach_functions(fused_conv_model(ai_onnx=17), shipped_registry)


def test_every_shipped_body_is_clean_against_the_whole_catalog(registry: Any, shipped_registry: Any) -> None:
    from toolkit.checks.functions import check_version_body

    domains = {name: registry.domain(name) for name in registry.domains()}
    bodies = [s for op in shipped_registry.specs.operators for s in op.versions if s.function is not None]
    assert len(bodies) == 5  # FusedConv-1/-2, Normalize-1/-3, GaussianBlur-4
    for schema in bodies:
        found = list(
            check_version_body(
                schema,
                schema.function,
                lambda d, n, v: registry.find_schema(n, v, d),
                registry.has_domain,
                domains,
            )
        )
        assert found == [], schema.id
