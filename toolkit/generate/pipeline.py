"""`opset generate`: load -> check -> the generators, kind by kind -> one atomic writer.

The registry is loaded and checked first (`load_registry`: a spec error raises before any
generator runs). Then the kinds run side by side, this process and the toolkit's process pool
taking the next kind whenever one is free (`toolkit.load.parallel`). Each kind's files are
compared with the disk as they come and the changed ones staged beside their targets under
temporary names (`toolkit.generate.streaming`, `toolkit.load.writer.Staging`), so only one kind's
output is in memory per process at once; no target changes until every generator has returned and the journaled commit
renames them all, so a generator that raises leaves the previous outputs byte-identical (its
staged files are removed). Each kind writes the `<kind>/` subfolder of the output; the files opset
wrote there are listed in a manifest, and only those are replaced or, once stale, removed
(`ownership`). `--check` compares the same way and reports instead of writing. A rerun whose
inputs and outputs are unchanged is answered from a record (`freshness`) without loading.

Before anything is read, the output folder is checked (`toolkit.load.output_folder`: no symlinks)
and locked (`toolkit.load.output_lock`: one writing run at a time; `--check` shares the lock).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.generate import GenerateContext, available_kinds, freshness, get_generator, run_order
from toolkit.generate.context import header_label
from toolkit.generate.memo import RenderMemo
from toolkit.generate.ownership import ownership_by_kind, refuse_foreign, stale_files, updated_manifest
from toolkit.generate.running import GeneratorError, run_generators
from toolkit.generate.source_paths import stable_path
from toolkit.generate.streaming import KindOutput, stream_kind
from toolkit.load import cache as disk_cache
from toolkit.load import parallel
from toolkit.load.files import SpecRoots, content_digest
from toolkit.load.journal import JOURNAL, Outputs, pending, recover
from toolkit.load.manifest import MANIFEST, read_manifest, wrote
from toolkit.load.output_folder import OutputRefused, check_kind_folders, check_path
from toolkit.load.output_lock import output_lock
from toolkit.load.writer import Change, FilesOnDisk, Staging, existing_tree, plan, remove_new_folders
from toolkit.model.diagnostics import Diagnostic
from toolkit.registry.core import Registry, load_registry

__all__ = [
    "GenerateResult",
    "GeneratorError",
    "diff_text",
    "generate_tree",
    "plan_outputs",
    "run_generators",
    "source_label",
]


@dataclass(frozen=True)
class GenerateResult:
    kinds: tuple[str, ...]
    files: Mapping[str, bytes]  # everything the generators produced, relative to the output root
    changes: tuple[Change, ...]  # what differs on disk (applied unless check=True)
    written: bool
    diagnostics: tuple[Diagnostic, ...] = ()  # warnings from loading the specs (errors raise)
    left_alone: tuple[str, ...] = ()  # steps of an interrupted commit's journal not rolled forward


def source_label(spec_paths: Iterable[str | os.PathLike[str]]) -> str:
    """The spec label for headers: POSIX paths from the repository root (`source_paths`), else
    relative to the cwd when under it, so the bytes depend neither on where the repository is
    checked out nor on the folder the command runs in."""
    labels = []
    cwd = Path.cwd().resolve()
    for raw in spec_paths:
        path = Path(raw)
        stable = stable_path(path)
        if stable is not None:
            labels.append(stable or ".")
            continue
        try:
            label = path.resolve().relative_to(cwd).as_posix()
        except ValueError:
            label = path.name or path.as_posix()
        labels.append(label.rstrip("/") or ".")
    return ", ".join(labels)


def plan_outputs(out: Path, files: dict[str, bytes], kinds: Sequence[str]) -> list[Change]:
    """Changes that make `out/<kind>/` hold exactly the generated files of each kind."""
    return plan(out, files, sorted(set(kinds)))


def generate_tree(
    spec_paths: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    kinds: Sequence[str] | None = None,
    check: bool = False,
    registry: Registry | None = None,
    source: str | None = None,
    cache: bool = True,
    cli_parser: Callable[[], argparse.ArgumentParser] | None = None,
    options: Sequence[tuple[str, str]] = (),
    adopt: bool = False,
    on_wait: Callable[[float], None] | None = None,
) -> GenerateResult:
    """Load the specs (raises SpecError), run the generators, then write or (check=True) compare.
    `options` are the generators' settings (`toolkit.load.project.Project.generator_options`).
    `adopt`: the invoker lets opset overwrite files it did not write (`ownership`); without it
    such files raise OutputRefused before anything is written. `on_wait(timeout)`: called once
    when another run holds the output folder's lock."""
    selected = tuple(sorted(set(kinds))) if kinds is not None else available_kinds()
    for kind in selected:
        get_generator(kind)  # unknown kinds fail before any work
    root = Path(out)
    check_path(root, Path.cwd(), None)
    with _locked(root, check=check, on_wait=on_wait) as created:
        try:
            check_kind_folders(root, selected)
            return _generate(
                spec_paths, root, selected, check=check, registry=registry, source=source, cache=cache,
                cli_parser=cli_parser, options=options, adopt=adopt, created=created,
            )  # fmt: skip
        except BaseException:
            if created:
                with contextlib.suppress(OSError):  # not empty: a run that failed left nothing in it
                    root.rmdir()
            raise


