"""`opset completion SHELL`: a shell completion script generated from the parser by shtab."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from toolkit.model.diagnostics import UsageError
from toolkit.model.install import install_line

SHELLS = ("bash", "zsh", "tcsh")


def register(subparsers: Any) -> None:
    completion = subparsers.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or tcsh) for every command and option",
        description="Print the completion script of SHELL, generated from opset's own argument parser "
        "(so it cannot drift from it). bash: `source <(opset completion bash)`, or save it as "
        "~/.local/share/bash-completion/completions/opset; zsh: save it as `_opset` in a folder of "
        '$fpath; tcsh: `eval "`opset completion tcsh`"`.',
    )
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or tcsh")
    completion.set_defaults(handler=run_completion)


def run_completion(args: argparse.Namespace) -> int:
    try:
        import shtab
    except ImportError:  # a dependency of the toolkit; an install that lacks it is broken
        raise UsageError(
            "shell completion needs the shtab package, a dependency of the toolkit: this install is "
            f"incomplete\n  hint: install the toolkit again ({install_line()}), or pip install shtab"
        ) from None
    parser = args.build_parser()
    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return 0
