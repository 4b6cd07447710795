"""Located diagnostics shared by the loader, the checks and the CLI."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from toolkit.model.spec import Location


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    rule: str
    message: str
    location: Location
    hint: str = ""
    severity: Severity = Severity.ERROR

    def format(self) -> str:
        text = f"{self.location}: {self.severity.value}[{self.rule}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class SpecError(Exception):
    """Raised when specs cannot be loaded; carries every diagnostic found, not just the first."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = tuple(sorted(diagnostics, key=sort_key))
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)


def sort_key(diag: Diagnostic) -> tuple[str, int, int, str, str]:
    loc = diag.location
    return (loc.file, loc.line, loc.column, diag.rule, diag.message)


class UsageError(Exception):
    """A problem with how the tool was called or with the file system (exit code 2)."""
