"""`opset lsp`, second step (issue #28), driven by a real LSP client over stdio (pytest-lsp, VS
Code's client capabilities): the gate against a git ref as you type (set in initializationOptions
and by didChangeConfiguration; the ref's tree read once per commit; no plugin imported even when
the tree and the environment name one), hover and definition of an operator a function body names (in the
spec tree, in the onnx catalog, and without onnx), references of `based_on` targets and type
parameters, the quick fix of a duplicate key, every diagnostic's doc link, and the VS Code settings
`opset init` writes."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp import FUSED, _at, _change, _client, _diagnostics, _open, _until

from toolkit.model.rules import CATALOG, DOCS_URL
from toolkit.reporting.catalog import load_catalog

REPO = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, "-m", "toolkit", "lsp"]


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The shipped specs committed on `main` of a fresh repository: the released tree."""
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "released")
    return tmp_path


def _digest(top: Path) -> dict[str, str]:
    return {
        str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(top.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(top).parts
    }


async def _start(client: LanguageClient, root: Path, options: object = None) -> None:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="specs")],
        initialization_options=options,
    )
    await client.initialize_session(params)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=_client))
async def gated(lsp_client: LanguageClient, repo: Path) -> AsyncIterator[None]:
    await _start(lsp_client, repo, {"opset": {"gate": {"against": "main"}}})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=_client))
async def plain(lsp_client: LanguageClient, repo: Path) -> AsyncIterator[None]:
    await _start(lsp_client, repo)
    yield
    await lsp_client.shutdown_session()


_SHADOW = Path(tempfile.gettempdir()) / f"opset-lsp-no-onnx-{os.getpid()}"  # made by the fixture below


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER,
        client_factory=_client,
        # onnx cannot be imported and no imported catalog is cached: as on a machine without onnx
        server_env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(_SHADOW), os.environ.get("PYTHONPATH", "")]),
            "OPSET_TOOLKIT_CACHE": str(_SHADOW / "cache"),
        },
    )
)
async def no_onnx(lsp_client: LanguageClient, repo: Path) -> AsyncIterator[None]:
    await _start(lsp_client, repo)
    yield
    await lsp_client.shutdown_session()


_PLUGINS = _SHADOW / "plugins"  # a gate plugin that leaves a marker when imported
_MARKER = _SHADOW / "plugin-ran"


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER,
        client_factory=_client,
        # the invoker's environment opts in to plugins, the tree's opset.toml names one: the
        # language server still imports none
        server_env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(_PLUGINS), os.environ.get("PYTHONPATH", "")]),
            "OPSET_TOOLKIT_PLUGINS": "lsp_marker_plugin",
            "OPSET_TOOLKIT_ALLOW_PLUGINS": "1",
        },
    )
)
async def gated_with_plugins(lsp_client: LanguageClient, repo: Path) -> AsyncIterator[None]:
    (repo / "opset.toml").write_text('spec_root = "opsets"\nplugins = ["lsp_marker_plugin"]\n')
    await _start(lsp_client, repo, {"opset": {"gate": {"against": "main"}}})
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module", autouse=True)
def _helper_packages() -> AsyncIterator[None]:  # type: ignore[misc]
    """A package `onnx` that fails to import, put first on the no_onnx server's path, and the
    marker plugin."""
    package = _SHADOW / "onnx"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("raise ImportError('onnx hidden by the test', name='onnx')\n")
    _PLUGINS.mkdir(exist_ok=True)
    (_PLUGINS / "lsp_marker_plugin.py").write_text(f"open({str(_MARKER)!r}, 'w').close()\n")
    yield
    shutil.rmtree(_SHADOW, ignore_errors=True)


_ANCHORS: dict[str, set[str]] = {}


def _assert_doc_link(diag: lsp.Diagnostic) -> None:
    """The diagnostic links its rule's doc, the SARIF writer's helpUri, and that page of docs/
    has a heading with that anchor (GitHub's and mkdocs' slug: lower-cased, spaces to dashes)."""
    load_catalog()
    rule = CATALOG.get(str(diag.code))
    assert rule is not None and diag.code_description is not None, diag
    assert diag.code_description.href == rule.help_uri
    page, _, anchor = rule.help_uri[len(DOCS_URL) :].partition("#")
    if page not in _ANCHORS:
        text = re.sub(r"(?ms)^```.*?^```", "", (REPO / "docs" / page).read_text())
        _ANCHORS[page] = {
            re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"(?m)^#+ (.+)$", text)
        }
    assert anchor in _ANCHORS[page], rule.help_uri


