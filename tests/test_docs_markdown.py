"""The docs generator: pages, version diffs, inventories, sanitising, references, determinism."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolkit import load_registry
from toolkit.cli import build_parser
from toolkit.generate import GenerateContext, get_generator
from toolkit.generate.docs import render_docs
from toolkit.generate.mdsafe import inline, sanitize
from toolkit.generate.pipeline import generate_tree
from toolkit.model.changes import diff_schemas

REPO = Path(__file__).resolve().parent.parent

# Versioning.md, "Operator sets" example: since_version per operator and opset version, bold
# (new or updated) marked with *. Transcribed from the document.
VERSIONING_MD_TABLE = {
    "A": ["*1", "1", "*3", "*-"],
    "B": ["-", "*2", "2", "2"],
    "C": ["-", "-", "*3", "*4"],
}


@pytest.fixture(scope="module")
def pages(shipped_registry: Any) -> dict[str, str]:
    return render_docs(shipped_registry, "opsets", build_parser)


def _table(markdown: str, first_header: str) -> dict[str, list[str]]:
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first_header))
    rows = {}
    for line in lines[start + 2 :]:
        if "|" not in line:
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_since_table_matches_versioning_md_cell_by_cell(pages: dict[str, str]) -> None:
    rows = _table(pages["org.example.abc/inventory.md"], "Operator|OpSet 1")
    got = {
        op: [("*" + c.strip("*")) if c.startswith("**") else c for c in cells] for op, cells in rows.items()
    }
    assert got == VERSIONING_MD_TABLE


def test_operators_md_index_links_every_version(pages: dict[str, str], shipped_registry: Any) -> None:
    for name in shipped_registry.domains():
        domain = shipped_registry.domain(name).display_name
        text = pages[f"{domain}/Operators.md"]
        changelog = pages[f"{domain}/Changelog.md"]
        for op in shipped_registry.operators(name):
            row = next(line for line in text.splitlines() if line.startswith(f"| [{op.name}](#{op.name}) |"))
            for schema in op.versions:
                target = f"{op.name}-{schema.since_version}"
                assert f"[{schema.since_version}](Changelog.md#{target})" in row
                assert f'<a id="{target}"></a>' in changelog
                assert f'<a id="{target}"></a>' in pages[f"{domain}/ops/{op.name}.md"]
            assert f'## <a id="{op.name}"></a>{op.name}' in text


def test_sections_marks_and_tags(pages: dict[str, str], shipped_registry: Any) -> None:
    abc = pages["org.example.abc/Operators.md"]
    assert "| [A](#A) | [3](Changelog.md#A-3), [1](Changelog.md#A-1) | removed in 4 |" in abc
    assert "Removed in version 4 of `org.example.abc`; replaced by `C`." in abc
    c_section = abc.split('## <a id="C"></a>C')[1]
    assert "### Inputs (1 - ∞)" in c_section
    assert "| `inputs` | `T` | variadic |" in c_section
    assert "| `scale` | float | default is `1.0` | Factor applied to every element. |" in abc
    # Marks for experimental / deprecated operators come from the specs, wherever they are.
    for schema in shipped_registry.all_schemas():
        view = pages[f"{shipped_registry.domain(schema.domain).display_name}/ops/{schema.name}.md"]
        heading = next(
            line for line in view.splitlines() if f'<a id="{schema.name}-{schema.since_version}">' in line
        )
        assert ("*(experimental)*" in heading) == schema.experimental
        assert ("*(deprecated)*" in heading) == schema.deprecated


def test_changelog_by_opset_version(pages: dict[str, str]) -> None:
    text = pages["org.example.abc/Changelog.md"]
    order = [int(v) for v in re.findall(r'<a id="opset-(\d+)"></a>', text)]
    assert order == [4, 3, 2, 1]
    v4 = text.split('<a id="opset-4"></a>')[1].split('<a id="opset-3"></a>')[0]
    assert "- Changed: [C](#C-4) (from 3)" in v4
    assert "- Removed: A (last version [A-3](#A-3); replaced by `C`)" in v4
    v3 = text.split('<a id="opset-3"></a>')[1].split('<a id="opset-2"></a>')[0]
    assert "- Introduced: [C](#C-3)" in v3 and "- Changed: [A](#A-3) (from 1)" in v3


def test_version_diffs_use_the_gate_change_model(pages: dict[str, str], shipped_registry: Any) -> None:
    """Every change the BC gate's model finds is on the operator page, word for word."""
    checked = 0
    for op in shipped_registry.specs.operators:
        domain = shipped_registry.domain(op.domain)
        page = pages[f"{domain.display_name}/ops/{op.name}.md"]
        sets = dict(domain.type_sets)
        for old, new in zip(op.versions, op.versions[1:]):
            section = page.split(f'<a id="{op.name}-{new.since_version}"></a>')[1].split("\n## ")[0]
            assert f"### Changes from version {old.since_version}" in section
            for change in diff_schemas(old, new, old_type_sets=sets, new_type_sets=sets):
                assert f"- {change.message} (`{change.kind}`)" in section
                checked += 1
    assert checked >= 5
    c_page = pages["org.example.abc/ops/C.md"]
    assert (
        "- types `tensor(int32)`, `tensor(int64)` added to `T` (via type set `@numbers`) (`TYPE-ADDED`)"
        in c_page
    )
    assert (
        "- attribute `scale` added (float, default 1.0) (`ATTR-ADDED`)" in pages["org.example.abc/ops/A.md"]
    )


