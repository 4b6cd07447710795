"""`opset diff` (the breaking-change gate) and `opset rules` (its rule catalog)."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Callable
from pathlib import Path

from toolkit.cli.common import add_specs_argument, specs_from_args
from toolkit.compat.config import GateConfig, find_config
from toolkit.compat.docs import render_rule, render_rules_page
from toolkit.compat.gate import run_gate
from toolkit.compat.gitref import load_git_tree, looks_like_git_ref
from toolkit.compat.plugins import load_gate_config
from toolkit.compat.rules import all_rules, get_rule
from toolkit.model.diagnostics import Severity, SpecError, UsageError
from toolkit.registry.core import Registry, load_registry
from toolkit.reporting.common import write_report
from toolkit.reporting.gate import FORMATS, render, sarif_rule

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
    diff.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    diff.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default="error",
        help="lowest severity that fails the gate (default: error)",
    )
    diff.add_argument("--config", metavar="FILE", help="config file (default: opset.toml or pyproject.toml)")
    diff.add_argument("--profile", metavar="NAME", help="profile (default: the config's, else onnx-strict)")
    diff.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    diff.set_defaults(handler=run_diff)

    rules = subparsers.add_parser("rules", help="list the breaking-change rules, or print one rule's doc")
    rules.add_argument("rule", nargs="?", metavar="ID", help="a rule id, e.g. ATTR-ADDED")
    rules.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    rules.add_argument("--config", metavar="FILE", help="config file whose plugins add rules")
    rules.set_defaults(handler=run_rules)


# --------------------------------------------------------------------------- opset diff


def run_diff(args: argparse.Namespace) -> int:
    config = _config(args.config, args.profile)
    paths = specs_from_args(args)
    cache = not args.no_cache
    new = _load("the new tree", lambda: load_registry(paths, cache=cache))
    if new is None:
        return EXIT_USAGE
    if looks_like_git_ref(args.against):
        tree = load_git_tree(args.against, paths, cache=cache)
        if tree.result.errors:
            _print_diagnostics(f"the old tree ({args.against})", SpecError(tree.result.diagnostics))
            return EXIT_USAGE
        old: Registry | None = Registry(tree.result.specs, tree.result.diagnostics)
        label = args.against
    else:
        old = _load(f"the old tree ({args.against})", lambda: load_registry([args.against], cache=cache))
        label = args.against
    if old is None:
        return EXIT_USAGE
    result = run_gate(old, new, config, old_label=label)
    fail_on = Severity(args.fail_on)
    text = render(result, args.format, fail_on)
    if args.output:
        write_report(args.output, text)
        if args.format != "text":
            print(render(result, "text", fail_on), end="", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return result.exit_code(fail_on)


def _config(path: str | None, profile: str | None) -> GateConfig:
    if path and not Path(path).is_file():
        raise UsageError(f"--config {path}: no such file")
    return load_gate_config(Path(path) if path else find_config(), profile)


def _load(what: str, load: Callable[[], Registry]) -> Registry | None:
    try:
        return load()
    except SpecError as exc:
        _print_diagnostics(what, exc)
        return None


def _print_diagnostics(what: str, exc: SpecError) -> None:
    for diag in exc.diagnostics:
        print(diag.format(), file=sys.stderr)
    print(f"opset diff: {what} has {len(exc.errors)} spec error(s); fix them first", file=sys.stderr)


# --------------------------------------------------------------------------- opset rules


def run_rules(args: argparse.Namespace) -> int:
    if args.config:
        _config(args.config, None)
    rules = all_rules()
    if args.rule:
        rule = get_rule(args.rule)
        if rule is None:
            close = difflib.get_close_matches(args.rule.upper(), [r.id for r in rules], n=1)
            hint = f"did you mean {close[0]}?" if close else "`opset rules` lists them"
            raise UsageError(f"unknown rule '{args.rule}'\n  hint: {hint}")
        if args.format == "json":
            print(json.dumps(sarif_rule(rule), indent=2))
        else:
            print(render_rule(rule), end="")
        return 0
    if args.format == "markdown":
        print(render_rules_page(rules), end="")
    elif args.format == "json":
        print(json.dumps([sarif_rule(r) for r in rules], indent=2))
    else:
        width = max(len(r.id) for r in rules)
        for r in rules:
            compat = ("BC" if r.bc else "--") + "/" + ("FC" if r.fc else "--")
            print(f"{r.id:<{width}}  {r.severity.value:<7}  {compat}  {r.summary}")
        print(f"{len(rules)} rules; `opset rules ID` prints one rule's doc")
    return 0
