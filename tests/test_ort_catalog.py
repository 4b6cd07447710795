"""The onnxruntime runtime catalog: `opset import-onnx --source onnxruntime` compared field by
field with onnxruntime's own schema objects (`get_all_operator_schema()`), and `--runtime`
on the command line (check-model, compat): usage errors and the runtime's own ops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ort_state = pytest.importorskip("onnxruntime.capi.onnxruntime_pybind11_state")
onnx = pytest.importorskip("onnx")
import numpy as np  # noqa: E402
from onnx import helper  # noqa: E402

from toolkit.model.spec import MAX_ARITY, AttrType, OpSchema, ParamOption, Status  # noqa: E402
from toolkit.model.types import canonical_type  # noqa: E402
from toolkit.registry.core import Registry, load_registry  # noqa: E402

_OPTION = {"Single": ParamOption.SINGLE, "Optional": ParamOption.OPTIONAL, "Variadic": ParamOption.VARIADIC}
# AttributeProto.AttributeType numbers (onnx.proto facts); onnxruntime's enum has no name for 13.
_ATTR = {t.proto_number: t for t in AttrType}


@pytest.fixture(scope="module")
def ort_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ort-catalog")
    command = [sys.executable, "-m", "toolkit", "import-onnx", "--source", "onnxruntime", "--out", str(out)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "wrote " in proc.stdout and "com.microsoft:" in proc.stdout
    return out


@pytest.fixture(scope="module")
def ort_registry(ort_catalog: Path) -> Registry:
    return load_registry([ort_catalog], cache=False)


def _opset(*args: str, hide_onnxruntime: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the `opset` command line in this process (the fixture above runs it in a fresh one).
    `hide_onnxruntime`: as if onnxruntime were not installed (no module, no metadata)."""
    import contextlib
    import importlib.metadata
    import io

    from toolkit.cli import main
    from toolkit.onnx_bridge import runtimes

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        if hide_onnxruntime:
            real = importlib.metadata.version

            def version(name: str) -> str:
                if name == "onnxruntime":
                    raise importlib.metadata.PackageNotFoundError(name)
                return real(name)

            patch.setattr(importlib.metadata, "version", version)
            for module in ("onnxruntime", "onnxruntime.capi", "onnxruntime.capi.onnxruntime_pybind11_state"):
                patch.setitem(sys.modules, module, None)
            patch.setattr(runtimes, "_MEMO", {})  # nothing loaded before counts
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def _default(raw: bytes) -> Any:
    """onnxruntime's serialized default, decoded with onnx (None when there is none)."""
    if not raw:
        return None
    proto = onnx.AttributeProto()
    proto.ParseFromString(raw)
    value = helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return tuple(v.decode() if isinstance(v, bytes) else v for v in value)
    return value


def _same_value(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, float) or (isinstance(theirs, tuple) and theirs and isinstance(theirs[0], float)):
        return bool(np.array_equal(np.float32(ours), np.float32(theirs)))  # stored as float32
    return bool(ours == theirs)


