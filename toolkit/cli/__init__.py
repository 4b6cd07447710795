"""The `opset` command: argument handling only; every command delegates to the library.

Each command lives in its own module exposing `register(subparsers)`; add new modules to
`build_parser`. Exit codes: 0 success, 1 findings/errors in specs, 2 usage or I/O problem.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from toolkit.cli.argv import (
    command_parser,
    command_word,
    commands,
    option_value,
    refuse_option_like_values,
    value_options,
)
from toolkit.cli.common import REPORT_FORMATS, add_global_arguments, environment_set, example_budget_set
from toolkit.model.diagnostics import SpecError, UsageError, usage_text

NO_CACHE_ENV = "OPSET_TOOLKIT_NO_CACHE"  # read by toolkit.load.cache.enabled()
# Exit codes are 0, 1 and 2 only: CI scripts and the action branch on them. An internal error
# is "could not do the job" (2) too, reported like a usage error in the requested format.
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise UsageError(message)


class _Version(argparse.Action):
    """`--version`: the installed distribution's version from its metadata (what pip installed),
    read only when asked; the package's own `__version__` when it is not installed."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version of opset-toolkit and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib import metadata

        try:
            version = metadata.version(DISTRIBUTION)
        except metadata.PackageNotFoundError:
            from toolkit import __version__ as version
        print(f"opset-toolkit {version}")
        parser.exit()


