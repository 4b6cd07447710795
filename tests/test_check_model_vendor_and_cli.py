"""check-model on vendor domains (parity with onnx.checker once our specs are registered as onnx
schemas) and the command line: exit codes and the four output formats."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
import sarif_pydantic  # noqa: E402
from onnx import helper  # noqa: E402

from toolkit.model.spec import AttrType, OpSchema, ParamOption  # noqa: E402
from toolkit.onnx_bridge.catalog import merge_registries  # noqa: E402
from toolkit.onnx_bridge.check import check_model  # noqa: E402
from toolkit.onnx_bridge.register import onnx_schema  # noqa: E402
from toolkit.registry.core import Registry  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VENDOR = ("com.acme.vision", "org.example.abc")
_SAMPLE: dict[AttrType, Any] = {
    AttrType.INT: 1, AttrType.FLOAT: 1.0, AttrType.STRING: "none", AttrType.INTS: [1, 1],
    AttrType.FLOATS: [1.0], AttrType.STRINGS: ["a"],
}  # fmt: skip


@pytest.fixture(scope="module")
def registry(onnx_registry: Registry, shipped_registry: Registry) -> Any:
    merged = merge_registries(onnx_registry, shipped_registry)
    registered = []
    for domain in VENDOR:
        for op in shipped_registry.operators(domain):
            for version in op.versions:
                # no inference functions: they would shape the synthetic [1]-shaped models (full_check)
                onnx.defs.register_schema(onnx_schema(version, inference=False))
                registered.append((op.name, version.since_version, domain))
    yield merged
    for name, since, domain in registered:
        onnx.defs.deregister_schema(name, since, domain)


def valid_model(schema: OpSchema, opset: int) -> Any | None:
    """A one-node model that satisfies `schema` (None when it needs what we cannot fake)."""
    types: dict[str, str] = {}
    for c in schema.type_constraints:
        tensors = [t for t in c.allowed if t.startswith("tensor(")]
        if not tensors:
            return None
        types[c.param] = tensors[0]

    def info(name: str, type_str: str) -> Any:
        t = types.get(type_str, type_str)
        if not t.startswith("tensor("):
            return None
        return helper.make_tensor_value_info(name, onnx.TensorProto.DataType.Value(t[7:-1].upper()), [1])

    inputs = [
        info(f"i{k}", p.type_str) for k, p in enumerate(schema.inputs) if p.option is not ParamOption.OPTIONAL
    ]
    outputs = [
        info(f"o{k}", p.type_str)
        for k, p in enumerate(schema.outputs)
        if p.option is not ParamOption.OPTIONAL
    ]
    if (
        None in inputs
        or None in outputs
        or any(a.required and a.type not in _SAMPLE for a in schema.attributes)
    ):
        return None
    names = [i.name for i in inputs]
    if schema.inputs and schema.inputs[-1].is_variadic and names:
        names += [names[-1]] * (schema.inputs[-1].min_arity - 1)
    out_names = [o.name for o in outputs]
    if schema.outputs and schema.outputs[-1].is_variadic and out_names:
        for extra in range(schema.outputs[-1].min_arity - 1):
            outputs.append(info(f"extra{extra}", schema.outputs[-1].type_str))
            out_names.append(f"extra{extra}")
    node = helper.make_node(schema.name, names, out_names, domain=schema.domain)
    for attr in schema.attributes:
        if attr.required:
            node.attribute.append(helper.make_attribute(attr.name, _SAMPLE[attr.type]))
    graph = helper.make_graph([node], "g", inputs, outputs)
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(schema.domain, opset)]
    )


def faults(model: Any, schema: OpSchema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = model.graph.node[0]
    required = [
        i for i, a in enumerate(node.attribute) if a.name in {x.name for x in schema.attributes if x.required}
    ]
    if required:
        out["missing_required"] = copy.deepcopy(model)
        del out["missing_required"].graph.node[0].attribute[required[0]]
    out["unknown_attribute"] = copy.deepcopy(model)
    out["unknown_attribute"].graph.node[0].attribute.append(helper.make_attribute("not_declared", 1))
    if schema.attributes:
        attr = schema.attributes[0]
        wrong = copy.deepcopy(model)
        target = wrong.graph.node[0]
        kept = [a for a in target.attribute if a.name != attr.name]
        del target.attribute[:]
        target.attribute.extend(kept)
        target.attribute.append(helper.make_attribute(attr.name, 2.5 if attr.type is AttrType.INT else 3))
        out["wrong_attribute_type"] = wrong
    if schema.max_input < 2**31 - 1 and node.input:
        many = copy.deepcopy(model)
        while len(many.graph.node[0].input) <= schema.max_input:
            many.graph.node[0].input.append(node.input[0])
        out["too_many_inputs"] = many
    return out


def verdict(model: Any) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True, check_custom_domain=True)
    except Exception:  # ValidationError / InferenceError
        return False
    return True


@pytest.mark.report
def test_vendor_models_match_onnx_with_registered_schemas(
    registry: Registry, shipped_registry: Registry
) -> None:
    counts = {"valid": 0, "seeded": 0}
    disagreements = []
    for domain in VENDOR:
        for op in shipped_registry.operators(domain):
            for schema in op.versions:
                if op.removed_in is not None and op.removed_in <= schema.since_version:
                    continue
                model = valid_model(schema, schema.since_version)
                if model is None:
                    continue
                counts["valid"] += 1
                assert verdict(model), schema.id
                # every value is shaped [1] here, which breaks shape rules such as ConcatFeatures'
                # axis 1: those are judged in tests/test_shape_tools.py, the signature here
                assert [
                    f.rule
                    for f in check_model(model, registry).findings
                    if f.rule not in ("MODEL-OP-DEPRECATED", "MODEL-OP-EXPERIMENTAL")
                    and not f.rule.startswith("MODEL-SHAPE-")
                ] == [], schema.id
                cases = faults(model, schema)
                if op.versions[0].since_version > 1:
                    early = copy.deepcopy(model)
                    early.opset_import[1].version = op.versions[0].since_version - 1
                    cases["op_not_in_opset"] = early
                for kind, faulty in cases.items():
                    counts["seeded"] += 1
                    ours = not [
                        f
                        for f in check_model(faulty, registry).errors
                        if not f.rule.startswith("MODEL-SHAPE-")
                    ]
                    if ours != verdict(faulty):
                        disagreements.append(f"{schema.id} {kind}: onnx={verdict(faulty)} ours={ours}")
    print(f"\nvendor models: {counts}")
    assert counts["valid"] >= 10 and counts["seeded"] >= 40
    assert disagreements == []


# -- command line ---------------------------------------------------------------------------------


@pytest.fixture()
def run(opset_cli: Any) -> Any:
    """`opset check-model ARGS...` (in this process, tests/conftest.py)."""
    return lambda *args: opset_cli("check-model", *args)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("models")
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
    good = helper.make_model(
        helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    bad = helper.make_model(
        helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r", alpha=1.0)], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    onnx.save(good, out / "good.onnx")
    onnx.save(bad, out / "bad.onnx")
    return out / "good.onnx", out / "bad.onnx"


def test_cli_exit_codes_and_text(models: tuple[Path, Path], tmp_path: Path, run: Any) -> None:
    good, bad = models
    assert run(str(good)).returncode == 0
    done = run(str(bad))
    assert done.returncode == 1
    assert f"{bad}:g/r/0: error[MODEL-ATTR-UNKNOWN]: ai.onnx.Relu:14 has no attribute 'alpha'" in done.stdout
    (tmp_path / "junk.onnx").write_bytes(b"\xff\xff\xff")
    junk = run(str(tmp_path / "junk.onnx"))
    assert junk.returncode == 2 and "not an ONNX model" in junk.stderr and "Traceback" not in junk.stderr
    assert run(str(tmp_path / "missing.onnx")).returncode == 2


def test_cli_json_github_sarif(models: tuple[Path, Path], run: Any) -> None:
    import jsonschema

    good, bad = models
    data = json.loads(run(str(good), str(bad), "--format", "json").stdout)
    schema = json.loads((REPO / "schemas" / "check_model_findings.schema.json").read_text())
    jsonschema.validators.validator_for(schema).check_schema(schema)
    jsonschema.validate(data, schema)
    assert data["kind"] == "check-model" and [m["errors"] for m in data["models"]] == [0, 1]
    finding = data["models"][1]["findings"][0]
    assert (
        finding["rule"] == "MODEL-ATTR-UNKNOWN"
        and finding["path"] == "g/r/0"
        and len(finding["fingerprint"]) == 32
    )
    github = run(str(bad), "--format", "github").stdout
    assert github.startswith("::error file=") and "title=MODEL-ATTR-UNKNOWN::g/r/0" in github
    sarif = run(str(bad), "--format", "sarif")
    assert sarif.returncode == 1
    log = sarif_pydantic.Sarif.model_validate_json(sarif.stdout)
    result = log.runs[0].results[0]
    assert result.rule_id == "MODEL-ATTR-UNKNOWN"
    assert _sarif_extras(log) == []
    location = result.locations[0]  # type: ignore[index]
    assert location.logical_locations[0].fully_qualified_name == "g/r/0"  # type: ignore[index]
    rules = {r.id: r for r in log.runs[0].tool.driver.rules}
    assert set(rules) == {"MODEL-ATTR-UNKNOWN"}  # the rules that fired, not the whole catalog
    assert str(rules["MODEL-ATTR-UNKNOWN"].help_uri).endswith("/guide/model-tools.md#model-attr-unknown")


def _sarif_extras(model: Any, path: str = "sarif") -> list[str]:
    """Fields the SARIF model did not recognise (its config allows extras; we do not)."""
    import pydantic

    out: list[str] = []
    if isinstance(model, pydantic.BaseModel):
        out += [f"{path}.{k}" for k in sorted(model.model_extra or {}) if k != "$schema"]
        for name in type(model).model_fields:
            if name != "properties":
                out += _sarif_extras(getattr(model, name), f"{path}.{name}")
    elif isinstance(model, list):
        for i, item in enumerate(model):
            out += _sarif_extras(item, f"{path}[{i}]")
    return out


def test_help_uris_point_at_headings_of_the_docs() -> None:
    """Every helpUri (check-model, compat, the BC gate) is DOCS_URL (docs/ in the repository on
    GitHub) + a Markdown page of docs/ + an anchor that page's headings produce (GitHub's and
    mkdocs' slugs: lower-cased, spaces to dashes)."""
    import re

    from toolkit.compat.rules import all_rules
    from toolkit.model.rules import CATALOG, DOCS_URL
    from toolkit.onnx_bridge import compat_model, model_diff  # noqa: F401  (registers their rules)

    families = ("model", "compat", "runtime", "mdiff")
    uris = [r.help_uri for family in families for r in CATALOG.family(family)]
    assert len(uris) >= 37
    uris += [r.help_uri for r in all_rules()]
    anchors: dict[str, set[str]] = {}
    for uri in uris:
        assert uri.startswith(DOCS_URL), uri
        page, _, anchor = uri[len(DOCS_URL) :].partition("#")
        if page not in anchors:
            source = REPO / "docs" / page
            text = re.sub(r"(?ms)^```.*?^```", "", source.read_text())
            anchors[page] = {
                re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"(?m)^#+ (.+)$", text)
            }
        assert anchor in anchors[page], uri


