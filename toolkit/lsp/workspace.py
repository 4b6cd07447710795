"""The checking engine of the language server: one spec root, its files read from disk or from the
editor's buffers, and the findings of `opset validate` for each file, kept up to date edit by edit.

The loader is the CLI's (`checks.run.load_specs`); open buffers reach it through its one reading
seam, `contents` (a mapping from path to bytes): `Overlay` answers an open file from the editor's
text and any other file from disk, read as the loader reads it (`files.read_regular_file`, bounded),
so an unreadable file is the loader's own FILE-READ. Nothing is written and nothing from the tree is
executed: the server runs the checks `opset validate` runs, with the same limits.

An edit of one operator file that was already known re-reads that file alone (with the domain and
release files it is built against) and runs the tree-wide semantic checks over the cached specs with
that operator replaced (`SpecTree.update`): the result is what a full load of the same texts gives
(tests/test_lsp.py compares them). Anything else (a domain or release file, a file created or
removed, a name that another file also defines) reloads the whole tree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from toolkit.checks.docs import domain_doc_diagnostics
from toolkit.checks.run import load_specs
from toolkit.checks.spec import check_specs
from toolkit.load.discovery import classify, discover, too_deep_diagnostic
from toolkit.load.files import MAX_FILE_BYTES, SpecRoots, read_regular_file
from toolkit.load.loader import dedupe
from toolkit.load.output_folder import checked_spec_root
from toolkit.load.project import Project, load_project
from toolkit.model.diagnostics import Diagnostic, UsageError, sort_key
from toolkit.model.spec import DomainSpec, OperatorSpec, SpecSet

# A check runs in one process: the server is threaded (asyncio loop + one checking thread), and
# forking a threaded process may deadlock the child.
JOBS = 1


def _show(path: Path) -> str:
    """Diagnostics name files by their absolute path: the server maps them back to URIs."""
    return str(path)


class Overlay(Mapping[Path, bytes]):
    """The spec files of a tree as the loader's `contents`: the editor's text of an open file,
    else the file on disk (read when the loader asks, bounded and inside `root` like the loader's
    own read)."""

    def __init__(self, files: list[Path], buffers: Mapping[Path, bytes], root: Path) -> None:
        self._files = files
        self._buffers = buffers
        self._roots = SpecRoots([root])

    def __getitem__(self, path: Path) -> bytes:
        found = self._buffers.get(path)
        if found is not None:
            return found
        if path not in self._files:
            raise KeyError(path)
        return read_regular_file(path, MAX_FILE_BYTES, self._roots)  # OSError: the loader's FILE-READ

    def __iter__(self) -> Iterator[Path]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


@dataclass
class SpecTree:
    """One spec root and the latest findings for each of its files (by absolute path)."""

    root: Path
    buffers: dict[Path, bytes] = field(default_factory=dict)  # open editor buffers (under root)
    specs: SpecSet = field(default_factory=SpecSet)
    files: list[Path] = field(default_factory=list)
    structural: dict[Path, list[Diagnostic]] = field(default_factory=dict)  # per file: load + doc checks
    semantic: list[Diagnostic] = field(default_factory=list)  # the tree-wide checks
    loaded: bool = False
    # Each file's (mtime, size) on disk at the last full load: a file changed behind the server's
    # back (a checkout, another tool; a client that does not report watched files) is noticed on
    # the next edit, which then reloads the tree.
    stamps: dict[Path, tuple[int, int] | None] = field(default_factory=dict)
    full_loads: int = 0  # how many times the whole tree was read (tests and the benchmark read it)

    def contains(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    # ------------------------------------------------------------------ checking

    def reload(self) -> dict[Path, list[Diagnostic]]:
        """Read and check the whole tree; the findings of every file."""
        too_deep: list[Path] = []
        on_disk = discover([self.root], too_deep) if self.root.is_dir() else []
        self.files = sorted(set(on_disk) | {p for p in self.buffers if _is_spec_path(p)})
        self.stamps = {p: _stamp(p) for p in self.files}
        result = load_specs(
            [],
            display=_show,
            jobs=JOBS,
            contents=Overlay(self.files, self.buffers, self.root),
            project_folder=self.root,  # the tree's own settings, never the server's cwd's
        )
        self.specs = result.specs
        self.semantic = _semantic(result.specs)
        checked = set(self.semantic)
        self.structural = {path: [] for path in self.files}
        extra = [too_deep_diagnostic(_show(p)) for p in too_deep]
        for diag in [*result.diagnostics, *extra]:
            if diag not in checked:
                self.structural.setdefault(Path(diag.location.file), []).append(diag)
        self.loaded = True
        self.full_loads += 1
        return self.findings()

    def update(self, path: Path) -> dict[Path, list[Diagnostic]]:
        """Re-check after `path` changed (its buffer, or the file on disk): only that file when it
        is a known operator file whose operator name no other file defines (and the tree has no
        NAME-DUPLICATE, whose load kept only one of the two), else everything."""
        gone = path not in self.buffers and not path.is_file()  # closed, and never saved or deleted
        if not self.loaded or gone or path not in self.files or classify(path) != "operator":
            return self.reload()
        if any(_stamp(p) != self.stamps.get(p) for p in self.files if p != path and p not in self.buffers):
            return self.reload()  # another file changed on disk since the last load
        self.stamps[path] = _stamp(path)
        if self._has_duplicates():  # a name two files define: the load kept one of them
            return self.reload()
        old = self._operator_of(path)
        if old is not None and self._defined_elsewhere(old, path):
            return self.reload()
        meta = [p for p in self.files if classify(p) in ("domain", "releases")]
        part = load_specs(
            [],
            display=_show,
            jobs=JOBS,
            contents=Overlay([*meta, path], self.buffers, self.root),
            project_folder=self.root,
        )
        new = next((op for op in part.specs.operators if Path(op.location.file) == path), None)
        if new is not None and self._defined_elsewhere(new, path):
            return self.reload()
        operators = [op for op in self.specs.operators if Path(op.location.file) != path]
        if new is not None:
            operators.append(new)
        self.specs = replace(self.specs, operators=tuple(sorted(operators, key=lambda o: (o.domain, o.name))))
        part_checked = set(_semantic(part.specs))
        self.structural[path] = [
            d for d in part.diagnostics if Path(d.location.file) == path and d not in part_checked
        ]
        self.semantic = _semantic(self.specs)
        return self.findings()

    def findings(self) -> dict[Path, list[Diagnostic]]:
        """Every file's findings, sorted as `opset validate` prints them (files without any: [])."""
        out: dict[Path, list[Diagnostic]] = {path: list(diags) for path, diags in self.structural.items()}
        for diag in self.semantic:
            out.setdefault(Path(diag.location.file), []).append(diag)
        return {path: sorted(dedupe(diags), key=sort_key) for path, diags in out.items()}

    # ------------------------------------------------------------------ model look-ups

    def _operator_of(self, path: Path) -> OperatorSpec | None:
        return next((op for op in self.specs.operators if Path(op.location.file) == path), None)

    def operator_at(self, path: Path) -> OperatorSpec | None:
        """The operator the file defines, as last checked (None: it could not be built)."""
        return self._operator_of(path)

    def domain(self, name: str) -> DomainSpec | None:
        return next((d for d in self.specs.domains if d.name == name), None)

    def domain_of_folder(self, folder: Path) -> DomainSpec | None:
        return next((d for d in self.specs.domains if Path(d.location.file).parent == folder), None)

    def operators_of(self, domain: str) -> list[OperatorSpec]:
        return [op for op in self.specs.operators if op.domain == domain]

    def _has_duplicates(self) -> bool:
        return any(d.rule == "NAME-DUPLICATE" for diags in self.structural.values() for d in diags)

    def _defined_elsewhere(self, op: OperatorSpec, path: Path) -> bool:
        return any(
            o.domain == op.domain and o.name == op.name and Path(o.location.file) != path
            for o in self.specs.operators
        )


