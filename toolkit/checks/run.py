"""Load and check: the structural read of the load layer followed by every semantic spec rule
and the doc checks (DOC-*).

This is what every command that loads specs runs (`opset validate`, the registry, the gate's
git-ref loader, `opset bump`, the release table).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from toolkit.checks.docs import domain_doc_diagnostics, operator_doc_diagnostics
from toolkit.load.loader import dedupe, read_specs
from toolkit.load.result import LoadResult
from toolkit.model.diagnostics import sort_key


def load_specs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    display: Callable[[Path], str] | None = None,
    jobs: int | None = None,
    contents: Mapping[Path, bytes] | None = None,
) -> LoadResult:
    """Read every spec under `paths` and run the semantic checks over what could be built.
    Never raises for bad specs: problems are diagnostics (see `toolkit.load.loader.read_specs`,
    which also says what `contents` is)."""
    _, check = read_then_check(paths, display=display, jobs=jobs, contents=contents)
    return check()


def read_then_check(
    paths: Sequence[str | os.PathLike[str]],
    *,
    display: Callable[[Path], str] | None = None,
    jobs: int | None = None,
    contents: Mapping[Path, bytes] | None = None,
) -> tuple[LoadResult, Callable[[], LoadResult]]:
    """`load_specs` in two steps: the structural read (with the operators' doc checks) now, and a
    function that runs the remaining semantic checks over it and returns the whole result (the
    same object, its diagnostics completed). Between the two, the specs may be used for work
    that is thrown away when the checks find errors (`toolkit.registry.core.start_registry`)."""
    # The doc checks of an operator need that operator only: the loader runs them where it builds
    # the operator, so on a large tree they are split across its worker processes too. Which
    # list a diagnostic joins first does not change the result: every list is sorted (by
    # location, rule and message) and deduplicated below, and doc rules are checked nowhere else.
    result = read_specs(
        paths, display=display, jobs=jobs, check_operator=operator_doc_diagnostics, contents=contents
    )

    def check() -> LoadResult:
        # Imported here: the rule modules are not needed to read, so a forked reader starts sooner.
        from toolkit.checks.spec import check_specs

        checked = [*check_specs(result.specs), *domain_doc_diagnostics(result.specs)]
        if checked:
            result.diagnostics = sorted(dedupe([*result.diagnostics, *checked]), key=sort_key)
        return result

    return result, check
