"""Spec files outside the spec root (FILE-OUTSIDE-ROOT): files of the repository that look like
specs but that no command reads, because they are not under the spec root."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from toolkit.load.discovery import display_path
from toolkit.load.git import GitOutputTooLarge, run_git
from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.spec import Location

# The first key of a spec file: `operator:` (operator files) or `opset_versions:` (domain files).
_SPEC_KEY = re.compile(r"^(operator|opset_versions):", re.MULTILINE)
_HEAD_BYTES = 4096


def repository_files(top: Path) -> list[Path] | None:
    """The YAML files git knows in the work tree at `top` (tracked and untracked, not ignored);
    None outside a git work tree, without git, or when the listing is beyond reason (this
    check only warns, so it is skipped rather than failing the command)."""
    try:
        proc = run_git(["ls-files", "-co", "--exclude-standard", "-z", "--", "*.yaml", "*.yml"], top)
    except (OSError, GitOutputTooLarge):
        return None
    if not proc.ok:
        return None
    return [top / name for name in proc.stdout.decode("utf-8", "replace").split("\0") if name]


def stray_specs(
    top: Path, spec_roots: Sequence[str | os.PathLike[str]], skip: Sequence[str | os.PathLike[str]] = ()
) -> list[Diagnostic]:
    """FILE-OUTSIDE-ROOT for each repository file under `top` that starts like a spec but is
    under none of `spec_roots` (nor `skip`: the output folder, test fixtures named by the caller)."""
    files = repository_files(top)
    if files is None:
        return []
    inside = [Path(os.path.abspath(p)) for p in (*spec_roots, *skip)]
    roots = ", ".join(f"{display_path(Path(r))}/" for r in spec_roots)
    found = []
    for path in files:
        absolute = Path(os.path.abspath(path))
        if any(absolute == root or root in absolute.parents for root in inside):
            continue
        try:
            with open(path, "rb") as handle:
                head = handle.read(_HEAD_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        match = _SPEC_KEY.search(head)
        if match is None:
            continue
        line = head.count("\n", 0, match.start()) + 1
        found.append(
            Diagnostic(
                "FILE-OUTSIDE-ROOT",
                f"this looks like a spec file (`{match[1]}:`) but is outside the spec root {roots}; nothing reads it",
                Location(display_path(path), line, 1),
                "move it into the spec root under its domain's folder, or set spec_root in opset.toml",
                Severity.WARNING,
            )
        )
    return found