def _hover(client: LanguageClient, uri: str, at: lsp.Position) -> object:
    return client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), at))


async def _hover_text(client: LanguageClient, uri: str, at: lsp.Position) -> str:
    found = await _hover(client, uri, at)
    return found.contents.value if found is not None else ""  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- the gate


@pytest.mark.asyncio
async def test_gate_against_main_reports_a_breaking_edit_as_you_type(
    gated: LanguageClient, repo: Path
) -> None:
    client = gated
    before = _digest(repo)
    path = repo / FUSED
    released = path.read_text()
    uri = _open(client, path, released)
    assert await _diagnostics(client, uri, 1) == []
    # version 1 (released in opset 1) loses its attribute `group`: breaking, reported in the buffer
    edited = released.replace(
        "      group: {type: int, default: 1, doc: Number of groups input channels and filters are split into.}\n",
        "",
        1,
    )
    assert edited != released
    _change(client, uri, edited, 2)
    diags = await _diagnostics(client, uri, 2)
    gate = [d for d in diags if "(gate against main)" in d.message]
    assert gate, [d.message for d in diags]
    load_catalog()
    for diag in gate:
        rule = CATALOG.get(str(diag.code))
        assert rule is not None and rule.family == "gate"
        _assert_doc_link(diag)
    assert all(d.range.start.line < edited.index("since_version: 2") for d in gate)
    # typing on: the ref's tree is not read again; back to the released text, the findings go
    for version in range(3, 6):
        _change(client, uri, edited + f"# {version}\n", version)
    await _diagnostics(client, uri, 5)
    _change(client, uri, released, 6)
    assert await _diagnostics(client, uri, 6) == []
    reads = {m.message for m in client.log_messages if "old tree read" in m.message}
    assert reads == {"opset: gate against main: old tree read 1 time(s)"}, reads
    # the setting switched off: no gate findings for the same edit
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"opset": {"gate": {"against": ""}}})
    )
    _change(client, uri, edited, 7)
    assert not [d for d in await _diagnostics(client, uri, 7) if "gate against" in d.message]
    # a ref that does not exist: said once, the checks go on
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"opset": {"gate": {"against": "no-such-branch"}}})
    )
    await _until(
        lambda: [m for m in client.messages if "no-such-branch" in m.message],  # type: ignore[attr-defined]
        "a message about the ref",
    )
    _change(client, uri, edited.replace('"@float_types"', '"@float_typs"', 1), 8)
    assert "TYPE-SET-UNKNOWN" in [d.code for d in await _diagnostics(client, uri, 8)]
    assert _digest(repo) == before  # nothing written


@pytest.mark.asyncio
async def test_gate_imports_no_plugin_and_follows_the_ref_to_its_new_commit(
    gated_with_plugins: LanguageClient, repo: Path
) -> None:
    client = gated_with_plugins
    path = repo / FUSED
    edited = path.read_text().replace("since_version: 2", "since_version: 3", 1)  # a released version moved
    uri = _open(client, path, edited)
    diags = await _diagnostics(client, uri, 1)
    assert [d for d in diags if "(gate against main)" in d.message], [d.message for d in diags]
    assert not _MARKER.exists()
    # main moves on to the edited text: once the ref is resolved again, nothing breaks any more
    path.write_text(edited)
    _git(repo, "commit", "-q", "-am", "moved")
    version = 1
    while True:
        version += 1
        _change(client, uri, edited + f"# {version}\n", version)
        if not [d for d in await _diagnostics(client, uri, version) if "gate against" in d.message]:
            break
        assert version < 60, "the gate never saw main's new commit"
        await asyncio.sleep(0.2)
    # The server logs the count after publishing the diagnostics: wait for that log line, then
    # check that no third read followed it.
    await _until(
        lambda: [m for m in client.log_messages if m.message.endswith("old tree read 2 time(s)")],
        "the log of the second read",
    )
    said = [m.message for m in client.log_messages if "old tree read" in m.message]
    assert said[-1] == "opset: gate against main: old tree read 2 time(s)", said


