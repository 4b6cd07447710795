"""Which paths of the old tree (a git ref, or an `--against` directory) hold the specs the new
tree is compared with: the base's own, not the pull request's.

The spec paths of the new tree come from `--specs` or the new tree's `spec_root`, and the new
tree may come from a stranger. Reading the ref at those paths only lets a pull request hide
every breaking change: move the spec folder (`git mv opsets specs`, `spec_root = "specs"`) and
the ref holds nothing there, so every operator looks new. So a domain is found in the base
where the base keeps it: each domain folder of the new tree (by name, as the loader requires
it to be named) is read at the base's folder of that name, wherever it is, with the release
table (`releases.yaml`) of the base's spec root above it, which decides what is released. The
spec paths themselves are read too (what they held in the base). A new spec tree whose domains
the base has nowhere is new (a monorepo's second tree), and a note says so; a base with no spec
files at all is an empty base, and a note says that too.

One mapping (`map_base`) answers for both kinds of base, over a listing of its spec files
(`BaseTree`): a ref is listed from its git objects, its paths the repository's; a directory from
disk, its top the spec root the new tree's paths are compared with (a domain folder given as the
directory stands alone in its spec root), so a narrowed `--specs` (a domain folder, one file) is
compared with the same-named domain folder there and not with the whole directory.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from toolkit.load.discovery import DOMAIN_FILE, RELEASES_FILE, SPEC_SUFFIXES, walk, with_release_table
from toolkit.load.files import path_problem
from toolkit.load.gittree import list_entries
from toolkit.model.diagnostics import UsageError

_SUFFIXES = tuple(s.encode() for s in SPEC_SUFFIXES)


@dataclass(frozen=True)
class BasePaths:
    prefixes: tuple[str, ...]  # the base's paths to read (a ref: repository paths; a directory: real ones)
    note: str  # said on stderr ("" when the paths are the new tree's own)


# The two records below are NamedTuples: a frozen dataclass is built by exec'ing generated
# code when the module is imported, and every `opset diff` imports this module.
class BaseTree(NamedTuple):
    """The old tree as the mapping sees it: its spec-named files, as paths below its top."""

    specs: tuple[str, ...]
    what: str  # starts the notes (`--against main`)
    noun: str  # "ref" or "directory"
    shown_top: str  # prepended to a path of it in a note ("" for a ref's repository paths)


class HeadPath(NamedTuple):
    """One spec path of the new tree, placed in the base tree's coordinates."""

    root: str  # the spec root it lies in, as a path of the base tree ("" its top)
    below: str  # the path below that root: "" (a root), releases.yaml, DOMAIN or DOMAIN/FILE
    domains: tuple[str, ...]  # the names of the domain folders it holds or lies in
    shown: str  # how a note names it (the new tree's path)

    @property
    def at(self) -> str:
        return _join(self.root, self.below)


def map_base(base: BaseTree, heads: Sequence[HeadPath]) -> BasePaths:
    """The paths of `base` to read as the old side of the new tree's `heads`, and the note."""
    heads = list({head.at: head for head in heads}.values())
    shown = (
        ", ".join(h.shown for h in heads if posixpath.basename(h.below) != RELEASES_FILE) or "the top folder"
    )
    # A spec tree has a domain file or a release table; other YAML (CI workflows) is no spec tree.
    if not any(posixpath.basename(n) in (DOMAIN_FILE, RELEASES_FILE) for n in base.specs):
        return BasePaths(
            tuple(h.at for h in heads),
            f"note: {base.what}: the {base.noun} holds no spec files, so every operator, version and "
            "domain counts as new",
        )
    folders: dict[str, list[str]] = {}  # domain folder name -> the base's folders of that name
    for name in base.specs:
        if posixpath.basename(name) == DOMAIN_FILE:
            folder = posixpath.dirname(name)
            folders.setdefault(posixpath.basename(folder), []).append(folder)
    read: list[str] = []
    moved: list[str] = []  # the base's domain folders read for domains the new tree keeps elsewhere
    for head in heads:
        read.append(head.at)
        for domain in head.domains:
            found = folders.get(domain, [])
            if any(_below(f, head.at) or _below(head.at, f) for f in found):
                continue  # the base keeps it where the new tree does
            if len(found) > 1:
                raise UsageError(
                    f"{base.what}: the {base.noun} holds domain folder {domain} in "
                    f"{', '.join(base.shown_top + f for f in found)}; which one {head.shown} corresponds "
                    "to is not clear\n"
                    "  hint: pass --specs with the spec root that holds it in both trees"
                )
            if found:  # moved (or copied): the base's own folder is the old side
                tail = head.below.split("/", 1)[1] if "/" in head.below else ""
                read.append(_join(found[0], tail))
                moved.append(found[0])
                read.append(_join(posixpath.dirname(found[0]), RELEASES_FILE))
        if head.below:  # a domain folder or a file in one: the release table of its root decides too
            read.append(_join(head.root, RELEASES_FILE))
            if "/" in head.below:
                read.append(_join(head.root, f"{head.below.split('/')[0]}/{DOMAIN_FILE}"))
    unique = tuple(dict.fromkeys(read))
    if moved:
        note = (
            f"note: {base.what}: the {base.noun} keeps "
            f"{', '.join(base.shown_top + m for m in sorted(set(moved)))}, whose domains the new tree has "
            f"in {shown}: they are compared with them"
        )
    elif not any(_holds(base.specs, p) for p in unique if posixpath.basename(p) != RELEASES_FILE):
        # (a release table alone holds no operator: everything is new all the same)
        note = (
            f"note: {base.what}: the {base.noun} holds spec files, but nothing of {shown} nor of its "
            "domains: every operator, version and domain there counts as new"
        )
    else:
        note = ""
    return BasePaths(unique, note)


