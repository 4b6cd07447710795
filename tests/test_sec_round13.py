# ruff: noqa: F811  (fixtures imported from test_lsp are taken as parameters of the same names)
"""Round 13 of the security audit: one definition of each guard, and spec text inert in every
generated Markdown and header line.

Every hostile input is built at test time (spec trees with payloads, folders named with line
breaks, planted manifests and journals, git trees made with `git mktree`), the CLI runs in-process
(`toolkit.cli.main`), and each test fails on the code before the fix:

1. spec text reaches no generated Markdown as live markup: the python kind's README went through an
   escaper of its own (a release name's `|` only), and a code span in a table cell was cut at its
   `|` by CommonMark-table renderers (the docs pages' release names, string defaults); the spec
   label of every header line could hold a line break (code of the tree's choosing in every
   generated Python module);
2. one test of a plain relative path (`load.files.path_problem`) for the manifest, the commit
   journal, generator outputs, git tree entries, the mkdocs mount and example file references;
3. FILE-ENCODING said one way for spec and project files;
4. the language server reads integers as the loader does (`²`, 5000 digits);
5. the language server composes YAML through the loader's depth guard.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from lsprotocol import types as lsp
from output_helpers import DOMAINS, tree_state
from output_helpers import cli_text as _cli
from pytest_lsp import LanguageClient
from site_markdown import render_cm, render_pm
from test_lsp import _diagnostics, client, tree  # noqa: F401  (test_lsp's fixtures, shared)
from test_sec_docs_xss import live_markup
from test_sec_gitref import _blob, _commit_with, _git, _nested

from toolkit.generate import GENERATORS, GenerateContext
from toolkit.generate.running import GeneratorError, run_generators
from toolkit.load import yamlsrc
from toolkit.load.files import path_problem
from toolkit.load.journal import JOURNAL, JOURNAL_FORMAT
from toolkit.load.manifest import FORMAT, MANIFEST, read_manifest
from toolkit.lsp.yamlpos import Document
from toolkit.registry.core import load_registry

REPO = Path(__file__).resolve().parent.parent
MARKER = "PWNED"  # what injected code would create


def _project(root: Path, spec_root: str = "specs") -> Path:
    """The repository's example domains and release table under `root/<spec_root>`."""
    specs = root / spec_root
    for domain in DOMAINS:
        shutil.copytree(REPO / "opsets" / domain, specs / domain)
    shutil.copy(REPO / "opsets" / "releases.yaml", specs / "releases.yaml")
    (root / "opset.toml").write_text(f"spec_root = {json.dumps(spec_root)}\n")  # JSON's escapes are TOML's
    return specs


# --------------------------------------------------------------------------- 1: Markdown

RELEASE = "1.0 <img src=x onerror=alert(1)> [click](javascript:alert(1)) | # <b onmouseover=alert(2)>x</b>"
DEFAULT = "a|<img src=x onerror=alert(3)>"


