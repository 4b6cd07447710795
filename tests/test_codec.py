"""The model <-> protobuf codec round-trips the loaded specs exactly: every dataclass field,
the `compare=False` ones (source locations) included, over the shipped specs and the onnx catalog."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from toolkit.checks.run import load_specs
from toolkit.model import codec
from toolkit.model.spec import NOWHERE, DomainSpec, Location, SpecSet

REPO = Path(__file__).resolve().parent.parent


def differences(a: object, b: object, path: str = "") -> list[str]:
    """Where `a` and `b` differ, walking every dataclass field (compare=False ones too), tuple,
    list and dict; values are also compared by type, so 1 and 1.0 or a list and a tuple differ."""
    if type(a) is not type(b):
        return [f"{path or '.'}: {type(a).__name__} {a!r} != {type(b).__name__} {b!r}"]
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        out = []
        for f in dataclasses.fields(a):
            out += differences(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
        return out
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list))
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, dict):
        assert isinstance(b, dict)
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}[{k!r}]")]
    if a != a and b != b:  # NaN
        return []
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def round_trip(specs: SpecSet) -> SpecSet:
    documents = [
        codec.schema_set_document(d, [o for o in specs.operators if o.domain == d.name]).SerializeToString(
            deterministic=True
        )
        for d in specs.domains
    ]
    back = codec.specset_from_schema_documents(documents)
    return dataclasses.replace(back, releases=specs.releases)  # releases are not in the documents


def test_differences_sees_fields_that_equality_ignores() -> None:
    a = DomainSpec("x", (), location=Location("a.yaml", 1, 1))
    b = dataclasses.replace(a, location=Location("a.yaml", 2, 1))
    assert a == b
    assert differences(a, b) == [".location.line: 1 != 2"]
    assert differences((1,), (1.0,)) and differences([1], (1,))


def test_round_trip_of_the_shipped_specs_keeps_every_field() -> None:
    result = load_specs([REPO / "opsets"])
    assert not result.errors
    specs = result.specs
    assert any(d.type_set_locations for d in specs.domains)
    assert differences(specs, round_trip(specs)) == []


def test_round_trip_of_the_onnx_catalog_keeps_every_field(onnx_catalog_dir: Path) -> None:
    specs = load_specs([onnx_catalog_dir]).specs
    assert len(specs.operators) > 100
    assert differences(specs, round_trip(specs)) == []


def test_type_set_locations_round_trip() -> None:
    domain = DomainSpec(
        "com.example",
        (),
        type_sets=(("all", ("tensor(float)",)), ("none", ())),
        location=Location("d.yaml", 1, 1),
        type_set_locations=(("all", Location("d.yaml", 5, 3)), ("none", Location("d.yaml", 7, 3))),
    )
    (back,) = codec.specset_from_schema_documents([codec.schema_set_document(domain, [])]).domains
    assert differences(domain, back) == []
    assert back.type_set_location("none") == Location("d.yaml", 7, 3)


def test_unknown_type_set_location_is_not_invented() -> None:
    domain = DomainSpec("com.example", (), type_sets=(("all", ()),), type_set_locations=(("all", NOWHERE),))
    (back,) = codec.specset_from_schema_documents([codec.schema_set_document(domain, [])]).domains
    assert back.type_set_locations == ()
