"""The docs kind as one path (issue #24): pages from the plain code, nothing cached under a
hand-written key, one change model, the parser behind the prefilter.

* A field a row shows, changed in a later version, changes that version's rows and no other's,
  for every field of the row's model object (the rows are made to show every field here, as a
  maintainer might make them show a new one: `type_from` once changed three onnx pages only on
  a path whose cache key did not hold it).
* Through the CLI: each version's rows spell its own values (a default `-0.0` is not `0.0`).
* Golden bytes: the docs pages and the DOC-* findings of the onnx catalog, as they were before
  the second definitions were folded back.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolkit.checks.markdown import analyse
from toolkit.cli import main
from toolkit.generate import mdsafe
from toolkit.generate.docs import render_docs, render_files, views
from toolkit.generate.docs.markdown import Row
from toolkit.model.spec import (
    Attribute,
    AttrType,
    Differentiability,
    DomainSpec,
    FormalParameter,
    OperatorSpec,
    OpSchema,
    OpsetVersion,
    ShapeText,
    SpecSet,
    TypeConstraint,
    TypeSource,
)
from toolkit.registry.core import Registry

# --------------------------------------------------------------------------- every field a row shows

ALPHA = Attribute("alpha", AttrType.FLOAT, "The slope.", required=False, default=0.0)
X = FormalParameter("X", "T", "The input.", differentiability=Differentiability.DIFFERENTIABLE)
Y = FormalParameter("Y", "T", "The output.", type_from=(TypeSource(input="X"),))
T = TypeConstraint("T", ("tensor(float)",), "Float tensors.", type_sets=())
V1 = OpSchema("com.example", "Op", 1, inputs=(X,), outputs=(Y,), attributes=(ALPHA,), type_constraints=(T,))

# The section of OpSchema each row kind comes from, with the item of version 1.
ITEMS: dict[str, tuple[str, Any]] = {
    "attribute": ("attributes", ALPHA),
    "input": ("inputs", X),
    "output": ("outputs", Y),
    "type constraint": ("type_constraints", T),
}
# What a tuple field gains in version 2 (a new tuple field fails `changed` until it is here).
EXTRA = {"type_from": TypeSource(attribute="to"), "allowed": "tensor(int64)", "type_sets": "float_types"}


def compared_fields(item: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(item) if f.compare]


def changed(value: object, field: str) -> object:
    """Another value of the field's type (a float's other signed zero: equal, spelled otherwise)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, enum.Enum):
        members = list(type(value))
        return members[(members.index(value) + 1) % len(members)]
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return -value  # 0.0 becomes -0.0
    if isinstance(value, str):
        return value + "z"
    if isinstance(value, tuple) and field in EXTRA:
        return (*value, EXTRA[field])
    if field in ("shape", "value"):  # an output's shape rule and value rule (#27)
        return ShapeText("X" if not isinstance(value, ShapeText) else value.text + " ++ [1]")
    raise AssertionError(f"teach this test how to change field `{field}` ({value!r})")


def marker(item: Any) -> str:
    """A cell naming every compared field of `item` as written (repr tells -0.0 from 0.0)."""
    shown = repr([(name, type(getattr(item, name)), getattr(item, name)) for name in compared_fields(item)])
    return "M" + hashlib.sha256(shown.encode()).hexdigest()[:16]


def showing_every_field(made: Callable[[Any], Row]) -> Callable[[Any], Row]:
    def row(item: Any) -> Row:
        plain = made(item)
        return plain._replace(cells=(*plain.cells, marker(item)))

    return row