def test_spec_text_in_tables_and_the_readme_is_inert(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A release name and a string default holding a `|` next to HTML and a script link: the
    python README and the docs pages render (CommonMark with tables, as PyPI and GitHub do, and
    Python-Markdown with the site's extensions) with no live markup, and the text is there."""
    specs = _project(here)
    releases = specs / "releases.yaml"
    releases.write_text(releases.read_text().replace('"2024.1"', json.dumps(RELEASE)))
    fused = specs / "com.acme.vision" / "FusedConv.yaml"
    attribute = f"      mode: {{type: string, default: {json.dumps(DEFAULT)}, doc: Mode.}}\n"
    lines = fused.read_text().splitlines(keepends=True)
    lines.insert(next(i for i, line in enumerate(lines) if "group: {type: int" in line) + 1, attribute)
    fused.write_text("".join(lines))
    assert _cli(capsys, "validate")[0] == 0
    code, text = _cli(capsys, "generate", "--no-cache", "--only", "docs,python")
    assert code == 0, text
    out = here / "generated"
    pages = {
        "python/README.md": RELEASE,
        "docs/releases.md": RELEASE,
        "docs/com.acme.vision/ops/FusedConv.md": DEFAULT,
    }
    for page, payload in pages.items():
        markdown = (out / page).read_text()
        for render in (render_cm, render_pm):
            html = render(markdown)
            assert not live_markup(html), (page, render.__name__, live_markup(html))
            assert "<img" not in html and "<b " not in html and 'href="javascript' not in html, (page, html)
            assert payload.split("=")[1][:3] in html  # shown as text, not dropped


def test_a_release_name_with_a_line_break_is_a_located_error(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = _project(here)
    releases = specs / "releases.yaml"
    text = releases.read_text()
    releases.write_text(text.replace('"2025.1"', json.dumps("2025.1\n\n# Injected heading")))
    line = text[: text.index('"2025.1"')].count("\n") + 1
    column = text.index('"2025.1"') - text.rfind("\n", 0, text.index('"2025.1"'))
    code, out = _cli(capsys, "validate")
    assert code == 1, out
    assert f"specs/releases.yaml:{line}:{column}: error[SCHEMA-VALUE]: `releases[1].release`" in out, out
    assert "hint: " in out and "one line of text, without control characters" in out


def test_a_spec_root_named_with_a_line_break_is_inert_in_every_header(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The spec label of the header line names the tree's spec_root folder: a line break, `-->` and
    a quote in it end no comment and no string, so importing the generated package runs nothing
    of the tree's, its pyproject.toml parses to one description, and no page holds live markup."""
    name = f'sp\nimport os; open("{MARKER}", "w") #--><img src=x onerror=alert(4)>"'
    (here / name).mkdir()
    _project(here, name)
    code, text = _cli(capsys, "generate", "--no-cache")
    assert code == 0, text
    out = here / "generated"
    headers = 0
    for path in out.rglob("*"):
        data = path.read_bytes() if path.is_file() else b""
        if data.startswith((b"# generated", b"<!-- generated")):
            headers += 1
            head = data.decode().split("\n", 1)[0]
            assert "generated by opset-toolkit from sp\\nimport os" in head, (path, head)
            assert "<" not in head.replace("<!--", "") and ">" not in head.replace("-->", ""), (path, head)
    assert headers > 50  # every Python module, page, TOML and text document
    import tomllib

    description = tomllib.loads((out / "python/pyproject.toml").read_text())["project"]["description"]
    assert description.endswith('onerror=alert(4)\\u003e".')
    probe = "import opset_toolkit_generated.com_acme_vision.opset1, opset_toolkit_generated"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=here,
        env={**os.environ, "PYTHONPATH": str(out / "python")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert not (here / MARKER).exists()
    for page in ("python/README.md", "docs/index.md"):
        assert not live_markup(render_cm((out / page).read_text())), page


# --------------------------------------------------------------------------- 2: plain relative paths

# (path under a kind's folder, why it is refused): one table for every entry point.
HOSTILE = [
    ("docs/../x.md", "a `..` component"),
    ("docs/a/./b.md", "a `.` component"),
    ("docs/a//b.md", "a `(empty)` component"),
    ("docs/.git/HEAD", "a `.git` component"),
    ("docs/.GIT/x.md", "a `.git` component"),
    ("docs/git~1/x.md", "a `.git` component"),
    ("docs/a\\b.md", "a backslash"),
    ("docs/C:x.md", "a `:`"),
    ("docs/x\x1b[31m.md", "U+001B"),
    ("docs/two\nlines.md", "U+000A"),
    ("docs/rtl\u202elmy.md", "U+202E"),
]
# What a git tree can hold of them (git refuses empty names; `.` has its own test there).
IN_GIT = [(p, why) for p, why in HOSTILE if "//" not in p and "/./" not in p]


@pytest.mark.parametrize(("path", "why"), [*HOSTILE, ("/docs/x.md", "an absolute path"), ("", "empty")])
def test_the_one_checker_names_the_reason(path: str, why: str) -> None:
    problem = path_problem(path)
    assert problem is not None and why in problem, problem


@pytest.mark.parametrize(("path", "why"), HOSTILE)
def test_manifest_entries_are_plain_paths(tmp_path: Path, path: str, why: str) -> None:
    """A manifest listing one hostile entry (with a digest of the right form) is no manifest."""
    good = {"docs/index.md": "0" * 64}
    record = {"format": FORMAT, "kinds": {"docs": {**good, path: "0" * 64}}}
    (tmp_path / MANIFEST).write_text(json.dumps(record))
    assert read_manifest(tmp_path) == {}, why
    (tmp_path / MANIFEST).write_text(json.dumps({"format": FORMAT, "kinds": {"docs": good}}))
    assert read_manifest(tmp_path) == {"docs": good}  # the same manifest without it is read


@pytest.mark.parametrize(("path", "why"), HOSTILE)
def test_a_journal_naming_a_path_that_is_not_plain_is_refused_whole(
    here: Path, capsys: pytest.CaptureFixture[str], path: str, why: str
) -> None:
    _project(here)
    out = here / "generated"
    out.mkdir()
    (out / ".git").mkdir()
    (out / ".git/HEAD").write_text("ref: refs/heads/main\n")
    record = {"format": JOURNAL_FORMAT, "renames": [], "removals": [path, "docs/keep.md"], "last": MANIFEST}
    (out / JOURNAL).write_text(json.dumps(record))
    (out / "docs").mkdir()
    (out / "docs/keep.md").write_text("mine\n")
    before = tree_state(here)
    code, text = _cli(capsys, "generate", "--no-cache", "--only", "docs")
    assert code == 2, (why, text)
    assert "not a commit journal opset-toolkit wrote" in text and "nothing of it was applied" in text
    assert tree_state(here) == before


@pytest.mark.parametrize(("path", "why"), HOSTILE)
def test_a_generator_output_that_is_not_a_plain_path_is_refused(
    monkeypatch: pytest.MonkeyPatch, path: str, why: str
) -> None:
    registry = load_registry([REPO / "opsets" / "org.example.abc"])
    monkeypatch.setitem(GENERATORS, "docs", lambda r, c: {path: b"x"})
    with pytest.raises(GeneratorError, match="unsafe path") as raised:
        run_generators(registry, GenerateContext(), ["docs"])
    assert why in str(raised.value)


@pytest.mark.parametrize(("path", "why"), IN_GIT)
def test_a_git_tree_entry_that_is_not_a_plain_path_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], path: str, why: str
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "opsets" / "org.example.abc", repo / "opsets" / "org.example.abc")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "abc")
    names = [part.encode() for part in path.removeprefix("docs/").split("/")]
    names[-1] = names[-1].removesuffix(b".md").removesuffix(b"HEAD") + b"Evil.yaml"
    blob = _blob(repo, b"operator: Evil\n")
    mode, kind, oid, name = _nested(repo, names, ("100644", "blob", blob))
    commit = _commit_with(repo, (mode, kind, oid, b"abc/" + name))
    monkeypatch.chdir(repo)
    before = tree_state(tmp_path)
    code, text = _cli(capsys, "diff", "--against", commit)
    assert code == 2, text
    [line] = [line for line in text.splitlines() if "error[FILE-GIT-PATH]" in line]
    assert why in line, line
    assert tree_state(tmp_path) == before


@pytest.mark.parametrize(("path", "why"), HOSTILE)
def test_the_mkdocs_mount_is_a_plain_path(tmp_path: Path, path: str, why: str) -> None:
    from mkdocs.exceptions import PluginError

    from toolkit.mkdocs_plugin.plugin import _check_options

    (tmp_path / ".git").mkdir()
    (tmp_path / "opsets").mkdir()
    options = SimpleNamespace(mount=path)
    with pytest.raises(PluginError) as raised:
        _check_options(options, tmp_path / "opsets", tmp_path)  # type: ignore[arg-type]
    assert why in str(raised.value) and "\n" not in str(raised.value) and "\x1b" not in str(raised.value)
    _check_options(SimpleNamespace(mount="reference/ops"), tmp_path / "opsets", tmp_path)  # type: ignore[arg-type]


def test_an_example_file_reference_is_a_plain_path(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = _project(here)
    fused = specs / "com.acme.vision" / "FusedConv.yaml"
    text = fused.read_text()
    first = text.index("        inputs:\n          - {dtype: float")
    hostile = '        inputs:\n          - {file: "C:x.npy"}\n          - {file: ".git/x.npy"}\n'
    end = text.index("        outputs:", first)
    fused.write_text(text[:first] + hostile + text[end:])
    code, out = _cli(capsys, "validate")
    assert code == 1, out
    errors = [line for line in out.splitlines() if "error[EXAMPLE-FILE]" in line]
    assert len(errors) == 2 and "a `:`" in errors[0] and "a `.git` component" in errors[1], out
    assert all(line.startswith("specs/com.acme.vision/FusedConv.yaml:") for line in errors)


# --------------------------------------------------------------------------- 3: FILE-ENCODING


def test_file_encoding_is_one_message_for_spec_and_project_files(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = _project(here)
    spec = specs / "org.example.abc" / "domain.yaml"
    spec.write_bytes(spec.read_bytes().replace(b"\n", b"\n# caf\xe9\n", 1))
    code, out = _cli(capsys, "validate")
    assert (
        code == 1
        and "specs/org.example.abc/domain.yaml:2:6: error[FILE-ENCODING]: byte 0xe9 is not valid UTF-8" in out
    ), out
    (here / "opset.toml").write_bytes(b'spec_root = "specs"\n# caf\xe9\n')
    code, out = _cli(capsys, "validate")
    assert code == 2 and "opset.toml:2:6: error[FILE-ENCODING]: byte 0xe9 is not valid UTF-8" in out, out
    assert "hint: save the file as UTF-8" in out


# --------------------------------------------------------------------------- 4 and 5: the language server

FUSED = "opsets/com.acme.vision/FusedConv.yaml"


def _at(text: str, needle: str, offset: int = 0) -> lsp.Position:
    index = text.index(needle) + offset
    return lsp.Position(line=text.count("\n", 0, index), character=index - (text.rfind("\n", 0, index) + 1))


def _change(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _busy(client: LanguageClient, tree: Path, version: int) -> None:
    """An edit of another operator file whose check takes a while (a doc of a few MB to read and
    analyse): the edit after it is checked only once that check is done."""
    path = tree / "opsets/com.acme.vision/Normalize.yaml"
    text = path.read_text()
    big = "    doc: |\n" + "      Some *text* with `code` and [a link](https://onnx.ai).\n" * 40_000
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("    doc:"))
    busy = "".join([*lines[:at], big, *lines[at + 1 :]])
    if version == 2:
        item = lsp.TextDocumentItem(uri=path.as_uri(), language_id="yaml", version=version, text=busy)
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
    else:
        _change(client, path.as_uri(), busy + "#" * version + "\n", version)


@pytest.mark.asyncio
@pytest.mark.parametrize("number", ["²", "9" * 5000])
async def test_hover_and_definition_on_a_number_python_cannot_read(
    client: LanguageClient, tree: Path, number: str
) -> None:
    """`since_version: ²` ('²'.isdigit() is True, int('²') raises) and a 5000-digit `since_version`
    / `based_on` (past Python's 4300-digit limit), asked about right after the edit, while the
    server still holds the operator of the last text it checked (the checking thread is busy with
    a large edit of another file, made just before): every request answers, none is a server
    error, and the server goes on."""
    path = tree / FUSED
    good = path.read_text()
    uri = path.as_uri()
    item = lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=good)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
    await _diagnostics(client, uri, 1)
    doc = lsp.TextDocumentIdentifier(uri=uri)
    version = 1
    for key, spelled in (("since_version", "since_version: 2\n"), ("based_on", "based_on: 1\n")):
        hostile = good.replace(spelled, f"{key}: {number}\n")
        at = _at(hostile, f"{key}: {number}", len(key) + 2)
        version += 1
        _busy(client, tree, version)
        _change(client, uri, hostile, version)  # the requests reach the server before its check ends
        requests = [
            client.text_document_hover_async(lsp.HoverParams(doc, at)),
            client.text_document_definition_async(lsp.DefinitionParams(doc, at)),
            client.text_document_references_async(
                lsp.ReferenceParams(
                    context=lsp.ReferenceContext(include_declaration=True), text_document=doc, position=at
                )
            ),
        ]
        for answer in await asyncio.gather(*requests):
            assert answer is None or isinstance(answer, (lsp.Hover, lsp.Location, list, tuple))
        version += 1
        _change(client, uri, good, version)
        await _diagnostics(client, uri, version)
    hover = await client.text_document_hover_async(lsp.HoverParams(doc, _at(good, "based_on: 1", 10)))
    assert hover is not None and "FusedConv-1" in str(hover.contents)


def test_the_language_server_composes_through_the_loaders_depth_guard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a composer that recurses without a limit (libyaml before 0.2.5, pure PyYAML), the
    loader walks the events first and refuses a document nested past MAX_DEPTH; the server's
    buffers are composed by the same `yamlsrc.compose`, so they are guarded too."""
    checked: list[str] = []
    monkeypatch.setattr(yamlsrc, "_COMPOSER_BOUNDED", False)
    real = yamlsrc._check_depth
    monkeypatch.setattr(
        yamlsrc, "_check_depth", lambda text, display: (checked.append(text), real(text, display))
    )
    deep = "a: " + "[" * (yamlsrc.MAX_DEPTH + 5) + "]" * (yamlsrc.MAX_DEPTH + 5) + "\n"
    document = Document(deep)
    assert checked == [deep] and document.root is None
    shallow = Document("operator: X\nversions: [{since_version: 1}]\n")
    assert shallow.root is not None and len(checked) == 2
