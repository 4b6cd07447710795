"""The "did you mean" names: close to one the user typed, for every place that looks a name up
(commands, keys and values of spec files, the gate's configuration, shape rules, check-model's
operators), so they all suggest alike, and the one way such a hint is written and read back (the
language server's quick fix replaces the name with the one a hint suggests).

One policy for every caller: names are compared ignoring case (`relu` for `Relu` is the commonest
near miss, and difflib counts `r` and `R` as different letters), by difflib's ratio, at CUTOFF.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from toolkit.model.spec import display_domain

# Above difflib's default (0.6): on a long list of compound names (the onnx catalog's operators)
# 0.6 offers `ReduceL1` for `Reul`; one wrong, missing or swapped letter of a name of 4 letters or
# more still scores 0.71 or better.
CUTOFF = 0.7

# How a hint names one suggestion a tool may apply as is (`QUOTED.format(name)`).
QUOTED = "'{}'"
_SUGGESTED = r"did you mean '([^'\n]+)'\?"  # compiled by `re` on first use (the language server's)


def close_names(word: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """The names most like `word`, best first (none when nothing is close); `limit`: how many the
    caller's message has room for."""
    by_folded: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        by_folded.setdefault(name.casefold(), []).append(name)
    close = difflib.get_close_matches(word.casefold(), list(by_folded), n=limit, cutoff=CUTOFF)
    return [name for folded in close for name in by_folded[folded]][:limit]


def suggest_operators(op: str, operators: Iterable[tuple[str, str]], limit: int = 3) -> list[str]:
    """`domain.Op` spellings of the (domain, name) pairs named `op` (in any domain), or close to it."""
    pairs = sorted(operators)
    exact = [f"{display_domain(d)}.{name}" for d, name in pairs if name == op]
    if exact:
        return exact[:limit]
    close = set(close_names(op, (name for _, name in pairs), limit))
    return [f"{display_domain(d)}.{name}" for d, name in pairs if name in close][:limit]


def did_you_mean(suggestions: Sequence[str], form: str = "{}") -> str:
    """`did you mean A or B?`, each suggestion written as `form` says (QUOTED: one a quick fix
    applies), or "" for no suggestion."""
    return f"did you mean {' or '.join(form.format(s) for s in suggestions)}?" if suggestions else ""


def suggested(hint: str) -> str | None:
    """The name a hint suggests in the QUOTED form (`did you mean 'X'?`), else None."""
    found = re.search(_SUGGESTED, hint)
    return found.group(1) if found else None
