"""NAME-TOO-LONG: a spec name whose output file or folder name no file system holds.

The components are the ones `opset generate` writes (`toolkit.model.output_names`, the functions
the generators call), so `validate` fails at the name where `generate` would fail unlocated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from toolkit.checks.base import Located, located
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.integers import shorten
from toolkit.model.output_names import (
    NAME_MAX,
    domain_components,
    example_components,
    operator_components,
    too_long,
)
from toolkit.model.rules import rule
from toolkit.model.spec import DomainSpec, SpecSet, display_domain

HINT = f"shorten the name: the file or folder named after it must stay within {NAME_MAX} bytes"


@rule(
    "NAME-TOO-LONG",
    "spec",
    "error",
    f"A domain, operator or example name makes an output file or folder name longer than {NAME_MAX} bytes.",
    category="Generated documents",
    hint=HINT,
    doc=f"""\
**Why:** `opset generate` names files and folders after spec names: a domain's folder and Python
package, an operator's docs page (`<Op>.md`) and schema module, an example's backend test folder
(`test_<op>_<example>`, lower case). File systems refuse a name longer than {NAME_MAX} bytes
(UTF-8), so such a spec would pass `validate` and make `generate` fail.

**Before:** `examples: [{{name: a_very_long_description_of_what_the_example_shows_..., ...}}]`
(a backend test folder of 300 characters)

**After:** `examples: [{{name: broadcast_scalar, ...}}]`; say the rest in the example's doc""",
)
def output_names(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    for domain in specs.domains:
        yield from _too_long(
            f"domain '{display_domain(domain.name)}'", domain_components(domain.name), domain
        )
    for op in specs.operators:
        yield from _too_long(f"operator '{shorten(op.name)}'", operator_components(op), op)
        for example, folder in example_components(op):
            yield from _too_long(f"example '{shorten(example.name)}' of {op.name}", (folder,), example)


def _too_long(what: str, components: Iterable[str], subject: Located) -> Iterator[Diagnostic]:
    for component in components:
        if too_long(component):
            size = len(component.encode("utf-8", "surrogateescape"))
            yield located(
                "NAME-TOO-LONG",
                f"{what} names the output '{shorten(component)}' of {size} bytes (at most {NAME_MAX})",
                subject,
                HINT,
            )
            return  # one finding per name