@pytest.mark.asyncio
async def test_gate_setting_pushed_after_start_and_a_renamed_operator(
    plain: LanguageClient, repo: Path
) -> None:
    client = plain
    path = repo / FUSED
    released = path.read_text()
    renamed = released.replace("operator: FusedConv", "operator: FusedConvolution", 1)
    uri = _open(client, path, renamed)
    assert not [d for d in await _diagnostics(client, uri, 1) if "gate against" in d.message]
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"opset.gate.against": "main"})
    )
    found = await _until(
        lambda: [d for d in client.diagnostics.get(uri, []) if "gate against main" in d.message],
        "the gate's findings once the setting arrives",
    )
    assert any(str(d.code).startswith("OP") for d in found), [(d.code, d.message) for d in found]


# --------------------------------------------------------------------------- function bodies

BODY_LINE = "        Y = Conv <strides: ints = @strides, pads: ints = @pads, group: int = @group> (X, W, B)\n"


def _with_vendor_node(text: str) -> str:
    """FusedConv-1's body also running com.acme.vision.Normalize at opset 1 of the domain."""
    return text.replace(
        "      opset_imports: {ai.onnx: 19}\n      body: |\n" + BODY_LINE,
        "      opset_imports: {ai.onnx: 19, com.acme.vision: 1}\n      body: |\n"
        + BODY_LINE
        + "        Z = com.acme.vision.Normalize <mean: floats = [0.0], std: floats = [1.0]> (Y)\n",
        1,
    )


@pytest.mark.asyncio
async def test_operator_in_a_function_body_hover_and_definition(plain: LanguageClient, repo: Path) -> None:
    client = plain
    path = repo / FUSED
    text = _with_vendor_node(path.read_text())
    assert "com.acme.vision.Normalize" in text
    uri = _open(client, path, text)
    await _diagnostics(client, uri, 1)
    # a vendor operator: the version in effect at the body's import, from the spec tree
    at = _at(text, "com.acme.vision.Normalize", len("com.acme.vision.No"))
    shown = await _hover_text(client, uri, at)
    assert "`com.acme.vision.Normalize` at opset 1: version 1" in shown, shown
    assert "input X: T" in shown and "attribute mean: floats (required)" in shown
    target = await client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), at)
    )
    normalize = repo / "opsets/com.acme.vision/Normalize.yaml"
    assert isinstance(target, lsp.Location) and target.uri == normalize.as_uri()
    assert target.range.start == _at(normalize.read_text(), "since_version: 1")
    # not operators: an output name, an attribute reference, a tensor's element type
    for needle, offset in (("Y = Conv", 0), ("ints = @strides", 9), ("Z = com", 0)):
        assert await _hover_text(client, uri, _at(text, needle, offset)) == "", needle
    # an ai.onnx operator: from the installed onnx's catalog, loaded in the background
    conv = _at(text, "Y = Conv", 5)
    expected = "`ai.onnx.Conv` at opset 19: version 11" if _has_onnx() else "not loaded"
    shown = await _until(_hover_poll(client, uri, conv, expected), "the onnx catalog", timeout=60)
    assert "`ai.onnx.Conv` at opset 19" in shown
    assert (
        await client.text_document_definition_async(
            lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), conv)
        )
        is None
    )  # not a file of the tree


def _has_onnx() -> bool:
    try:
        import onnx  # noqa: F401
    except ImportError:
        return False
    return True


def _hover_poll(client: LanguageClient, uri: str, at: lsp.Position, expected: str):  # type: ignore[no-untyped-def]
    """A condition for `_until` that asks for the hover again each time (the catalog loads in
    the server's checking thread); truthy with the text once it says `expected`."""
    pending: list[object] = []

    def poll() -> str:
        if pending and pending[0].done():  # type: ignore[attr-defined]
            found = pending.pop().result()  # type: ignore[attr-defined]
            value = found.contents.value if found is not None else ""
            if expected in value:
                return str(value)
        if not pending:
            import asyncio

            pending.append(asyncio.ensure_future(_hover(client, uri, at)))  # type: ignore[arg-type]
        return ""

    return poll


