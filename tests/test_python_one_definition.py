"""The `python` kind has one definition of each thing (issue #24).

- The Jinja2 templates of toolkit/generate/python/templates/ are what `opset generate` renders:
  editing one changes the generated files (a hand-written twin of them used to render instead,
  so an edit changed nothing), and each is compiled once per process, in memory, with nothing
  compiled written anywhere.
- The per-domain `SourceMemo` keys on what the text is made of, never on a field list of its
  own: a model field that starts to show in the text cannot be answered from a stale entry.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest

from toolkit.cli import main
from toolkit.generate.python import PACKAGE, jinja_render, schema_classes
from toolkit.model.spec import FormalParameter

REPO = Path(__file__).resolve().parent.parent
MARKER = "# an edit of the template, seen in the output"


@pytest.fixture
def fresh_templates() -> Iterator[None]:
    """The templates compiled anew in this test (the process may have compiled them already)."""
    jinja_render.environment.cache_clear()
    jinja_render._template.cache_clear()
    yield
    jinja_render.environment.cache_clear()
    jinja_render._template.cache_clear()


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _generate(tmp_path: Path, specs: Path, out: Path) -> int:
    return main(["generate", "--specs", str(specs), "--out", str(out), "--only", "python", "-q"])


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped specs, a private cache folder, and the working directory."""
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    return tmp_path


def test_an_edited_template_changes_what_generate_writes(
    work: Path, monkeypatch: pytest.MonkeyPatch, fresh_templates: None
) -> None:
    templates = work / "templates"
    shutil.copytree(jinja_render.TEMPLATES, templates)
    module = templates / "opset_module.py.j2"
    module.write_text(module.read_text(encoding="utf-8") + MARKER + "\n", encoding="utf-8")
    before = _files(templates)
    monkeypatch.setattr(jinja_render, "TEMPLATES", templates)

    assert _generate(work, work / "opsets", work / "out") == 0

    written = sorted((work / "out" / "python" / PACKAGE).rglob("opset[0-9]*.py"))
    assert written, "no opset module generated"
    for path in written:
        assert path.read_text(encoding="utf-8").endswith("\n" + MARKER + "\n"), path
    # the other modules are the templates' text as before: the edit shows only where it was made
    assert not any(MARKER in p.read_text(encoding="utf-8") for p in (work / "out").rglob("_opsets.py"))
    # compiled in memory: nothing is written beside the templates, and the cache folder holds no
    # compiled template (Jinja2's bytecode cache files) or bytecode of any kind
    assert _files(templates) == before
    cached = [p.name for p in (work / "cache").rglob("*") if p.is_file()]
    assert not [n for n in cached if n.startswith("__jinja2_") or n.endswith((".pyc", ".cache"))], cached


def test_each_template_is_compiled_once_per_process(
    work: Path, monkeypatch: pytest.MonkeyPatch, fresh_templates: None
) -> None:
    compiled: list[str | None] = []
    real = jinja2.Environment._parse

    def counting(self: jinja2.Environment, source: str, name: str | None, filename: str | None) -> object:
        compiled.append(name)
        return real(self, source, name, filename)

    monkeypatch.setattr(jinja2.Environment, "_parse", counting)
    monkeypatch.setenv("OPSET_TOOLKIT_JOBS", "1")  # rendered in this process, where it is counted
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    for out in ("out1", "out2"):  # the second run renders every file again, compiling nothing
        assert _generate(work, work / "opsets", work / out) == 0
    assert sorted(compiled) == sorted(p.name for p in jinja_render.TEMPLATES.glob("*.j2"))
    assert _files(work / "out1") == _files(work / "out2")


OPERATOR = """\
operator: Op
domain: org.example.memo
versions:
  - since_version: 1
    doc: An operator.
    inputs:
      - {name: X, type: T}
    outputs:
      - {name: Y, type: T, doc: The result.}
    type_constraints:
      T: {allowed: ["tensor(float)", "tensor(int64)"]}
  - since_version: 2
    based_on: 1
    outputs:
      - {name: Y, type: T, doc: The result., type_from: [{input: X}]}
"""

DOMAIN = """\
domain: org.example.memo
doc: A domain whose two operator versions differ in one output's `type_from` only.
opset_versions:
  - {version: 1, ir_version: 8}
  - {version: 2, ir_version: 8}
"""


def test_a_field_newly_shown_in_the_text_is_never_answered_stale(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Today's schema classes do not show an output's `type_from`. A change that shows it, as
    showing a new DSL field does, must show it for every version, though the domain's memo saw
    a parameter equal in every field it showed before (a key listing those fields went stale)."""
    specs = work / "specs" / "org.example.memo"
    specs.mkdir(parents=True)
    (specs / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    (specs / "Op.yaml").write_text(OPERATOR, encoding="utf-8")
    shown = schema_classes._param_args

    def showing_type_from(param: FormalParameter) -> list[object]:
        return [*shown(param), f"type_from={len(param.type_from)}"]

    monkeypatch.setattr(schema_classes, "_param_args", showing_type_from)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    assert _generate(work, work / "specs", work / "out") == 0

    text = (work / "out" / "python" / PACKAGE / "org_example_memo" / "schemas" / "Op.py").read_text(
        encoding="utf-8"
    )
    first, second = text.split("\nclass Op_2(")
    assert 'ParamInfo("Y", "T", type_from=0, doc="The result.")' in first
    assert 'ParamInfo("Y", "T", type_from=1, doc="The result.")' in second
