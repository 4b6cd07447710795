"""Which paths of a git ref hold the old tree's specs: the base's own, not the pull request's.

The spec paths of the new tree come from `--specs` or the new tree's `spec_root`, and the new
tree may come from a stranger. Reading the ref at those paths only lets a pull request hide
every breaking change: move the spec folder (`git mv opsets specs`, `spec_root = "specs"`) and
the ref holds nothing there, so every operator looks new. So a domain is found in the base
where the base keeps it: each domain folder of the new tree (by name, as the loader requires
it to be named) is read at the base's folder of that name, wherever it is, with the release
table (`releases.yaml`) of the base's spec root above it, which decides what is released. The
spec paths themselves are read too (what they held in the base). A new spec tree whose domains
the base has nowhere is new (a monorepo's second tree), and a note says so; a ref with no spec
files at all is an empty base, and a note says that too.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.load.discovery import DOMAIN_FILE, RELEASES_FILE, SPEC_SUFFIXES, walk
from toolkit.load.gittree import list_entries, path_problem
from toolkit.model.diagnostics import UsageError

_SUFFIXES = tuple(s.encode() for s in SPEC_SUFFIXES)


@dataclass(frozen=True)
class BasePaths:
    prefixes: tuple[str, ...]  # repository paths to read at the ref
    note: str  # said on stderr ("" when the paths are the new tree's own)


def base_paths(commit: str, prefixes: Sequence[str], top: Path, what: str) -> BasePaths:
    """The repository paths to read at `commit` for the new tree's `prefixes` (repository paths;
    "" is the top); `what` starts messages (`--against main`)."""
    specs = _spec_names(commit, top, what)
    # A spec tree has a domain file or a release table; other YAML (CI workflows) is no spec tree.
    if not any(posixpath.basename(n) in (DOMAIN_FILE, RELEASES_FILE) for n in specs):
        return BasePaths(
            tuple(prefixes),
            f"note: {what}: the ref holds no spec files, so every operator, version and domain counts as new",
        )
    folders: dict[str, list[str]] = {}  # domain folder name -> the base's folders of that name
    for name in specs:
        if posixpath.basename(name) == DOMAIN_FILE:
            folder = posixpath.dirname(name)
            folders.setdefault(posixpath.basename(folder), []).append(folder)
    read: list[str] = []
    moved: list[str] = []  # the base's domain folders read for domains the new tree keeps elsewhere
    prefixes = list(dict.fromkeys(prefixes))
    for prefix in prefixes:
        root, below = _split(prefix, top)
        read.append(prefix)
        for domain in _domains(prefix, below, top):
            found = folders.get(domain, [])
            if any(_below(f, prefix) or _below(prefix, f) for f in found):
                continue  # the base keeps it where the new tree does
            if len(found) > 1:
                raise UsageError(
                    f"{what}: the ref holds domain folder {domain} in {', '.join(found)}; which one "
                    f"{prefix} corresponds to is not clear\n"
                    "  hint: pass --specs with the spec root that holds it in both trees"
                )
            if found:  # moved (or copied): the base's own folder is the old side
                base_root = posixpath.dirname(found[0])
                tail = below.split("/", 1)[1] if below and "/" in below else ""
                read.append(_join(found[0], tail) if tail else found[0])
                moved.append(found[0])
                read.append(_join(base_root, RELEASES_FILE))
        if below:  # a domain folder or a file in one: the release table of its root decides too
            read.append(_join(root, RELEASES_FILE))
            if "/" in below:
                read.append(_join(root, f"{below.split('/')[0]}/{DOMAIN_FILE}"))
    unique = tuple(dict.fromkeys(read))
    if moved:
        note = (
            f"note: {what}: the ref keeps {', '.join(sorted(set(moved)))}, whose domains the new tree has in "
            f"{', '.join(_shown(p) for p in prefixes)}: they are compared with them"
        )
    elif not any(_holds(specs, p) for p in unique):
        note = (
            f"note: {what}: the ref holds spec files, but nothing of {', '.join(_shown(p) for p in prefixes)} "
            "nor of its domains: every operator, version and domain there counts as new"
        )
    else:
        note = ""
    return BasePaths(unique, note)


def _domains(prefix: str, below: str, top: Path) -> list[str]:
    """The names of the domain folders a path of the work tree holds or lies in."""
    if below:
        head = below.split("/")[0]
        return [] if head == RELEASES_FILE else [head]
    return sorted({p.parent.name for p in walk(top / prefix, lambda n: n == DOMAIN_FILE)})


def _spec_names(commit: str, top: Path, what: str) -> list[str]:
    """The spec-named file paths of the commit, listed as the spec files are (bounded, same
    errors); names that are not UTF-8 or cannot be a spec path are left out: they name no
    folder (reading them reports them). Only spec names are checked: a repository's other
    files are most of its listing."""
    out = []
    for _mode, kind, _oid, raw in list_entries(commit, "", top, what):
        if kind != "blob" or not raw.endswith(_SUFFIXES):
            continue
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if path_problem(name) is None:
            out.append(name)
    return out


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
        return prefix, ""  # a file of no domain folder: nothing below a root
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
