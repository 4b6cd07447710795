"""The schema fast path (`toolkit.load.schema_fast`: compiled validators, and skipping the full
pass when a file's only problem is names its versions suppress) gives exactly the diagnostics of
the plain jsonschema explanation (`toolkit.load.schema.explain`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.load import schema_fast
from toolkit.load.discovery import classify, discover, display_path
from toolkit.load.schema import explain, schema_diagnostics
from toolkit.load.yamlsrc import Source, YamlProblem, read_yaml

TESTS = Path(__file__).resolve().parent


def sources(paths: list[Path]) -> list[tuple[Source, str]]:
    out = []
    for path in discover(paths):
        try:
            data = read_yaml(path, display_path(path))
        except (YamlProblem, OSError):
            continue
        if isinstance(data, dict) and classify(path) != "misnamed":  # misnamed files are never read
            out.append((Source(path, display_path(path), data), classify(path)))
    return out


CORPUS = sources([TESTS.parent / "opsets", TESTS / "bad_inputs"])
OPERATORS = [s.data for s, kind in CORPUS if kind == "operator" and not explain(s, kind)]


def test_corpus_files_agree() -> None:
    assert len(CORPUS) > 100
    for source, kind in CORPUS:
        assert schema_diagnostics(source, kind) == explain(source, kind), source.display


def test_onnx_catalog_agrees(onnx_catalog_dir: Path) -> None:
    catalog = sources([onnx_catalog_dir])
    silenced = 0
    for source, kind in catalog:
        assert schema_diagnostics(source, kind) == explain(source, kind) == [], source.display
        silenced += not schema_fast.is_valid(kind, source.data)
    assert silenced > 0  # the catalog has versions whose names only pass because they suppress


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.sampled_from(["x", "bad name", "1st", "", "float"]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["name", "type", "doc"]), inner, max_size=2),
    max_leaves=4,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_operator_files_agree(data: st.DataObject) -> None:
    doc = copy.deepcopy(json.loads(json.dumps(data.draw(st.sampled_from(OPERATORS)))))
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["rename", "suppress", "drop", "replace"]))
        versions = doc.get("versions")
        version = data.draw(st.sampled_from(versions)) if isinstance(versions, list) and versions else None
        if action == "rename" and isinstance(version, dict) and isinstance(version.get("inputs"), list) and version["inputs"]:
            param = data.draw(st.sampled_from(version["inputs"]))
            if isinstance(param, dict):
                param["name"] = data.draw(st.sampled_from(["bad name", "1st", "ok_name", "a-b"]))
        elif action == "suppress" and isinstance(version, dict):
            version["suppress"] = data.draw(st.sampled_from([["NAME-NOT-IDENTIFIER"], ["DOC-HTML"], []]))
        else:
            path = data.draw(st.sampled_from(_paths(doc)[1:]))
            parent = doc
            for step in path[:-1]:
                parent = parent[step]
            if action == "drop":
                del parent[path[-1]]
            else:
                parent[path[-1]] = data.draw(JSON_VALUES)
    source = Source(Path("Op.yaml"), "Op.yaml", doc)
    assert schema_diagnostics(source, "operator") == explain(source, "operator")


# -- the checked-in validators (tools/regen_validators.py) ----------------------------------------


def _compiled_here(kind: str, lenient: bool) -> Any:
    """The validator as a process compiles it when no checked-in source fits."""
    import fastjsonschema

    return fastjsonschema.compile(schema_fast._schema(kind, lenient), use_default=False, detailed_exceptions=False)


def _verdict(validate: Any, data: Any) -> bool:
    import fastjsonschema

    try:
        validate(data)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def test_checked_in_validators_are_current() -> None:
    package = TESTS.parent / "toolkit" / "load"
    for (kind, lenient), module in schema_fast.CHECKED_IN.items():
        written = (package / f"{module}.py").read_text(encoding="utf-8")
        assert written == schema_fast.generated_source(kind, lenient), (
            f"toolkit/load/{module}.py is stale: run `python tools/regen_validators.py`"
        )


def test_checked_in_validators_are_used() -> None:
    for kind, lenient in schema_fast.CHECKED_IN:
        module = schema_fast._checked_in(kind, lenient)
        assert schema_fast._compiled(kind, lenient) is module.validate


def test_a_schema_its_checked_in_validator_was_not_made_from_is_compiled(monkeypatch: Any) -> None:
    monkeypatch.setattr(schema_fast, "schema_text", lambda schema: "another schema")
    validate = schema_fast._compiled.__wrapped__("operator", False)
    assert validate is not schema_fast._checked_in("operator", False).validate
    assert all(_verdict(validate, doc) for doc in OPERATORS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_checked_in_and_compiled_validators_agree(data: st.DataObject) -> None:
    doc = copy.deepcopy(json.loads(json.dumps(data.draw(st.sampled_from([s.data for s, _ in CORPUS])))))
    for _ in range(data.draw(st.integers(0, 3))):
        paths = _paths(doc)[1:]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = data.draw(JSON_VALUES)
    for kind, lenient in schema_fast.CHECKED_IN:
        checked_in = schema_fast._checked_in(kind, lenient).validate
        assert _verdict(checked_in, doc) == _verdict(_COMPILED[kind, lenient], doc)


_COMPILED = {key: _compiled_here(*key) for key in schema_fast.CHECKED_IN}


def _blur_with(place: str, name: str, suppress: bool) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(next(d for d in OPERATORS if d["operator"] == "Blur")))
    version = doc["versions"][0]
    if place == "example name":
        version["examples"][0]["name"] = name
    elif place == "example attribute":
        version["examples"][0]["attributes"] = {name: 3}
    elif place == "type_from":
        version["outputs"][0]["type_from"] = [{"input": name}]
    if suppress:
        version["suppress"] = ["NAME-NOT-IDENTIFIER"]
    return doc


@pytest.mark.parametrize("place", ["example name", "example attribute", "type_from"])
def test_names_outside_parameters_are_reported_unless_their_version_suppresses_them(place: str) -> None:
    """Every identifier of a version counts (found by the hypothesis test above: an example's
    name was dropped by the shortcut for suppressed names)."""
    reported = Source(Path("Op.yaml"), "Op.yaml", _blur_with(place, "bad name", suppress=False))
    found = schema_diagnostics(reported, "operator")
    assert [d.rule for d in found] == ["NAME-NOT-IDENTIFIER"] and found == explain(reported, "operator")
    silenced = Source(Path("Op.yaml"), "Op.yaml", _blur_with(place, "bad name", suppress=True))
    assert schema_diagnostics(silenced, "operator") == explain(silenced, "operator") == []
