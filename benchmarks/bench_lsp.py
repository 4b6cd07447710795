"""`opset lsp` benchmark on the full imported onnx catalog (`opset import-onnx --out DIR`).

Prints the median latency from a didChange in one operator file to the publishDiagnostics for
that version (the server re-reads that file alone and runs the tree-wide checks over the cached
specs), next to a full `opset validate DIR` of the same tree in the same run, interleaved; and
the server's peak resident memory (VmHWM). Targets (issue #28): <= 200 ms median, < 300 MiB.
With --gate, the tree is committed in a fresh git repository and the server runs the gate
against HEAD as well (the setting `opset.gate.against`): the open includes reading that tree from
git, each edit the gate over the edited operator.

Run: python benchmarks/bench_lsp.py [ROUNDS] [OPERATOR] [--gate]   (defaults: 15, Conv)
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _run(tree: Path, rounds: int, operator: str, gate: bool) -> None:
    client = LanguageClient("bench", "1")
    published: dict[tuple[str, int | None], float] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: lsp.PublishDiagnosticsParams) -> None:
        published[(params.uri, params.version)] = time.perf_counter()

    @client.feature(lsp.WINDOW_LOG_MESSAGE)
    def on_log(params: lsp.LogMessageParams) -> None:
        pass

    await client.start_io(sys.executable, "-m", "toolkit", "lsp")
    server: Any = client._server  # the subprocess (pygls keeps it here)
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=tree.parent.as_uri(),
            initialization_options={"opset": {"gate": {"against": "HEAD"}}} if gate else None,
        )
    )
    client.initialized(lsp.InitializedParams())
    path = next(tree.glob(f"*/{operator}.yaml"))
    uri, text = path.as_uri(), path.read_text()
    started = time.perf_counter()
    item = lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
    while (uri, 1) not in published:
        await asyncio.sleep(0.005)
    what = " and the ref's tree read from git" if gate else ""
    print(
        f"open (full load of {len(list(tree.rglob('*.yaml')))} files{what}): "
        f"{published[(uri, 1)] - started:.3f} s"
    )
    edits, validates = [], []
    for version in range(2, rounds + 2):
        new = text.replace("doc:", f"doc: # edit {version}\n   ", 1) if version % 2 else text
        sent = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=new)],
            )
        )
        while (uri, version) not in published:
            await asyncio.sleep(0.001)
        edits.append(published[(uri, version)] - sent)
        begun = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "toolkit", "validate", "--no-cache", str(tree)],
            capture_output=True,
            check=False,
        )
        validates.append(time.perf_counter() - begun)
    rss = _peak_rss_mib(server.pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    edit, full = statistics.median(edits), statistics.median(validates)
    with_gate = " (with the gate against HEAD)" if gate else ""
    print(
        f"didChange -> publishDiagnostics{with_gate}, median of {rounds}: {edit * 1000:.0f} ms "
        "(target <= 200 ms)"
    )
    print(
        f"opset validate --no-cache of the same tree, median: {full * 1000:.0f} ms ({full / edit:.1f}x the edit)"
    )
    print(f"server peak RSS: {rss:.0f} MiB (target < 300 MiB)")


def main() -> None:
    gate = "--gate" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--gate"]
    rounds = int(args[0]) if args else 15
    operator = args[1] if len(args) > 1 else "Conv"
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "opsets"
        subprocess.run([sys.executable, "-m", "toolkit", "import-onnx", "--out", str(tree)], check=True)
        if gate:
            for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "catalog"]):
                git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
                subprocess.run([*git, *command], cwd=tmp, check=True)
        asyncio.run(_run(tree, rounds, operator, gate))


if __name__ == "__main__":
    main()
