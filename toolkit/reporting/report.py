"""The one reporting path of every command: findings, load errors and usage errors as a
`Report`, written as GitHub workflow commands, SARIF 2.1.0 or JUnit XML.

A command turns what it found into `Item`s (rule, severity, message, a `Place`) and hands the
`Report` to `render`; the writers map every place to a repository path (`paths.RepoPaths`), so
`validate`, `generate --check`, `diff`, `check-model`, `compat` and `convert` report alike,
whichever directory they ran in. Text and JSON stay each command's own (documented schemas);
`errors.py` gives load and usage errors the same treatment in those two.

- github: `::error file=REPO/PATH,line=L,col=C,title=RULE ...::message` (escaping in common.py);
  a usage error is an annotation without a file.
- sarif: see `sarif.py`; junit: see `junit.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from toolkit.model.diagnostics import Diagnostic, Severity, escape
from toolkit.model.rules import CATALOG, Rule
from toolkit.reporting import common
from toolkit.reporting.paths import RepoPaths, discover

MACHINE_FORMATS = ("github", "sarif", "junit")
ALL_FORMATS = ("text", "json", *MACHINE_FORMATS)


@dataclass(frozen=True)
class Place:
    """Where an item is: a file as the toolkit located it (relative to the working directory, or
    absolute), a 1-based line and column (0: the whole file), a graph path inside a model
    (`logical`), and for a file read from git rather than the work tree, the ref (`ref`)."""

    file: str
    line: int = 0
    column: int = 0
    logical: str = ""
    ref: str = ""

    def label(self, paths: RepoPaths) -> str:
        text = paths.repo_path(self.file)
        if self.line > 0:
            text += f":{self.line}:{max(self.column, 1)}"
        if self.logical:
            text += f":{self.logical}"
        return escape(text)  # one line of text: the path and the graph path are the input's


@dataclass(frozen=True)
class Item:
    """One finding or load error. `failing`: it makes the command fail (at or above the
    threshold); `error`: the tool could not do its job (a load error, exit 2) rather than a
    finding about the input."""

    rule: str
    severity: Severity
    message: str
    place: Place
    hint: str = ""
    subject: str = ""  # what the finding is about: an operator, a node, a generated file
    flags: str = ""  # the gate's "BC FC" / "BC" / "FC" / "-", shown by text and github
    related: tuple[tuple[Place, str], ...] = ()  # (place, what it is), e.g. the old location
    fingerprint: str = ""
    properties: Mapping[str, object] = field(default_factory=dict)
    failing: bool = True
    error: bool = False
    skipped: bool = False  # not run (JUnit `<skipped>`): test-runtime's example with no kernel
    case: tuple[str, str] | None = None  # (classname, name) of a JUnit case that is a test of its own

    @property
    def title(self) -> str:
        return f"{self.rule} [{self.flags}]" if self.flags else self.rule

    def body(self, paths: RepoPaths) -> str:
        """The message with its subject, related places and hint, one per line."""
        text = f"{self.subject}: {self.message}" if self.subject else self.message
        if self.place.logical and not self.subject:
            text = f"{self.place.logical}: {text}"
        for place, what in self.related:
            text += f"\n{what}: {place.label(paths)}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text


@dataclass
class Report:
    """What one command run reports. `rules`: the command's rule records, where the SARIF
    driver looks up the rules reported (else the catalog); `usage_errors`: problems with how the tool was run,
    located nowhere (SARIF tool notifications, JUnit errors, GitHub annotations without a file)."""

    command: str  # "diff", "validate", ...
    items: list[Item]
    exit_code: int
    summary: str = ""
    rules: Sequence[Rule] | None = None
    usage_errors: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    old_tree: str = ""  # describes the old tree whose places carry `ref` (SARIF's OLDTREE base)
    paths: RepoPaths | None = None

    def repo(self) -> RepoPaths:
        if self.paths is None:
            self.paths = discover()
        return self.paths

    def catalog(self) -> list[Rule]:
        """The records of the rule ids reported, by id: a SARIF driver lists the rules that
        fired, not every rule the command could report. `rules` (the command's own records)
        is looked in first, then the catalog."""
        given = {rule.id: rule for rule in self.rules or ()}
        if any(item.rule not in given and CATALOG.get(item.rule) is None for item in self.items):
            # A load error of `diff` or `generate` stops before the spec checks are imported,
            # and with them the load and spec families: SARIF must still describe its rule.
            import toolkit.checks.run
            import toolkit.checks.spec  # noqa: F401
        seen: dict[str, Rule] = {}
        for item in self.items:
            rule = given.get(item.rule) or CATALOG.get(item.rule)
            if rule is not None and rule.id not in seen:
                seen[rule.id] = rule
        return sorted(seen.values(), key=lambda r: r.id)

    @property
    def tool_failed(self) -> bool:
        return self.exit_code >= 2


def render_github(report: Report) -> str:
    paths = report.repo()
    lines = []
    for item in report.items:
        place = item.place
        lines.append(
            common.github_annotation(
                item.severity,
                file=paths.repo_path(place.file),
                line=place.line,
                column=place.column,
                title=item.title,
                message=item.body(paths),
            )
        )
    for message in report.usage_errors:
        lines.append(
            common.github_annotation(
                Severity.ERROR, file="", title=f"opset {report.command}: usage error", message=message
            )
        )
    if report.summary:
        lines.append(report.summary)
    return "\n".join(lines) + ("\n" if lines else "")


# --------------------------------------------------------------------------- load errors


def diagnostic_item(diag: Diagnostic, *, error: bool = False, failing: bool | None = None) -> Item:
    loc = diag.location
    return Item(
        diag.rule,
        diag.severity,
        diag.message,
        Place(loc.file, loc.line, loc.column),
        hint=diag.hint,
        failing=diag.severity is Severity.ERROR if failing is None else failing,
        error=error and diag.severity is Severity.ERROR,
    )


def diagnostics_report(
    command: str, diagnostics: Iterable[Diagnostic], exit_code: int, *, summary: str = "", error: bool = True
) -> Report:
    """Spec diagnostics as a report: load errors (`error`, the command could not run: exit 2) or
    the findings of `validate` (exit 1)."""
    items = [diagnostic_item(d, error=error) for d in diagnostics]
    return Report(command, items, exit_code, summary=summary)
