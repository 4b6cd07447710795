"""init (a new vendor repository) and schemas (the JSON Schemas editors read, kept current)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolkit.model.diagnostics import UsageError

# Reverse DNS with at least two labels; the generated Python package name derives from it.
_DOMAIN = re.compile(r"[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+")


def register(subparsers: Any) -> None:
    init = subparsers.add_parser(
        "init",
        help="create a vendor repository: a domain, an example operator, settings, schemas, site, hooks, CI",
        description=(
            "Write the files of a new spec repository into DIR (created if missing): opset.toml, "
            "opsets/DOMAIN/domain.yaml and an example operator, the JSON Schemas for editors "
            "(schemas/), mkdocs.yml, .pre-commit-config.yaml and a GitHub workflow. Existing files "
            "are never overwritten."
        ),
    )
    init.add_argument("dir", metavar="DIR", help="the repository folder")
    init.add_argument("--domain", required=True, help="the domain, reverse DNS (e.g. com.example.audio)")
    init.add_argument(
        "--package",
        help="import name of the generated Python package (default: the domain with _, plus _ops)",
    )
    init.set_defaults(handler=run_init)

    schemas = subparsers.add_parser(
        "schemas",
        help="write the spec files' JSON Schemas for editors (or --check that they are current)",
        description=(
            "Write operator/domain/releases.schema.json of the installed toolkit into DIR, for the "
            "`# yaml-language-server: $schema=...` modelines of the spec files."
        ),
    )
    schemas.add_argument(
        "--out", metavar="DIR", help="folder to write (default: schemas/ beside opset.toml, else ./schemas)"
    )
    schemas.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a schema is missing or stale"
    )
    schemas.set_defaults(handler=run_schemas)


def run_init(args: argparse.Namespace) -> int:
    from toolkit.authoring.init import init_files, package_name, toolkit_commit
    from toolkit.load.writer import write_tree
    from toolkit.model.output_names import NAME_MAX, domain_components, package_problem, too_long
    from toolkit.model.spec import is_reserved_domain

    if is_reserved_domain(args.domain):
        raise UsageError(
            f"--domain {args.domain!r} is reserved for ONNX's own operators (ai.onnx, ai.onnx.*): a vendor "
            "domain of that name would hide the onnx catalog from the model tools\n"
            "  hint: pick a reverse-DNS domain of your own organisation, e.g. com.example.audio"
        )
    if not _DOMAIN.fullmatch(args.domain):
        raise UsageError(
            f"--domain {args.domain!r} is not a reverse-DNS domain name (write e.g. com.example.audio: "
            "lower-case labels separated by dots)"
        )
    # the names `opset generate` gives folders after the domain: what validate's NAME-TOO-LONG
    # would refuse in the tree written, refused before writing it
    long = next((name for name in domain_components(args.domain) if too_long(name)), None)
    if long is not None:
        raise UsageError(
            f"--domain {args.domain[:60]!r}... is too long: the folder named after it would be "
            f"{len(long.encode())} bytes, over the {NAME_MAX} a file system takes\n"
            "  hint: pick a shorter reverse-DNS domain, e.g. com.example.audio"
        )
    package = package_name(args.domain) if args.package is None else args.package
    problem = package_problem(package)  # what `python.package` of the opset.toml written must pass
    if problem:
        named = (
            f"--package {package!r}"
            if args.package is not None
            else f"the package name {package!r} (from --domain)"
        )
        raise UsageError(
            f"{named} {problem}\n  hint: pass --package with a name of your own, e.g. newco_audio_ops"
        )
    root = Path(args.dir)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{args.dir}: exists and is not a folder")
    files = init_files(args.domain, package, toolkit_commit())
    _refuse_symlinked_folders(root, files, args.dir)
    present = [path for path in files if (root / path).exists()]
    if present:
        raise UsageError(
            f"{args.dir}: {', '.join(present)} already exist(s); nothing was written "
            "(opset init never overwrites: start in an empty folder)"
        )
    write_tree(root, {path: text.encode("utf-8") for path, text in files.items()})
    if args.quiet:
        return 0
    for path in files:
        print(f"  wrote {(root / path).as_posix()}")
    print(
        f"created a spec repository for {args.domain} in {args.dir}. Next:\n"
        f"  cd {args.dir} && git init && opset validate && opset generate\n"
        "  pip install ./generated/python      # the generated, typed operator package\n"
        "  mkdocs build --strict               # the site (`opset` plugin)\n"
        "  pre-commit install                  # on commit: validate + the gate, schemas/generate --check\n"
        "  opset lsp                           # the language server (the [lsp] extra): VS Code starts it\n"
        "                                      #   from .vscode/ (install the recommended extensions);\n"
        "                                      #   other editors: opset-toolkit's docs/editors.md\n"
        "  .github/workflows/opset.yml: the opset-toolkit commit it installs is marked `# <commit sha>`"
    )
    return 0


def _refuse_symlinked_folders(root: Path, files: Iterable[str], shown: str) -> None:
    """Refuse when a folder below DIR that files would be written into is a symbolic link: they
    would land outside DIR (`opsets -> /elsewhere`). DIR itself is the invoker's choice."""
    from toolkit.load.writer import symlinked_folders

    tops = sorted({Path(path).parts[0] for path in files if len(Path(path).parts) > 1})
    links = symlinked_folders(root, tops)
    if links:
        first = root / links[0]
        raise UsageError(
            f"{shown}: {links[0]} is a symbolic link (to {os.readlink(first)}); nothing was written, "
            f"since files under it would land outside {shown}\n  hint: remove the link, or start in an empty folder"
        )


def run_schemas(args: argparse.Namespace) -> int:
    from toolkit.load.project import load_project
    from toolkit.load.schema_files import SCHEMA_DIR, editor_schema_files, packaged_schema_files
    from toolkit.load.writer import write_tree

    project = load_project()
    out = Path(args.out) if args.out else Path(project.path("schemas"))
    # In the toolkit's own repository the folder is the packaged one: its derived enums too.
    own = out.resolve() == SCHEMA_DIR.resolve()
    files = packaged_schema_files() if own else editor_schema_files()
    if not args.out and not args.check:  # the tree chose the folder: it may not lead out of it
        _refuse_symlinked_folders(
            project.folder, [f"schemas/{name}" for name in files], project.folder.as_posix()
        )
    stale = []
    for name, data in files.items():
        target = out / name
        try:
            current = target.read_bytes()
        except OSError:
            current = None
        if current != data:
            stale.append((target, current is None))
    if args.check:
        for target, missing in stale:
            what = "is missing" if missing else "differs from the installed opset-toolkit's schema"
            print(f"{target.as_posix()}: {what}", file=sys.stderr)
        if stale:
            print(
                f"  hint: run `opset schemas{' --out ' + args.out if args.out else ''}` to write them",
                file=sys.stderr,
            )
            return 1
        if not args.quiet:
            print(f"{out.as_posix()}/: {len(files)} schemas are current")
        return 0
    write_tree(out, files)
    if not args.quiet:
        print(f"{out.as_posix()}/: {len(files)} schemas, {len(stale)} written")
    return 0
