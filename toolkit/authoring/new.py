"""`opset new DOMAIN.OP`: a new operator file whose skeleton validates at once.

The skeleton has one input `X`, one output `Y`, a type parameter `T` bound to a type set of the
domain (a literal list when it declares none) and doc placeholders, at the opset version new
work goes into: `--since N`, else the open opset (`toolkit.model.released.open_opset`, the
definition `opset bump` and the gate share: an operator added to a released opset is
OPSET-OP-ADDED). An opset version the domain does not declare is added to `domain.yaml` only
when asked (`--add-opset`), by the same text edit as `opset bump` (comments and layout kept).

The target path is `<domain folder>/<OP>.yaml`, where OP passed the C-identifier check of the
operator schema (so no path separator, no `..`); a file already there, in any letter case
(case-insensitive file systems), is never replaced. Both files are written atomically together.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.authoring.bump import add_opset_text, load_domain, write_texts
from toolkit.load import yaml12
from toolkit.load.discovery import display_path
from toolkit.load.schema_fast import is_identifier
from toolkit.model.diagnostics import UsageError
from toolkit.model.released import has_release_rows, open_opset, released_through
from toolkit.model.spec import (
    DomainSpec,
    Location,
    OperatorSpec,
    Release,
    display_domain,
)

# The type set the skeleton's `T` is bound to: the first of these the domain declares, else the
# domain's first type set, else FALLBACK_TYPES written out.
PREFERRED_TYPE_SETS = ("float_types", "numeric_types", "all_numeric_types")
FALLBACK_TYPES = ("tensor(float16)", "tensor(float)", "tensor(double)")
DEFAULT_MODELINE = "# yaml-language-server: $schema=../../schemas/operator.schema.json"
_DOMAIN_MODELINE = re.compile(r"#\s*yaml-language-server:\s*\$schema=(\S*)domain\.schema\.json\s*$")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")

SKELETON = """\
{modeline}
operator: {operator}
domain: {domain}
versions:
  - since_version: {since}
    # status: experimental   # while it may still change incompatibly (the gate does not check it)
    doc: |
      TODO: say what {name} computes from `X`, in a sentence or two (Markdown).
    inputs:
      - {{name: X, type: T, doc: "TODO: the input."}}
    outputs:
      - {{name: Y, type: T, doc: "TODO: the output."}}
    # attributes:
    #   alpha: {{type: float, default: 1.0, doc: "TODO: what alpha sets."}}
    type_constraints:
      T: {{allowed: {allowed}, doc: "TODO: the types {name} accepts."}}
