"""validate, show, inventory and import-onnx."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from toolkit.cli.common import (
    add_format_argument,
    add_report_arguments,
    add_specs_argument,
    emit_report,
    model_registry_from_args,
    registry_from_args,
    spec_paths,
    specs_from_args,
    split_operator_ref,
)
from toolkit.model.diagnostics import Diagnostic, Severity, UsageError
from toolkit.model.spec import display_domain

if TYPE_CHECKING:
    from toolkit.registry.core import Registry


def register(subparsers: Any) -> None:
    validate = subparsers.add_parser(
        "validate", help="check spec files; report every problem with file:line:col"
    )
    validate.add_argument(
        "paths", nargs="*", metavar="PATH", help="spec folders or files, as --specs (default: as --specs)"
    )
    add_specs_argument(validate)
    add_report_arguments(validate)
    validate.add_argument("--warnings-as-errors", action="store_true", help="exit 1 on warnings too")
    validate.add_argument("--rules", action="store_true", help="list the spec-check rules and exit")
    validate.set_defaults(handler=run_validate)

    show = subparsers.add_parser(
        "show",
        help="print the resolved schema of an operator version (onnx's domains: from the installed onnx)",
    )
    show.add_argument("operator", metavar="DOMAIN.OP[:SINCE]")
    show.add_argument("--opset", type=int, help="resolve as in this opset version of the domain")
    add_format_argument(show, ("text", "json"))
    add_specs_argument(show)
    show.set_defaults(handler=run_show)

    inventory = subparsers.add_parser("inventory", help="operators of a domain per opset version")
    inventory.add_argument("domain", help="domain name ('ai.onnx' or '' for the default domain)")
    inventory.add_argument("--opset", type=int, help="one opset version (default: the since_version table)")
    add_format_argument(inventory, ("md", "json"), "md")
    add_specs_argument(inventory)
    inventory.set_defaults(handler=run_inventory)

    imp = subparsers.add_parser(
        "import-onnx",
        help="write the installed onnx catalog as DSL files",
        description="Write the operator catalog of the installed onnx package, or with --source "
        "onnxruntime the installed onnxruntime's whole operator table (its standard domains with "
        "its own additions, and its vendor domains: a runtime catalog for `--runtime DIR`).",
    )
    imp.add_argument("--out", required=True, help="folder to write (created; existing files replaced)")
    imp.add_argument("--domain", action="append", default=[], help="only this domain (repeatable)")
    imp.add_argument(
        "--source",
        choices=("onnx", "onnxruntime"),
        default="onnx",
        help="the package whose catalog to write (default: onnx)",
    )
    imp.add_argument(
        "--examples",
        action="store_true",
        help="attach onnx's backend node test cases as examples (built by the installed "
        "onnx, written beside the specs as .pb files; --source onnx only)",
    )
    imp.set_defaults(handler=run_import)


def run_validate(args: argparse.Namespace) -> int:
    # Each handler imports what it runs: building the parser (every command) stays cheap.
    from toolkit.checks.run import load_specs
    from toolkit.reporting.schema_text import diagnostic_dict

    if args.rules:
        from toolkit.reporting.spec_rules import render_text

        sys.stdout.write(render_text())
        return 0
    given = [*args.paths, *(args.specs or ())]  # positional paths: the same as --specs
    paths = specs_from_args(args, also=args.paths)
    result = load_specs(paths)
    if result.files == 0:
        raise UsageError(f"no spec files (*.yaml) under {', '.join(map(str, paths))}")
    if not given:  # the whole spec root: name spec files that lie outside it
        result.diagnostics = [*result.diagnostics, *_outside_root(paths)]
    errors = len(result.errors)
    warnings = sum(1 for d in result.diagnostics if d.severity is Severity.WARNING)
    versions = sum(len(op.versions) for op in result.specs.operators)
    from toolkit.model.change_words import counted

    summary = (
        f"{counted(result.files, 'file')}, {counted(len(result.specs.domains), 'domain')}, "
        f"{counted(len(result.specs.operators), 'operator')}, {counted(versions, 'operator version')}: "
        f"{errors} error(s), {warnings} warning(s)"
    )
    failed = errors > 0 or (args.warnings_as_errors and warnings > 0)
    if args.format == "json":
        from toolkit.reporting.common import dump_json
        from toolkit.reporting.paths import discover

        repo = discover()
        payload = {
            "files": result.files,
            "operators": len(result.specs.operators),
            "versions": versions,
            "diagnostics": [diagnostic_dict(d, repo.repo_path(d.location.file)) for d in result.diagnostics],
        }
        emit_report(args, dump_json(payload))
    elif args.format == "text":
        for diag in result.diagnostics:
            print(diag.format(), file=sys.stderr)
        # On stdout the summary follows the errors on stderr; a report file holds both.
        found = "".join(f"{diag.format()}\n" for diag in result.diagnostics) if args.report_file else ""
        emit_report(args, found + summary + "\n", clean=not failed)
    else:
        from toolkit.reporting.formats import render
        from toolkit.reporting.report import Report, diagnostic_item

        strict = bool(args.warnings_as_errors)
        items = [
            diagnostic_item(
                d, failing=d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING)
            )
            for d in result.diagnostics
        ]
        emit_report(args, render(Report("validate", items, 1 if failed else 0, summary=summary), args.format))
        if args.report_file:
            print(summary, file=sys.stderr)
    return 1 if failed else 0


def _registry_for(args: argparse.Namespace, domain: str) -> Registry:
    """The specs' registry; for an onnx domain the specs do not define (`ai.onnx`, `ai.onnx.ml`,
    ...), the installed onnx catalog plus the specs: the same cached import check-model uses."""
    from toolkit.model.spec import canonical_domain
    from toolkit.onnx_bridge.catalog import ONNX_DOMAINS

    if canonical_domain(domain) in ONNX_DOMAINS:
        paths = spec_paths(args.specs, required=False)
        if not paths or canonical_domain(domain) not in load_registry_quiet(paths, args).domains():
            return model_registry_from_args(args)
    return registry_from_args(args)


def load_registry_quiet(paths: list[str], args: argparse.Namespace) -> Registry:
    from toolkit.registry.core import load_registry

    return load_registry(paths, cache=not args.no_cache)


def _outside_root(paths: list[str]) -> list[Diagnostic]:
    """FILE-OUTSIDE-ROOT over the repository of an opset.toml (its folder down; the output folder
    is not looked at). Without opset.toml nothing says where the repository's specs belong."""
    from toolkit.load.outside import stray_specs
    from toolkit.load.project import load_project

    project = load_project()
    if project.source is None:
        return []
    return stray_specs(project.folder, paths, [project.out_path])


