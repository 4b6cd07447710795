"""Where `opset generate` may write: the checks made before anything is read or written.

The output folder's path comes from the invoker (`--out`) or from the tree (`out` in
`opset.toml` / `[tool.opset-toolkit]`, else `generated`). The tree may be a stranger's pull
request, so what it says cannot send the outputs elsewhere:

- a path from the tree's settings must stay inside the project folder (no absolute path, no
  `..` out of it), must not pass through git's metadata folder (`.git`, also as `.GIT`, `.git.`,
  `git~1`: what some file system folds to it), and `out` must not be the project folder itself
  (its manifest and commit journal would lie among the project's own files); `--out` on the
  command line is the invoker's own choice and may name any folder;
- the output folder, every folder between the project folder and it, the kinds' folders and the
  folders below them must not be symlinks: a write or a removal through one lands wherever it
  points.

The spec root from the tree's settings (`spec_root`) obeys the same two rules: it is only read,
but what is read there is published in the generated docs.

A refusal is an `OutputRefused` (a usage error: exit 2) that names the path and how to proceed;
when a folder setting is at fault it carries a PROJECT-PATH-UNSAFE diagnostic located at that key.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from toolkit.load.files import git_folder_name
from toolkit.load.writer import symlinked_folders
from toolkit.model.diagnostics import Diagnostic, UsageError
from toolkit.model.rules import register
from toolkit.model.spec import Location

PATH_UNSAFE = "PROJECT-PATH-UNSAFE"
register(
    PATH_UNSAFE,
    "load",
    "error",
    "A folder setting (`out`, `spec_root`) leads outside the project folder, through a symlink or into `.git`, or `out` is the project folder itself; nothing is read or written.",
    category="Generated documents",
    hint="name a real folder inside the project, or pass the folder on the command line (--out, --specs)",
    doc="""\
**Why:** the settings file is part of the tree, and a tree can come from a stranger's pull
request. A setting that points the outputs at an absolute path, at `..` beyond the project
folder, or through a symlink would let that tree write (and replace files) anywhere the command
can; a `spec_root` that does so would have the toolkit read, and publish in the generated docs,
files from elsewhere on the machine. Inside the project, git's metadata folder (`.git`, and the
spellings a file system folds to it: `.GIT`, `.git.`, `git~1`) is no place for outputs or specs,
and `out` may not be the project folder itself: the output folder's manifest and commit journal,
which the tree can plant, would then sit among (and name) the project's own files. So the command
refuses it and exits 2 with nothing read or written. Another folder is the invoker's decision:
`--out DIR` or `--specs DIR` on the command line.

**Before:** `out = "../website/static/ops"`, `out = "."`, `out = ".git/x"` or
`spec_root = "/srv/specs"` in `opset.toml`, or `generated` a symlink to `/srv/www`

**After:** `out = "generated"` and `spec_root = "opsets"` (real folders inside the project), and a
CI step that runs `opset generate --out ../website/static/ops` when the outputs really belong there""",
)


class OutputRefused(UsageError):
    """opset will not use a folder as asked; nothing was read or written. `diagnostic`: the
    located finding when a setting of the tree is at fault."""

    def __init__(self, message: str, hint: str, diagnostic: Diagnostic | None = None) -> None:
        super().__init__(f"{message}\n  hint: {hint}", diagnostic)


def check_setting(key: str, value: str, folder: Path, setting: Location, flag: str) -> None:
    """Refuse a folder setting of the tree (`key` = `value`, relative to the project `folder`,
    written at `setting`) that leaves the project folder, passes through git's metadata folder
    (`.git` in any spelling a file system folds to it), or (`out`) is the project folder itself,
    where the outputs, the manifest and the commit journal would lie among the project's own
    files; `flag` is the invoker's way to name it."""
    base = os.path.abspath(folder)
    resolved = os.path.normpath(os.path.join(base, value))
    if os.path.isabs(value):
        what = "an absolute path"
    elif not _under(resolved, base):
        what = "outside the project folder"
    elif any(git_folder_name(part) for part in value.replace("\\", "/").split("/")):
        what = "inside git's metadata folder (.git)"
    elif key == "out" and resolved == base:
        what = "the project folder itself"
    else:
        return
    message = f"`{key}` = {value!r} is {what}; opset uses it only when you pass the folder with {flag}"
    hint = f"write a folder of its own inside {_shown(folder)}, or run the command with {flag} {value}"
    raise OutputRefused(message, hint, Diagnostic(PATH_UNSAFE, message, setting, hint))


def check_path(
    out: Path, folder: Path, setting: Location | None, *, flag: str = "--out", verb: str = "write"
) -> None:
    """Refuse an output folder reached through a symlink below the project `folder` (or that is one
    itself, wherever it is). `setting`: where the tree's `out` is written, when it comes from there;
    `flag` and `verb`: how the invoker names the folder and what opset would do there."""
    target = Path(os.path.abspath(out))
    base = Path(os.path.abspath(folder))
    steps = [target] if not _under(str(target), str(base)) else _between(base, target)
    for step in steps:
        if os.path.islink(step):
            link = _shown(step)
            message = f"{link} is a symlink (to {os.readlink(step)}); opset does not {verb} through symlinks"
            hint = f"make {link} a real folder, or pass the folder it points to with {flag}"
            located = Diagnostic(PATH_UNSAFE, message, setting, hint) if setting is not None else None
            raise OutputRefused(message, hint, located)
        if not os.path.lexists(step):
            return


def checked_spec_root(folder: Path, value: str, setting: Location | None) -> Path:
    """The spec root `value` of the project `folder` (absolute, links not followed), refused when
    the tree's setting (written at `setting`; None: the default folder) leads out of the folder or
    through a symlink: the one check of the CLI and the language server, which both read it."""
    if setting is not None:
        check_setting("spec_root", value, folder, setting, "--specs")
    root = Path(os.path.normpath(os.path.join(os.path.abspath(folder), value)))
    check_path(root, folder, setting, flag="--specs", verb="read")
    return root


def check_kind_folders(out: Path, kinds: Sequence[str]) -> None:
    """Refuse symlinked folders among the kinds' folders and below them."""
    linked = symlinked_folders(out, kinds)
    if linked:
        names = listed(f"{_shown(out)}/{rel}" for rel in linked)
        raise OutputRefused(
            f"{names}: symlinked folder(s) inside the output folder; opset does not write through symlinks",
            "replace each with a real folder (or remove it: opset writes the folder again)",
        )


def _between(base: Path, target: Path) -> list[Path]:
    """The folders from the first one below `base` down to `target`."""
    parts = target.relative_to(base).parts
    return [base.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def listed(names: Iterable[str], most: int = 5) -> str:
    """The first few names, and how many more."""
    items = list(names)
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")