@pytest.mark.asyncio
async def test_onnx_operator_hover_without_onnx_says_not_loaded(no_onnx: LanguageClient, repo: Path) -> None:
    client = no_onnx
    path = repo / FUSED
    text = path.read_text()
    uri = _open(client, path, text)
    await _diagnostics(client, uri, 1)
    conv = _at(text, "Y = Conv", 5)
    shown = await _until(_hover_poll(client, uri, conv, "not installed"), "the hover without onnx")
    assert shown.startswith("`ai.onnx.Conv` at opset 19: the onnx catalog is not loaded: ")
    assert "needs the onnx package, which is not installed" in shown
    assert not (_SHADOW / "cache").exists() or not any((_SHADOW / "cache").glob("onnx-catalog-*"))


# --------------------------------------------------------------------------- references, quick fix


@pytest.mark.asyncio
async def test_references_of_based_on_and_type_parameters(plain: LanguageClient, repo: Path) -> None:
    client = plain
    path = repo / FUSED
    text = path.read_text()
    uri = _open(client, path, text)
    await _diagnostics(client, uri, 1)
    doc = lsp.TextDocumentIdentifier(uri=uri)

    async def refs(at: lsp.Position, declaration: bool = True) -> list[tuple[int, int]]:
        found = await client.text_document_references_async(
            lsp.ReferenceParams(
                context=lsp.ReferenceContext(include_declaration=declaration), text_document=doc, position=at
            )
        )
        assert all(r.uri == uri for r in found or [])
        return sorted((r.range.start.line, r.range.start.character) for r in found or [])

    lines = text.split("\n")
    based = [(n, line.index("1")) for n, line in enumerate(lines) if line.strip() == "based_on: 1"]
    assert based
    version_1 = _at(text, "- since_version: 1", 2)
    assert await refs(_at(text, "since_version: 1", 15), declaration=False) == based
    assert await refs(_at(text, "based_on: 1", 10), declaration=False) == based
    assert (version_1.line, version_1.character) in await refs(_at(text, "based_on: 1", 10))
    # T of version 1: the inputs X, W, B and the output Y (their `type: T`), and its constraint
    end_of_v1 = text.index("since_version: 2")
    typed = [
        (text.count("\n", 0, m.start("t")), m.start("t") - (text.rfind("\n", 0, m.start("t")) + 1))
        for m in re.finditer(r"type: (?P<t>T)\b", text[:end_of_v1])
    ]
    assert len(typed) == 4
    assert await refs(_at(text, "      T: {allowed", 6), declaration=False) == typed
    from_input = await refs(_at(text, "{name: W, type: T", 16))
    assert set(typed) < set(from_input) and len(from_input) == 5


@pytest.mark.asyncio
async def test_duplicate_key_quick_fix_removes_the_second_entry(plain: LanguageClient, repo: Path) -> None:
    client = plain
    path = repo / FUSED
    good = path.read_text()
    line = '      pads: {type: ints, default: [0, 0, 0, 0], doc: "Padding as (top, left, bottom, right)."}\n'
    dup = "      pads:\n        type: ints\n        default: [0, 0]\n"
    text = good.replace(line, line + dup, 1)
    uri = _open(client, path, text)
    [found] = await _diagnostics(client, uri, 1)
    assert found.code == "YAML-DUPLICATE-KEY"
    assert found.range.start == _at(text, dup, 6)  # the second key
    _assert_doc_link(found)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), found.range, lsp.CodeActionContext(diagnostics=[found])
        )
    )
    [fix] = [
        a for a in actions or [] if isinstance(a, lsp.CodeAction) and a.title == "Remove the duplicate key"
    ]
    [edit] = fix.edit.changes[uri]  # type: ignore[union-attr,index]
    lines = text.split("\n")
    start, end = edit.range.start, edit.range.end
    fixed = "\n".join(
        [
            *lines[: start.line],
            lines[start.line][: start.character] + lines[end.line][end.character :],
            *lines[end.line + 1 :],
        ]
    )
    assert fixed == good
    _change(client, uri, fixed, 2)
    assert await _diagnostics(client, uri, 2) == []
    # the doc links of other families' findings: a spec rule and a schema rule
    _change(client, uri, good.replace('"@float_types"', '"@float_typs"', 1).replace("group:", "grup:", 1), 3)
    diags = await _diagnostics(client, uri, 3)
    assert {"TYPE-SET-UNKNOWN"} <= {str(d.code) for d in diags} and len(diags) >= 2
    for diag in diags:
        _assert_doc_link(diag)


