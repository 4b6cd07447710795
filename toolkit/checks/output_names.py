"""NAME-TOO-LONG: a spec name whose output file or folder name no file system holds.
OUTPUT-NAME-CLASH: two spec names whose output file or folder names are equal ignoring case.

The components are the ones `opset generate` writes (`toolkit.model.output_names`, the functions
the generators call), so `validate` fails at the name where `generate` would fail unlocated, or
would silently write one output over another (on a case-insensitive file system, or everywhere
where the backend test folder name folds two names into one).
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
    operator_page_file,
    too_long,
)
from toolkit.model.rules import rule
from toolkit.model.spec import DomainSpec, OperatorSpec, SpecSet, display_domain

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


CLASH = "OUTPUT-NAME-CLASH"
CLASH_HINT = (
    "rename one of them: generated file names ignore case (and test folders fold other characters to '_')"
)


@rule(
    CLASH,
    "spec",
    "error",
    "Two operators or examples of a domain map to one generated file name (equal ignoring case).",
    category="Generated documents",
    hint=CLASH_HINT,
    doc="""\
**Why:** `opset generate` names a docs page after its operator (`ops/Gain.md`) and a backend test
folder after its operator and example in lower case (`test_gain_x`, other characters as `_`).
Operators `Gain` and `gain` are distinct names in the specs, but their pages are one file on a
case-insensitive file system (macOS, Windows) and their examples' test folders are one folder
everywhere: one output would silently replace the other. So do `Gain` with example `a_b` and
`Gain_a` with example `b` (both `test_gain_a_b`).

**Before:** `opsets/com.acme.audio/Gain.yaml` (`operator: Gain`) and `gain.yaml`
(`operator: gain`), each with an example `x`

**After:** one of them renamed (`operator: GainDb`), or the two merged into one operator""",
)
def name_clashes(specs: SpecSet, domains: dict[str, DomainSpec]) -> Iterator[Diagnostic]:
    pages: dict[tuple[str, str], OperatorSpec] = {}
    folders: dict[tuple[str, str], tuple[OperatorSpec, str]] = {}
    for op in sorted(specs.operators, key=lambda o: (o.location.file, o.location.line, o.name)):
        page = pages.setdefault((op.domain, operator_page_file(op.name).casefold()), op)
        if page.name != op.name:  # the same name twice is another rule's finding (NAME-DUPLICATE)
            yield located(
                CLASH,
                f"operator '{shorten(op.name)}' and '{shorten(page.name)}' ({page.location}) of domain "
                f"'{display_domain(op.domain)}' have one docs page on a case-insensitive file system "
                f"({shorten(operator_page_file(op.name))})",
                op,
                CLASH_HINT,
            )
        for example, folder in example_components(op):
            first, name = folders.setdefault((op.domain, folder.casefold()), (op, example.name))
            if first.name == op.name and name.lower() == example.name.lower():
                continue  # this example, or a duplicate name: EXAMPLE-NAME-DUPLICATE's (or NAME-DUPLICATE's)
            yield located(
                CLASH,
                f"example '{shorten(example.name)}' of {shorten(op.name)} and example '{shorten(name)}' of "
                f"operator '{shorten(first.name)}' ({first.location}) have one backend test folder "
                f"({shorten(folder)})",
                example,
                CLASH_HINT,
            )
