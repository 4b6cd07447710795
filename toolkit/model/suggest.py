"""The "did you mean" names: close to one the user typed, for every command that looks a name up
(`opset show`, `opset bump`, `generate --only`), so they all suggest alike."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from toolkit.model.spec import display_domain


def close_names(word: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """The names most like `word`, best first (none when nothing is close)."""
    return difflib.get_close_matches(word, sorted(set(names)), n=limit)


def suggest_operators(op: str, operators: Iterable[tuple[str, str]], limit: int = 3) -> list[str]:
    """`domain.Op` spellings of the (domain, name) pairs named `op` (in any domain), or close to it."""
    pairs = sorted(operators)
    exact = [f"{display_domain(d)}.{name}" for d, name in pairs if name == op]
    if exact:
        return exact[:limit]
    close = set(close_names(op, (name for _, name in pairs), limit))
    return [f"{display_domain(d)}.{name}" for d, name in pairs if name in close][:limit]


def did_you_mean(suggestions: list[str]) -> str:
    """`did you mean A or B?`, or "" for no suggestion."""
    return f"did you mean {' or '.join(suggestions)}?" if suggestions else ""
