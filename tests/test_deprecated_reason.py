"""`deprecated_reason` (issue #24 item 7): an optional field of an operator version, built from a
spec written at test time, reaches every output: the docs pages, the generated Python docstrings,
the schema document of the proto kind, the load cache; the gate reads a changed reason as a doc
change; a reason on a version that is not deprecated is DEPRECATED-REASON-ALONE. The reasons hold
text that would be live HTML on a page or end a docstring early if it were not escaped."""

from __future__ import annotations

import ast
import dataclasses
import json
import textwrap
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.model.codec import specset_from_schema_documents
from toolkit.model.codec_scalars import Scalars
from toolkit.model.spec import OpSchema
from toolkit.proto import OpSchemaProto

REASON = "Use New, which also takes a scale."
# Closes a docstring and starts code; is a script and an event handler on a page.
HOSTILE = 'Use New. """; open("MARKER", "w") #\\ <script>alert(1)</script> <img src=x onerror=alert(2)>'

DOMAIN = """\
domain: com.test.dep
opset_versions:
  - {version: 1, ir_version: 9}
  - {version: 2, ir_version: 9}
  - {version: 3, ir_version: 9}
"""


def _operator(name: str, reason: str, *, deprecated: bool = True) -> str:
    flag = "    deprecated: true\n" if deprecated else ""
    return (
        f"operator: {name}\ndomain: com.test.dep\nversions:\n"
        "  - since_version: 1\n    doc: Copies X.\n"
        "    inputs:\n      - {name: X, type: tensor(float)}\n"
        "    outputs:\n      - {name: Y, type: tensor(float)}\n"
        f"  - since_version: 2\n    based_on: 1\n{flag}    deprecated_reason: {json.dumps(reason)}\n"
    )


def _tree(root: Path, operators: dict[str, str]) -> Path:
    folder = root / "com.test.dep"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    for name, text in operators.items():
        (folder / f"{name}.yaml").write_text(text)
    return root


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def generated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    specs = _tree(tmp_path / "specs", {"Old": _operator("Old", REASON), "Bad": _operator("Bad", HOSTILE)})
    out = tmp_path / "out"
    code, _, err = _run(["generate", "--specs", str(specs), "--out", str(out)], capsys)
    assert code == 0, err
    return specs, out


def test_docs_pages_show_the_reason_with_the_deprecated_version(generated: tuple[Path, Path]) -> None:
    _, out = generated
    docs = out / "docs" / "com.test.dep"
    for page in ("Operators.md", "Changelog.md", "ops/Old.md"):
        text = (docs / page).read_text()
        assert f"**Deprecated:** {REASON}" in text, page
    # shown with version 2 only: the reason is not inherited by what comes after, nor shown before
    page = (docs / "ops" / "Old.md").read_text()
    version_1 = page.split('<a id="Old-1"></a>', 1)[1]
    assert REASON not in version_1


def test_hostile_reason_is_text_on_the_pages(generated: tuple[Path, Path]) -> None:
    _, out = generated
    docs = out / "docs" / "com.test.dep"
    for page in ("Operators.md", "Changelog.md", "ops/Bad.md"):
        text = (docs / page).read_text()
        assert "**Deprecated:**" in text
        assert "<script" not in text and "<img" not in text, page  # escaped, never live markup


def _flat(text: str | None) -> str:
    return " ".join((text or "").split())  # docstrings are wrapped


def _class_docs(module: Path) -> dict[str, str]:
    tree = ast.parse(module.read_text())  # parsed, never run
    return {n.name: _flat(ast.get_docstring(n)) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}


