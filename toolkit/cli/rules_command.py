"""`opset rules`: the whole rule catalog (every family), or one rule's doc."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from toolkit.cli.common import add_format_argument
from toolkit.cli.diff_command import add_plugin_arguments, gate_config
from toolkit.model.diagnostics import UsageError
from toolkit.model.rules import FAMILIES
from toolkit.model.suggest import close_names, did_you_mean


def register(subparsers: Any) -> None:
    rules = subparsers.add_parser(
        "rules",
        help="list every rule id the toolkit reports (all families), or print one rule's doc",
        description="The rule catalog: spec checks, the breaking-change gate, model checks and more.",
    )
    rules.add_argument("rule", nargs="?", metavar="ID", help="a rule id, e.g. ATTR-ADDED or MODEL-ATTR-TYPE")
    rules.add_argument("--family", choices=tuple(FAMILIES), help="only the rules of one family")
    add_format_argument(
        rules,
        ("text", "markdown", "json", "catalog"),
        help="text (default), markdown (full docs), json (SARIF rule descriptors) or catalog (index page)",
    )
    rules.add_argument(
        "--config", metavar="FILE", help="gate config file (its plugins add rules with --allow-plugins)"
    )
    rules.add_argument(
        "--write-docs",
        metavar="ROOT",
        help="rewrite the rule reference pages of the docs under ROOT (the toolkit's repository), "
        "then exit (toolkit.reporting.reference_pages lists them)",
    )
    add_plugin_arguments(rules)
    rules.set_defaults(handler=run_rules)


def run_rules(args: argparse.Namespace) -> int:
    from toolkit.compat.docs import render_rule, render_rules_page
    from toolkit.compat.plugins import load_gate_config, plugin_choice
    from toolkit.reporting.catalog import all_rules, render_catalog_page, render_text
    from toolkit.reporting.gate import sarif_rule

    if args.config:
        gate_config(args.config, None, args)
    else:  # the plugins the invoker names (flags, environment) add their rules too
        load_gate_config(None, None, plugin_choice(args.plugins, args.allow_plugins))
    if args.write_docs is not None:
        return write_docs(Path(args.write_docs))
    rules = all_rules(args.family)
    if args.rule:
        by_id = {r.id: r for r in rules}
        rule = by_id.get(args.rule.upper())
        if rule is None:
            hint = did_you_mean(close_names(args.rule, by_id, 1)) or "`opset rules` lists them"
            raise UsageError(f"unknown rule '{args.rule}'\n  hint: {hint}")
        if args.format == "json":
            print(json.dumps(sarif_rule(rule), indent=2))
        else:
            print(render_rule(rule), end="")
        return 0
    if args.format == "markdown":
        print(render_rules_page(rules), end="")
    elif args.format == "catalog":
        print(render_catalog_page(rules), end="")
    elif args.format == "json":
        print(json.dumps([sarif_rule(r) for r in rules], indent=2))
    else:
        print(render_text(rules), end="")
    return 0


def write_docs(root: Path) -> int:
    from toolkit.reporting.reference_pages import REFERENCE_OUTPUTS, write_all

    missing = [o.path for o in REFERENCE_OUTPUTS if o.section is not None and not (root / o.path).is_file()]
    if not root.is_dir() or missing:
        raise UsageError(
            f"{root} is not the toolkit's repository (no {missing[0] if missing else 'such folder'})\n"
            "  hint: run it from the repository root: opset rules --write-docs ."
        )
    for path in write_all(root):
        print(f"wrote {path}")
    return 0
