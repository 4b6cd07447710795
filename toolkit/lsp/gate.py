"""The breaking-change gate as you type: the findings `opset diff --against REF` reports for the
open files, when the editor's settings name a ref (`opset.gate.against`, `settings.gate_setting`).

The old tree is read from git objects exactly as `opset diff` reads a git ref
(`compat.gitref.resolve_git_tree` and `load_resolved_tree`: every git call through the hardened
runner, sizes checked before a blob is read, nothing written) and kept in memory for the ref's
commit (one tree at a time), so typing never reloads it; the ref itself is resolved again at most
every `RESOLVE_SECONDS` (a commit or a fetch moves it). The new side is the tree as last checked,
with the editor's unsaved buffers. The gate runs over the operators the open files define (all of
a domain's when its domain.yaml is open) and the whole domains and release tables, against the
same operators of the old tree; only findings located in an open file are kept.

The gate's configuration is the tree's (profile, allowlist) with no plugins at all: the server
imports no module a tree or an environment variable names.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from toolkit.compat.config import find_config
from toolkit.compat.engine import Finding
from toolkit.compat.gate import run_gate
from toolkit.compat.gitref import GitTreeRef, load_resolved_tree, resolve_git_tree
from toolkit.compat.plugins import PluginChoice, load_gate_config
from toolkit.load import cache as disk_cache
from toolkit.lsp.settings import GateSetting
from toolkit.lsp.workspace import SpecTree
from toolkit.model.diagnostics import Diagnostic, UsageError
from toolkit.model.spec import Location, SpecSet
from toolkit.registry.core import Registry

RESOLVE_SECONDS = 2.0


@dataclass
class RefGate:
    """The gate against one ref for one spec tree; `findings` runs in the checking thread."""

    setting: GateSetting
    clock: Callable[[], float] = time.monotonic
    _ref: tuple[float, GitTreeRef] | None = None
    _trees: dict[tuple[str, str], Registry | UsageError] = field(default_factory=dict)
    loads: int = 0  # how many times an old tree was read from git (tests read it)

    def findings(self, tree: SpecTree, paths: Iterable[Path]) -> dict[Path, list[Diagnostic]]:
        """The gate's findings located in `paths` (open files of `tree`). UsageError: the ref
        cannot be read (no such ref, not a git work tree) or its tree does not load."""
        wanted = {p for p in paths if tree.contains(p)}
        if not wanted or not self.setting.against:
            return {}
        ref = self._resolve(tree.root)
        old = self._old(ref)
        new_specs, old_specs = _subsets(tree, old.specs, wanted)
        config = load_gate_config(find_config(tree.root), self.setting.profile, PluginChoice())
        result = run_gate(Registry(old_specs), Registry(new_specs), config, old_label=ref.label)
        out: dict[Path, list[Diagnostic]] = {}
        for finding in result.findings:
            diag = _diagnostic(finding, tree.root, ref.label)
            path = Path(diag.location.file)
            if path in wanted:
                out.setdefault(path, []).append(diag)
        return out

    def _resolve(self, root: Path) -> GitTreeRef:
        now = self.clock()
        if self._ref is None or now - self._ref[0] > RESOLVE_SECONDS or self._ref[1].here != root:
            ref = resolve_git_tree(self.setting.against, ["."], cwd=root, cache=disk_cache.enabled())
            self._ref = (now, ref)
        return self._ref[1]

    def _old(self, ref: GitTreeRef) -> Registry:
        key = (ref.commit, str(ref.here))
        if key not in self._trees:
            self._trees.clear()  # one tree in memory: the ref's commit moved on
            self.loads += 1
            loaded = load_resolved_tree(ref)
            if loaded.result.errors:
                first = loaded.result.errors[0].format()
                self._trees[key] = UsageError(
                    f"gate: the old tree ({ref.label}) does not load: {first}\n"
                    "  hint: `opset diff --against` shows every problem; the gate is off until it loads"
                )
            else:
                self._trees[key] = Registry(loaded.result.specs, loaded.result.diagnostics)
        found = self._trees[key]
        if isinstance(found, UsageError):
            raise found
        return found


def _subsets(tree: SpecTree, old: SpecSet, wanted: set[Path]) -> tuple[SpecSet, SpecSet]:
    """Both trees cut down to what the open files define: their operators (every operator of a
    domain whose domain.yaml is open), the same operators of the old tree (by name, or by the
    file that defined them, so a renamed operator shows as removed), all domains and releases."""
    new = tree.specs
    open_domains = {d.name for d in new.domains if Path(d.location.file) in wanted}
    ops = [op for op in new.operators if Path(op.location.file) in wanted or op.domain in open_domains]
    names = {(op.domain, op.name) for op in ops}
    files = {_relative(Path(op.location.file), tree.root) for op in ops}
    files |= {_relative(p, tree.root) for p in wanted}
    built = {Path(op.location.file) for op in new.operators}
    files -= {_relative(p, tree.root) for p in wanted - built}  # a file that does not build: no claim
    old_ops = [
        op
        for op in old.operators
        if (op.domain, op.name) in names
        or op.domain in open_domains
        or os.path.normpath(op.location.file) in files
    ]
    domains = {d.name for d in new.domains}
    return (
        replace(new, operators=tuple(ops)),
        replace(old, operators=tuple(old_ops), domains=tuple(d for d in old.domains if d.name in domains)),
    )


def _relative(path: Path, root: Path) -> str:
    return os.path.normpath(os.path.relpath(path, root))


def _diagnostic(finding: Finding, root: Path, label: str) -> Diagnostic:
    """A gate finding as the server's diagnostics are: an absolute file (the old tree names its
    files relative to the spec root)."""
    where = finding.location
    if where.file and not os.path.isabs(where.file):
        where = Location(str((root / where.file).resolve()), where.line, where.column)
    message = f"{finding.message} (gate against {label})"
    return Diagnostic(finding.rule, message, where, finding.hint, finding.severity)