def test_model_tool_rule_ids_are_registered() -> None:
    """Every rule id the model tools can emit (check-model, compat, model-diff, convert's overlay)
    is in the unified catalog with its family, a summary and a doc."""
    import re

    import toolkit.onnx_bridge.check
    from toolkit.model.rules import CATALOG
    from toolkit.onnx_bridge import compat_model, model_diff, overlay, runtime_test  # noqa: F401  (registers their rules)

    sources = [
        *(REPO / "toolkit" / "onnx_bridge").rglob("*.py"),
        *(REPO / "toolkit" / "reporting").glob("model_*.py"),
    ]
    emitted: set[str] = set()
    for path in sources:
        text = path.read_text(encoding="utf-8")
        emitted |= set(re.findall(r'"((?:MODEL|COMPAT|RUNTIME|MDIFF|ADAPTER)-[A-Z0-9-]+)"', text))
        emitted |= set(re.findall(r"\[((?:MODEL|COMPAT|RUNTIME|MDIFF)-[A-Z0-9-]+)\]", text))
    assert len(emitted) >= 38
    families = {
        "MODEL": "model",
        "COMPAT": "compat",
        "RUNTIME": "runtime",
        "MDIFF": "mdiff",
        "ADAPTER": "adapter",
    }
    for rule_id in sorted(emitted):
        rule = CATALOG.get(rule_id)
        assert rule is not None, f"{rule_id} is emitted but not registered"
        assert rule.family == families[rule_id.split("-")[0]] and rule.summary and rule.doc, rule_id
    assert len(toolkit.onnx_bridge.check.MODEL_RULES) == len(CATALOG.family("model"))
