"""Load and check: the structural read of the load layer followed by every semantic spec rule
and the doc checks (DOC-*).

This is what every command that loads specs runs (`opset validate`, the registry, the gate's
git-ref loader, `opset bump`, the release table).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from toolkit.checks import markdown
from toolkit.checks.docs import OperatorDocs, domain_doc_diagnostics, operator_docs
from toolkit.checks.spec import check_specs, operator_problems
from toolkit.load.loader import OperatorCheck, dedupe, read_specs
from toolkit.load.result import LoadResult
from toolkit.model.diagnostics import sort_key
from toolkit.model.spec import DomainSpec, OperatorSpec


def _operator_checks(op: OperatorSpec, domains: Mapping[str, DomainSpec]) -> OperatorDocs:
    """What the checks find that read one operator at a time: the doc checks (with the analyses
    they made) and the spec checks marked `per_operator`."""
    docs = operator_docs(op)
    docs.diagnostics.extend(operator_problems(op, domains))
    return docs


# The Markdown parser (importing markdown-it and building it with its rules) is made before the
# loader forks: a large tree has docs the prefilter sends to it, and each process building its own
# was most of the cost of its first file.
OPERATOR_CHECKS = OperatorCheck(_operator_checks, markdown.remember, markdown.parser)


def load_specs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    display: Callable[[Path], str] | None = None,
    jobs: int | None = None,
    contents: Mapping[Path, bytes] | None = None,
    project_folder: Path | None = None,
) -> LoadResult:
    """Read every spec under `paths` and run the semantic checks over what could be built.
    Never raises for bad specs: problems are diagnostics (see `toolkit.load.loader.read_specs`,
    which also says what `contents` and `project_folder` are)."""
    # The doc checks of an operator and the spec checks marked `per_operator` need that operator
    # only (and the domains): the loader runs them where it builds the operator, so on a large
    # tree they are shared out between its processes too, and `check_specs` leaves them out
    # below. Which list a diagnostic joins first does not change the result: every list is
    # sorted (by location, rule and message) and deduplicated below. The workers' Markdown
    # analyses come back to this process's memo: the docs generator reads the same docs here.
    result = read_specs(
        paths,
        display=display,
        jobs=jobs,
        check_operator=OPERATOR_CHECKS,
        contents=contents,
        project_folder=project_folder,
    )
    checked = [*check_specs(result.specs, per_operator=False), *domain_doc_diagnostics(result.specs)]
    if checked:
        result.diagnostics = sorted(dedupe([*result.diagnostics, *checked]), key=sort_key)
    return result
