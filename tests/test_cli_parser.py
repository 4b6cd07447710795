"""`main` builds the parser of the command it runs only (`build_parser(command)`): for every
command, that parser must be the full parser's as far as the command is concerned."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.cli import build_parser

REPO = Path(__file__).resolve().parent.parent


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


FULL = _commands(build_parser())


@pytest.mark.parametrize("command", sorted(FULL))
def test_the_parser_of_one_command_is_the_full_parsers(command: str) -> None:
    own = _commands(build_parser(command))
    assert command in own
    assert own[command].format_help() == FULL[command].format_help()
    assert own[command].get_default("handler") is FULL[command].get_default("handler")


def test_other_names_get_the_full_parser() -> None:
    for name in (None, "no-such-command", "--version"):
        assert set(_commands(build_parser(name))) == set(FULL)


def test_generate_imports_no_other_command_module(tmp_path: Path) -> None:
    # (the docs kind builds the full parser for the CLI reference page: not asked for here)
    code = (
        "import sys\n"
        "from toolkit.cli import main\n"
        f"main(['generate', '--specs', {str(REPO / 'opsets')!r}, '--out', {str(tmp_path / 'gen')!r}, '-q', '--no-cache', '--only', 'python'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('toolkit.cli.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    # toolkit.cli.argv: every command's arguments are screened for option-like values
    # toolkit.cli.colour_streams: the streams are painted on a terminal (not a command module)
    assert out.stdout.strip() == (
        "['toolkit.cli.argv', 'toolkit.cli.colour_streams', 'toolkit.cli.common', 'toolkit.cli.generate_command']"
    )