@contextlib.contextmanager
def _locked(root: Path, *, check: bool, on_wait: Callable[[float], None] | None) -> Iterator[bool]:
    """Hold the output folder's lock (made first when a run writes into a folder that does not
    exist yet; a check of a missing folder has nothing to lock). Yields whether it was made."""
    created = not check and not os.path.lexists(root)
    if created:
        root.mkdir(parents=True, exist_ok=True)
    if check and not root.is_dir():
        yield False
        return
    with output_lock(root, shared=check, on_wait=on_wait):
        yield created


def _generate(
    spec_paths: Sequence[str | os.PathLike[str]],
    root: Path,
    selected: tuple[str, ...],
    *,
    check: bool,
    registry: Registry | None,
    source: str | None,
    cache: bool,
    cli_parser: Callable[[], argparse.ArgumentParser] | None,
    options: Sequence[tuple[str, str]],
    adopt: bool,
    created: bool,
) -> GenerateResult:
    if check and pending(root):
        # Only a writing run may roll a journal forward (and judges each step, `journal.recover`):
        # a check writes nothing, so it cannot tell whether the outputs are current.
        raise OutputRefused(
            f"{root.as_posix().rstrip('/') or '.'}/{JOURNAL}: a commit of `opset generate` was interrupted "
            "and is pending; `--check` writes nothing, so it neither finishes it nor compares",
            "run `opset generate` (without --check) to finish it; if no run of opset was interrupted "
            "there, the file is not opset's: delete it",
        )
    label = header_label(source if source is not None else source_label(spec_paths))
    # What the outputs depend on besides the specs: the header label and the settings
    # (opset.toml's package name, doc pages), so a changed setting is never answered from a record.
    inputs_label = label + "".join(f"\0{key}={value}" for key, value in sorted(options))
    digest = None
    # With the cache off (`--no-cache`, OPSET_TOOLKIT_NO_CACHE) nothing is recorded or reused, so
    # neither the inputs nor the outputs are hashed.
    if registry is None and cache and disk_cache.enabled():
        # Outputs already written from these very inputs: nothing to load, render or write.
        digest = freshness.inputs_digest(spec_paths, selected, inputs_label, cli_parser is not None)
        recorded = freshness.recorded_outputs(root, selected, digest)
        if recorded is not None:
            current, warnings = recorded
            return GenerateResult(selected, current, (), written=not check, diagnostics=warnings)
    if registry is None:
        registry = load_registry(list(spec_paths), cache=cache)  # raises SpecError: nothing generated
    # With the cache on, kinds that render domain by domain reuse what is recorded for a domain
    # whose spec files did not change (content-addressed; `memo`).
    memo = (
        RenderMemo(root, inputs_label, freshness.previous_units(root, selected), SpecRoots.of(spec_paths))
        if digest is not None
        else None
    )
    context = GenerateContext(
        source=label,
        spec_paths=tuple(os.fspath(p) for p in spec_paths),
        cli_parser=cli_parser,
        memo=memo,
        options=tuple(sorted(options)),
    )
    files, changes, digests, units, left_alone = _stream(
        root, registry, context, selected, check=check, adopt=adopt, created=created
    )
    if digest is not None and (not check or not changes):
        freshness.record(root, selected, digest, digests, registry.diagnostics, units)
    return GenerateResult(
        kinds=selected,
        files=files,
        changes=tuple(changes),
        written=not check,
        diagnostics=registry.diagnostics,
        left_alone=tuple(left_alone),
    )


