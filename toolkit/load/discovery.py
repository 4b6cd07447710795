"""Finding spec files: which files a set of paths names, what kind each is, how it is shown."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from toolkit.model.diagnostics import Diagnostic, UsageError
from toolkit.model.spec import Location

DOMAIN_FILE = "domain.yaml"
RELEASES_FILE = "releases.yaml"
# Spec files end in `.yaml`. `.yml` files (and `.YAML`) are found too, but only to report them
# (FILE-NAME): one spelling, so that globs, editor associations and hooks all name the same files.
SPEC_SUFFIX = ".yaml"
SPEC_SUFFIXES = (".yaml", ".yml")


# Spec trees are a folder per domain, perhaps grouped a level or two deeper.
MAX_FOLDER_DEPTH = 32


def discover(paths: Iterable[str | os.PathLike[str]], too_deep: list[Path] | None = None) -> list[Path]:
    """Every spec file under `paths` (files are taken as given), sorted for determinism.

    A file reached twice (the same tree under two spellings, `opsets` and `/abs/opsets`, or
    through a symlinked folder) is listed once, under the spelling that sorts first. Folders
    more than MAX_FOLDER_DEPTH levels below a given path are not entered; the first such
    folder of each branch is appended to `too_deep` (the loader reports them)."""
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.update(walk(path, _is_spec_name, too_deep))
        elif path.is_file() or os.path.lexists(path):
            found.add(path)  # a FIFO, device or broken symlink: reading it reports what it is
            beside = path.parent / DOMAIN_FILE
            if path.name != DOMAIN_FILE and beside.is_file():
                found.add(beside)  # one operator file given: its domain is the folder's domain.yaml
        else:
            raise UsageError(f"{raw}: no such file or directory")
    return _unique(sorted(found))


def with_release_table(paths: Iterable[str]) -> list[str]:
    """`paths` plus the `releases.yaml` of the spec root above each path that is a domain folder
    or a file in one, when there is one: the release table decides which opset versions are
    released, and a diff given one domain folder must not read its open opsets as released."""
    out = list(paths)
    for raw in list(out):
        path = Path(raw)
        folder = path if path.is_dir() else path.parent
        if path.name == RELEASES_FILE or not (folder / DOMAIN_FILE).is_file():
            continue
        table = folder.parent / RELEASES_FILE
        if table.is_file() and os.fspath(table) not in out:
            out.append(os.fspath(table))
    return out


def _is_spec_name(name: str) -> bool:
    return name.lower().endswith(SPEC_SUFFIXES)


def walk(top: Path, wanted: Callable[[str], bool], too_deep: list[Path] | None = None) -> list[Path]:
    """The files under `top` whose names are `wanted`, with os.walk's choices (hidden folders
    skipped, folder symlinks not followed) but without its recursion and with a depth limit."""
    found = []
    pending = [(os.fspath(top), 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable folder: os.walk skips it too
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
                is_link = is_dir and entry.is_symlink()
            except OSError:
                is_dir = is_link = False
            if is_dir:
                if is_link or name.startswith("."):
                    continue
                if depth >= MAX_FOLDER_DEPTH:
                    if too_deep is not None:
                        too_deep.append(Path(entry.path))
                    continue
                pending.append((entry.path, depth + 1))
            elif wanted(name):
                found.append(Path(entry.path))
    return found


def _unique(files: list[Path]) -> list[Path]:
    """`files` without second spellings of one file (same device and inode once symlinks are
    followed); a path that cannot be stat'ed is kept as it is (reading it reports why)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            out.append(path)
            continue
        identity = (info.st_dev, info.st_ino)
        if identity not in seen:
            seen.add(identity)
            out.append(path)
    return out


def too_deep_diagnostic(display: str) -> Diagnostic:
    """FILE-DEPTH for a folder that is not entered, named as diagnostics name files."""
    return Diagnostic(
        "FILE-DEPTH",
        f"folder is nested more than {MAX_FOLDER_DEPTH} levels below the spec path; nothing in it is read",
        Location(display, 1, 1),
        "spec trees are a few folders deep (one per domain); move the files up or remove the folders",
    )


def classify(path: Path) -> str:
    """The schema kind of a spec file: "releases", "domain" or "operator"; "misnamed" for a
    file whose name is not a spec file name (see `right_name`)."""
    if path.name == RELEASES_FILE:
        return "releases"
    if path.name == DOMAIN_FILE:
        return "domain"
    return "operator" if right_name(path.name) is None else "misnamed"


def right_name(name: str) -> str | None:
    """The spec file name meant by a misspelled `name` (`domain.yml`, `Domain.yaml`, `Mix.yml`),
    None when `name` is right. Any case of domain/releases names that file."""
    stem, dot, suffix = name.rpartition(".")
    if not dot or "." + suffix.lower() not in SPEC_SUFFIXES:
        return None
    for special in (DOMAIN_FILE, RELEASES_FILE):
        if stem.lower() == special[: -len(SPEC_SUFFIX)] and name != special:
            return special
    return None if "." + suffix == SPEC_SUFFIX else stem + SPEC_SUFFIX


def misnamed_diagnostic(path: Path, display: str) -> Diagnostic:
    """FILE-NAME for a file `classify` calls misnamed: not read, named right in the hint."""
    right = right_name(path.name)
    what = (
        "a domain file"
        if right == DOMAIN_FILE
        else "a releases file"
        if right == RELEASES_FILE
        else "a spec file"
    )
    why = "spec files end in `.yaml`" if path.suffix != SPEC_SUFFIX else f"'{right}' is lower case"
    return Diagnostic(
        "FILE-NAME",
        f"'{path.name}' is not read: {what} is named '{right}' ({why})",
        Location(display, 1, 1),
        f"rename the file to '{right}' (git mv '{path.name}' '{right}')",
    )


def folder_name(path: Path) -> str:
    """The name of the folder holding `path` (also for a bare `Mix.yaml` given in that folder)."""
    return Path(os.path.abspath(path)).parent.name


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the working directory when possible."""
    try:
        return os.path.relpath(path)
    except ValueError:  # different drive on Windows
        return str(path)