def test_remove_entry_of_a_flow_mapping_takes_the_comma_before_it() -> None:
    from toolkit.lsp.actions import remove_entry
    from toolkit.lsp.yamlpos import Document

    text = "inputs:\n  - {name: X, type: T, name: Y}\n"
    column = text.split("\n")[1].rindex("name")
    span = remove_entry(Document(text), 1, column)
    assert span is not None
    (l0, c0), (l1, c1) = span
    line = text.split("\n")[1]
    assert (l0, l1) == (1, 1) and line[:c0] + line[c1:] == "  - {name: X, type: T}"
    assert remove_entry(Document(text), 1, line.index("name")) is None  # the first key stays


# --------------------------------------------------------------------------- opset init


def test_init_writes_vscode_settings_naming_its_schemas(tmp_path: Path) -> None:
    from toolkit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["init", str(tmp_path / "repo"), "--domain", "com.example.audio"]) == 0
    repo = tmp_path / "repo"
    settings = json.loads((repo / ".vscode/settings.json").read_text())
    schemas = settings["yaml.schemas"]
    assert set(schemas) == {f"./schemas/{k}.schema.json" for k in ("operator", "domain", "releases")}
    for schema, globs in schemas.items():
        assert (repo / schema).is_file() and json.loads((repo / schema).read_text())["$schema"]
        matched = [p for g in globs if not g.startswith("!") for p in repo.glob(g)]
        excluded = {p for g in globs if g.startswith("!") for p in repo.glob(g[1:])}
        kind = schema.split("/")[-1].split(".")[0]
        for spec in set(matched) - excluded:  # the modeline of each file names the same schema
            assert f"$schema=../../schemas/{kind}.schema.json" in spec.read_text().split("\n")[0]
    assert [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]] == ["opset", "lsp"]
    recommended = json.loads((repo / ".vscode/extensions.json").read_text())["recommendations"]
    assert recommended == ["redhat.vscode-yaml", "llllvvuu.glspc"]
    printed = out.getvalue()
    assert "opset lsp" in printed and ".vscode/" in printed
    # docs/editors.md shows the same client settings
    block = re.search(r"(?s)## VS Code.*?```json\n(.*?)```", (REPO / "docs/editors.md").read_text())
    assert block is not None
    shown = json.loads(block.group(1))
    assert shown.items() <= settings.items()


def test_the_domain_file_is_not_an_operator_file_for_the_schemas(tmp_path: Path) -> None:
    """The exclusion `yaml.schemas` makes is the loader's own classification."""
    from toolkit.authoring.init import vscode_files
    from toolkit.load.discovery import classify

    settings = json.loads(vscode_files()[".vscode/settings.json"])
    assert "!opsets/*/domain.yaml" in settings["yaml.schemas"]["./schemas/operator.schema.json"]
    assert classify(Path("opsets/x/domain.yaml")) == "domain"
    assert classify(Path("opsets/releases.yaml")) == "releases"


@pytest.mark.asyncio
async def test_hover_on_a_suppressed_rule_id_shows_the_rules_doc(plain: LanguageClient, repo: Path) -> None:
    """A rule id under a version's `suppress:` hovers with the rule's summary and doc from the
    catalog; a word there that is no rule id, and the `suppress` key itself, show nothing."""
    client = plain
    path = repo / FUSED
    marker = "  - since_version: 1\n"
    text = path.read_text()
    assert marker in text
    text = text.replace(marker, marker + "    suppress: [TYPE-PARAM-UNUSED, NOT-A-RULE]\n", 1)
    uri = _open(client, path, text)
    await _diagnostics(client, uri, 1)
    shown = await _hover_text(client, uri, _at(text, "TYPE-PARAM-UNUSED", 3))
    rule = load_catalog().get("TYPE-PARAM-UNUSED")
    assert rule is not None
    assert shown.startswith("**TYPE-PARAM-UNUSED**: " + rule.summary) and rule.doc.splitlines()[0] in shown
    assert await _hover_text(client, uri, _at(text, "NOT-A-RULE", 2)) == ""
    assert await _hover_text(client, uri, _at(text, "suppress:", 2)) == ""