def test_release_table(pages: dict[str, str], shipped_registry: Any) -> None:
    if not shipped_registry.releases:
        pytest.skip("the shipped specs declare no releases")
    rows = _table(pages["releases.md"], "| Release |")
    for release in shipped_registry.releases:
        cells = rows[release.name]
        assert cells[0] == str(release.ir_version)
        header = pages["releases.md"].split("| Release | IR version |")[1].splitlines()[0]
        domains = [c.strip() for c in header.strip(" |").split("|")]
        for domain, version in release.opsets:
            shown = "ai.onnx" if domain == "" else domain
            assert cells[1 + domains.index(shown)] == str(version)


def test_deterministic_and_registered(shipped_registry: Any) -> None:
    generator = get_generator("docs")
    first = generator(shipped_registry, GenerateContext(source="opsets"))
    second = generator(shipped_registry, GenerateContext(source="opsets"))
    assert first == second
    assert all(path.startswith("docs/") for path in first)
    assert all(
        b"generated by opset-toolkit from opsets; do not edit" in data
        for p, data in first.items()
        if p.endswith(".md")
    )
    nav = json.loads(first["docs/nav.json"])
    listed = set(_leaves(nav))
    assert listed == {p[len("docs/") :] for p in first if p.endswith(".md")}


def _leaves(entry: Any) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    values = entry.values() if isinstance(entry, dict) else entry
    return [leaf for value in values for leaf in _leaves(value)]


def test_checked_in_docs_are_current() -> None:
    """generated/docs/ is what `opset generate` writes now (the CLI and DSL pages included)."""
    result = generate_tree(
        [REPO / "opsets"],
        REPO / "generated",
        kinds=["docs"],
        check=True,
        source="opsets",
        cache=False,
        cli_parser=build_parser,
    )
    stale = [change.path for change in result.changes]
    assert not stale, f"run `opset generate --only docs`; stale: {stale}"


# --------------------------------------------------------------------------- sanitising


def test_raw_html_is_escaped_outside_code() -> None:
    safe = sanitize("Use <b>bold</b> or <script>alert(1)</script>, see <https://onnx.ai>, `a<i>c` and 1 < 2.")
    assert "<b>" not in safe.text and "<script>" not in safe.text
    assert "&lt;b>bold&lt;/b>" in safe.text and "&lt;script>" in safe.text
    assert "<https://onnx.ai>" in safe.text and "`a<i>c`" in safe.text and "1 < 2" in safe.text
    assert [i.rule for i in safe.issues] == ["DOC-HTML"]
    fenced = sanitize("```html\n<div>kept</div>\n```")
    assert "<div>kept</div>" in fenced.text and not fenced.issues