def _semantic(specs: SpecSet) -> list[Diagnostic]:
    """The tree-wide checks `load_specs` runs after reading (the same two calls)."""
    return [*check_specs(specs), *domain_doc_diagnostics(specs)]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _is_spec_path(path: Path) -> bool:
    return path.suffix == ".yaml"


def spec_root_for(path: Path, folders: list[Path]) -> Path | None:
    """The spec root a file (a real path) belongs to: the `spec_root` of the opset.toml (or
    pyproject.toml) above it, else `opsets/` of the workspace folder holding it; None when it lies
    in neither (the server then reports nothing for it). The root is checked as the CLI checks it
    (`checked_spec_root`): a setting or a symlink that leads out of the project is a UsageError
    (OutputRefused, located at the setting when one is at fault), as is a project file that
    cannot be read."""
    project: Project = load_project(path.parent)
    if project.source is not None:
        setting = project.key_location("spec_root")
        candidates = [(project.folder, setting)]
    else:
        candidates = [(folder, None) for folder in folders]
    refused: UsageError | None = None
    for folder, setting in candidates:
        try:
            root = checked_spec_root(folder, project.spec_root, setting)
        except UsageError as exc:
            # (the file's real path may lie anywhere: a symlinked root leads out of its folder)
            refused = refused or exc
            continue
        # No link lies between the (real) folder and the root: the root is a real path too.
        if root == path or root in path.parents:
            return root
    if refused is not None:  # the root that should hold the file is refused: say why
        raise refused
    return None


__all__ = ["Overlay", "SpecTree", "UsageError", "spec_root_for"]
