"""`opset pre-commit`: the one pre-commit hook (.pre-commit-hooks.yaml, id `opset`).

For every spec tree of the repository (the folders holding `domain.yaml` files, or `--specs`):
`opset validate`, then, when the tree loads cleanly, the gate (`opset diff`) and optionally
`opset generate --check`. Each step runs the real command (same output, same exit codes), and a
tree with spec errors stops after `validate`, so every error is printed once. The old tree is
`--against`, else pre-commit's own range (PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF, set by
`pre-commit run --from-ref/--to-ref` and the pre-push stage: their merge base), else HEAD (what
the commit changes). No remote is assumed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from toolkit.cli.common import add_specs_argument
from toolkit.cli.diff_command import add_plugin_arguments, plugin_arguments
from toolkit.model.diagnostics import Severity, UsageError


def register(subparsers: Any) -> None:
    hook = subparsers.add_parser(
        "pre-commit",
        help="the pre-commit hook: validate every spec tree, then gate it against the base (each error once)",
        description="Validate every spec tree of the repository (folders holding domain.yaml files, or "
        "--specs) and, when it loads cleanly, run the breaking-change gate against --against, else "
        "pre-commit's PRE_COMMIT_FROM_REF...PRE_COMMIT_TO_REF, else HEAD. "
        "Exit 0 clean, 1 findings, 2 usage or load error.",
    )
    add_specs_argument(
        hook,
        help="spec folder (repeatable; default: every folder whose subfolders hold a domain.yaml, "
        "found with git ls-files)",
    )
    hook.add_argument("--against", metavar="REF", help="old tree (default: pre-commit's from-ref, else HEAD)")
    hook.add_argument("--no-gate", action="store_true", help="validate only")
    hook.add_argument(
        "--generated",
        metavar="DIR",
        help="also run `opset generate --check --out DIR` (one spec folder only)",
    )
    hook.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default="error",
        help="gate: lowest failing severity",
    )
    hook.add_argument("--config", metavar="FILE", help="gate config file")
    hook.add_argument("--profile", metavar="NAME", help="gate profile")
    add_plugin_arguments(hook)
    hook.set_defaults(handler=run_pre_commit)


def run_pre_commit(args: argparse.Namespace) -> int:
    from toolkit.compat.gitref import has_head, hook_base, spec_roots

    run: Callable[[Sequence[str]], int] = args.run_opset
    roots = args.specs or spec_roots()
    if not roots:
        print("opset pre-commit: no domain.yaml in this repository; nothing to check", file=sys.stderr)
        return 0
    if args.generated and len(roots) != 1:
        raise UsageError(
            f"--generated: {len(roots)} spec folders ({', '.join(roots)}); name the one it is generated "
            "from with --specs"
        )
    against = args.against or _range_base(hook_base)
    if against == "HEAD" and not args.no_gate and not has_head():
        print("opset pre-commit: no commit yet, so nothing to gate against; validating only", file=sys.stderr)
        args.no_gate = True
    # Every value is joined to its option (`--specs=ROOT`) and paths follow `--`: a spec folder
    # is named by the tree (a folder called `--output=x` must stay a folder) and a ref may come
    # from the environment, so no value can be read as an option of the command run.
    common = ["--no-cache"] if args.no_cache else []
    gate = [*common, f"--fail-on={args.fail_on}", *plugin_arguments(args)]
    gate += [f"--config={args.config}"] if args.config else []
    gate += [f"--profile={args.profile}"] if args.profile else []
    worst = 0
    for root in roots:
        code = run(["validate", "--", root])
        if code == 0:  # spec errors were said once, by validate: the other steps would repeat them
            if not args.no_gate:
                code = run(["diff", f"--against={against}", f"--specs={root}", *gate])
            if args.generated:
                generated = run(
                    ["generate", "--check", "--quiet", f"--specs={root}", f"--out={args.generated}"]
                )
                code = max(code, generated)
        worst = max(worst, code)
    return worst


def _range_base(hook_base: Callable[[str, str], str]) -> str:
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF", "")
    to_ref = os.environ.get("PRE_COMMIT_TO_REF", "")
    if from_ref and to_ref:
        return hook_base(from_ref, to_ref)
    return "HEAD"
