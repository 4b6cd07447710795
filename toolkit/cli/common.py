"""Argument helpers shared by commands."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.model.diagnostics import UsageError

if TYPE_CHECKING:
    from toolkit.registry.core import Registry

DEFAULT_SPECS = "opsets"


def add_specs_argument(
    parser: argparse.ArgumentParser, *, vendor: bool = False, help: str | None = None
) -> None:
    """`--specs DIR` (repeatable), `--no-cache` and `--max-example-bytes`: every command that reads
    specs takes these three, from here. `vendor`: the specs add vendor domains to the onnx catalog
    (model commands), so giving none is fine; `help`: a command whose default differs says so."""
    what = "vendor spec folder" if vendor else "spec folder or file"
    default = f"./{DEFAULT_SPECS} if it exists" if vendor else f"./{DEFAULT_SPECS}"
    parser.add_argument(
        "--specs",
        action="append",
        metavar="DIR",
        help=help
        or f"{what} (repeatable; default: spec_root of opset.toml, else {default}, else {DEFAULT_SPECS}/ at the git top level)",
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
        from toolkit.load.output_folder import checked_spec_root

        # The tree's own setting: it may not lead outside the project (PROJECT-PATH-UNSAFE).
        checked_spec_root(project.folder, project.spec_root, project.key_location("spec_root"))
        if not Path(project.spec_path).is_dir():
            if not required:
                return []
            raise project.setting_error(
                "spec_root",
                f"`spec_root` = {project.spec_root!r} is not a folder",
                "create it, or fix `spec_root`",
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
    from toolkit.load.output_folder import checked_spec_root

    # A symlinked default folder is refused (exit 2) as a symlinked `spec_root` is: a link in
    # the tree could otherwise have a folder outside it read and published.
    if Path(DEFAULT_SPECS).is_dir():
        checked_spec_root(Path.cwd(), DEFAULT_SPECS, None)
        return DEFAULT_SPECS
    # only when ./opsets is not here: every command imports this module
    from toolkit.load.git import GitOutputTooLarge, run_git

    try:
        proc = run_git(["rev-parse", "--show-cdup"], Path.cwd())
    except (OSError, GitOutputTooLarge):  # no git on PATH
        return None
    if proc.ok:
        top = Path(proc.text() or ".")
        if (top / DEFAULT_SPECS).is_dir():
            checked_spec_root(top, DEFAULT_SPECS, None)
            return (top / DEFAULT_SPECS).as_posix()
    return None


def specs_from_args(
    args: argparse.Namespace, *, required: bool = True, also: Sequence[str] = ()
) -> list[str]:
    """`spec_paths` of the `--specs` option (see `add_specs_argument`) and `also` (a command's
    positional paths, such as validate's: the same as `--specs`), each one checked to exist."""
    given = [*also, *(args.specs or ())]
    for index, value in enumerate(given):
        # an entry that exists at all (a FIFO, a device, a broken or looping link too): the
        # loader reads it and reports what it is, located (`load.discovery.discover`)
        if not os.path.lexists(value):
            option = "" if index < len(also) else "--specs "
            raise UsageError(f"{option}{value}: no such file or directory")
    return spec_paths(given, required=required)


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
_FORMAT_HELP = (
    "report format (default: text); github = workflow-command annotations, sarif = SARIF 2.1.0 for "
    "code scanning, junit = JUnit XML (one test case per finding)"
)


def add_format_argument(
    parser: argparse.ArgumentParser,
    choices: Sequence[str] = REPORT_FORMATS,
    default: str = "text",
    help: str | None = None,
) -> None:
    """`--format`: the report formats by default; a command printing data (`show`, `rules`) names
    its own."""
    described = tuple(choices) == REPORT_FORMATS
    parser.add_argument(
        "--format",
        choices=tuple(choices),
        default=default,
        help=help or (_FORMAT_HELP if described else f"output format (default: {default})"),
    )


class _SpelledStore(argparse.Action):
    """Stores the value like `store`, and records each (spelling, value) in `<dest>_given`: a
    command with a deprecated alias (`convert --report`) can tell the spellings apart."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        given = [*(getattr(namespace, f"{self.dest}_given", None) or ()), (option_string, values)]
        setattr(namespace, f"{self.dest}_given", given)


def add_report_arguments(
    parser: argparse.ArgumentParser,
    *,
    formats: Sequence[str] = REPORT_FORMATS,
    aliases: Sequence[str] = (),
) -> None:
    """`--format` and `--output/-o FILE` (dest `report_file`; `aliases`: old spellings, listed as
    deprecated in the help). Load and usage errors are written in the same format
    (toolkit.cli.main); exit codes do not change."""
    add_format_argument(parser, formats)
    deprecated = f" ({', '.join(aliases)}: deprecated spelling)" if aliases else ""
    parser.add_argument(
        "--output",
        "-o",
        *aliases,
        dest="report_file",
        action=_SpelledStore,
        metavar="FILE",
        help="write the report to FILE instead of stdout (atomically; the directory must exist)" + deprecated,
    )


COLOR_CHOICES = ("auto", "always", "never")


def add_global_arguments(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """`--quiet/-q` and `--color`: global, so every command takes them before or after its name
    (`opset -q validate` = `opset validate -q`). On a command's parser the default is SUPPRESS, so
    a value given before the command name is not reset by the command's parser."""
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="print nothing on success: no summary or progress lines (findings, errors and machine "
        "reports are printed as always)",
    )
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto" if top else argparse.SUPPRESS,
        help="colour severities and rule ids in text output: auto (default: on a terminal, unless "
        "NO_COLOR is set; FORCE_COLOR forces it), always or never",
    )


def emit_report(args: argparse.Namespace, text: str, *, clean: bool = False) -> None:
    """The report to `--output` (atomically) or stdout. `clean`: the run found nothing, so under
    `--quiet` a text report on stdout is left out (a machine report or a report file never is)."""
    import sys

    target = getattr(args, "report_file", None)
    if clean and not target and getattr(args, "quiet", False) and getattr(args, "format", "text") == "text":
        return
    if target:
        from toolkit.reporting.common import write_report

        write_report(target, text)
    else:
        sys.stdout.write(text)
