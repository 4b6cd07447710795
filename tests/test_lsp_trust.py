"""`opset lsp` on trees it should not trust, driven by a real LSP client over stdio: a spec root
leading out of the project (a setting, a symlink; the CLI's default folder too), a file nested
hundreds of levels deep (bounded memory), a workspace reached through a symlink (findings under
the editor's URIs), files changed on disk, the tree's own example budget, an invalid project file
(told and located), and `exit` without `shutdown` (exit code 1)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp import _change, _client, _diagnostics, _open, _until
from test_lsp_more import _start

from toolkit.cli import main

REPO = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, "-m", "toolkit", "lsp"]
OP = "opsets/org.example.abc"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=_client))
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    """A server not yet initialized: each test builds its tree first, then calls `_start`."""
    yield lsp_client
    with contextlib.suppress(TimeoutError):  # a test that failed before initializing: no hang
        await asyncio.wait_for(lsp_client.shutdown_session(), 10)


def _project(top: Path) -> Path:
    """A repository holding a copy of the shipped specs, and beside it a secret file with
    findings of its own: what must never be read or published."""
    repo = top / "repo"
    shutil.copytree(REPO / "opsets", repo / "opsets")
    (top / "private").mkdir()
    (top / "private" / "secret.yaml").write_text("aws_secret_access_key: AKIAEXAMPLE\n")
    return repo


def _uris(client: LanguageClient) -> set[str]:
    return {p.uri for p in client.published}  # type: ignore[attr-defined]


def _told(client: LanguageClient, needle: str) -> list[str]:
    return [m.message for m in client.messages if needle in m.message]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("toml", "link", "told"),
    [
        ('spec_root = ".."\n', None, "outside the project folder"),
        ('spec_root = "specs"\n', "specs", "is a symlink"),
        (None, "opsets", "is a symlink"),  # no project file: the default folder a symlink
    ],
)
async def test_a_spec_root_out_of_the_project_is_refused(
    client: LanguageClient, tmp_path: Path, toml: str | None, link: str | None, told: str
) -> None:
    repo = _project(tmp_path)
    if link is not None:
        shutil.rmtree(repo / "opsets")
        shutil.copytree(REPO / "opsets", tmp_path / "private", dirs_exist_ok=True)
        (repo / link).symlink_to("../private")
        if link != "opsets":  # a real folder the setting does not name: the file opened there
            shutil.copytree(REPO / OP, repo / OP)
    if toml is not None:
        (repo / "opset.toml").write_text(toml)
    await _start(client, repo)
    path = repo / OP / "A.yaml"
    _open(client, path, path.read_text())
    await _until(lambda: _told(client, told), f"the user told '{told}'")
    if toml is not None:  # the setting at fault is located
        [diag] = await _diagnostics(client, (repo / "opset.toml").as_uri())
        assert diag.code == "PROJECT-PATH-UNSAFE"
        assert diag.range.start.line == 0
    await asyncio.sleep(0.5)  # a check that was wrongly started would publish by now
    outside = [uri for uri in _uris(client) if not uri.startswith((repo / "").as_uri())]
    assert outside == []
    assert not any("secret" in uri for uri in _uris(client))


@pytest.mark.parametrize("sub", ["", "sub"])
def test_the_cli_refuses_a_symlinked_default_spec_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sub: str
) -> None:
    """No project file, `opsets` a symlink out of the repository: exit 2 naming the link, from
    the repository and from a subfolder (found through git), nothing of the target read."""
    repo = _project(tmp_path)
    shutil.rmtree(repo / "opsets")
    (repo / "opsets").symlink_to("../private")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / sub)
    assert main(["validate", "--no-cache"]) == 2
    out, err = capsys.readouterr()
    assert "opsets is a symlink" in err
    assert "hint:" in err and "--specs" in err
    assert "secret" not in out + err


def _vm_hwm_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.asyncio
async def test_a_deeply_nested_file_costs_bounded_memory(client: LanguageClient, tmp_path: Path) -> None:
    """Lists nested 300 deep around 150k scalars, not open in the editor: its YAML-DEPTH is
    published (spanning a word, as the file has no index) and the server's peak RSS stays far
    below what one path per node costs (~500 MB before)."""
    repo = _project(tmp_path)
    bomb = repo / OP / "Bomb.yaml"
    bomb.write_text("[" * 300 + "a," * 150_000 + "a" + "]" * 300)
    await _start(client, repo)
    path = repo / OP / "A.yaml"
    _open(client, path, path.read_text())
    diags = await _diagnostics(client, bomb.as_uri())
    assert [d.code for d in diags] == ["YAML-DEPTH"]
    assert diags[0].range.end.line == diags[0].range.start.line
    server = client._server  # the process pytest-lsp started
    assert server is not None
    assert _vm_hwm_kb(server.pid) < 250_000


@pytest.mark.asyncio
async def test_a_symlinked_workspace_gets_findings_under_its_own_uris(
    client: LanguageClient, tmp_path: Path
) -> None:
    real = _project(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(real)
    await _start(client, link)
    path = link / OP / "A.yaml"
    text = path.read_text().replace("operator: A", "operator: A\nbogus: 1", 1)  # unsaved
    uri = _open(client, path, text)
    diags = await _diagnostics(client, uri)
    assert any("bogus" in d.message for d in diags)
    assert not any(u.startswith((real / "").as_uri()) for u in _uris(client))
    # hover reads the buffer: `since_version` is a line lower there than on disk
    text = path.read_text().replace("operator: A", "# unsaved\noperator: A", 1)
    _change(client, uri, text, 2)
    await _diagnostics(client, uri, 2)
    line = text.split("\n").index("  - since_version: 1")
    assert path.read_text().split("\n")[line] != text.split("\n")[line]
    found = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=line, character=6)
        )
    )
    assert found is not None and isinstance(found.contents, lsp.MarkupContent)
    assert "A-1" in found.contents.value  # the version's signature, not the doc line below it


@pytest.mark.asyncio
async def test_files_changed_on_disk_are_seen(client: LanguageClient, tmp_path: Path) -> None:
    """The server registers a watch for spec and project files; without an event, the next edit
    still notices another file changed on disk (its mtime and size)."""
    repo = _project(tmp_path)
    await _start(client, repo)
    a, b = repo / OP / "A.yaml", repo / OP / "B.yaml"
    uri = _open(client, a, a.read_text())
    await _diagnostics(client, uri, 1)
    await _until(lambda: client.registered, "a registration")  # type: ignore[attr-defined]
    [registration] = client.registered  # type: ignore[attr-defined]
    assert registration.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
    globs = [w["globPattern"] for w in registration.register_options["watchers"]]
    assert globs == ["**/*.yaml", "**/opset.toml", "**/pyproject.toml"]
    b.write_text(b.read_text().replace("operator: B", "operator: B\nbogus_key: 1", 1))  # a checkout
    _change(client, uri, a.read_text().replace("Returns its input unchanged.", "Returns its input."), 2)
    diags = await _until(
        lambda: [d for p in client.published if p.uri == b.as_uri() for d in p.diagnostics],  # type: ignore[attr-defined]
        "B.yaml's findings",
    )
    assert any("bogus_key" in d.message for d in diags)


@pytest.mark.asyncio
async def test_the_example_budget_is_the_trees_own(client: LanguageClient, tmp_path: Path) -> None:
    """The tree's opset.toml lowers the example budget; the server runs elsewhere (as editors
    start it) and still applies it, as `opset validate` in the tree does."""
    repo = _project(tmp_path)
    (repo / "opset.toml").write_text('spec_root = "opsets"\nmax_example_bytes = 100\n')
    np.save(repo / OP / "x.npy", np.arange(64, dtype=np.float32))
    path = repo / OP / "A.yaml"
    constraint = '    type_constraints:\n      T: {allowed: "@numbers", doc: Numeric tensors.}\n'
    assert constraint in path.read_text()
    example = "    examples:\n      - {name: big, inputs: [{file: x.npy}], outputs: [{file: x.npy}]}\n"
    path.write_text(path.read_text().replace(constraint, constraint + example, 1))
    assert Path.cwd() != repo
    await _start(client, repo)
    diags = await _diagnostics(client, _open(client, path, path.read_text()))
    assert "EXAMPLE-BUDGET" in [d.code for d in diags]


@pytest.mark.asyncio
async def test_an_invalid_project_file_is_told_and_located(client: LanguageClient, tmp_path: Path) -> None:
    """An invalid setting is told to the user and, located at its key (PROJECT-SETTING), published on
    the project file too, as a spec_root out of the project is (PROJECT-PATH-UNSAFE). Each time
    the file changes on disk (a watched-file event) the trees are dropped and checked again: the
    finding goes when the file is fixed, and the spec file gets its own."""
    repo = _project(tmp_path)
    toml = repo / "opset.toml"
    toml.write_text('spec_root = "opsets"\nmax_example_bytes = "x"\n')
    await _start(client, repo)
    path = repo / OP / "A.yaml"
    uri = _open(client, path, path.read_text().replace("operator: A", "operator: A\nbogus: 1", 1))
    await _until(lambda: _told(client, "max_example_bytes"), "the user told")
    assert not [p for p in client.published if p.uri == uri and p.diagnostics]  # type: ignore[attr-defined]
    # the setting's error is located (PROJECT-SETTING at its key's line): published there too
    await _until(
        lambda: _last_codes(client, toml.as_uri()) == [("PROJECT-SETTING", 1)], "the setting published"
    )

    def on_disk(text: str) -> None:
        toml.write_text(text)
        event = lsp.FileEvent(uri=toml.as_uri(), type=lsp.FileChangeType.Changed)
        client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[event]))

    on_disk('spec_root = "../"\n')
    await _until(
        lambda: _last_codes(client, toml.as_uri()) == [("PROJECT-PATH-UNSAFE", 0)], "the root refused"
    )
    on_disk('spec_root = "opsets"\n')
    await _until(lambda: _published_empty(client, toml.as_uri()), "the finding withdrawn")
    await _until(
        lambda: [d for p in client.published if p.uri == uri for d in p.diagnostics if "bogus" in d.message],  # type: ignore[attr-defined]
        "A.yaml's findings",
    )


def _last_codes(client: LanguageClient, uri: str) -> list[tuple[object, int]]:
    """(rule id, 0-based line) of each diagnostic last published for `uri`."""
    found = [p for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    return [(d.code, d.range.start.line) for d in found[-1].diagnostics] if found else []


def _published_empty(client: LanguageClient, uri: str) -> bool:
    found = [p for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    return bool(found) and not found[-1].diagnostics


def _message(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.asyncio
async def test_exit_without_shutdown_exits_1(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=dict(os.environ)
    )
    assert process.stdin is not None
    params = {"capabilities": {}, "rootUri": tmp_path.as_uri()}
    process.stdin.write(_message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
    process.stdin.write(_message({"jsonrpc": "2.0", "method": "exit"}))
    await process.stdin.drain()
    assert await asyncio.wait_for(process.wait(), 20) == 1
