"""Located diagnostics shared by the loader, the checks and the CLI."""

from __future__ import annotations

import enum
import re
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


# Characters a diagnostic never prints raw: C0/C1 controls (line breaks, escape sequences), DEL,
# the Unicode line and paragraph separators and the bidirectional controls (Trojan Source).
# Messages quote names and values from the specs; printed raw, a name holding a line break could
# forge a second diagnostic line, and terminal escapes or bidi controls could disguise what is
# printed. The one set: a plain path may hold none of them either (`load.files.path_problem`).
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """`text` on one line: every control character, line break and bidi override written as
    a Python-style escape (`\\n`, `\\x1b`, `\\u2028`); other text unchanged."""
    return UNPRINTABLE.sub(_escape_char, text) if UNPRINTABLE.search(text) else text


def _escape_hint(hint: str) -> str:
    """A hint keeps its own line breaks (a multi-line hint stays readable); each line is escaped."""
    return "\n".join(escape(line) for line in hint.split("\n"))


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
        message, hint = escape(self.message), _escape_hint(self.hint)
        if message is not self.message:
            object.__setattr__(self, "message", message)
        if hint != self.hint:
            object.__setattr__(self, "hint", hint)

    def format(self) -> str:
        """`file:line:col: severity[RULE]: message`, then the hint on indented `  hint:` lines
        (continuation lines indented too, so they can never read as a diagnostic line)."""
        text = f"{escape(str(self.location))}: {self.severity.value}[{self.rule}]: {self.message}"
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
