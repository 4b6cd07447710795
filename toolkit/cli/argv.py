"""Option values that look like options: refused before argparse reads them.

argparse reads `--against --output=/x` as `--against` without a value followed by `--output`:
a CI template's `--against "$BASE"` with such a value would turn into an option of the
command (argparse then fails, but the failure report was written to the `--output` it read).
So a value-taking option written as two words whose second looks like an option is a usage
error that says to join them (`--against=VALUE`), and the argv scan that finds the report file
of a command whose arguments did not parse reads the words as this module does.
"""

from __future__ import annotations

import argparse
import itertools
import re

from toolkit.model.diagnostics import UsageError

_NEGATIVE_NUMBER = re.compile(r"-\d+$|-\d*\.\d+$")  # argparse reads these as values


def looks_like_option(word: str) -> bool:
    """Whether argparse may read `word` as an option rather than a value."""
    return word.startswith("-") and word != "-" and not _NEGATIVE_NUMBER.match(word) and " " not in word


def command_word(argv: list[str], global_values: frozenset[str]) -> str | None:
    """The command `argv` names: its first word that is not a global option (`opset -q validate`,
    `opset --color never validate`: `global_values` are the global options taking a value)."""
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            return argv[index + 1] if index + 1 < len(argv) else None
        if not looks_like_option(word):
            return word
        index += 2 if word in global_values else 1
    return None


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The command parsers of `parser`, by name."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser | None:
    """The sub-parser of the command `argv` names, if any."""
    word = command_word(argv, value_options(parser))
    return commands(parser).get(word) if word is not None else None


def value_options(parser: argparse.ArgumentParser | None) -> frozenset[str]:
    """The option strings of `parser` that take exactly one value (`--against REF`)."""
    if parser is None:
        return frozenset()
    return frozenset(
        option
        for action in parser._actions
        if action.option_strings and action.nargs is None and not isinstance(action, _NO_VALUE)
        for option in action.option_strings
    )


_NO_VALUE = (
    argparse._StoreConstAction,  # store_true/false are subclasses
    argparse._CountAction,
    argparse._HelpAction,
    argparse._VersionAction,
)


def refuse_option_like_values(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """UsageError when a value-taking option's next word looks like an option (see the module
    docstring); `--` ends the options, as for argparse."""
    options = value_options(command_parser(parser, argv)) | value_options(parser)
    for word, after in itertools.pairwise(argv):
        if word == "--":
            return
        if word in options and looks_like_option(after):
            raise UsageError(
                f"{word}: the value '{after}' looks like an option, so it cannot be told from one\n"
                f"  hint: join the option and its value: {word}={after}"
            )


def option_value(argv: list[str], names: tuple[str, ...], options: frozenset[str]) -> str | None:
    """The last value given to one of `names` (`--output FILE` or `--output=FILE`), reading the
    word after any value-taking option in `options` as its value, never as an option."""
    found = None
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            break
        name, eq, value = word.partition("=")
        if word in options and not eq:
            value = argv[index + 1] if index + 1 < len(argv) else ""
            index += 1
        if name in names and value and (eq or word in options):
            found = value
        index += 1
    return found
