"""Argument helpers shared by commands."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.model.diagnostics import UsageError

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

DEFAULT_SPECS = "opsets"


def add_specs_argument(parser: argparse.ArgumentParser, *, vendor: bool = False) -> None:
    """`--specs DIR` (repeatable) and `--no-cache`. `vendor`: the specs add vendor domains to the
    onnx catalog (model commands), so giving none is fine."""
    what = "vendor spec folder" if vendor else "spec folder or file"
    default = f"./{DEFAULT_SPECS} if it exists" if vendor else f"./{DEFAULT_SPECS}"
    parser.add_argument(
        "--specs",
        action="append",
        metavar="DIR",
        help=f"{what} (repeatable; default: spec_root of opset.toml, else {default}, else {DEFAULT_SPECS}/ at the git top level)",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not use or fill the load caches")
    add_example_budget_argument(parser)


def add_example_budget_argument(parser: argparse.ArgumentParser) -> None:
    """`--max-example-bytes SIZE`: the budget of a spec tree's example files (see
    `toolkit.load.example_files`; `example_budget_set` hands it to the loader)."""
    parser.add_argument(
        "--max-example-bytes",
        metavar="SIZE",
        type=_size,
        help="budget of the example files a spec tree names, each reference counted (bytes, or with "
        "k/M/G; default: $OPSET_TOOLKIT_MAX_EXAMPLE_BYTES, else 64M; opset.toml's max_example_bytes "
        "can only lower it)",
    )


def _size(text: str) -> int:
    from toolkit.load.example_files import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@contextlib.contextmanager
def environment_set(name: str, value: str | None) -> Iterator[None]:
    """The environment variable `name` set to `value` for the command (None: left as it is): how
    a flag reaches what reads the variable (also in the processes the command forks, and in loads
    it does not make itself, such as the old tree of `opset diff`); restored afterwards, so
    in-process callers are unaffected."""
    if value is None:
        yield
        return
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ[name]
        else:
            os.environ[name] = previous


def example_budget_set(budget: int | None) -> contextlib.AbstractContextManager[None]:
    """`--max-example-bytes` for the command: the variable the example loader reads."""
    from toolkit.load.example_files import BUDGET_ENV

    return environment_set(BUDGET_ENV, None if budget is None else str(budget))


def spec_paths(values: list[str] | None, *, required: bool = True) -> list[str]:
    """The spec paths given, else `spec_root` of the project's opset.toml, else the default
    folder; `required=False` allows none at all."""
    if values:
        return values
    from toolkit.load.project import load_project

    project = load_project()
    if project.source is not None:
        from toolkit.load.output_folder import check_path, check_setting

        # The tree's own setting: it may not lead outside the project (PROJECT-PATH-UNSAFE).
        setting = project.key_location("spec_root")
        if setting is not None:
            check_setting("spec_root", project.spec_root, project.folder, setting, "--specs")
            check_path(Path(project.spec_path), project.folder, setting)
        if not Path(project.spec_path).is_dir():
            if not required:
                return []
            raise UsageError(
                f"spec_root '{project.spec_root}' of {project.path(project.source.name)} is not a folder"
                " (create it, or fix `spec_root`)"
            )
        return [project.spec_path]
    found = default_spec_dir()
    if found is not None:
        return [found]
    if not required:
        return []
    message = f"no --specs given and no ./{DEFAULT_SPECS} here or at the top of the git work tree"
    roots = _spec_roots()
    if roots:  # a monorepo (ml/opsets) or a subfolder: name the trees the repository has
        message += f"\n  hint: this repository's spec trees: pass --specs {' --specs '.join(roots)}"
    raise UsageError(message)


def _spec_roots() -> list[str]:
    """The spec trees `opset pre-commit` would check (folders above domain.yaml files), relative
    to the working directory; none outside a git work tree."""
    from toolkit.compat.gitref import spec_roots

    try:
        return spec_roots()
    except (UsageError, OSError):
        return []


def default_spec_dir() -> str | None:
    """`./opsets`, else `opsets/` at the top of the git work tree (a command run from a subfolder)."""
    if Path(DEFAULT_SPECS).is_dir():
        return DEFAULT_SPECS
    # only when ./opsets is not here: every command imports this module
    from toolkit.load.git import GitOutputTooLarge, run_git

    try:
        proc = run_git(["rev-parse", "--show-cdup"], Path.cwd())
    except (OSError, GitOutputTooLarge):  # no git on PATH
        return None
    if proc.ok:
        candidate = Path(proc.text() or ".") / DEFAULT_SPECS
        if candidate.is_dir():
            return candidate.as_posix()
    return None


def specs_from_args(args: argparse.Namespace, *, required: bool = True) -> list[str]:
    """`spec_paths` of the `--specs` option (see `add_specs_argument`), each one checked to exist."""
    for value in args.specs or ():
        if not Path(value).exists():
            raise UsageError(f"--specs {value}: no such file or directory")
    return spec_paths(args.specs, required=required)


def registry_from_args(args: argparse.Namespace) -> Registry:
    # Commands import what they run only when they run: building the parser stays cheap.
    from toolkit.registry.core import load_registry

    return load_registry(specs_from_args(args), cache=not args.no_cache)


def model_registry_from_args(
    args: argparse.Namespace, *, adapters: bool = False, runtime: str | None = None
) -> Registry:
    """The onnx catalog, or the catalog of `runtime` (see toolkit/onnx_bridge/runtimes.py),
    plus the vendor specs of `--specs` (see `add_specs_argument(vendor=True)`)."""
    from toolkit.onnx_bridge.catalog import model_registry

    paths = specs_from_args(args, required=False)
    base = None
    if runtime is not None:
        from toolkit.onnx_bridge.runtimes import runtime_catalog

        base = runtime_catalog(runtime, use_cache=not args.no_cache).registry
    return model_registry(paths, base=base, adapters=adapters, use_cache=not args.no_cache)


def split_operator_ref(text: str) -> tuple[str, str, int | None]:
    """`DOMAIN.OP[:SINCE]` -> (domain, op, since); a bare `OP` is in the default domain."""
    since: int | None = None
    if ":" in text:
        text, _, raw = text.rpartition(":")
        if not raw.isdigit():
            raise UsageError(f"'{raw}' is not a since_version (write DOMAIN.OP:N)")
        since = int(raw)
    domain, _, op = text.rpartition(".")
    if not op:
        raise UsageError(f"'{text}' does not name an operator (write DOMAIN.OP, e.g. com.acme.FusedConv)")
    return domain, op, since


# --------------------------------------------------------------------------- report output

REPORT_FORMATS = ("text", "json", "github", "sarif", "junit")


def add_report_arguments(
    parser: argparse.ArgumentParser, *, output_flags: tuple[str, ...] = ("--output", "-o")
) -> None:
    """`--format text|json|github|sarif|junit` and `--output FILE` (dest `report_file`). Load and
    usage errors are written in the same format (toolkit.cli.main); exit codes do not change."""
    parser.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        default="text",
        help="report format (default: text); github = workflow-command annotations, sarif = SARIF "
        "2.1.0 for code scanning, junit = JUnit XML (one test case per finding)",
    )
    parser.add_argument(
        *output_flags,
        dest="report_file",
        metavar="FILE",
        help="write the report to FILE instead of stdout (atomically; the directory must exist)",
    )


def emit_report(args: argparse.Namespace, text: str) -> None:
    """The report to `--output` (atomically) or stdout."""
    import sys

    target = getattr(args, "report_file", None)
    if target:
        from toolkit.reporting.common import write_report

        write_report(target, text)
    else:
        sys.stdout.write(text)