def _stream(
    root: Path,
    registry: Registry,
    context: GenerateContext,
    kinds: Sequence[str],
    *,
    check: bool,
    adopt: bool,
    created: bool,
) -> tuple[FilesOnDisk, list[Change], dict[str, str], dict[str, dict[str, object]], list[str]]:
    """Run the generators kind by kind, comparing (check) or staging (write) each file as it comes
    (`streaming`; the kinds shared out by `_run_kinds`), then commit all-or-nothing:
    the staged files and the manifest are renamed in and the stale ones removed under one journal.
    `created`: the output folder was made by this run (removed again when it fails). Also returns
    the steps of an interrupted commit's journal that were left alone."""
    # First finish a commit that a kill interrupted (its content was decided), as far as its
    # steps touch opset's own outputs (the journal may be planted: `journal.recover`).
    left_alone = [] if check else recover(root, _declared_outputs(root, kinds))
    staging = None if check else Staging(root)
    # What is there before anything is staged: the stale files are those no kind produces, and
    # after a failure the folders that staging made go again.
    before, folders = existing_tree(root, kinds)
    if created:
        folders.discard(".")
    manifest = read_manifest(root)
    produced: list[str] = []
    changes: list[Change] = []
    overlay: dict[str, bytes] = {}
    file_digests: dict[str, str] = {}
    units: dict[str, dict[str, object]] = {}
    try:
        ownership = ownership_by_kind(manifest, kinds, adopt)

        def run_kind(kind: str) -> KindOutput:
            return stream_kind(
                root,
                registry,
                context,
                kind,
                check=check,
                digests=True,
                existing=before,
                ownership=ownership.get(kind),
            )

        outputs = _run_kinds(run_kind, kinds)
        foreign: list[str] = []
        for kind in kinds:  # merged in kind order: the same result however the kinds were run
            output = outputs[kind]
            produced += output.produced
            changes += output.changes
            overlay.update(output.overlay)
            file_digests.update(output.digests)
            units.update(output.units)
            foreign += output.foreign
            if staging is not None:
                staging.adopt(output.staged)
        stale, beside = stale_files(root, kinds, before, produced, manifest)
        refuse_foreign(root, foreign, [] if adopt else beside)
        for rel in stale:
            changes.append(Change(rel, _old_bytes(root / rel) if staging is None else b"", None))
        new_manifest = updated_manifest(manifest, kinds, file_digests)
        old_manifest = _old_bytes(root / MANIFEST) if os.path.lexists(root / MANIFEST) else None
        file_digests[MANIFEST] = content_digest(new_manifest)
        if old_manifest != new_manifest:
            changes.append(Change(MANIFEST, old_manifest, new_manifest))
            if staging is not None:
                staging.stage(MANIFEST, new_manifest, file_digests[MANIFEST])
    except BaseException:
        if staging is not None:
            staging.abandon()
            staging.sweep(kinds)  # also what a worker staged for a kind whose output was lost
            remove_new_folders(root, kinds, folders)
        raise
    if staging is not None:
        staging.sweep(kinds)
        staging.finish(stale, last=MANIFEST)  # the manifest last: see `load.journal`
    return FilesOnDisk(root, produced, overlay), changes, file_digests, units, left_alone


def _declared_outputs(root: Path, kinds: Sequence[str]) -> Outputs:
    """What a journal found in `root` may touch: the folders of every kind opset generates and the
    manifest; of the files there, those opset wrote by the manifest the interrupted run started
    from (the writer renames the manifest in last)."""
    manifest = read_manifest(root)
    return Outputs(
        frozenset(available_kinds()) | frozenset(kinds),
        frozenset({MANIFEST}),
        lambda rel: rel == MANIFEST or wrote(root, manifest, rel),
    )


