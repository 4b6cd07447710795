"""`opset compat`: runtime tables from generated opset documents and from a YAML manifest."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
import sarif_pydantic  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from toolkit.generate.proto_docs import render_registry  # noqa: E402
from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.compat_model import RuntimeManifestError, analyse, load_runtime  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ABC = "org.example.abc"


@pytest.fixture(scope="session")
def registry(onnx_registry: Registry, shipped_registry: Registry) -> Registry:
    return merge_registries(onnx_registry, shipped_registry)


@pytest.fixture(scope="session")
def pb_runtime(tmp_path_factory: pytest.TempPathFactory, shipped_registry: Registry) -> Path:
    """Generated operator-set documents of the shipped specs, opsets 1-2 of org.example.abc only."""
    out = tmp_path_factory.mktemp("runtime")
    for rel, data in render_registry(shipped_registry).items():
        if rel.endswith(".pb") and "/opset_" in rel and (ABC not in rel or rel.endswith(("_1.pb", "_2.pb"))):
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_bytes(data)
    return out


def abc_model(version: int, *ops: str) -> Any:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    nodes, prev = [], "x"
    for index, op in enumerate(ops):
        inputs = [prev, prev] if op in ("B", "C") else [prev]
        nodes.append(helper.make_node(op, inputs, [f"v{index}"], domain=ABC, name=f"{op.lower()}{index}"))
        prev = f"v{index}"
    graph = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [2])])
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(ABC, version)]
    )


def test_documents_runtime(registry: Registry, pb_runtime: Path) -> None:
    runtime = load_runtime(pb_runtime, registry)
    assert runtime.opsets[ABC] == {1, 2}
    assert (
        runtime.supports(ABC, "A", 1) and runtime.supports(ABC, "B", 2) and not runtime.supports(ABC, "A", 3)
    )
    assert analyse(abc_model(2, "A", "B"), registry, runtime).compatible
    report = analyse(abc_model(3, "A", "B", "C"), registry, runtime)
    rules = [(f.rule, f.path, f.operator, f.oldest_opset, f.convert_to) for f in report.findings]
    assert rules == [
        ("COMPAT-OPSET-MISSING", "g", "", None, None),
        ("COMPAT-OP-MISSING", "g/a0/0", f"{ABC}.A:3", 3, 2),  # A:1 is what the runtime has, up to opset 2
        ("COMPAT-OP-MISSING", "g/c2/2", f"{ABC}.C:3", 3, None),  # no version of C at all
    ]
    assert "no version of org.example.abc.C" in report.findings[2].message


def test_manifest_runtime(registry: Registry, tmp_path: Path) -> None:
    manifest = tmp_path / "npu.yaml"
    manifest.write_text(
        "runtime: npu\ndomains:\n  ai.onnx: {max_opset: 12}\n  org.example.abc:\n    operators: {A: [1, 3], B: [2]}\n"
    )
    runtime = load_runtime(manifest, registry)
    assert runtime.supports("", "Relu", 6) and not runtime.supports("", "Relu", 13)
    model = abc_model(3, "A", "B")
    assert analyse(model, registry, runtime).compatible
    relu = helper.make_node("Relu", ["v1"], ["r"], name="relu")
    model.graph.node.append(relu)
    model.graph.output[0].name = "r"
    findings = analyse(model, registry, runtime).findings
    assert [(f.rule, f.operator, f.oldest_opset, f.convert_to) for f in findings] == [
        ("COMPAT-OPSET-MISSING", "", None, None),
        ("COMPAT-OP-MISSING", "ai.onnx.Relu:14", 14, 12),
    ]
    model.graph.node.append(helper.make_node("Gelu", ["r"], ["g"], name="gelu"))  # Gelu appears in opset 20
    model.graph.output[0].name = "g"
    unresolved = analyse(model, registry, runtime).findings[-1]
    assert (unresolved.rule, unresolved.path, unresolved.operator) == (
        "COMPAT-UNRESOLVED",
        "g/gelu/3",
        "ai.onnx.Gelu",
    )


def test_cli_compat(tmp_path: Path, pb_runtime: Path, opset_cli: Any) -> None:
    model = tmp_path / "m.onnx"
    onnx.save(abc_model(3, "A"), model)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return opset_cli("compat", *args)  # type: ignore[no-any-return]

    done = run(str(model), "--runtime", str(pb_runtime), "--format", "json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data["kind"] == "compat" and data["format_version"] == 1
    assert data["compatible"] is False and data["findings"][-1]["convert_to"] == 2
    github = run(str(model), "--runtime", str(pb_runtime), "--format", "github")
    assert github.returncode == 1
    assert github.stdout.startswith(f"::error file={model},title=COMPAT-OPSET-MISSING::g: ")
    assert f"title=COMPAT-OP-MISSING::g/a0/0: {ABC}.A:3 " in github.stdout
    sarif = run(str(model), "--runtime", str(pb_runtime), "--format", "sarif")
    log = sarif_pydantic.Sarif.model_validate_json(sarif.stdout)
    results = log.runs[0].results or []
    assert [r.rule_id for r in results] == ["COMPAT-OPSET-MISSING", "COMPAT-OP-MISSING"]
    assert results[1].locations[0].logical_locations[0].fully_qualified_name == "g/a0/0"  # type: ignore[index]
    rules = log.runs[0].tool.driver.rules or []
    assert str(rules[results[1].rule_index or 0].help_uri).endswith("/guide/model-tools.md#compat")
    onnx.save(abc_model(2, "A"), model)
    assert run(str(model), "--runtime", str(pb_runtime)).returncode == 0
    missing = run(str(model), "--runtime", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


BAD_MANIFESTS = {
    # text -> the (rule, line, column) of every diagnostic
    'domains:\n  ai.onnx: {max_opset: "x"}\n': [("SCHEMA-TYPE", 2, 24)],
    "opsets: [a]\n": [("SCHEMA-REQUIRED", 1, 1), ("SCHEMA-UNKNOWN-KEY", 1, 1)],
    "domains:\n  ai.onnx: {max_opset: 12\n": [
        ("YAML-SYNTAX", 2, 26)
    ],  # end of stream: the end of the last line
    "domains:\n  ai.onnx: {max_opset: 0}\n": [("SCHEMA-VALUE", 2, 24)],
    "domains:\n  org.x:\n    operators: {A: [1, 2.5], 1B: [1]}\n    bogus: 1\n": [
        ("NAME-NOT-IDENTIFIER", 3, 30),
        ("SCHEMA-TYPE", 3, 24),
        ("SCHEMA-UNKNOWN-KEY", 4, 5),
    ],
    "domains:\n  com.nowhere: {opsets: [1]}\n": [("RUNTIME-DOMAIN-UNKNOWN", 2, 3)],
    "domains: {a: !!python/object:os.system x}\n": [("YAML-TAG", 1, 14)],
    "": [("SCHEMA-TYPE", 1, 1)],
}


@pytest.mark.parametrize("text", list(BAD_MANIFESTS), ids=range(len(BAD_MANIFESTS)))
def test_bad_manifest_is_located(
    registry: Registry, tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rt.yaml").write_text(text)
    with pytest.raises(RuntimeManifestError) as caught:
        load_runtime(tmp_path / "rt.yaml", registry)
    got = [(d.rule, d.location.line, d.location.column) for d in caught.value.diagnostics]
    assert got == sorted(BAD_MANIFESTS[text], key=lambda r: (r[1], r[2], r[0]))
    assert all(d.location.file == "rt.yaml" for d in caught.value.diagnostics)


def test_cli_bad_manifest_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.cli import main

    monkeypatch.chdir(tmp_path)
    onnx.save(abc_model(2, "A"), tmp_path / "m.onnx")
    (tmp_path / "rt.yaml").write_text("domains:\n  ai.onnx: {max_opset: x}\n")
    code = main(["compat", "m.onnx", "--runtime", "rt.yaml", "--specs", str(REPO / "opsets")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "rt.yaml:2:24: error[SCHEMA-TYPE]: `domains.ai.onnx.max_opset` must be an integer" in err
    assert "internal error" not in err and "Traceback" not in err