def run_show(args: argparse.Namespace) -> int:
    from toolkit.registry.core import SchemaNotFound
    from toolkit.reporting.common import dump_json
    from toolkit.reporting.schema_text import schema_dict, schema_text

    domain, op, since = split_operator_ref(args.operator)
    registry = _registry_for(args, domain)
    try:
        spec = registry.operator(op, domain)
        if since is not None:
            schema = spec.version(since)
            if schema is None:
                have = ", ".join(str(v.since_version) for v in spec.versions)
                raise UsageError(f"{op} has no version {since} (versions: {have})")
        elif args.opset is not None:
            versions = registry.domain(spec.domain).versions
            if args.opset not in versions:
                raise UsageError(
                    f"{args.opset} is not an opset version of '{display_domain(spec.domain)}' "
                    f"(it has {versions[0]}..{versions[-1]})"
                )
            schema = registry.get_schema(op, args.opset, domain)
        else:
            schema = spec.versions[-1]
    except SchemaNotFound as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        print(dump_json(schema_dict(schema)), end="")
    else:
        print(schema_text(schema))
    return 0


def run_inventory(args: argparse.Namespace) -> int:
    from toolkit.registry.core import SchemaNotFound
    from toolkit.registry.inventory import since_table, since_table_markdown
    from toolkit.reporting.common import dump_json

    registry = _registry_for(args, args.domain)
    try:
        domain = registry.domain(args.domain)
    except SchemaNotFound as exc:
        raise UsageError(
            f"{exc} (known: {', '.join(display_domain(d) for d in registry.domains())})"
        ) from None
    if args.opset is not None and args.opset not in domain.versions:
        raise UsageError(f"{args.opset} is not an opset version of '{domain.display_name}'")
    if args.opset is None:
        table = since_table(registry, domain.name)
        if args.format == "json":
            payload = {
                "domain": domain.display_name,
                "opset_versions": list(table.opset_versions),
                "operators": {name: [c.since_version for c in cells] for name, cells in table.rows},
            }
            print(dump_json(payload), end="")
        else:
            sys.stdout.write(since_table_markdown(table))
        return 0
    inventory = registry.inventory(domain.name, args.opset)
    if args.format == "json":
        print(dump_json({name: s.since_version for name, s in inventory.items()}), end="")
    else:
        print("Operator|since_version|status\n-|-|-")
        for name, schema in inventory.items():
            status = schema.status.value + (", deprecated" if schema.deprecated else "")
            print(f"{name}|{schema.since_version}|{status}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from toolkit.onnx_bridge.importer import import_catalog

    if args.examples and args.source != "onnx":
        raise UsageError("--examples attaches onnx's backend node tests: use it with --source onnx")
    stats: dict[str, Any] = {}
    counts = import_catalog(
        args.out, source=args.source, domains=args.domain, examples=args.examples, stats=stats
    )
    if args.quiet:
        return 0
    for domain, count in counts.items():
        print(f"{domain}: {count} operator versions")
    if "examples" in stats:
        skipped = ", ".join(f"{n} {reason}" for reason, n in stats["skipped"].items())
        print(
            f"attached {stats['examples']} backend node test cases as examples (skipped: {skipped or 'none'})"
        )
    print(f"wrote {sum(counts.values())} operator versions to {args.out}")
    return 0