def _run_kinds(run_kind: Callable[[str], KindOutput], kinds: Sequence[str]) -> dict[str, KindOutput]:
    """{kind: its output}, the kinds shared out between this process and the pool's workers in
    `run_order` (costliest first). A worker stages its kind's files itself and sends back only what `KindOutput`
    holds; a kind whose worker failed is run again here (and raises here, located as usual)."""
    order = run_order(kinds)
    return dict(zip(order, parallel.run_shared(run_kind, order, parallel.worker_count(None))))


def _old_bytes(path: Path) -> bytes:
    """A file's bytes for `--check`'s diff, never through a symlink or from a FIFO (b"" then)."""
    from toolkit.generate.streaming import MAX_DIFF_BYTES
    from toolkit.load.files import read_regular_file

    if os.path.islink(path):
        return b""
    try:
        return read_regular_file(path, MAX_DIFF_BYTES)
    except OSError:
        return b""


def _is_text(data: bytes | None) -> bool:
    if data is None:
        return True
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# `--check`'s text report is read by a person (and runs in a pre-commit hook): a fresh output
# folder names its new files rather than printing them, and a changed file's diff is capped per
# file and in total. The report formats (`--format json|sarif|github`) list every stale file.
DIFF_LINES_PER_FILE = 80
REPORT_LINES = 400
_WRITES_THEM = "`opset generate` writes them"


def diff_text(changes: Iterable[Change], out_label: str = "generated") -> str:
    """The human `--check` report: a file to add or remove is one line with its size; a changed
    file is a unified diff (a binary one decoded, `binary_diff`), at most `DIFF_LINES_PER_FILE`
    lines of it and `REPORT_LINES` lines in all, each cut saying how many lines it left out.
    Every line is escaped (`escape`): the old side is the tree's bytes, and a control character
    in it would reach the terminal."""
    from toolkit.model.diagnostics import escape

    shown: list[str] = []
    hidden_lines = hidden_files = 0  # what the total cap left out
    for change in changes:
        body = _change_lines(f"{out_label.rstrip('/')}/{change.path}", change)
        cut = max(len(body) - DIFF_LINES_PER_FILE, 0)
        entry = body[:DIFF_LINES_PER_FILE]
        if cut:
            entry.append(f"... {cut} more line(s) of this diff left out; {_WRITES_THEM}")
        room = max(REPORT_LINES - len(shown), 0)
        if len(entry) <= room:
            shown += entry
            continue
        shown += body[:room]  # room < len(entry) <= DIFF_LINES_PER_FILE + 1: a cut file's note goes
        hidden_lines += len(body) - room
        hidden_files += room == 0
    if hidden_lines:
        files = f" ({hidden_files} more file(s) not shown)" if hidden_files else ""
        shown.append(
            f"... {hidden_lines} more line(s) left out{files}; {_WRITES_THEM} "
            "(`--format json` lists every stale file)"
        )
    return "".join(escape(line) + "\n" for line in shown)


def _change_lines(label: str, change: Change) -> list[str]:
    """The report lines of one stale file, without their line ends."""
    import difflib  # only `--check` with stale outputs diffs: not on a writing run's path

    from toolkit.generate.binary_diff import binary_diff, is_binary_kind

    if change.old is None or change.new is None:
        present = change.new if change.old is None else change.old
        verb = "would add" if change.old is None else "would remove"
        size = len(present or b"")
        return [f"{verb} {label} ({size} byte{'' if size == 1 else 's'})"]
    if is_binary_kind(change.path) or not (_is_text(change.old) and _is_text(change.new)):
        return binary_diff(label, change.old, change.new)
    lines: list[str] = []
    old, new = _text_lines(change.old), _text_lines(change.new)
    for line in difflib.unified_diff(old, new, f"a/{label}", f"b/{label}"):
        if line.endswith("\n"):
            lines.append(line[:-1])
        else:
            lines += [line, "\\ No newline at end of file"]
    return lines


def _text_lines(data: bytes) -> list[str]:
    """`data` as lines broken at `\\n` only (`str.splitlines` also breaks at form feeds and
    Unicode separators, which `escape` shows instead), each with its `\\n` but the last."""
    parts = data.decode("utf-8").split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