def _differences(ours: OpSchema, theirs: Any) -> list[str]:
    out = []

    def same(what: str, a: Any, b: Any) -> None:
        if a != b:
            out.append(f"{what}: ours {a!r}, onnxruntime {b!r}")

    same("deprecated", ours.deprecated, bool(theirs.deprecated))
    same(
        "experimental", ours.status is Status.EXPERIMENTAL, str(theirs.support_level).endswith("EXPERIMENTAL")
    )
    same("doc", ours.doc, theirs.doc or "")
    for kind in ("input", "output"):
        mine, ort = getattr(ours, kind + "s"), getattr(theirs, kind + "s")
        same(f"{kind} count", len(mine), len(ort))
        for p, q in zip(mine, ort, strict=False):
            where = f"{kind} {q.name}"
            same(f"{where} name", p.name, q.name)
            same(f"{where} type", p.type_str, q.typeStr)
            same(f"{where} option", p.option, _OPTION[str(q.option).rsplit(".", 1)[-1]])
            same(f"{where} homogeneous", p.homogeneous, bool(q.isHomogeneous))
            same(f"{where} doc", p.doc, q.description or "")
        low, high = getattr(theirs, f"min_{kind}"), getattr(theirs, f"max_{kind}")
        same(f"min {kind}s (min arity)", getattr(ours, f"min_{kind}"), low)
        same(f"max {kind}s", getattr(ours, f"max_{kind}"), MAX_ARITY if high >= MAX_ARITY else high)
    attrs = ours.attribute_map
    same("attribute names", sorted(attrs), sorted(theirs.attributes))
    for name, a in theirs.attributes.items():
        if name not in attrs:
            continue
        mine = attrs[name]
        same(f"attribute {name} type", mine.type, _ATTR[int(a.type)])
        same(f"attribute {name} required", mine.required, bool(a.required))
        same(f"attribute {name} doc", mine.doc, a.description or "")
        default = _default(a._default_value)
        if not _same_value(mine.default, default):
            out.append(f"attribute {name} default: ours {mine.default!r}, onnxruntime {default!r}")
    same(
        "type constraints",
        [(c.param, c.allowed, c.doc) for c in ours.type_constraints],
        # onnx's type language: a bare element type inside map()/seq() is a tensor, so
        # onnxruntime's `seq(map(int64, float))` is our canonical `seq(map(int64, tensor(float)))`
        [
            (t.type_param_str, tuple(canonical_type(a) for a in t.allowed_type_strs), t.description or "")
            for t in theirs.type_constraints
        ],
    )
    return out


@pytest.mark.report
def test_imported_catalog_equals_onnxruntime_field_by_field(ort_registry: Registry) -> None:
    schemas = ort_state.get_all_operator_schema()
    problems: dict[str, list[str]] = {}
    compared = 0
    for theirs in schemas:
        domain = "" if theirs.domain == "ai.onnx" else theirs.domain
        ours = ort_registry.operator(theirs.name, domain).version(theirs.since_version)
        assert ours is not None, (theirs.domain, theirs.name, theirs.since_version)
        assert (ours.domain, ours.name, ours.since_version) == (domain, theirs.name, theirs.since_version)
        found = _differences(ours, theirs)
        if found:
            problems[ours.id] = found
        compared += 1
    # Nothing more than onnxruntime has, either.
    assert len(ort_registry.all_schemas()) == len(schemas)
    domains = sorted({s.domain or "ai.onnx" for s in schemas})
    print(
        f"onnxruntime catalog: {compared} schemas compared field by field, {len(problems)} differ; domains {domains}"
    )
    assert not problems, "\n".join(f"{k}: {v}" for k, v in list(problems.items())[:20])
    assert compared >= 800


def test_runtime_additions_and_vendor_domains_are_in_the_catalog(ort_registry: Registry) -> None:
    # onnxruntime's own versions in the default domain, which onnx does not define
    onnx_ids = {(s.domain, s.name, s.since_version) for s in onnx.defs.get_all_schemas_with_history()}
    for name in ("LayerNormalization", "SimplifiedLayerNormalization"):
        assert ort_registry.find_schema(name, 13, "") is not None
        assert ("", name, 1) not in onnx_ids
    for domain in ("com.microsoft", "com.microsoft.nchwc", "com.ms.internal.nhwc"):
        assert ort_registry.has_domain(domain)
    attention = ort_registry.get_schema("Attention", 1, "com.microsoft")
    assert attention.attribute("num_heads") is not None and attention.attribute("num_heads").required  # type: ignore[union-attr]
    unidirectional = attention.attribute("unidirectional")
    assert unidirectional is not None and unidirectional.default == 0