@pytest.fixture
def rows_show_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row also shows all of its object's fields, wherever the docs package calls a row
    maker by name (a module that imported it keeps its own reference)."""
    for name in ("attribute_row", "param_row", "constraint_row"):
        original = getattr(views, name)
        for module in list(sys.modules.values()):
            if (
                module.__name__.startswith("toolkit.generate.docs")
                and getattr(module, name, None) is original
            ):
                monkeypatch.setattr(module, name, showing_every_field(original))


def version_sections(page: str) -> dict[int, str]:
    """The operator page cut at its `## Version N` headings."""
    sections = {}
    for chunk in page.split('## <a id="Op-')[1:]:
        since, _, text = chunk.partition('"')
        sections[int(since)] = text
    return sections


CASES = [(kind, field) for kind, (_, item) in ITEMS.items() for field in compared_fields(item)]


@pytest.mark.usefixtures("rows_show_every_field")
@pytest.mark.parametrize(("kind", "field"), CASES, ids=[f"{k}.{f}" for k, f in CASES])
def test_a_field_a_row_shows_changed_in_a_version_changes_its_rows_only(kind: str, field: str) -> None:
    section, old = ITEMS[kind]
    new = dataclasses.replace(old, **{field: changed(getattr(old, field), field)})
    assert marker(new) != marker(old)
    v2 = dataclasses.replace(V1, since_version=2, **{section: (new,)})
    domain = DomainSpec("com.example", (OpsetVersion(1, 9), OpsetVersion(2, 9)))
    registry = Registry(SpecSet((domain,), (OperatorSpec("com.example", "Op", (V1, v2)),)))
    pages = render_docs(registry, "specs")
    sections = version_sections(pages["com.example/ops/Op.md"])
    assert marker(new) in sections[2] and marker(old) not in sections[2], (kind, field)
    assert marker(old) in sections[1] and marker(new) not in sections[1], (kind, field)
    changelog = pages["com.example/Changelog.md"]
    assert changelog.index(marker(new)) < changelog.index(marker(old))  # newest opset first


def test_the_rows_of_each_version_spell_its_own_values_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equal values spelled otherwise (`-0.0 == 0.0`) and a changed tag: each version's page
    section shows its own, from the YAML through `opset generate`."""
    specs = tmp_path / "specs" / "com.example"
    specs.mkdir(parents=True)
    (specs / "domain.yaml").write_text(
        "domain: com.example\nopset_versions:\n"
        + "".join(f"  - {{version: {v}, ir_version: 9}}\n" for v in (1, 2, 3))
    )
    (specs / "Op.yaml").write_text(
        "operator: Op\ndomain: com.example\nversions:\n"
        "  - since_version: 1\n    doc: The op.\n"
        "    inputs: [{name: X, type: T}]\n    outputs: [{name: Y, type: T}]\n"
        "    attributes: {alpha: {type: float, default: 0.0, doc: The slope.}}\n"
        '    type_constraints: {T: {allowed: ["tensor(float)"]}}\n'
        "  - since_version: 2\n    based_on: 1\n"
        "    attributes: {alpha: {type: float, default: -0.0, doc: The slope.}}\n"
        "  - since_version: 3\n    based_on: 2\n"
        "    inputs: [{name: X, type: T, differentiability: differentiable}]\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    assert main(["generate", "--specs", "specs", "--out", "out", "--only", "docs", "-q"]) == 0
    sections = version_sections((tmp_path / "out/docs/com.example/ops/Op.md").read_text())
    assert "default is `0.0`" in sections[1] and "`-0.0`" not in sections[1]
    assert "default is `-0.0`" in sections[2] and "default is `-0.0`" in sections[3]
    assert "differentiable" in sections[3] and "differentiable" not in sections[2]


# --------------------------------------------------------------------------- the repair always ends


def write_tree(root: Path, doc: str) -> None:
    """A one-operator spec tree whose operator doc is `doc` (a YAML double-quoted scalar)."""
    specs = root / "specs" / "com.example"
    specs.mkdir(parents=True)
    (specs / "domain.yaml").write_text(
        "domain: com.example\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
    )
    (specs / "Op.yaml").write_text(
        "operator: Op\ndomain: com.example\nversions:\n  - since_version: 1\n"
        f"    doc: {doc}\n    inputs: [{{name: X, type: tensor(float)}}]\n"
        "    outputs: [{name: Y, type: tensor(float)}]\n"
    )


def _generated_page(tmp_path: Path) -> str:
    """`opset generate --only docs` of the tree `write_tree` made, in a fresh process (a hang is
    a timeout, not a stuck suite); the operator's page."""
    env = {**os.environ, "OPSET_TOOLKIT_NO_CACHE": "1"}
    command = [
        sys.executable,
        "-m",
        "toolkit",
        "generate",
        "--specs",
        "specs",
        "--out",
        "out",
        "--only",
        "docs",
    ]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return (tmp_path / "out/docs/com.example/ops/Op.md").read_text()


def test_a_nul_before_a_tag_in_a_doc_is_repaired_and_generating_ends(tmp_path: Path) -> None:
    """The parser reads NUL as U+FFFD; a column worked out without that named the wrong character:
    the repair escaped a letter after the `<` (`<&lt; onclick`), or, past the end of the line,
    the same place again and again for ever (`opset generate` hung on `->\\n \\0<a`). The NUL
    itself is shown as `\\u0000` (DOC-CONTROL-CHAR), never raw."""
    write_tree(tmp_path, '"A list:\\n->\\n \\0<a onclick=x> and <b>."')
    page = _generated_page(tmp_path)
    assert "\\u0000&lt;a onclick=x> and &lt;b>." in page and "\x00" not in page
    assert "<a onclick" not in page and "<b>" not in page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "specs"]  # nothing written elsewhere