def test_unbalanced_fence_is_closed_and_reported() -> None:
    safe = sanitize("Example:\n\n```python\nx = 1\n")
    assert safe.text.endswith("x = 1\n```")
    assert [(i.rule, i.line) for i in safe.issues] == [("DOC-FENCE", 3)]
    assert "never closed" in safe.note
    assert inline("a\n```\ncode") is None  # a table cell cannot hold it: rendered as a block


def test_headings_are_demoted_and_pipes_escaped() -> None:
    safe = sanitize("# Title\ntext", min_heading=4)
    assert safe.text.startswith("#### Title")
    assert inline("a | b `c|d`\nsecond line") == "a \\| b `c|d` second line"


def _write_spec(root: Path, doc: str) -> Path:
    domain = root / "com.example.bad"
    domain.mkdir(parents=True)
    (domain / "domain.yaml").write_text(
        "domain: com.example.bad\nopset_versions:\n  - {version: 1, ir_version: 9}\n", encoding="utf-8"
    )
    (domain / "Op.yaml").write_text(
        "operator: Op\ndomain: com.example.bad\nversions:\n  - since_version: 1\n    doc: |\n"
        + "".join(f"      {line}\n" for line in doc.splitlines())
        + "    inputs:\n      - {name: X, type: tensor(float), doc: 'a <i>b</i> | c'}\n"
        "    outputs:\n      - {name: Y, type: tensor(float)}\n",
        encoding="utf-8",
    )
    return root


def test_generated_pages_never_pass_bad_markup_through(tmp_path: Path) -> None:
    registry = load_registry(
        [_write_spec(tmp_path, "Hi <script>x()</script>\n\n```\nopen fence")], cache=False
    )
    out = render_docs(registry, "specs")
    for path in ("com.example.bad/Operators.md", "com.example.bad/ops/Op.md", "com.example.bad/Changelog.md"):
        page = out[path]
        assert "<script>" not in page and "<i>" not in page
        assert "&lt;script>x()&lt;/script>" in page
        assert "| `X` | `tensor(float)` |  | a &lt;i>b&lt;/i> \\| c |" in page
        assert "this doc text was repaired for display" in page
        assert page.count("```") % 2 == 0
    rules = sorted({(d.rule, d.location.file.endswith("Op.yaml")) for d in registry.diagnostics})
    assert rules == [("DOC-FENCE", True), ("DOC-HTML", True)]


# --------------------------------------------------------------------------- references


def _schema_keys(node: Any) -> set[str]:
    keys: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            keys.add(key)
            keys |= _schema_keys(value)
        for value in node.values():
            if isinstance(value, (dict, list)):
                keys |= _schema_keys(value)
    elif isinstance(node, list):
        for item in node:
            keys |= _schema_keys(item)
    return keys


def test_dsl_reference_covers_every_schema_key(pages: dict[str, str]) -> None:
    text = pages["dsl.md"]
    from toolkit.generate.docs.reference import SCHEMA_FILES

    for _prefix, name, _where in SCHEMA_FILES:
        schema_file = REPO / "schemas" / name
        for key in _schema_keys(json.loads(schema_file.read_text(encoding="utf-8"))):
            assert f"| `{key}` |" in text, f"{schema_file.name}: key {key} missing from dsl.md"


def test_cli_reference_covers_every_command_and_option(pages: dict[str, str]) -> None:
    import argparse

    from toolkit.cli import build_parser

    text = pages["cli.md"]
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert f'<a id="opset-{name}"></a>opset {name}' in text
        for action in command._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert option in text.split(f'opset-{name}"></a>')[1].split("\n## ")[0], (name, option)