"""


class NewRefused(UsageError):
    """The new operator would collide with a file or an operator, or change a released opset."""


@dataclass
class NewPlan:
    domain: str
    operator: str
    since: int
    ir_version: int
    domain_file: Path
    operator_file: Path
    add_opset: bool
    allowed: str  # what `T` is bound to, as written
    texts: dict[Path, str] = field(default_factory=dict)
    opset_line: int = 0

    def report(self, *, dry_run: bool = False) -> str:
        op_file, dom_file = display_path(self.operator_file), display_path(self.domain_file)
        done = "would create" if dry_run else "created"
        lines = [f"{done} {display_domain(self.domain)}.{self.operator} (since_version {self.since})"]
        if self.add_opset:
            lines.append(
                f"  {dom_file}:{self.opset_line}: added opset version {self.since} (IR version {self.ir_version})"
            )
        lines += [
            f"  {op_file}:1: new operator file, `T` bound to {self.allowed}",
            "next:",
            f"  1. {op_file}: replace the TODO docs, and write the inputs, outputs, attributes and "
            "types the operator has",
        ]
        step = 2
        if self.add_opset:
            lines.append(f"  2. {dom_file}:{self.opset_line}: describe opset {self.since} (`doc:`)")
            step = 3
        lines.append(f"  {step}. run `opset validate`, `opset generate` and `opset diff --against <base>`")
        return "\n".join(lines)


def check_name(domain: str, operator: str) -> None:
    """Refuse a DOMAIN.OP that is a path, or an operator name the operator schema would refuse
    (NAME-NOT-IDENTIFIER): it is also the file name, so no separator or `..` gets further."""
    if any(c in domain + operator for c in "/\\") or ".." in domain:
        why = "a name, not a path"
    elif not is_identifier(operator):
        why = "not a C identifier"
    else:
        return
    raise UsageError(
        f"'{operator if why[0] == 'n' else domain + '.' + operator}' cannot be an operator name: {why}\n"
        "  hint: operator names are C identifiers (letters, digits and `_`, not starting with a digit), "
        "e.g. com.acme.vision.FusedConv"
    )


def plan_new(
    paths: Sequence[str | Path],
    domain: str,
    operator: str,
    *,
    since: int | None = None,
    add_opset: bool = False,
    unreleased: bool = False,
) -> NewPlan:
    """Work out the new operator file (and the domain file's new opset); nothing is written."""
    check_name(domain, operator)
    specs, dom = load_domain(paths, domain, NewRefused)
    wanted = dom.name
    folder = Path(dom.location.file).parent
    target = folder / f"{operator}.yaml"
    _refuse_existing(dom, operator, target, [o for o in specs.operators if o.domain == wanted])
    version = since if since is not None else open_opset(dom, specs.releases, newest_unreleased=unreleased)
    declared = dom.opset(version)
    _refuse_released(dom, version, specs.releases, unreleased)
    if declared is None and not add_opset:
        raise NewRefused(
            f"{_at(_newest(dom))}: opset version {version} of {dom.display_name} is not declared "
            f"(the newest is {dom.max_version})\n"
            f"  hint: pass --add-opset to add opset {version} to it, or --since N with a declared, "
            "unreleased opset version"
        )
    if declared is None and version < dom.max_version:
        raise NewRefused(
            f"{_at(_newest(dom))}: --add-opset adds an opset version after the newest ({dom.max_version}), "
            f"not {version}\n  hint: pass --since {dom.max_version + 1}"
        )
    ir = declared.ir_version if declared is not None else dom.opset_versions[-1].ir_version
    plan = NewPlan(
        wanted, operator, version, ir, Path(dom.location.file), target, declared is None, _binding(dom)
    )
    if plan.add_opset:
        text = plan.domain_file.read_text(encoding="utf-8")
        plan.texts[plan.domain_file], plan.opset_line = add_opset_text(text, plan.domain_file, version, ir)
    plan.texts[target] = SKELETON.format(
        modeline=_modeline(plan.domain_file),
        operator=_scalar(operator),
        domain=_scalar(dom.display_name if wanted else ""),
        since=version,
        name=operator,
        allowed=plan.allowed,
    )
    return plan


def apply_new(plan: NewPlan) -> None:
    """Write the new operator file (and the edited domain file) atomically together; refuse if
    the operator file appeared since the plan was made."""
    taken = _taken(plan.operator_file)
    if taken is not None:
        raise NewRefused(f"{display_path(plan.operator_file.parent / taken)} exists already; nothing written")
    write_texts(plan.texts)


def _newest(dom: DomainSpec) -> Location:
    """Where the domain file declares its newest opset version (the domain file when it has none)."""
    return dom.opset_versions[-1].location if dom.opset_versions else dom.location


def _at(location: Location) -> str:
    return f"{display_path(Path(location.file))}:{location.line}:{location.column}"


def _taken(path: Path) -> str | None:
    """The name of a directory entry that `path` would replace: itself (a dangling symlink too)
    or the same name in another letter case, which a case-insensitive file system treats as one."""
    if path.is_symlink() or path.exists():
        return path.name
    try:
        names = [entry.name for entry in path.parent.iterdir()]
    except OSError:
        return None
    return next((n for n in names if n.casefold() == path.name.casefold()), None)


def _refuse_existing(dom: DomainSpec, operator: str, target: Path, operators: Sequence[OperatorSpec]) -> None:
    hint = f"  hint: to change it, start a new version: opset bump {dom.display_name}.{operator}"
    for op in operators:
        if op.name.casefold() == operator.casefold():
            same = "" if op.name == operator else " (names of a domain differ in more than letter case)"
            raise NewRefused(
                f"{_at(op.location)}: operator {dom.display_name}.{op.name} exists already{same}\n"
                + hint.replace(f".{operator}", f".{op.name}")
            )
    taken = _taken(target)
    if taken is not None:
        raise NewRefused(
            f"{display_path(target.parent / taken)}: a file of that name exists already; nothing written\n"
            "  hint: move it away first, or pick another operator name"
        )


def _refuse_released(dom: DomainSpec, version: int, releases: Sequence[Release], unreleased: bool) -> None:
    """Refuse an opset version that counts as released (`toolkit.model.released`, the gate's
    definition; `unreleased` as `opset bump --unreleased`)."""
    frozen = released_through(dom, releases)
    table = has_release_rows(releases, dom.name)
    if unreleased and not table:
        frozen = min(frozen, dom.max_version - 1)
    if version > frozen:
        return
    why = (
        "a release of releases.yaml ships it"
        if table
        else "without a release table (releases.yaml) every existing opset version counts as released"
    )
    nxt = dom.max_version + 1
    hint = f"pass --since {nxt} --add-opset" + (
        f", or --unreleased if opset {version} has not shipped yet"
        if not table and version == dom.max_version
        else ""
    )
    raise NewRefused(
        f"{_at((dom.opset(version) or dom).location)}: opset {version} of {dom.display_name} counts as released ({why}); "
        "an operator added to it changes a released opset (the gate reports OPSET-OP-ADDED)\n"
        f"  hint: {hint}"
    )


def _binding(dom: DomainSpec) -> str:
    names = [name for name, _ in dom.type_sets]
    chosen = next((n for n in PREFERRED_TYPE_SETS if n in names), names[0] if names else None)
    if chosen is not None:
        return json.dumps(f"@{chosen}")
    return "[" + ", ".join(FALLBACK_TYPES) + "]"


def _modeline(domain_file: Path) -> str:
    """The domain file's `$schema` modeline, pointed at the operator schema (the operator file
    sits beside it); the usual one when the domain file has none."""
    try:
        with domain_file.open(encoding="utf-8") as handle:
            first = handle.readline(4096)
    except OSError:
        return DEFAULT_MODELINE
    match = _DOMAIN_MODELINE.match(first.strip())
    if match is None or not re.fullmatch(r"[A-Za-z0-9_./-]*", match.group(1)):
        return DEFAULT_MODELINE
    return f"# yaml-language-server: $schema={match.group(1)}operator.schema.json"


def _scalar(name: str) -> str:
    """`name` as a YAML scalar that every reader takes as that text: plain when it is a dotted
    identifier YAML reads as a string (not `null`, `on`, ...), else double-quoted."""
    if _PLAIN.fullmatch(name) and yaml12.resolve(name) == yaml12.STR:
        return name
    return json.dumps(name)
