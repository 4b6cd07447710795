"""Reporter of `opset test-runtime`: one row per (operator, version, example).

Text and JSON are the command's own; github, sarif and junit go through the shared `Report`
(`toolkit.reporting.report`): a failing or erroring example is an item of its rule
(RUNTIME-EXAMPLE-FAIL / -ERROR) at the example's place in the spec, and a skipped one an info
item (RUNTIME-EXAMPLE-SKIP). In JUnit every example is a test case named by itself (class
`domain.Op:since`, name the example's), passing, `<failure type=RULE>`, `<error type=RULE>` or
`<skipped message=...>`. Deterministic output only (results come sorted; no timings).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from toolkit.model.diagnostics import Severity, UsageError
from toolkit.onnx_bridge.runtime_test import PASS, SKIP, STATUSES, ExampleResult
from toolkit.reporting.common import dump_json, json_envelope
from toolkit.reporting.formats import render as render_machine
from toolkit.reporting.report import MACHINE_FORMATS, Item, Place, Report

FORMATS = ("text", "json", *MACHINE_FORMATS)


def render(results: Sequence[ExampleResult], fmt: str, *, runtime: str) -> str:
    if fmt == "text":
        return render_text(results, runtime)
    if fmt == "json":
        return render_json(results, runtime)
    if fmt in MACHINE_FORMATS:
        return render_machine(report(results, runtime, passes=fmt == "junit"), fmt)
    raise UsageError(f"unknown format '{fmt}' (one of: {', '.join(FORMATS)})")


def exit_code(results: Sequence[ExampleResult], *, allow_all_skipped: bool = True) -> int:
    """0 when no example failed or erred (skipped ones do not count), else 1; also 1 when every
    example was skipped (nothing ran, so nothing was tested) unless `allow_all_skipped`."""
    if not allow_all_skipped and nothing_ran(results):
        return 1
    return 0 if all(r.status in (PASS, SKIP) for r in results) else 1


def nothing_ran(results: Sequence[ExampleResult]) -> bool:
    """There were examples, and the runtime could run none of them."""
    return bool(results) and all(r.status == SKIP for r in results)


NOTHING_RAN = (
    "opset test-runtime: nothing ran: every example was skipped, so none was tested; "
    "an operator version runs when it has a `function:` body of operators the runtime has, or "
    "its kernels are loaded with --custom-op-library PATH\n"
    "  hint: give the versions a function body or pass their kernel library; "
    "--allow-all-skipped accepts a run where nothing ran"
)


def summary(results: Sequence[ExampleResult]) -> str:
    counts = Counter(r.status for r in results)
    return (
        f"{len(results)} example(s): {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['error']} error(s), {counts['skip']} skipped"
    )


def render_text(results: Sequence[ExampleResult], runtime: str) -> str:
    lines = []
    for r in results:
        line = f"{r.status.upper():5} {r.id}"
        if r.status != PASS:
            line += f"\n      {r.location}: {r.message}" if r.location else f"\n      {r.message}"
        lines.append(line)
    lines.append(f"{runtime}: {summary(results)}")
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[ExampleResult], runtime: str) -> str:
    counts = Counter(r.status for r in results)
    return dump_json(
        json_envelope(
            command="test-runtime",
            runtime=runtime,
            summary={"examples": len(results), **{s: counts[s] for s in STATUSES}},
            results=[
                {
                    "domain": r.domain,
                    "operator": r.op,
                    "since_version": r.since_version,
                    "example": r.example,
                    "status": r.status,
                    "rule": r.rule or None,
                    "message": r.message,
                    "location": (
                        {"file": r.location.file, "line": r.location.line, "column": r.location.column}
                        if r.location
                        else None
                    ),
                }
                for r in results
            ],
        )
    )


def report(results: Sequence[ExampleResult], runtime: str, *, passes: bool = False) -> Report:
    """The results as a shared `Report`; `passes`: passing examples as passing items too (JUnit)."""
    items = []
    for r in results:
        if r.status == PASS and not passes:
            continue
        where = r.location
        place = Place(where.file, where.line, where.column) if where else Place("")
        items.append(
            Item(
                r.rule,  # "" for a pass: a JUnit case only, named by its example
                Severity.INFO if r.status in (PASS, SKIP) else Severity.ERROR,
                r.message or "passed",
                place,
                subject=r.id,
                failing=r.status not in (PASS, SKIP),
                skipped=r.status == SKIP,
                case=(r.subject, r.example),
            )
        )
    return Report(
        "test-runtime",
        items,
        exit_code(results),
        summary=f"{runtime}: {summary(results)}",
        properties={"runtime": runtime},
    )