def _method_docs(package: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for module in package.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in ("Old", "Bad"):
                found[f"{module.name}:{node.name}"] = _flat(ast.get_docstring(node))
    return found


def test_python_docstrings_show_the_reason(generated: tuple[Path, Path], tmp_path: Path) -> None:
    _, out = generated
    package = out / "python"
    modules = list(package.rglob("schemas/*.py"))
    classes = {name: doc for module in modules for name, doc in _class_docs(module).items()}
    assert f"Deprecated: {REASON}" in classes["Old_2"]
    assert "Deprecated" not in classes["Old_1"]
    assert f"Deprecated: {HOSTILE}" in classes["Bad_2"]  # escaped in the source, whole in the value
    methods = _method_docs(package)
    assert any(f"Deprecated: {REASON}" in doc for doc in methods.values())
    assert any(f"Deprecated: {HOSTILE}" in doc for doc in methods.values())
    for module in package.rglob("*.py"):  # no statement came out of the reason
        assert 'open("MARKER"' not in "".join(
            ast.unparse(n) for n in ast.walk(ast.parse(module.read_text())) if isinstance(n, ast.Call)
        )
    assert not list(tmp_path.rglob("MARKER"))


def test_schema_document_and_cache_carry_the_reason(
    generated: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    specs, out = generated
    document = (out / "proto" / "com.test.dep" / "schemas.pb").read_bytes()
    decoded = {op.name: op for op in specset_from_schema_documents([document]).operators}
    assert decoded["Old"].versions[1].deprecated_reason == REASON
    assert decoded["Old"].versions[0].deprecated_reason == ""  # not inherited through based_on
    assert decoded["Bad"].versions[1].deprecated_reason == HOSTILE

    from toolkit.registry.core import load_registry

    cold = load_registry([specs])  # the generate run above filled the cache: this one reads it
    entries = list((tmp_path / "cache").rglob("registry-*"))
    assert entries, "the load cache was not filled"
    monkeypatch.setattr("toolkit.checks.run.load_specs", _no_load)  # a miss would load again
    warm = load_registry([specs])
    assert warm.operator("Old", "com.test.dep").versions[1].deprecated_reason == REASON
    assert warm.operators("com.test.dep") == cold.operators("com.test.dep")


def _no_load(*args: object, **kwargs: object) -> object:
    raise AssertionError("loaded the specs again instead of reading the cache")


def test_gate_reads_a_changed_reason_as_a_doc_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    old = _tree(tmp_path / "old", {"Old": _operator("Old", REASON)})
    new = _tree(tmp_path / "new", {"Old": _operator("Old", "Use New from opset 3 on.")})
    args = ["diff", "--against", str(old), "--specs", str(new), "--no-cache", "--format", "json"]
    code, stdout, err = _run([*args, "--fail-on", "error"], capsys)
    assert code == 0, err
    findings = json.loads(stdout)["findings"]
    assert [f["rule"] for f in findings] == ["DOC-CHANGED"], findings
    assert "Old:2" in findings[0]["message"]


def test_reason_without_deprecation_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    specs = _tree(tmp_path / "specs", {"Old": _operator("Old", REASON, deprecated=False)})
    code, _, err = _run(["validate", str(specs)], capsys)
    assert code == 1
    line = _operator("Old", REASON).splitlines().index("  - since_version: 2") + 1
    assert f"com.test.dep/Old.yaml:{line}:5: error[DEPRECATED-REASON-ALONE]:" in err
    assert "hint: add `deprecated: true`" in err


def test_reason_must_be_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    text = _operator("Old", REASON).replace(json.dumps(REASON), "[1, 2]")
    specs = _tree(tmp_path / "specs", {"Old": textwrap.dedent(text)})
    code, _, err = _run(["validate", str(specs)], capsys)
    assert code == 1
    assert "Old.yaml:" in err and "error[SCHEMA-TYPE]" in err and "Traceback" not in err


def test_codec_refuses_a_plain_field_the_proto_cannot_carry() -> None:
    """The codec lists the plain fields from the dataclass and the message: a field added to the
    model without its proto field fails when the codec is built, not as a value the cache drops."""

    @dataclasses.dataclass(frozen=True)
    class Wider(OpSchema):
        retired_reason: str = ""

    with pytest.raises(TypeError, match=r"Wider.retired_reason has no scalar field .* in OpSchemaProto"):
        Scalars(Wider, OpSchemaProto, outside=("domain", "name"))
    plain = Scalars(OpSchema, OpSchemaProto, outside=("domain", "name"), always=("deprecated",))
    assert "deprecated_reason" in {name for name, _, _ in plain.encoded}


def test_opset_show_prints_the_reason_in_text_and_json(
    generated: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    specs, _ = generated
    code, out, err = _run(["show", "com.test.dep.Old", "--specs", str(specs)], capsys)
    assert code == 0, err
    assert f"  Deprecated: {REASON}" in out.splitlines()
    code, out, err = _run(["show", "com.test.dep.Old", "--specs", str(specs), "--format", "json"], capsys)
    assert code == 0, err
    shown = json.loads(out)
    versions = shown if isinstance(shown, list) else [shown]
    notes = [v.get("notes") for v in versions]
    assert [{"label": "Deprecated", "text": REASON}] in notes
