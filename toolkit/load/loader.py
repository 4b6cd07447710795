"""YAML spec files -> model objects (SpecSet), with every problem reported at its file:line:col.

Stages: discover files (`discovery`) -> read YAML with marks (`yamlsrc`) -> validate against the
JSON Schemas in `schemas/` (`schema`) -> build frozen model objects (`build`). This module runs
them in order; the operator files of a large tree are shared out between processes
(`parallel`, the toolkit's one process pool). Semantic rules that only need
model objects live in `toolkit.checks`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from toolkit.load import parallel, schema_fast
from toolkit.load.build import Builder
from toolkit.load.build_releases import build_releases
from toolkit.load.discovery import (
    DOMAIN_FILE,
    classify,
    discover,
    display_path,
    misnamed_diagnostic,
    right_name,
    too_deep_diagnostic,
)
from toolkit.load.example_files import ExampleFiles, ExampleRef, example_budget, filled
from toolkit.load.files import MAX_FILE_BYTES, LeavesTree, NotRegularFile, SpecRoots, read_regular_file
from toolkit.load.result import LoadResult
from toolkit.load.schema import article, schema_diagnostics
from toolkit.load.yamlsrc import Source, YamlProblem, read_yaml
from toolkit.model.diagnostics import Diagnostic, sort_key
from toolkit.model.spec import DomainSpec, Location, OperatorSpec, SpecSet

K = TypeVar("K")


@dataclass(frozen=True)
class OperatorCheck(Generic[K]):
    """A check of one operator on its own (and the domains), given by the checks layer and run in
    the process that built the operator (see `read_specs`). `run` gives the operator's diagnostics and what was
    computed on the way that this process may use again; `reuse` is handed the latter here, in
    load order, once every file is read: a worker's travels back with its results (pickled by
    the pool), so what a worker computed is not computed again in this process. `prepare` makes
    what `run` builds once per process (the Markdown parser of the doc checks): called before the
    loader forks, so the workers inherit it instead of each building it again on their first file."""

    run: Callable[[OperatorSpec, Mapping[str, DomainSpec]], tuple[list[Diagnostic], Sequence[K]]]
    reuse: Callable[[Sequence[K]], None]
    prepare: Callable[[], object] = lambda: None


# (position in the load, spec, its file's diagnostics, the diagnostics of `check_operator`, the
# example files it names: read by this process once every file is built, see `example_files`;
# what the check computed, for its `reuse`)
FileResult = tuple[
    int, OperatorSpec | None, list[Diagnostic], list[Diagnostic], list[ExampleRef], Sequence[Any]
]
# How a large tree's operator files are shared out (`parallel.split`): chunks shrinking down to
# CHUNK_FILES files, so that the chunk still being worked when the other process runs out is
# small (chunks of equal size left one process idle for a good part of a chunk at the end), while
# the big first chunks keep the hand-outs few (each costs a round trip through the pool).
CHUNK_FILES = 4


def read_specs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    display: Callable[[Path], str] | None = None,
    jobs: int | None = None,
    check_operator: OperatorCheck[Any] | None = None,
    contents: Mapping[Path, bytes] | None = None,
    project_folder: Path | None = None,
) -> LoadResult:
    """Read every spec under `paths` into model objects, with the structural diagnostics (files,
    YAML, JSON Schema, building the model). Never raises for bad specs: problems are diagnostics.
    The semantic checks run one layer up (`toolkit.checks.run.load_specs` = read + check).

    `check_operator`, given by that layer, is run on every operator the result keeps, in the
    process that built it (so on large trees it is split across the workers too); its
    diagnostics are added to the result's, and what it computed is handed to its `reuse`.

    `display` maps a file to the name diagnostics use for it (default: path relative to the
    working directory); the git-ref loader uses it to report repository paths, not temp paths.
    `jobs`: processes for large trees (`parallel.worker_count`: default 2 when the machine has
    2+ cores; `OPSET_TOOLKIT_JOBS=1` runs everything in this process).

    `contents`: the files' bytes, read already (the git-ref loader reads them from git objects):
    the spec files are then exactly its keys, nothing is looked for or read on disk, and `paths`
    is not used.

    `project_folder`: where the tree's project file (its `max_example_bytes`) is looked for
    (default: the working directory; the language server passes the tree's own folder).
    """
    too_deep: list[Path] = []
    files = sorted(contents) if contents is not None else discover(paths, too_deep)
    show = display or display_path
    # what the spec files and their example files stay inside: each spec folder or file's folder
    # (in-memory files: none, so each spec's own folder)
    roots = SpecRoots() if contents is not None else SpecRoots.of(paths)
    workers = parallel.worker_count(jobs)  # first: a bad OPSET_TOOLKIT_JOBS fails on any tree
    if len(files) < parallel.MIN_FILES:
        result = load_files(
            files,
            show,
            check_operator=check_operator,
            contents=contents,
            roots=roots,
            project_folder=project_folder,
        )
    else:
        with parallel.gc_paused():
            result = load_files(
                files,
                show,
                workers=workers,
                check_operator=check_operator,
                contents=contents,
                roots=roots,
                project_folder=project_folder,
            )
    if too_deep:
        result.diagnostics = sorted(
            [*result.diagnostics, *(too_deep_diagnostic(show(f)) for f in too_deep)], key=sort_key
        )
    return result


def load_files(
    files: Sequence[Path],
    show: Callable[[Path], str],
    *,
    workers: int = 1,
    check_operator: OperatorCheck[Any] | None = None,
    contents: Mapping[Path, bytes] | None = None,
    roots: SpecRoots | Sequence[Path] = (),
    project_folder: Path | None = None,
) -> LoadResult:
    """Load the given spec files; `workers` > 1 splits the operator files across processes
    (the result is the same either way). `check_operator`, `contents`: see `read_specs`. The
    spec files read from disk, and the example files the operators name, must really lie under
    the one of `roots` they were found in (else, or without roots, under the spec's folder)."""
    roots = roots if isinstance(roots, SpecRoots) else SpecRoots(roots)
    diags: list[Diagnostic] = []
    broken_domain_folders: set[Path] = set()  # their operators' DOMAIN-UNKNOWN would only be noise
    meta: dict[str, list[Source]] = {"domain": [], "releases": []}
    op_files = []
    for path in files:
        kind = classify(path)
        if kind == "operator":
            op_files.append(path)
            continue
        if kind == "misnamed" and _is_operator_file(path, show, contents, roots):
            op_files.append(path)  # an operator named Domain (or DOMAIN) in its own file
            continue
        if kind == "misnamed":
            diags.append(misnamed_diagnostic(path, show(path)))
            if right_name(path.name) == DOMAIN_FILE:
                broken_domain_folders.add(path.parent)  # its operators' DOMAIN-UNKNOWN would only be noise
            continue
        source = read_source(path, kind, show, diags, contents, roots)
        if source is None:
            if kind == "domain":
                broken_domain_folders.add(path.parent)
            continue
        meta[kind].append(source)

    builder = Builder(diags, broken_domain_folders)
    domains = builder.domains(meta["domain"])
    releases = build_releases(meta["releases"], diags)
    reader = _OperatorReader(show, domains, broken_domain_folders, roots, check_operator, contents)
    numbered = list(enumerate(op_files))
    if workers > 1:
        if parallel.can_fork():  # (else run_shared works every chunk here, preparing as it goes)
            schema_fast.prepare("operator")  # made once, inherited by the forked workers
            if check_operator is not None:
                check_operator.prepare()  # the same for what the checks build once
        chunks = parallel.run_shared(reader.read, parallel.split(numbered, workers, CHUNK_FILES), workers)
    else:
        chunks = [reader.read(numbered)]
    results = [r for chunk in chunks for r in chunk]  # in load order: chunks come back in order
    if check_operator is not None:
        for result in results:
            check_operator.reuse(result[5])
    refs = [ref for result in results for ref in result[4]]  # in load order: the budget's order
    tensors = ExampleFiles(roots, example_budget(project_folder)).read(refs, diags) if refs else {}
    operators = [filled(spec, tensors) for spec in _merge_operators(results, diags)]
    specs = SpecSet(
        domains=tuple(sorted(domains.values(), key=lambda d: d.name)),
        operators=tuple(sorted(operators, key=lambda o: (o.domain, o.name))),
        releases=releases,
    )
    return LoadResult(specs, sorted(dedupe(diags), key=sort_key), len(files))


def _is_operator_file(
    path: Path, show: Callable[[Path], str], contents: Mapping[Path, bytes] | None, roots: SpecRoots
) -> bool:
    """A `Domain.yaml` that starts `operator: Domain` is the operator's file, not a misspelled
    domain.yaml (`.yml` files are never read)."""
    if path.suffix != ".yaml":
        return False
    try:
        data = read_yaml(path, show(path), _bytes_of(path, contents, roots))
    except (YamlProblem, OSError):
        return False
    return isinstance(data, dict) and data.get("operator") == path.stem


# FILE-READ's hint for a spec file whose symbolic link leads out of the tree (`files.LeavesTree`)
LEAVES_TREE_HINT = (
    "a spec file's symbolic link must stay inside the spec tree: replace it with a copy of the file"
)


def _bytes_of(path: Path, contents: Mapping[Path, bytes] | None, roots: SpecRoots) -> bytes:
    """A spec file's bytes: from `contents` when given, else from disk, bounded, and only when its
    real path lies inside its root (LeavesTree otherwise: the target is never opened)."""
    return contents[path] if contents is not None else read_regular_file(path, MAX_FILE_BYTES, roots)


def read_source(
    path: Path,
    kind: str,
    show: Callable[[Path], str],
    diags: list[Diagnostic],
    contents: Mapping[Path, bytes] | None = None,
    roots: SpecRoots | None = None,
) -> Source | None:
    """Read and schema-check one file (its bytes from `contents` when given, else from disk inside
    `roots`: default, the file's own folder); None (with diagnostics) when it cannot be used."""
    display = show(path)
    try:
        data = read_yaml(path, display, _bytes_of(path, contents, roots or SpecRoots()))
    except YamlProblem as problem:
        diags.append(problem.diagnostic)
        return None
    except OSError as exc:
        # Located at 1:1 like every other file-level problem, so the `file:line:col:` format holds.
        # Only the reason is shown: of a link out of the tree, nothing about its target.
        hint = (
            "a spec must be a regular file: remove it, or the symlink that points to it"
            if isinstance(exc, NotRegularFile)
            else LEAVES_TREE_HINT
            if isinstance(exc, LeavesTree)
            else "check that the file exists (a symlink may point nowhere or to itself) and is readable"
        )
        diags.append(
            Diagnostic("FILE-READ", f"cannot read file: {exc.strerror or exc}", Location(display, 1, 1), hint)
        )
        return None
    source = Source(path, display, data)
    if not isinstance(data, dict):
        diags.append(
            Diagnostic(
                "SCHEMA-TYPE",
                f"{article(kind)} file must be a mapping of `key: value` lines",
                source.loc(),
                "start the file with `operator:` (operator files) or `domain:` (domain.yaml)",
            )
        )
        return None
    problems = schema_diagnostics(source, kind)
    if problems:
        diags.extend(problems)
        return None
    return source


@dataclass(frozen=True)
class _OperatorReader:
    """Reads operator files against the already built domains; each file's result carries the
    file's position in the load, so results merge in the same order however files were split."""

    show: Callable[[Path], str]
    domains: dict[str, DomainSpec]
    broken_domain_folders: set[Path]
    roots: SpecRoots
    check: OperatorCheck[Any] | None = None
    contents: Mapping[Path, bytes] | None = None

    def read(self, files: Sequence[tuple[int, Path]]) -> list[FileResult]:
        out: list[FileResult] = []
        for index, path in files:
            diags: list[Diagnostic] = []
            checked: list[Diagnostic] = []
            refs: list[ExampleRef] = []
            computed: Sequence[Any] = ()
            spec = None
            source = read_source(path, "operator", self.show, diags, self.contents, self.roots)
            if source is not None:
                builder = Builder(diags, self.broken_domain_folders)
                spec = builder.operator(source, self.domains)
                refs = builder.example_refs
            if spec is not None and self.check is not None:
                checked, computed = self.check.run(spec, self.domains)
            out.append((index, spec, diags, checked, refs, computed))
        return out


def _merge_operators(results: list[FileResult], diags: list[Diagnostic]) -> list[OperatorSpec]:
    """The operators of every file (`results` in load order); a second definition is
    NAME-DUPLICATE. The diagnostics of the operator check are kept for the operators kept."""
    for _, _, file_diags, _, _, _ in results:
        diags.extend(file_diags)
    seen: dict[tuple[str, str], OperatorSpec] = {}
    checked: dict[int, list[Diagnostic]] = {}  # by id() of the spec
    for _, spec, _, spec_checked, _, _ in results:
        if spec is None:
            continue
        checked[id(spec)] = spec_checked
        key = (spec.domain, spec.name)
        if key in seen:
            first, second = sorted((seen[key], spec), key=lambda o: o.location.file)
            seen[key] = first
            diags.append(
                Diagnostic(
                    "NAME-DUPLICATE",
                    f"operator '{spec.name}' is already defined in {first.location.file}",
                    second.location,
                    "keep all versions of an operator in one file",
                )
            )
        else:
            seen[key] = spec
    for spec in seen.values():
        diags.extend(checked[id(spec)])
    return list(seen.values())


def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[Diagnostic] = set()
    out = []
    for diag in diags:
        if diag not in seen:
            seen.add(diag)
            out.append(diag)
    return out
