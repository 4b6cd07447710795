"""Where a reported file is, as CI readers need it: a path relative to the repository root.

GitHub annotations, code-scanning alerts and JUnit `file` attributes are resolved against the
checkout's root, not against the directory the command ran in. The toolkit locates files
relative to the working directory (`../ml/opsets/x/Op.yaml` from a subfolder, `Op.yaml` with the
action's `working-directory`), so every machine-readable report maps them here: to the path
from the git top level, or from the working directory when there is no git work tree. A file
outside the root keeps its absolute path (a SARIF `file:` URI, never a `..` path).

`uri_encode` is RFC 3986 percent-encoding of a path: every byte outside the unreserved set and
`/` is written `%XX` (UTF-8), so a spec folder named `sp,ec:s%` is a valid URI reference.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from toolkit.load.git import GitOutputTooLarge, run_git

# The SARIF `uriBaseId` of the repository root (GitHub's documented name) and of the old tree.
SRCROOT = "%SRCROOT%"
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")


def uri_encode(path: str) -> str:
    """`ml/op sets/a,b.yaml` -> `ml/op%20sets/a%2Cb.yaml` (RFC 3986: unreserved bytes and `/` kept)."""
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in path.encode("utf-8"))


def file_uri(path: str) -> str:
    """An absolute POSIX path as a `file:` URI."""
    return "file://" + uri_encode(path)


@dataclass(frozen=True)
class RepoPaths:
    """Maps the toolkit's paths (relative to `cwd`, or absolute) to repository paths."""

    root: Path  # absolute, resolved: the git top level, else the working directory
    cwd: Path  # absolute: the directory the command ran in
    in_git: bool = False

    def locate(self, file: str) -> tuple[str, bool]:
        """(`path`, `inside`): the POSIX path from the root when the file is under it (inside),
        else its absolute POSIX path. Placeholders such as `<unknown>` are returned unchanged."""
        if not file or file.startswith("<"):
            return file, True
        native = Path(file)
        absolute = native if native.is_absolute() else self.cwd / native
        absolute = Path(os.path.normpath(absolute))
        try:
            resolved = absolute.resolve()
        except OSError:
            resolved = absolute
        for candidate in (absolute, resolved):
            try:
                return PurePosixPath(candidate.relative_to(self.root).as_posix()).as_posix(), True
            except ValueError:
                continue
        return resolved.as_posix(), False

    def repo_path(self, file: str) -> str:
        return self.locate(file)[0]

    @property
    def root_uri(self) -> str:
        """The root as an absolute `file:` URI ending in `/` (SARIF's `originalUriBaseIds`)."""
        text = self.root.as_posix()
        return file_uri(text if text.endswith("/") else text + "/")


def discover(cwd: Path | None = None) -> RepoPaths:
    """The repository root of `cwd` (default: the working directory): `git rev-parse
    --show-toplevel`, else `cwd` itself (no git, not a work tree)."""
    here = Path(os.path.abspath(cwd or Path.cwd()))
    try:
        proc = run_git(["rev-parse", "--show-toplevel"], here)
    except (OSError, GitOutputTooLarge):  # no git on PATH
        return RepoPaths(here.resolve(), here)
    top = proc.text()
    if not proc.ok or not top:
        return RepoPaths(here.resolve(), here)
    return RepoPaths(Path(top).resolve(), here, in_git=True)
