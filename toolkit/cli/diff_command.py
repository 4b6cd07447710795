"""`opset diff`: the breaking-change gate."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.cli.common import (
    REPORT_FORMATS,
    add_report_arguments,
    add_specs_argument,
    emit_report,
    specs_from_args,
)
from toolkit.model.diagnostics import Diagnostic, Severity, SpecError, UsageError

if TYPE_CHECKING:
    from toolkit.compat.config import GateConfig
    from toolkit.compat.gate import GateResult
    from toolkit.compat.gitref import GitTreeRef
    from toolkit.registry.core import Registry

EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    diff = subparsers.add_parser(
        "diff",
        help="breaking-change gate: compare the specs with an old tree (directory or git ref)",
        description="Compare the specs with an old tree and report breaking changes. "
        "Exit 0 clean, 1 findings at or above --fail-on, 2 usage or load error.",
    )
    diff.add_argument("--against", required=True, metavar="REF", help="old tree: a directory or a git ref")
    add_specs_argument(diff)
    add_report_arguments(diff)
    diff.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default="error",
        help="lowest severity that fails the gate (default: error)",
    )
    diff.add_argument("--config", metavar="FILE", help="config file (default: opset.toml or pyproject.toml)")
    diff.add_argument("--profile", metavar="NAME", help="profile (default: the config's, else onnx-strict)")
    add_plugin_arguments(diff)
    diff.set_defaults(handler=run_diff)
    changelog = subparsers.add_parser(
        "changelog",
        help="release notes: every change between an old tree (directory or git ref) and the specs",
        description="Every change between an old tree and the specs, grouped by domain and operator, "
        "breaking changes first, from the gate's own change detection. Exit 0, or 2 on a usage or "
        "load error.",
    )
    changelog.add_argument(
        "--against", required=True, metavar="REF", help="old tree: a directory or a git ref"
    )
    add_specs_argument(changelog)
    changelog.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="output format (default: markdown)"
    )
    changelog.add_argument(
        "--output",
        "-o",
        dest="report_file",
        metavar="FILE",
        help="write to FILE instead of stdout (atomically)",
    )
    changelog.set_defaults(handler=run_changelog)


def add_plugin_arguments(parser: argparse.ArgumentParser) -> None:
    """`--plugins MOD` and `--allow-plugins`: the invoker's opt-in to importing rule plugins
    (`toolkit.compat.plugins`; the tree's configuration alone never imports anything)."""
    parser.add_argument(
        "--plugins",
        action="append",
        metavar="MODULE",
        help="import this gate-rule plugin module (repeatable; also OPSET_TOOLKIT_PLUGINS=MOD,MOD)",
    )
    parser.add_argument(
        "--allow-plugins",
        action="store_true",
        help="also import the plugins the config's `plugins` names: only for trusted trees, the config "
        "is part of the tree (also OPSET_TOOLKIT_ALLOW_PLUGINS=1)",
    )


def plugin_arguments(args: argparse.Namespace) -> list[str]:
    """The plugin options given, as arguments for another `opset` command (`opset pre-commit`)."""
    out = [f"--plugins={module}" for module in args.plugins or ()]
    return out + (["--allow-plugins"] if args.allow_plugins else [])


def gate_config(path: str | None, profile: str | None, args: argparse.Namespace) -> GateConfig:
    """The gate configuration (`--config`, else the one found from here) with the plugins the
    invoker opted in to imported; its warnings (PLUGINS-IGNORED) go to stderr."""
    from toolkit.compat.config import find_config
    from toolkit.compat.plugins import load_gate_config, plugin_choice

    if path and not Path(path).is_file():
        raise UsageError(f"--config {path}: no such file")
    choice = plugin_choice(args.plugins, args.allow_plugins)
    config = load_gate_config(Path(path) if path else find_config(), profile, choice)
    for warning in config.warnings:
        print(warning.format(), file=sys.stderr)
    return config


# --------------------------------------------------------------------------- opset diff


def run_diff(args: argparse.Namespace) -> int:
    # The gate is imported when it runs, not when the parser is built (every command pays that).
    from toolkit.compat.gate import run_gate
    from toolkit.compat.gitref import looks_like_git_ref, resolve_git_tree

    _require_against(args.against)
    config = gate_config(args.config, args.profile, args)
    paths = diff_paths(args)
    cache = not args.no_cache
    git = looks_like_git_ref(args.against)
    refs: list[GitTreeRef] = []  # the git ref, resolved once

    def resolved() -> GitTreeRef:
        if not refs:
            refs.append(resolve_git_tree(args.against, paths, cache=cache))
        return refs[0]

    base = resolved if git else directory_base(args.against, paths)
    if cache:
        fast = _fast_gate(args.against, paths, config, base)
        if fast is not None:
            if git and resolved().note:
                print(resolved().note, file=sys.stderr)
            return _emit(args, fast, resolved().commit if git else "")
    trees = load_trees(args, paths, base)
    if isinstance(trees, int):
        return trees
    old, new, label, commit = trees
    return _emit(args, run_gate(old, new, config, old_label=label), commit)


def run_changelog(args: argparse.Namespace) -> int:
    from toolkit.compat.changelog import changelog
    from toolkit.compat.engine import DiffContext
    from toolkit.compat.gitref import looks_like_git_ref, resolve_git_tree
    from toolkit.reporting.changelog import render

    _require_against(args.against)
    paths = diff_paths(args)
    git = looks_like_git_ref(args.against)
    ref = (lambda: resolve_git_tree(args.against, paths, cache=not args.no_cache)) if git else None
    trees = load_trees(args, paths, ref or directory_base(args.against, paths))
    if isinstance(trees, int):
        return trees
    old, new, label, _commit = trees
    emit_report(args, render(changelog(DiffContext(old, new, old_label=label)), args.format))
    return 0


def load_trees(
    args: argparse.Namespace, paths: list[str], base: Callable[[], GitTreeRef] | Sequence[str]
) -> tuple[Registry, Registry, str, str] | int:
    """The old tree (`args.against`: the git ref `base` resolves, or a directory's paths `base`,
    `directory_base`) and the new tree (`paths`), with the old tree's label and commit ("" for a
    directory); EXIT_USAGE when either has load errors (reported). `opset diff` and `opset
    changelog` read trees this way."""
    from toolkit.compat.gitref import load_resolved_tree
    from toolkit.registry.core import Registry, load_registry

    cache = not args.no_cache
    new = _load(args, "the new tree", lambda: load_registry(paths, cache=cache))
    if new is None:
        return EXIT_USAGE
    commit = ""
    if callable(base):
        tree = load_resolved_tree(base())
        if tree.result.errors:
            _report_load_errors(
                args,
                f"the old tree ({args.against})",
                tree.result.diagnostics,
                ref=args.against,
                commit=tree.commit,
            )
            return EXIT_USAGE
        old: Registry | None = Registry(tree.result.specs, tree.result.diagnostics)
        label = tree.label
        commit = tree.commit
        if tree.note:
            print(tree.note, file=sys.stderr)
    else:
        old = _load(args, f"the old tree ({args.against})", lambda: load_registry(list(base), cache=cache))
        label = args.against
    if old is None:
        return EXIT_USAGE
    return old, new, label, commit


def _fast_gate(
    against: str, paths: list[str], config: GateConfig, base: Callable[[], GitTreeRef] | Sequence[str]
) -> GateResult | None:
    """Both trees in the cache: the gate decoding only the operators that differ (None: load
    them and run the plain gate). `base` as `load_trees` takes it."""
    from toolkit.compat.gate_fast import run_gate_cached
    from toolkit.registry.core import cache_key

    def old() -> tuple[str | None, str]:
        if not callable(base):
            return cache_key(list(base)), against
        ref = base()
        return ref.key, ref.label

    return run_gate_cached(cache_key(paths), old, config)


def _emit(args: argparse.Namespace, result: GateResult, commit: str = "") -> int:
    from toolkit.reporting.gate import render

    fail_on = Severity(args.fail_on)
    emit_report(args, render(result, args.format, fail_on, old_commit=commit), clean=not result.findings)
    if args.report_file:  # the log shows the findings too
        print(render(result, "text", fail_on), end="", file=sys.stderr)
    return result.exit_code(fail_on)


def diff_paths(args: argparse.Namespace) -> list[str]:
    """The new tree's spec paths, with the release table above a domain folder given alone
    (`with_release_table`)."""
    from toolkit.load.discovery import with_release_table

    return with_release_table(specs_from_args(args))


def directory_base(against: str, paths: list[str]) -> list[str]:
    """The paths of the directory `against` compared with the new tree's `paths`
    (`compat.base_paths`, the mapping a git ref gets too), worked out once per command; its note
    (an empty base, domains it lacks) goes to stderr: every operator then counts as new, which
    must not pass silently. A file given as `--against` is read as it is."""
    from toolkit.compat.base_paths import directory_base_paths

    if not Path(against).is_dir():
        return [against]
    base = directory_base_paths(against, paths)
    if base.note:
        print(base.note, file=sys.stderr)
    return list(base.prefixes)


def _require_against(against: str) -> None:
    """An empty --against (an unset `$BASE` in a CI script) would compare the specs with the
    working directory or nothing and pass the gate: refuse it."""
    if not against.strip():
        raise UsageError(
            "--against: the value is empty (an unset variable such as $BASE?)\n"
            "  hint: pass the old tree as a git ref (main, origin/main..., HEAD~1) or a directory"
        )


def _load(args: argparse.Namespace, what: str, load: Callable[[], Registry]) -> Registry | None:
    try:
        return load()
    except SpecError as exc:
        _report_load_errors(args, what, exc.diagnostics)
        return None


def _report_load_errors(
    args: argparse.Namespace, what: str, diagnostics: Sequence[Diagnostic], *, ref: str = "", commit: str = ""
) -> None:
    """The errors on stderr, and in the requested format where the report goes (exit 2)."""
    from toolkit.reporting.errors import load_errors_text, render_load_errors

    command = args.command  # diff or changelog
    print(load_errors_text(what, diagnostics, command), end="", file=sys.stderr)
    if args.format in REPORT_FORMATS and (args.format != "text" or args.report_file):
        emit_report(
            args,
            render_load_errors(command, what, diagnostics, args.format, EXIT_USAGE, ref=ref, commit=commit),
        )