def test_missing_onnxruntime_and_unknown_runtime_are_usage_errors(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    node = helper.make_node("Relu", ["x"], ["y"])
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])
    onnx.save(helper.make_model(helper.make_graph([node], "g", [x], [y])), model)
    for args in (
        ("import-onnx", "--source", "onnxruntime", "--out", str(tmp_path / "out")),
        ("check-model", "--runtime", "onnxruntime", str(model)),
        ("compat", str(model), "--runtime", "onnxruntime"),
    ):
        proc = _opset(*args, hide_onnxruntime=True)
        assert proc.returncode == 2, (args, proc.stderr)
        assert (
            "needs the onnxruntime package, which is not installed" in proc.stderr
            and "opset-toolkit[onnx]" in proc.stderr
            and "Traceback" not in proc.stderr
        )
    for command in (
        ("check-model", "--runtime", "tensorrt-9", str(model)),
        ("compat", str(model), "--runtime", "tensorrt-9"),
    ):
        proc = _opset(*command)
        assert proc.returncode == 2 and "tensorrt-9" in proc.stderr and "onnxruntime" in proc.stderr, (
            proc.stderr
        )
        assert "Traceback" not in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _opset("check-model", "--runtime", str(empty), str(model))
    assert proc.returncode == 2 and "no operator specs" in proc.stderr, proc.stderr


def _vendor_model(producer_corpus: list[Any]) -> Any:
    return next(m for m in producer_corpus if m.name == "ort_transformers_bert_erf")


def test_check_model_runtime_option(producer_corpus: list[Any], ort_catalog: Path) -> None:
    """Against the standard the com.microsoft nodes are unchecked (a warning); against
    onnxruntime's table (installed, or a catalog folder) they are checked and clean."""
    model = str(_vendor_model(producer_corpus).path)
    proc = _opset("check-model", model)
    assert proc.returncode == 0 and "MODEL-DOMAIN-UNKNOWN" in proc.stdout, proc.stdout + proc.stderr
    for runtime in ("onnxruntime", str(ort_catalog)):
        proc = _opset("check-model", "--runtime", runtime, model, "--fail-on", "warning")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "MODEL-DOMAIN-UNKNOWN" not in proc.stdout and " 0 error(s), 0 warning(s)" in proc.stdout
    faulty = onnx.load(model)
    attention = next(n for n in faulty.graph.node if n.op_type == "Attention")
    attention.attribute.append(helper.make_attribute("num_head", 2))  # a typo of num_heads
    path = Path(ort_catalog).parent / "typo.onnx"
    onnx.save(faulty, path)
    proc = _opset("check-model", "--runtime", "onnxruntime", str(path))
    assert proc.returncode == 1 and "MODEL-ATTR-UNKNOWN" in proc.stdout and "num_head" in proc.stdout, (
        proc.stdout
    )


def test_compat_against_onnxruntime(producer_corpus: list[Any], tmp_path: Path) -> None:
    """compat resolves vendor ops and onnxruntime's own default-domain versions in the runtime's
    catalog; an ONNX opset newer than onnxruntime's is reported, and onnxruntime refuses it."""
    import onnxruntime

    for name in ("ort_transformers_bert_erf", "ort_offline_norms_extended", "skl_cls_logreg_zipmap"):
        path = next(m for m in producer_corpus if m.name == name).path
        proc = _opset("compat", str(path), "--runtime", "onnxruntime")
        assert proc.returncode == 0, (name, proc.stdout + proc.stderr)
    newest = max(s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.domain == "")
    ort_newest = max(s.since_version for s in ort_state.get_all_operator_schema() if s.domain == "")
    if newest <= ort_newest:
        pytest.skip("the installed onnx is not newer than onnxruntime's")
    op = next(
        s.name
        for s in onnx.defs.get_all_schemas_with_history()
        if s.domain == "" and s.since_version == newest and s.name == "Cast"
    )
    node = helper.make_node(op, ["x"], ["y"], to=onnx.TensorProto.FLOAT)
    x = helper.make_tensor_value_info("x", onnx.TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
    model = helper.make_model(
        helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", newest)]
    )
    path = tmp_path / "new.onnx"
    onnx.save(model, path)
    proc = _opset("compat", str(path), "--runtime", "onnxruntime")
    assert (
        proc.returncode == 1 and "COMPAT-OPSET-MISSING" in proc.stdout and f"Cast:{newest}" in proc.stdout
    ), proc.stdout
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime's own exception types
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
