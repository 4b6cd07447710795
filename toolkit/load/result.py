"""What loading specs gives: the model objects and every diagnostic found on the way."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkit.model.diagnostics import Diagnostic, Severity
from toolkit.model.spec import SpecSet


@dataclass
class LoadResult:
    specs: SpecSet
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]
