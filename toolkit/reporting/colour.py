"""Colour for text output on a terminal: severity words and rule ids.

Whether to colour is decided once per stream (`wanted`): `--color always|never` (the invoker's
word for this run) wins; otherwise `NO_COLOR` (https://no-color.org: any non-empty value) turns
it off, `FORCE_COLOR` (any non-empty value) on, and else only a terminal that is not `dumb` gets
colour. What is coloured is the text as the commands print it (`paint`): the writers stay
uncoloured, so a report file, JSON, SARIF and JUnit never hold escape sequences.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TextIO

RESET = "\x1b[0m"
_SEVERITY = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;34m"}
_RULE = "\x1b[36m"
_HINT = "\x1b[32m"

# `file:1:2: error[RULE-ID]: ...`, `opset: error: ...`, `  hint: ...`: the severity word where a
# diagnostic line puts it (start of line or after `: `), with its rule id if any.
_DIAGNOSTIC = re.compile(
    r"(?P<lead>^|: )(?P<severity>error|warning|info)(?:\[(?P<rule>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\])?(?=:)",
    re.MULTILINE,
)
_HINT_WORD = re.compile(r"^(?P<indent>[ \t]+)hint:", re.MULTILINE)


def wanted(setting: str, stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Colour for `stream`? `setting`: `--color` (auto, always, never)."""
    if setting in ("always", "never"):
        return setting == "always"
    if environ.get("NO_COLOR", ""):
        return False
    if environ.get("FORCE_COLOR", ""):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM", "") != "dumb"


def _diagnostic(match: re.Match[str]) -> str:
    severity = match["severity"]
    text = f"{match['lead']}{_SEVERITY[severity]}{severity}{RESET}"
    if match["rule"]:
        text += f"[{_RULE}{match['rule']}{RESET}]"
    return text


def paint(text: str) -> str:
    """`text` with the severity words, rule ids and hints of its diagnostic lines coloured."""
    if "error" not in text and "warning" not in text and "info" not in text and "hint:" not in text:
        return text
    text = _DIAGNOSTIC.sub(_diagnostic, text)
    return _HINT_WORD.sub(lambda m: f"{m['indent']}{_HINT}hint:{RESET}", text)
