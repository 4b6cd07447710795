"""Generated operator-set documents against onnx itself, and the .pb -> Registry round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.generate import GenerateContext
from toolkit.generate.pipeline import run_generators
from toolkit.generate.proto_docs import domain_dir, split_deprecated_marker
from toolkit.load.pbload import is_pb_tree
from toolkit.model.diagnostics import SpecError
from toolkit.model.spec import SpecSet
from toolkit.registry.core import Registry, load_registry_from_pb

onnx = pytest.importorskip("onnx")
from onnx import defs as onnx_defs  # noqa: E402
from onnx.onnx_operators_pb import OperatorSetProto  # noqa: E402


@pytest.fixture(scope="module")
def catalog_proto(onnx_registry: Registry) -> dict[str, bytes]:
    return run_generators(onnx_registry, GenerateContext(source="onnx-catalog"), ["proto"])


def onnx_inventory(domain: str, version: int) -> dict[str, tuple[int, bool]]:
    """op -> (since_version, deprecated) as onnx.defs resolves opset (domain, version)."""
    out: dict[str, tuple[int, bool]] = {}
    for name in sorted({s.name for s in onnx_defs.get_all_schemas_with_history() if s.domain == domain}):
        try:
            schema = onnx_defs.get_schema(name, version, domain)
        except onnx_defs.SchemaError:  # the operator does not exist yet at this version
            continue
        out[name] = (schema.since_version, schema.deprecated)
    return out


def test_every_opset_document_matches_onnx_defs(
    catalog_proto: dict[str, bytes], onnx_registry: Registry
) -> None:
    checked = 0
    for domain in onnx_registry.domains():
        versions = onnx_registry.domain(domain).versions
        assert versions, domain
        for version in versions:
            data = catalog_proto[f"proto/{domain_dir(domain)}/opset_{version}.pb"]
            document = OperatorSetProto()
            document.ParseFromString(data)
            assert document.magic == "ONNXOPSET"
            assert document.domain == domain
            assert document.opset_version == version
            assert document.ir_version > 0
            ours = {}
            for op in document.operator:
                deprecated, _doc = split_deprecated_marker(op.doc_string)
                ours[op.op_type] = (op.since_version, deprecated)
            assert ours == onnx_inventory(domain, version), f"{domain_dir(domain)} opset {version}"
            checked += 1
    # every domain of the installed onnx and every one of its opset versions was checked
    assert {d for d in onnx_registry.domains()} == {
        s.domain for s in onnx_defs.get_all_schemas_with_history()
    }
    assert checked >= 30


def test_status_of_experimental_operators(catalog_proto: dict[str, bytes], onnx_registry: Registry) -> None:
    for domain in onnx_registry.domains():
        version = onnx_registry.domain(domain).max_version
        document = OperatorSetProto()
        document.ParseFromString(catalog_proto[f"proto/{domain_dir(domain)}/opset_{version}.pb"])
        for op in document.operator:
            schema = onnx_defs.get_schema(op.op_type, version, domain)
            experimental = schema.support_level == onnx_defs.OpSchema.SupportType.EXPERIMENTAL
            expected = onnx.OperatorStatus.Value("EXPERIMENTAL" if experimental else "STABLE")
            assert op.status == expected, op.op_type


def _normal(specs: SpecSet) -> tuple[object, object]:
    return (
        sorted(specs.domains, key=lambda d: d.name),
        sorted(specs.operators, key=lambda o: (o.domain, o.name)),
    )


def _write(files: dict[str, bytes], root: Path) -> Path:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root / "proto"


@pytest.mark.parametrize("which", ["shipped", "onnx"])
def test_registry_round_trips_through_pb_files(
    which: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    registry: Registry = request.getfixturevalue(f"{which}_registry")
    files = (
        request.getfixturevalue("catalog_proto")
        if which == "onnx"
        else run_generators(registry, GenerateContext(), ["proto"])
    )
    proto_dir = _write(files, tmp_path)
    assert is_pb_tree(proto_dir)
    loaded = load_registry_from_pb(proto_dir)
    assert _normal(loaded.specs) == _normal(registry.specs)
    # locations survive too (they are compare=False in the dataclasses)
    ours = {(o.domain, o.name): o for o in loaded.specs.operators}
    for op in registry.specs.operators:
        assert ours[op.domain, op.name].location == op.location
        assert [v.location for v in ours[op.domain, op.name].versions] == [v.location for v in op.versions]
    # and the resolved views agree
    for domain in registry.domains():
        for version in registry.domain(domain).versions:
            assert loaded.inventory(domain, version) == registry.inventory(domain, version)


def test_pb_loader_errors_are_located(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"PB-LOAD.*no schemas.pb"):
        load_registry_from_pb(tmp_path)
    bad = tmp_path / "x" / "schemas.pb"
    bad.parent.mkdir()
    bad.write_bytes(b"\x08\x01garbage")
    with pytest.raises(SpecError) as info:
        load_registry_from_pb(tmp_path)
    assert "schemas.pb" in str(info.value) and "PB-LOAD" in str(info.value)
