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
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["name", "type", "doc"]), inner, max_size=2)
    ),
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
        if (
            action == "rename"
            and isinstance(version, dict)
            and isinstance(version.get("inputs"), list)
            and version["inputs"]
        ):
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


# -- the validators are compiled in memory from the packaged schemas ------------------------------


def test_no_generated_validator_is_checked_in() -> None:
    """The packaged JSON Schemas are the one definition: no module of the toolkit is a validator
    generated from them (fastjsonschema's generated code raises its JsonSchemaValueException)."""
    generated = [
        path.relative_to(TESTS.parent).as_posix()
        for path in (TESTS.parent / "toolkit").rglob("*.py")
        if "JsonSchemaValueException" in path.read_text(encoding="utf-8")
    ]
    assert generated == []
    assert not (TESTS.parent / "tools" / "regen_validators.py").exists()


def _compiles(monkeypatch: Any) -> list[str]:
    """Record the title of every validator compiled from now on, with the process's validators
    all to be made afresh."""
    import fastjsonschema

    made: list[str] = []
    compile_ = fastjsonschema.compile

    def recording(schema: dict[str, Any], **options: Any) -> Any:
        made.append(schema["title"])
        return compile_(schema, **options)

    monkeypatch.setattr(fastjsonschema, "compile", recording)
    schema_fast._compiled.cache_clear()
    return made


def test_each_validator_is_compiled_once_and_serves_both_readings_of_names(
    monkeypatch: Any, tmp_path: Path, capsys: Any
) -> None:
    """A cold `opset validate` compiles the three spec validators from the packaged schemas, once
    each; a tree with names its versions suppress is answered by the same validators (names
    unchecked), without compiling another one or asking jsonschema to explain."""
    from toolkit.cli import main
    from toolkit.load import schema

    made = _compiles(monkeypatch)
    explained: list[str] = []
    monkeypatch.setattr(schema, "explain", lambda source, kind: explained.append(source.display) or [])
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    monkeypatch.setenv("OPSET_TOOLKIT_JOBS", "1")
    assert main(["validate", str(TESTS.parent / "opsets")]) == 0
    assert sorted(made) == [
        "opset-toolkit domain file",
        "opset-toolkit operator file",
        "opset-toolkit release table",
    ]
    tree = tmp_path / "opsets" / "com.test.x"
    tree.mkdir(parents=True)
    (tree / "domain.yaml").write_text(
        "domain: com.test.x\nopset_versions:\n  - {version: 1, ir_version: 8}\n", encoding="utf-8"
    )
    (tree / "Op.yaml").write_text(
        "operator: Op\ndomain: com.test.x\nversions:\n  - since_version: 1\n"
        "    suppress: [NAME-NOT-IDENTIFIER]\n    inputs:\n      - {name: 'x...', type: T}\n"
        "    type_constraints:\n      T: {allowed: ['tensor(float)']}\n",
        encoding="utf-8",
    )
    made.clear()
    assert main(["validate", str(tmp_path / "opsets")]) == 0, capsys.readouterr()
    assert made == [] and explained == []
    # Without the suppress, the same validator checks the name: jsonschema explains the file.
    (tree / "Op.yaml").write_text(
        (tree / "Op.yaml").read_text(encoding="utf-8").replace("    suppress: [NAME-NOT-IDENTIFIER]\n", ""),
        encoding="utf-8",
    )
    main(["validate", str(tmp_path / "opsets")])
    assert made == [] and len(explained) == 1 and explained[0].endswith("Op.yaml")
    schema_fast._compiled.cache_clear()


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