def test_an_attribute_list_before_a_carriage_return_is_escaped(tmp_path: Path) -> None:
    """The prefilter read `\\r` as part of a line where the analysis reads a line break, and let
    `{onclick=...}` through to the page, an attribute list to mkdocs' attr_list."""
    write_tree(tmp_path, '"Scaled {onclick=alert(1)}\\rby alpha."')
    page = _generated_page(tmp_path)
    assert "Scaled \\{onclick=alert(1)}" in page and " {onclick" not in page


def test_a_repair_that_does_not_converge_shows_the_doc_as_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the analysis says, the repair loop ends: an analysis that names a character the
    repair does not escape (here: always the same column, past the `<` already escaped) makes
    the doc one code block that nothing in it can close."""
    text = "A doc with ``` and <b>bold</b> (not converging)."
    stuck = mdsafe.analyse(text)
    monkeypatch.setattr(mdsafe, "analyse_lines", lambda lines: stuck)
    mdsafe.repaired.cache_clear()
    mdsafe.sanitize.cache_clear()
    try:
        safe = mdsafe.sanitize(text, 3)
    finally:
        mdsafe.repaired.cache_clear()
        mdsafe.sanitize.cache_clear()
    assert safe.text == f"````\n{text}\n````"
    assert [(issue.rule, issue.message) for issue in safe.issues] == [("DOC-HTML", mdsafe.AS_CODE_MESSAGE)]
    assert analyse(safe.text).clean


# --------------------------------------------------------------------------- golden: the onnx catalog

# The docs pages (every page but the DSL reference, which documents the toolkit's own schemas)
# and the DOC-* findings of the catalog of onnx 1.23.2, as the toolkit wrote them before the
# docs' second definitions (shared rows and bodies, the changes' own pass order, the page tidy
# over text, the parser-free analysis of structured docs) were folded back into one path.
ONNX = "1.23.2"
# #27 shape rules shown (second step: more operators, ml/preview/training domains); #26 replaced_by; Squeeze's constraint (fourth step);
# the remaining operators' rules (Slice, Pad, TopK, ..., the ml classifiers; only shape lines added);
# #26 a type parameter added (removed) with what it types is named in that change's line, no line
# of its own (MaxPool 8, BatchNormalization 14, Pad 18, Resize 11, Slice 10, Scan 9: 60 lines);
# indented code that could hold markup written as a fence both renderers read as code (the docs
# of Loop, Scan and Normalizer: their op pages, Operators.md and Changelog.md; CommonMark renders
# them as before); every `{` at which attr_list's pattern matches written `\{` wherever it stands
# (`a_\{n-1}`: 19 pages of ai.onnx and ai.onnx.ml, the same HTML in both renderers);
# type parameters matched by what they type, not by key order: BatchNormalization 15 renames `U`
# (mean and variance) to `T2`, not to `T1`, so its 4 retyped mean/variance lines are gone (its
# page and Changelog.md)
GOLDEN_PAGES = "87800179f064a972be706092611bb0ff76cd13bbd0ae2f06657d3fbf1c12abfb"
# the findings: #26 and #27 moved their lines (the same 136 findings)
GOLDEN_FINDINGS = "2f80f004791a1d9d905d2b5426c958854b7e9411726867c3c39770169b377c22"


def _onnx_version() -> str:
    import onnx

    return str(onnx.__version__)


def digest(items: list[tuple[str, bytes]]) -> str:
    out = hashlib.sha256()
    for name, data in sorted(items):
        out.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return out.hexdigest()


def test_onnx_catalog_pages_are_the_golden_bytes(onnx_registry: Any) -> None:
    if _onnx_version() != ONNX:
        pytest.skip(f"the golden pages are those of onnx {ONNX}")
    files = render_files(onnx_registry)
    found = digest([(path, data) for path, data in files.items() if path != "docs/dsl.md"])
    assert len(files) > 240
    assert found == GOLDEN_PAGES, f"the docs of the onnx catalog changed; if meant, GOLDEN_PAGES = {found!r}"


def test_onnx_catalog_doc_findings_are_the_golden_ones(onnx_catalog_dir: Path) -> None:
    if _onnx_version() != ONNX:
        pytest.skip(f"the golden findings are those of onnx {ONNX}")
    from toolkit.checks.docs import check_docs
    from toolkit.load.loader import read_specs

    findings = check_docs(read_specs([onnx_catalog_dir], jobs=1).specs)
    rows = [
        (
            f"{Path(d.location.file).resolve().relative_to(onnx_catalog_dir.resolve())}:{d.location.line}:{d.location.column}",
            d.rule,
        )
        for d in findings
    ]
    assert {rule for _, rule in rows} >= {"DOC-HTML"}
    found = digest(
        [(where, f"{rule}\0{d.message}".encode()) for (where, rule), d in zip(rows, findings, strict=True)]
    )
    assert found == GOLDEN_FINDINGS, f"the DOC-* findings on the onnx catalog changed; if meant, {found!r}"
