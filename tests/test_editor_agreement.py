"""The editor and the tool agree (issue 15): yaml-language-server (the npm package VS Code's YAML
extension runs), reading specs of a repository `opset init` wrote through their `$schema`
modelines, flags the same lines as `opset validate` on a few wrong specs, and reads YAML 1.2
values as the tool does. Skipped when node and npm are missing or the package cannot be installed.

The server is spoken to over stdio with LSP's JSON-RPC framing: initialize, open each document,
collect its published diagnostics.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

from toolkit.cli import main

VERSION = "1.19.2"
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "opset-toolkit-tests"
    / f"yls-{VERSION}"
)

GOOD = """\
# yaml-language-server: $schema=../../schemas/operator.schema.json
operator: Gain
domain: com.example.x
versions:
  - since_version: 1
    doc: Multiplies.
    inputs:
      - {name: X, type: T}
    outputs:
      - {name: Y, type: T}
    attributes:
      gain: {type: float, default: 1.0}
    type_constraints:
      T: {allowed: "@float_types"}
"""
# (what is wrong, the edit, the 1-based line both must flag)
WRONG = [
    ("an unknown key", ("operator: Gain\n", "operator: Gain\nbogus: 1\n"), 3),
    ("a string where an integer belongs", ("since_version: 1", "since_version: one"), 5),
    ("a value outside an enum", ("{name: X, type: T}", "{name: X, type: T, option: maybe}"), 8),
    ("an attribute type that does not exist", ("{type: float,", "{type: real,"), 12),
]


def _server() -> list[str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node/npm are not installed")
    entry = CACHE / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    if not entry.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(CACHE),
                "--no-audit",
                "--no-fund",
                f"yaml-language-server@{VERSION}",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0 or not entry.exists():
            pytest.skip(f"npm could not install yaml-language-server: {proc.stderr[-500:]}")
    return [node, str(entry), "--stdio"]


class Lsp:
    def __init__(self, command: list[str], root: Path) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.messages: Queue[dict[str, Any]] = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}})
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.messages.put(json.loads(stream.read(length)))

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)

    def wait(self, wanted: Any, timeout: float = 30, quiet: bool = False) -> dict[str, Any]:
        while True:
            try:
                message = self.messages.get(timeout=timeout)
            except Empty:
                if quiet:
                    raise
                pytest.fail("yaml-language-server did not answer")
            if "method" in message and "id" in message:  # a request of the server: answer it
                result = (
                    [SETTINGS["yaml"]] * len(message["params"].get("items", []))
                    if message["method"] == "workspace/configuration"
                    else None
                )
                self._send({"id": message["id"], "result": result})
                continue
            if wanted(message):
                return message

    def diagnostics(self, paths: list[Path]) -> dict[Path, list[dict[str, Any]]]:
        """The diagnostics the server publishes last for each file, all opened at once: the
        quiet wait for a late republish (the schema loaded) is paid once, not once per file."""
        uris = {path.as_uri(): path for path in paths}
        for uri, path in uris.items():
            self.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": path.read_text()}},
            )

        def published(m: dict[str, Any]) -> bool:
            return m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] in uris

        last: dict[str, list[dict[str, Any]]] = {}
        while len(last) < len(uris):
            message = self.wait(published)
            last[message["params"]["uri"]] = list(message["params"]["diagnostics"])
        while True:  # the server may publish again once the schema is loaded: take the last
            try:
                message = self.wait(published, timeout=1.5, quiet=True)
            except Empty:
                break
            last[message["params"]["uri"]] = list(message["params"]["diagnostics"])
        for uri in uris:
            self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        return {path: last[uri] for uri, path in uris.items()}

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


SETTINGS: dict[str, Any] = {
    "yaml": {"validate": True, "schemaStore": {"enable": False}, "schemas": {}, "format": {"enable": False}}
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editor")
    assert main(["init", str(root / "repo"), "--domain", "com.example.x"]) == 0
    return root / "repo"


def _spec(repo: Path, name: str, text: str) -> Path:
    spec = repo / "opsets" / "com.example.x" / f"{name}.yaml"
    spec.write_text(text.replace("operator: Gain", f"operator: {name}"))
    return spec


def _wrong_name(what: str) -> str:
    # a file of its own per case: the server's notes about one document cannot mix into another's
    return "Gain" + "".join(w.capitalize() for w in what.split())


@pytest.fixture(scope="module")
def editor(repo: Path) -> dict[Path, list[dict[str, Any]]]:
    """What the editor flags in each spec of the tests below, written and opened together."""
    assert all(edit[0] in GOOD for _, edit, _ in WRONG)
    specs = [
        _spec(repo, "Gain", GOOD),
        _spec(repo, "GainOctal", GOOD.replace("since_version: 1", "since_version: 0o1")),
        *(_spec(repo, _wrong_name(what), GOOD.replace(edit[0], edit[1], 1)) for what, edit, _ in WRONG),
    ]
    server = Lsp(_server(), repo)
    try:
        return server.diagnostics(specs)
    finally:
        server.close()


def test_a_good_spec_is_clean_for_both(
    repo: Path, editor: dict[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    spec = repo / "opsets" / "com.example.x" / "Gain.yaml"
    assert editor[spec] == []
    assert main(["validate", str(spec)]) == 0


@pytest.mark.parametrize(("what", "edit", "line"), WRONG, ids=[w[0] for w in WRONG])
def test_the_editor_flags_the_line_validate_flags(
    repo: Path,
    editor: dict[Path, list[dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
    what: str,
    edit: tuple[str, str],
    line: int,
) -> None:
    spec = repo / "opsets" / "com.example.x" / f"{_wrong_name(what)}.yaml"
    editor_lines = {d["range"]["start"]["line"] + 1 for d in editor[spec]}
    capsys.readouterr()
    assert main(["validate", str(spec)]) == 1
    ours = {int(row.split(":")[1]) for row in capsys.readouterr().err.splitlines() if ": error[" in row}
    assert line in editor_lines, (what, editor_lines)
    assert line in ours, (what, ours)


def test_yaml_1_2_values_read_alike(
    repo: Path, editor: dict[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    """`0o17` is an integer to both (YAML 1.1 would read a string, which the schema refuses)."""
    spec = repo / "opsets" / "com.example.x" / "GainOctal.yaml"
    assert editor[spec] == []
    assert main(["validate", str(spec)]) == 0
