"""Located diagnostics shared by the loader, the checks and the CLI."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolkit.model.spec import Location
from toolkit.model.spec_base import (
    UNPRINTABLE,
    UNPRINTABLE_IN_TEXT,
    escape,
    find_unprintable,
    unicode_escaped,
    unprintable_in_utf8,
)

# The one escaper of a line lives below `Location` (whose text it escapes); re-exported here,
# where the diagnostics that use it are.
__all__ = [
    "UNPRINTABLE",
    "UNPRINTABLE_IN_TEXT",
    "Diagnostic",
    "Severity",
    "SpecError",
    "UsageError",
    "diagnostic_from_json",
    "diagnostic_to_json",
    "escape",
    "escape_fields",
    "escape_lines",
    "find_unprintable",
    "sort_key",
    "unicode_escaped",
    "unprintable_in_utf8",
    "usage_text",
]


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


def escape_fields(record: object, one_line: Iterable[str] = (), lines: Iterable[str] = ()) -> None:
    """For the `__post_init__` of a frozen record whose text is printed (a diagnostic, a gate
    finding, a changelog entry, a check-model finding, a test-runtime result): the fields named
    in `one_line` escaped (`escape`), those in `lines` escaped line by line (`escape_lines`). The
    record holds the escaped text, so no writer of it can forget; JSON and SARIF encode it as it
    is, and escaping again changes nothing. A field already clean is left as it is (no copy)."""
    for names, escaper in ((one_line, escape), (lines, escape_lines)):
        for name in names:
            value = getattr(record, name)
            escaped = escaper(value)
            if escaped is not value:
                object.__setattr__(record, name, escaped)


def escape_lines(text: str) -> str:
    """Text that keeps its own line breaks (a multi-line hint stays readable), each line escaped
    (`escape`): no line of it starts a workflow command. Its writer indents the lines after the
    first (`Diagnostic.format`, `usage_text`), so none of them reads as a line of its own."""
    if "\n" not in text:
        return escape(text)
    return "\n".join(escape(line) for line in text.split("\n"))


# A line of a usage error at column 0 after the first: one the message's own layout does not
# indent (its `  hint:` line is), which only quoted text can bring in.
_UNINDENTED = re.compile(r"\n(?! )")


def usage_text(message: str) -> str:
    """A usage error's message as printed after `opset: error: `, in every format: each line
    escaped (`escape_lines`: it may quote a path or a value of the tree), and a line the message
    did not indent itself indented, so that nothing quoted starts a line at column 0 where it
    could read as a diagnostic or an error of its own."""
    text = escape_lines(message)
    return _UNINDENTED.sub("\n  ", text) if "\n" in text else text


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding. The message (and each line of the hint) is escaped when the diagnostic is
    made (`escape`), so no writer (text, JSON, SARIF, GitHub) ever emits a raw control character
    or line break that a quoted spec name or value brought in."""

    rule: str
    message: str
    location: Location
    hint: str = ""
    severity: Severity = Severity.ERROR

    def __post_init__(self) -> None:
        escape_fields(self, ("message",), ("hint",))

    def format(self) -> str:
        """`file:line:col: severity[RULE]: message`, then the hint on indented `  hint:` lines
        (continuation lines indented too, so they can never read as a diagnostic line)."""
        text = f"{self.location}: {self.severity.value}[{self.rule}]: {self.message}"
        if self.hint:
            text += "\n  hint: " + self.hint.replace("\n", "\n        ")
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
    """A problem with how the tool was called or with the file system (exit code 2).
    `diagnostic`: the located finding when a file of the tree is at fault (a setting that points
    outside the project): the command prints it, `file:line:col` and rule id, instead of the text."""

    def __init__(self, message: str = "", diagnostic: Diagnostic | None = None) -> None:
        super().__init__(message)
        self.diagnostic = diagnostic


def diagnostic_to_json(diag: Diagnostic) -> list[object]:
    """A diagnostic as plain JSON data (the caches store diagnostics this way)."""
    location = diag.location
    return [
        diag.rule,
        diag.message,
        [location.file, location.line, location.column],
        diag.hint,
        diag.severity.value,
    ]


def diagnostic_from_json(value: object) -> Diagnostic:
    """Inverse of `diagnostic_to_json`; TypeError/ValueError on anything else."""
    if not isinstance(value, list) or len(value) != 5:
        raise TypeError("expected a diagnostic")
    rule, message, location, hint, severity = value
    if not isinstance(location, list) or len(location) != 3:
        raise TypeError("expected a location")
    file, line, column = location
    texts = (rule, message, hint, severity, file)
    if not all(isinstance(t, str) for t in texts) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in (line, column)
    ):
        raise TypeError("expected a diagnostic")
    return Diagnostic(rule, message, Location(file, line, column), hint, Severity(severity))