# --------------------------------------------------------------------------- a git ref


def base_paths(commit: str, prefixes: Sequence[str], top: Path, what: str) -> BasePaths:
    """The repository paths to read at `commit` for the new tree's `prefixes` (repository paths;
    "" is the top); `what` starts messages (`--against main`)."""
    base = BaseTree(tuple(_spec_names(commit, top, what)), what, "ref", "")
    heads = []
    for prefix in prefixes:
        root, below = _split(prefix, top)
        heads.append(_head(root, prefix, below, top))
    return map_base(base, heads)


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


# --------------------------------------------------------------------------- a directory


def directory_base_paths(against: str, paths: Sequence[str]) -> BasePaths:
    """The paths of the directory `against` to read as the old tree of the new tree's `paths`
    (each placed below its own spec root, which the directory stands for), and the note. The
    directory is listed once; what is read is only what it holds."""
    from toolkit.load.pbload import is_pb_tree  # here: a gate against a git ref does not need it

    top, scope = Path(against), ""
    if (top / DOMAIN_FILE).is_file():  # a domain folder: alone in its spec root
        top, scope = top.parent, top.name
    listed = [p.relative_to(top).as_posix() for p in walk(top / scope, _is_spec_name)]
    # Generated schema documents (no YAML): one file holds every domain, read whole.
    if not listed and is_pb_tree(against):
        return BasePaths((against,), "")
    if scope and (top / RELEASES_FILE).is_file():
        listed.append(RELEASES_FILE)
    shown_top = "" if top == Path(".") else f"{top.as_posix().rstrip('/')}/"
    base = BaseTree(tuple(listed), f"--against {against}", "directory", shown_top)
    heads = []
    for raw in paths:
        # `.` or `..` has no folder name to match: named by its real path
        prefix = (Path(raw) if Path(raw).name else Path(raw).resolve()).as_posix()
        _root, below = _split(prefix, Path("."))
        heads.append(_head("", prefix, below, Path(".")))
    mapped = map_base(base, heads)
    read: list[str] = []
    for rel in mapped.prefixes:
        if not rel:  # the whole tree: the directory (and a domain folder's release table)
            read.extend(with_release_table([against]))
        elif _holds(listed, rel):  # nothing of the directory's parent beyond what was listed
            read.append(os.fspath(top / rel))
    return BasePaths(tuple(dict.fromkeys(read)), mapped.note)


def _is_spec_name(name: str) -> bool:
    return name.lower().endswith(SPEC_SUFFIXES)


# --------------------------------------------------------------------------- the new tree


def _head(root: str, prefix: str, below: str, top: Path) -> HeadPath:
    """The path `prefix` of the new tree (below `top`), whose spec root is `root` of the base."""
    # The base's top holds every domain folder where it keeps it: none is looked for elsewhere.
    domains = tuple(_domains(prefix, below, top)) if _join(root, below) else ()
    return HeadPath(root, below, domains, _shown(prefix, top))


def _domains(prefix: str, below: str, top: Path) -> list[str]:
    """The names of the domain folders a path of the work tree holds or lies in."""
    if below:
        head = below.split("/")[0]
        return [] if head == RELEASES_FILE else [head]
    return sorted({p.parent.name for p in walk(top / prefix, lambda n: n == DOMAIN_FILE)})


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


def _holds(specs: Sequence[str], folder: str) -> bool:
    return any(_below(s, folder) for s in specs)


def _below(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _join(folder: str, name: str) -> str:
    return posixpath.join(folder, name) if folder and name else folder or name


def _shown(path: str, top: Path) -> str:
    """A path of the new tree as a note names it: a folder ends in `/`."""
    if not path or path == ".":
        return "the top folder"
    return path if (top / path).is_file() else f"{path.rstrip('/')}/"
