"""What `check_model` returns: located findings, one result per model."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from toolkit.model.diagnostics import Severity, escape_fields
from toolkit.model.rules import Rule


@dataclass(frozen=True, slots=True)
class ModelFinding:
    rule: str
    message: str
    path: str  # graph/node/index, subgraphs continue with the attribute name (see graph.py)
    severity: Severity = Severity.ERROR
    hint: str = ""
    operator: str = ""  # the schema id or `domain.Op`

    def __post_init__(self) -> None:
        # The model's node names, value names and domains are quoted: held escaped (a Diagnostic's way).
        escape_fields(self, ("message", "path", "operator"), ("hint",))

    def format(self, model: str) -> str:
        text = f"{model}:{self.path}: {self.severity.value}[{self.rule}]: {self.message}"
        if self.hint:  # continuation lines indented, as a Diagnostic's are
            text += "\n  hint: " + self.hint.replace("\n", "\n        ")
        return text


def finding(rule: Rule, path: str, message: str, hint: str = "", operator: str = "") -> ModelFinding:
    """A finding of `rule` at `path`, with the rule's severity and (unless given) its hint."""
    return ModelFinding(rule.id, message, path, rule.severity, hint or rule.hint, operator)


@dataclass(frozen=True, slots=True)
class CheckResult:
    model: str
    findings: tuple[ModelFinding, ...]
    nodes: int

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def errors(self) -> tuple[ModelFinding, ...]:
        return tuple(f for f in self.findings if f.severity is Severity.ERROR)


def exit_code(results: Iterable[CheckResult], fail_on: Severity) -> int:
    """1 when a finding is at or above `fail_on`, else 0."""
    return int(any(f.severity.rank >= fail_on.rank for r in results for f in r.findings))
