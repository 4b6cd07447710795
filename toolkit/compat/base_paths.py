"""Which paths of a git ref hold the old tree's specs: the base's own, not the pull request's.

The spec paths of the new tree come from `--specs` or the new tree's `spec_root`, and the new
tree may come from a stranger. Reading the ref at those paths lets a pull request hide every
breaking change: move the spec folder (`git mv opsets specs`, `spec_root = "specs"`) and the ref
holds nothing there, so every operator looks new. So the base's spec roots come from the base
itself: the `spec_root` of its own opset.toml (or pyproject.toml), else its `opsets/` folder,
else the folders above its `domain.yaml` files. A path of the new tree is read at the base root
it corresponds to (its domain folder or file below the root kept); a narrow path (a domain
folder or a file in one) also reads the base root's `releases.yaml`, which decides what is
released. A ref that holds spec files, but none under the paths read, is a usage error naming
both; a ref with no spec files at all is an empty base, and a note says so.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.load.discovery import DOMAIN_FILE, RELEASES_FILE, SPEC_SUFFIXES
from toolkit.load.files import MAX_FILE_BYTES
from toolkit.load.git import GitOutputTooLarge, run_git
from toolkit.load.gittree import list_entries, path_problem
from toolkit.load.project import CONFIG_FILE, DEFAULT_SPEC_ROOT, TOOL_KEY
from toolkit.model.diagnostics import UsageError


@dataclass(frozen=True)
class BasePaths:
    prefixes: tuple[str, ...]  # repository paths to read at the ref
    note: str  # said on stderr ("" when the paths are the new tree's own)


def base_paths(commit: str, prefixes: Sequence[str], top: Path, here: str, what: str) -> BasePaths:
    """The repository paths to read at `commit` for the new tree's `prefixes` (repository paths;
    "" is the top). `here` is the working directory, repository-relative (where the base's
    project file is looked for); `what` starts messages (`--against main`)."""
    names = _names(commit, top, what)
    specs = [n for n in names if n.endswith(SPEC_SUFFIXES)]
    # A spec tree has a domain file or a release table; other YAML (CI workflows) is no spec tree.
    if not any(posixpath.basename(n) in (DOMAIN_FILE, RELEASES_FILE) for n in specs):
        return BasePaths(
            tuple(prefixes),
            f"note: {what}: the ref holds no spec files, so every operator, version and domain counts as new",
        )
    roots, why = _own_roots(commit, set(names), specs, top, here)
    read: list[str] = []
    prefixes = list(dict.fromkeys(prefixes))
    for prefix in prefixes:
        root, rest = _split(prefix, top)
        if root not in roots:
            if len(roots) == 1:
                root = roots[0]
            elif not _holds(specs, prefix):  # several roots (a monorepo): the one named, if there
                raise _nothing_there(what, prefixes, roots)
        read.append(_join(root, rest))
        if rest:  # a domain folder or a file in one: the release table of its root decides too
            read.append(_join(root, RELEASES_FILE))
            head = rest.split("/")[0]
            if head != rest and head != RELEASES_FILE:
                read.append(_join(root, f"{head}/{DOMAIN_FILE}"))
    unique = tuple(dict.fromkeys(read))
    note = ""
    if [p for p in unique if p in prefixes] != list(prefixes):
        note = (
            f"note: {what}: the ref keeps its specs in {', '.join(_shown(r) for r in roots)} ({why}), "
            f"not in {', '.join(_shown(p) for p in prefixes)}: the specs there are compared"
        )
    return BasePaths(unique, note)


def _names(commit: str, top: Path, what: str) -> list[str]:
    """Every file path of the commit, listed as the spec files are (bounded, same errors);
    names that are not UTF-8 or cannot be a spec path are left out: they name no root."""
    out = []
    for _mode, kind, _oid, raw in list_entries(commit, "", top, what):
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if kind == "blob" and path_problem(name) is None:
            out.append(name)
    return out


def _own_roots(commit: str, names: set[str], specs: list[str], top: Path, here: str) -> tuple[list[str], str]:
    """The base's spec roots and why they are: its configured `spec_root`, its default folder,
    or the folders above its domain folders (outermost only)."""
    configured = _configured_root(commit, names, top, here)
    if configured is not None and _holds(specs, configured[0]):
        return [configured[0]], f"spec_root of its {configured[1]}"
    for default in dict.fromkeys([_join(here, DEFAULT_SPEC_ROOT), DEFAULT_SPEC_ROOT]):
        if _holds(specs, default):
            return [default], f"its {DEFAULT_SPEC_ROOT}/ folder"
    parents = {posixpath.dirname(posixpath.dirname(n)) for n in specs if posixpath.basename(n) == DOMAIN_FILE}
    parents |= {posixpath.dirname(n) for n in specs if posixpath.basename(n) == RELEASES_FILE}
    outer = sorted(r for r in parents if not any(o != r and _below(r, o) for o in parents))
    return outer or [""], "the folders above its domain.yaml files"


def _configured_root(commit: str, names: set[str], top: Path, here: str) -> tuple[str, str] | None:
    """(spec root, the file setting it) from the project file the base has where the new tree's
    would be found (the working directory or a parent); None when it sets none usable."""
    folder = here
    while True:
        for file in (CONFIG_FILE, "pyproject.toml"):
            path = _join(folder, file)
            if path not in names:
                continue
            table = _toml(commit, path, top)
            if file != CONFIG_FILE:
                tool = table.get("tool")
                table = tool.get(TOOL_KEY) if isinstance(tool, dict) else None
                if not isinstance(table, dict):
                    continue
            value = table.get("spec_root", DEFAULT_SPEC_ROOT) if table is not None else None
            if not isinstance(value, str):
                return None
            root = posixpath.normpath(_join(folder, value))
            root = "" if root == "." else root
            # the base's setting only chooses what is read of the base itself: inside the tree
            if root and path_problem(root) is not None:
                return None
            return root, path
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def _toml(commit: str, path: str, top: Path) -> dict[str, object] | None:
    """The TOML blob at `commit:path`, or None when it is too large or not TOML (the base's
    config is not trusted: it may be anything; a broken one sets nothing)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        proc = run_git(["cat-file", "blob", f"{commit}:{path}"], top, limit=MAX_FILE_BYTES)
        return tomllib.loads(proc.stdout.decode("utf-8")) if proc.ok else None
    except (GitOutputTooLarge, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None


def _split(prefix: str, top: Path) -> tuple[str, str]:
    """(the spec root a path of the work tree lies in, the path below it): a domain folder or a
    file in one is below its root; a releases.yaml is below its folder; any other path is a
    root itself."""

    def is_file(path: str) -> bool:
        return (top / path).is_file()

    def is_domain(folder: str) -> bool:
        return is_file(_join(folder, DOMAIN_FILE))

    parent = posixpath.dirname(prefix)
    if is_file(prefix):
        if posixpath.basename(prefix) == RELEASES_FILE:
            return parent, RELEASES_FILE
        if is_domain(parent):
            return posixpath.dirname(parent), posixpath.relpath(prefix, posixpath.dirname(parent) or ".")
        return parent, posixpath.basename(prefix)
    if prefix and is_domain(prefix):
        return parent, posixpath.basename(prefix)
    return prefix, ""


def _holds(specs: list[str], folder: str) -> bool:
    return any(_below(s, folder) for s in specs)


def _below(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _join(folder: str, name: str) -> str:
    return posixpath.join(folder, name) if folder and name else folder or name


def _shown(path: str) -> str:
    return f"{path}/" if path else "the top folder"


def _nothing_there(what: str, prefixes: Sequence[str], roots: list[str]) -> UsageError:
    return UsageError(
        f"{what}: the ref holds spec files in {', '.join(_shown(r) for r in roots)} but none under "
        f"{', '.join(_shown(p) for p in prefixes)}, the spec paths of the new tree\n"
        "  hint: pass the spec root both trees share with --specs, or compare with a directory "
        "holding the old specs (--against path/to/old/opsets)"
    )