DISTRIBUTION = "opset-toolkit"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `opset` parser with every command; with `command`, a command name, only the commands
    of the module that defines it (`main` builds that for the command it runs: importing every
    command module and building every sub-parser would cost each command about 10 ms)."""
    parser = _Parser(prog="opset", description="Declarative operator sets: validate, generate, diff.")
    parser.add_argument("--version", action=_Version)
    add_global_arguments(parser, top=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for module in _command_modules(command):
        module.register(subparsers)
    for sub in commands(parser).values():  # the global options after the command name too
        add_global_arguments(sub, top=False)
    # `opset generate` renders the CLI reference page from this parser; handing the factory down
    # keeps the command modules from importing this package (no import cycle).
    parser.set_defaults(build_parser=build_parser)
    # `opset pre-commit` runs the real commands in turn, each with main's error handling.
    parser.set_defaults(run_opset=main)
    return parser


def _command_modules(command: str | None) -> list[ModuleType]:
    """The module that defines `command`, or every command module (any other name: the full
    parser then reports it). tests/test_cli_parser.py checks this table against the full parser."""
    # One import statement per module, so that only the one needed is imported.
    if command in ("validate", "show", "inventory", "import-onnx"):
        from toolkit.cli import spec_commands

        return [spec_commands]
    if command in ("diff", "changelog"):
        from toolkit.cli import diff_command

        return [diff_command]
    if command == "generate":
        from toolkit.cli import generate_command

        return [generate_command]
    if command in ("check-model", "compat", "model-diff", "convert"):
        from toolkit.cli import model_commands

        return [model_commands]
    if command == "infer-shapes":
        from toolkit.cli import shapes_command

        return [shapes_command]
    from toolkit.cli import (
        authoring_commands,
        completion_command,
        diff_command,
        generate_command,
        lsp_command,
        model_commands,
        precommit_command,
        project_commands,
        rules_command,
        runtime_command,
        shapes_command,
        spec_commands,
    )

    return [
        spec_commands,
        diff_command,
        rules_command,
        generate_command,
        authoring_commands,
        model_commands,
        precommit_command,
        project_commands,
        runtime_command,
        lsp_command,
        completion_command,
        shapes_command,
    ]


def painted(args: argparse.Namespace) -> contextlib.AbstractContextManager[None]:
    """Colour on stderr, and on stdout when the command prints text there (never a machine format):
    see `toolkit.reporting.colour`."""
    from toolkit.cli.colour_streams import painted_streams

    text_out = getattr(args, "format", "text") == "text"
    return painted_streams(getattr(args, "color", "auto"), stdout=text_out)


def _caches_off(off: bool) -> contextlib.AbstractContextManager[None]:
    """`--no-cache` turns off every cache for this command, also those the command does not pass
    `cache=` to (the onnx catalog's import, the git-ref cache): the environment switch the caches
    read (`toolkit.load.cache.enabled`)."""
    return environment_set(NO_CACHE_ENV, "1" if off else None)


def run() -> NoReturn:
    """The `opset` command (and `python -m toolkit`): `main()`, then exit with its code.

    A command that loaded a catalog holds hundreds of thousands of objects, and the interpreter's
    teardown runs full collections that would walk them all for nothing: the collector is switched
    off and what is alive frozen first (`gc.freeze`), which saves most of the teardown (the README
    has the measurement). Everything else at exit happens as usual (`atexit` functions, flushing).
    Output the reader stopped reading (`opset rules | head -1`) is dropped, not reported."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what is left has nowhere to go
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    gc.disable()
    gc.freeze()
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    with contextlib.ExitStack() as colour:  # the streams painted until the command's last word
        return _main(list(sys.argv[1:] if argv is None else argv), colour)


def _global_values() -> frozenset[str]:
    """The global options that take a value (`--color WHEN`), to find the command name after them."""
    parser = argparse.ArgumentParser(add_help=False)
    add_global_arguments(parser, top=True)
    return value_options(parser)


def _unknown_command(parser: argparse.ArgumentParser, word: str | None) -> None:
    """A mistyped command (`opset valdate`) is a usage error naming the closest commands."""
    known = commands(parser)
    if word is None or word in known:
        return
    from toolkit.model.suggest import close_names, did_you_mean

    hint = did_you_mean(close_names(word, known), "`opset {}`") or "`opset --help` lists the commands"
    parser.print_usage(sys.stderr)
    raise UsageError(f"unknown command '{word}'\n  hint: {hint}")


def _main(argv: list[str], colour: contextlib.ExitStack) -> int:
    args: argparse.Namespace | None = None
    parser: argparse.ArgumentParser | None = None
    try:
        word = command_word(argv, _global_values())
        parser = build_parser(word)
        _unknown_command(parser, word)
        refuse_option_like_values(parser, argv)
        args = parser.parse_args(argv)
        colour.enter_context(painted(args))
        budget = getattr(args, "max_example_bytes", None)
        with _caches_off(getattr(args, "no_cache", False)), example_budget_set(budget):
            code: int = args.handler(args)
        return code
    except SpecError as exc:
        for diag in exc.diagnostics:
            print(diag.format(), file=sys.stderr)
        errors = len(exc.errors)
        print(f"{errors} error(s), {len(exc.diagnostics) - errors} warning(s)", file=sys.stderr)
        _report_failure(argv, args, exc, EXIT_FINDINGS, parser)
        return EXIT_FINDINGS
    except UsageError as exc:
        # A file of the tree at fault: its located finding (file:line:col, rule id), still exit 2.
        # Otherwise the message, each line escaped: it may quote a path or a value of the tree.
        print(
            exc.diagnostic.format() if exc.diagnostic else f"opset: error: {usage_text(str(exc))}",
            file=sys.stderr,
        )
        _report_failure(argv, args, exc, EXIT_USAGE, parser)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("opset: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""  # never an empty `: ` before the reason
        print(f"opset: error: {usage_text(f'{where}{exc.strerror or exc}')}", file=sys.stderr)
        _report_failure(argv, args, UsageError(f"{where}{exc.strerror or exc}"), EXIT_USAGE, parser)
        return EXIT_USAGE
    except Exception as exc:  # last line of defence: a message, never a traceback
        print(f"opset: internal error: {type(exc).__name__}: {usage_text(str(exc))}", file=sys.stderr)
        print("  hint: please report this with the command you ran", file=sys.stderr)
        with contextlib.suppress(Exception):  # the report is a courtesy; the exit code is not
            _report_failure(
                argv, args, UsageError(f"internal error: {type(exc).__name__}: {exc}"), EXIT_USAGE, parser
            )
        return EXIT_USAGE


def _report_failure(
    argv: list[str],
    args: argparse.Namespace | None,
    exc: SpecError | UsageError,
    code: int,
    parser: argparse.ArgumentParser | None = None,
) -> None:
    """A command asked for a machine format (`--format github|sarif|junit|json`) gets its load or
    usage error in that format too, on stdout or in `--output`, so it reaches the pull request;
    the text above went to stderr as always."""
    command, fmt, target = _report_options(argv, args, parser)
    if fmt in (None, "text"):
        if not target:
            return  # the text above is the report
        fmt = "text"  # a CI step that reads or uploads the file must find the error in it
    from toolkit.reporting.errors import render_load_errors, render_usage_error

    if isinstance(exc, SpecError):
        text = render_load_errors(command, "the spec tree", exc.diagnostics, fmt, code)
    elif exc.diagnostic is not None:
        text = render_load_errors(command, "the project settings", [exc.diagnostic], fmt, code)
    else:
        text = render_usage_error(command, str(exc), fmt, code)
    try:
        if target:
            from toolkit.reporting.common import write_report

            write_report(target, text)
            return
    except (UsageError, OSError) as err:
        print(f"opset: error: cannot write the report: {usage_text(str(err))}", file=sys.stderr)
    sys.stdout.write(text)


_REPORTING = {
    "validate",
    "generate",
    "diff",
    "check-model",
    "compat",
    "convert",
    "model-diff",
    "test-runtime",
}


def _report_options(
    argv: list[str], args: argparse.Namespace | None, parser: argparse.ArgumentParser | None = None
) -> tuple[str, str | None, str | None]:
    """(command, format, report file) from the parsed arguments, else read off `argv` (the
    arguments did not parse: the usage error itself must reach the report) the way
    `toolkit.cli.argv` reads it: a word after an option taking a value is that value."""
    if args is not None:
        command = str(getattr(args, "command", "") or "opset")
        if command not in _REPORTING:
            return command, None, None
        return command, getattr(args, "format", None), getattr(args, "report_file", None)
    command = command_word(argv, _global_values()) or ""
    if command not in _REPORTING:
        return command or "opset", None, None
    output_flags: tuple[str, ...] = ("--output", "-o", "--report")
    if command == "convert" and not any(a == "--out" or a.startswith("--out=") for a in argv):
        output_flags = ("--report",)  # the old spelling: -o/--output named the converted model
    options = value_options(command_parser(parser, argv) if parser is not None else None)
    fmt = option_value(argv, ("--format",), options)
    target = option_value(argv, output_flags, options)
    if fmt not in REPORT_FORMATS:
        fmt = None
    return command, fmt, target
