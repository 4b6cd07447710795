"""The one way the toolkit runs git: read-only plumbing, with nothing from the repository run.

A repository's `.git/config` is as untrusted as its files (a tarball or a copied folder brings
its own), and some of its settings name commands that read-only git commands start:
`core.fsmonitor` runs on `git ls-files`/`status`, hooks on index writes, a partial clone fetches
missing blobs through the remote's transport (`core.sshCommand`, `ext::`). So every call here:

- overrides `core.fsmonitor` (off) and `core.hooksPath` (an empty hook folder: no hook runs);
- allows no transport at all (`protocol.allow=never`, `GIT_NO_LAZY_FETCH`): the toolkit never
  fetches, it only says which `git fetch` to run;
- takes no optional locks (`--no-optional-locks`), so `ls-files` never rewrites the index;
- never prompts (`GIT_TERMINAL_PROMPT=0`) and never pages (`--no-pager`);
- reads at most `limit` bytes of output (a listing of a hostile tree is stopped, not buffered).

The toolkit only runs plumbing that prints objects, names and ids (rev-parse, merge-base,
ls-tree, ls-files, cat-file without `--textconv`/`--filters`), so diff drivers, textconv and
clean/smudge filters are never reached. What the invoker sets (environment variables such as
GIT_DIR, the system and global config) is trusted and passed through. Callers put user values
after `--end-of-options` or `--` where the command takes one.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

# Read-only commands print ids and short listings; only the two that list or print a tree's
# files are given a larger limit by their callers.
DEFAULT_OUTPUT_LIMIT = 64 * 1024 * 1024
_STDERR_KEPT = 64 * 1024

_OPTIONS = (
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "protocol.allow=never",
)
_ENVIRONMENT = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: bytes
    stderr: str  # at most the first 64 KiB, decoded leniently

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def text(self) -> str:
        """stdout as one stripped line of text (ids, paths)."""
        return self.stdout.decode("utf-8", "replace").strip()


class GitOutputTooLarge(Exception):
    """git printed more than the caller's limit; the process was stopped."""

    def __init__(self, command: str, limit: int) -> None:
        super().__init__(f"git {command} printed more than {limit // (1024 * 1024)} MiB")
        self.command = command
        self.limit = limit


def run_git(
    args: Sequence[str], cwd: Path, *, stdin: bytes | None = None, limit: int = DEFAULT_OUTPUT_LIMIT
) -> GitResult:
    """Run `git ARGS` in `cwd` as the module docstring says. Raises OSError when git cannot be
    started (not installed: FileNotFoundError) and GitOutputTooLarge past `limit` bytes of output."""
    env = {**os.environ, **_ENVIRONMENT}
    with subprocess.Popen(
        ["git", *_OPTIONS, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        errors = bytearray()
        # stdin and stderr on their own threads: git may fill one pipe while we wait on another.
        helpers = [threading.Thread(target=_drain, args=(proc.stderr, errors), daemon=True)]
        if stdin is not None:
            assert proc.stdin is not None
            helpers.append(threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True))
        for helper in helpers:
            helper.start()
        out, overflow = _read_at_most(proc.stdout, limit)
        if overflow:
            proc.kill()
        returncode = proc.wait()
        for helper in helpers:
            helper.join()
    if overflow:
        raise GitOutputTooLarge(args[0] if args else "", limit)
    return GitResult(returncode, bytes(out), errors.decode("utf-8", "replace").strip())


def _read_at_most(stream: IO[bytes], limit: int) -> tuple[bytearray, bool]:
    out = bytearray()
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            return out, False
        if len(out) + len(chunk) > limit:
            return out, True
        out += chunk


def _drain(stream: IO[bytes], kept: bytearray) -> None:
    while chunk := stream.read(1 << 16):
        if len(kept) < _STDERR_KEPT:
            kept += chunk[: _STDERR_KEPT - len(kept)]


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except OSError:  # git stopped reading (it failed, or was stopped): its exit status says why
        pass
