"""`opset bump`: start a new version of an operator in one step.

ONNX asks a contributor for six manual steps per breaking change; here one command:
1. picks opset version N: the open one (`toolkit.model.released`: the newest declared opset
   version if no release ships it, else a new one) and adds it to the domain if it is new
   (IR version of the previous newest, or given),
2. appends `since_version: N, based_on: <previous>` to the operator file, old versions untouched,
3. adds an empty adapter stub (`{upgrade: []}`) with a TODO comment asking for the real steps;
   an empty `upgrade` counts as no adapter, so the BC gate (ADAPTER-MISSING) and `convert`
   keep asking for the steps until the author writes them.

Edits are text insertions at positions the ruamel.yaml round-trip parser reports, so every
other byte of both files (comments, layout, quoting) stays as it was; the new text is
parsed again before anything is written, and both files are written atomically together.
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.checks.run import load_specs
from toolkit.load import writer
from toolkit.load.discovery import display_path
from toolkit.model.adapter_steps import STEP_KINDS
from toolkit.model.diagnostics import SpecError, UsageError
from toolkit.model.released import has_release_rows, open_opset, released_through
from toolkit.model.spec import DomainSpec, OperatorSpec, Release, SpecSet, canonical_domain, display_domain
from toolkit.model.suggest import close_names, did_you_mean, suggest_operators

# The kinds are listed from `STEP_KINDS`, the one table, so a new kind is named here too.
STUB_COMMENT = "\n".join(
    textwrap.wrap(
        "TODO(opset bump): list the steps that turn a version-{old} node into a version-{new} node "
        "(compatible if old nodes are valid unchanged; "
        + ", ".join(kind for kind in STEP_KINDS if kind != "compatible")
        + "). Until then the empty list counts as no adapter; see opset-toolkit's docs/guide/authoring.md.",
        width=92,
    )
)
STUB = "{upgrade: []}"
VERSION_COMMENT = (
    "Inherits version {old}: override what changes (doc, inputs, outputs, attributes, type_constraints)."
)


class BumpRefused(UsageError):
    """The bump would rewrite history or collide with an existing version."""


@dataclass
class BumpPlan:
    domain: str
    operator: str
    opset: int
    based_on: int
    ir_version: int
    domain_file: Path
    operator_file: Path
    add_opset: bool
    texts: dict[Path, str] = field(default_factory=dict)  # new file contents
    version_line: int = 0  # 1-based line of the new `- since_version:` entry
    adapter_line: int = 0
    opset_line: int = 0

    def report(self, *, dry_run: bool = False) -> str:
        op_file, dom_file = display_path(self.operator_file), display_path(self.domain_file)
        ref = f"{display_domain(self.domain)}.{self.operator}"
        done = "would bump" if dry_run else "bumped"
        lines = [f"{done} {ref} to version {self.opset} (based_on: {self.based_on})"]
        if self.add_opset:
            lines.append(
                f"  {dom_file}:{self.opset_line}: added opset version {self.opset} (IR version {self.ir_version})"
            )
        lines.append(
            f"  {op_file}:{self.version_line}: added version {self.opset}, inheriting version {self.based_on}"
        )
        lines += [
            "next:",
            f"  1. {op_file}:{self.version_line}: write what changes in version {self.opset} "
            "(doc, inputs, outputs, attributes, type_constraints; `null` removes an inherited attribute)",
            f"  2. {op_file}:{self.adapter_line}: fill in the empty adapter stub with the steps that upgrade a "
            f"version-{self.based_on} node (and a `downgrade` list if the steps cannot be inverted)",
        ]
        if self.add_opset:
            lines.append(f"  3. {dom_file}:{self.opset_line}: describe opset {self.opset} (`doc:`)")
        lines.append(
            f"  {4 if self.add_opset else 3}. run `opset validate`, `opset diff --against <base>` and `opset generate`"
        )
        return "\n".join(lines)


def load_domain(
    paths: Sequence[str | os.PathLike[str]], domain: str, refused: type[UsageError]
) -> tuple[SpecSet, DomainSpec]:
    """The specs under `paths` (loaded and checked: SpecError if they have errors) and the domain
    named `domain` among them; `refused` (the command's refusal) when there is no such domain.
    `opset bump` and `opset new` start here."""
    result = load_specs(list(paths), display=lambda p: str(p.resolve()))
    if result.errors:
        raise SpecError(result.errors)
    wanted = canonical_domain(domain)
    dom = next((d for d in result.specs.domains if d.name == wanted), None)
    if dom is None:
        names = sorted(d.display_name for d in result.specs.domains)
        close = did_you_mean(close_names(display_domain(wanted), names))
        raise refused(
            f"no domain '{display_domain(wanted)}' under {', '.join(map(str, paths))} "
            f"(known: {', '.join(names) or 'none'})\n"
            f"  hint: {close + ' Else ' if close else ''}write DOMAIN.OP with one of the known domains, or "
            "start a domain with a folder and its domain.yaml (docs/guide/vendor-domain.md)"
        )
    return result.specs, dom


def plan_bump(
    paths: Sequence[str | Path],
    domain: str,
    operator: str,
    *,
    opset: int | None = None,
    ir_version: int | None = None,
    unreleased: bool = False,
) -> BumpPlan:
    """Work out the bump and the new file texts; nothing is written. Raises BumpRefused."""
    specs, dom = load_domain(paths, domain, BumpRefused)
    wanted = dom.name
    op = next((o for o in specs.operators if o.domain == wanted and o.name == operator), None)
    if op is None:
        close = suggest_operators(
            operator, ((o.domain, o.name) for o in specs.operators if o.domain == wanted)
        )
        raise BumpRefused(
            f"no operator '{operator}' in domain '{dom.display_name}'"
            + (f"\n  hint: {did_you_mean(close)}" if close else "")
        )
    # Without --opset: the open opset (the newest declared one if it has not shipped, else a new
    # one), by the same definition of "released" the gate uses (toolkit.model.released).
    target = opset if opset is not None else open_opset(dom, specs.releases, newest_unreleased=unreleased)
    _refuse_if_invalid(dom, op, target, specs.releases, unreleased)
    add_opset = dom.opset(target) is None
    previous_ir = dom.opset_versions[-1].ir_version
    ir = ir_version if ir_version is not None else previous_ir
    if add_opset and ir < previous_ir:
        raise BumpRefused(
            f"IR version {ir} is lower than opset {dom.max_version}'s {previous_ir}: IR versions never decrease"
        )
    if not add_opset:
        ir = dom.opset(target).ir_version  # type: ignore[union-attr]
    based_on = op.versions[-1].since_version
    plan = BumpPlan(
        wanted, operator, target, based_on, ir, Path(dom.location.file), Path(op.location.file), add_opset
    )
    if add_opset:
        text = plan.domain_file.read_text(encoding="utf-8")
        plan.texts[plan.domain_file], plan.opset_line = _add_opset(text, plan)
    text = plan.operator_file.read_text(encoding="utf-8")
    plan.texts[plan.operator_file], plan.version_line, plan.adapter_line = _add_version(text, plan)
    return plan


def _refuse_if_invalid(
    dom: DomainSpec, op: OperatorSpec, target: int, releases: Sequence[Release], unreleased: bool
) -> None:
    name = f"{dom.display_name}.{op.name}"
    if op.version(target) is not None:
        raise BumpRefused(
            f"{name} already has a version with since_version {target}; edit that version instead"
        )
    if op.removed_in is not None:
        raise BumpRefused(
            f"{name} was removed in opset {op.removed_in}; a removed operator gets no new version"
        )
    last = op.versions[-1].since_version
    if target <= last:
        raise BumpRefused(f"opset {target} is not after {name}'s newest version {last}")
    if has_release_rows(releases, dom.name):
        released = released_through(dom, releases)
        if target <= released:
            raise BumpRefused(
                f"opset {target} of {dom.display_name} is not newer than released opset {released} "
                "(release table): released opset versions never change"
            )
        return
    if target < dom.max_version or (target == dom.max_version and not unreleased):
        raise BumpRefused(
            f"opset {target} of {dom.display_name} is not newer than every existing opset version "
            f"(newest: {dom.max_version}); existing opset versions count as released and never change. "
            f"Bump into opset {dom.max_version + 1}"
            + (
                f", or pass --unreleased if opset {target} has not been released yet"
                if target == dom.max_version
                else ""
            )
        )


# --------------------------------------------------------------------------- text edits


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    return yaml


def _load(text: str, what: str) -> Any:
    try:
        return _yaml().load(io.StringIO(text))
    except Exception as exc:  # ruamel's own error types; the loader reported none, so rare
        raise BumpRefused(f"{what}: cannot parse for editing: {exc}") from None


def _add_opset(text: str, plan: BumpPlan) -> tuple[str, int]:
    return add_opset_text(text, plan.domain_file, plan.opset, plan.ir_version)


def add_opset_text(text: str, domain_file: Path, opset: int, ir_version: int) -> tuple[str, int]:
    """`text` of a domain file with opset version `opset` appended to `opset_versions` in the
    list's own style (flow or block), every other byte kept; and the 1-based line of the entry.
    `opset bump` and `opset new --add-opset` both add opset versions this way."""
    root = _load(text, display_path(domain_file))
    seq = root["opset_versions"]
    entry = {"version": opset, "ir_version": ir_version}
    if seq.fa.flow_style():
        return _append_to_flow_sequence(text, seq, "{" + _flow_pairs(entry) + "}")
    return _append_to_block_sequence(text, seq, entry, flow_like_last=True)


def _add_version(text: str, plan: BumpPlan) -> tuple[str, int, int]:
    root = _load(text, display_path(plan.operator_file))
    seq = root["versions"]
    if seq.fa.flow_style():
        raise BumpRefused(
            f"{display_path(plan.operator_file)}: `versions` is a flow list; write it as a block list"
        )
    comments = {
        "based_on": VERSION_COMMENT.format(old=plan.based_on),
        "adapter": STUB_COMMENT.format(old=plan.based_on, new=plan.opset),
    }
    entry = {
        "since_version": plan.opset,
        "based_on": plan.based_on,
        "adapter": STUB,
    }
    new_text, line = _append_to_block_sequence(text, seq, entry, flow_like_last=False, comments=comments)
    new_lines = new_text.splitlines()
    adapter_line = next(
        n for n in range(line, len(new_lines) + 1) if new_lines[n - 1].strip().startswith("adapter:")
    )
    return new_text, line, adapter_line


def _flow_pairs(entry: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in entry.items())


def _append_to_block_sequence(
    text: str,
    seq: Any,
    entry: dict[str, Any],
    *,
    flow_like_last: bool,
    comments: dict[str, str] | None = None,
) -> tuple[str, int]:
    """Insert `entry` after the last item of a block sequence; return (text, line of the new item)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    last = len(seq) - 1
    item_line, item_col = seq.lc.item(last)
    dash_col = lines[item_line].rindex("-", 0, item_col)
    end = _item_end(lines, item_line, dash_col)
    separated = last > 0 and item_line > 0 and not lines[item_line - 1].strip()
    pad, dash = " " * item_col, " " * dash_col + "-" + " " * (item_col - dash_col - 1)
    last_is_flow = lines[item_line][item_col:].lstrip().startswith("{")
    new: list[str] = ["\n"] if separated else []
    if flow_like_last and last_is_flow:
        new.append(f"{dash}{{{_flow_pairs(entry)}}}\n")
    else:
        for index, (key, value) in enumerate(entry.items()):
            for comment in (comments or {}).get(key, "").splitlines():
                new.append(f"{pad}# {comment}\n")
            new.append(f"{dash if index == 0 else pad}{key}: {value}\n")
    out = lines[:end] + new + lines[end:]
    first = next(i for i, x in enumerate(new) if x.strip() and not x.strip().startswith("#"))
    return "".join(out), end + first + 1


def _item_end(lines: list[str], start: int, dash_col: int) -> int:
    """Index of the line after the last content line of the sequence item starting at `start`."""
    end = start + 1
    last_content = start
    while end < len(lines):
        stripped = lines[end].strip()
        indent = len(lines[end]) - len(lines[end].lstrip(" "))
        if stripped and not stripped.startswith("#"):
            if indent <= dash_col:
                break
            last_content = end
        end += 1
    return last_content + 1


def _append_to_flow_sequence(text: str, seq: Any, item: str) -> tuple[str, int]:
    """Insert `, item` before the `]` closing a flow sequence."""
    lines = text.splitlines(keepends=True)
    offset = sum(len(x) for x in lines[: seq.lc.line]) + seq.lc.col
    start = text.index("[", offset)
    depth, quote, index = 0, "", start
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                break
        index += 1
    else:
        raise BumpRefused("cannot find the end of the opset_versions list")
    body = text[start + 1 : index].rstrip()
    glue = ", " if body else ""
    insert_at = start + 1 + len(body)
    new_text = text[:insert_at] + glue + item + text[insert_at:]
    return new_text, new_text.count("\n", 0, insert_at) + 1


# --------------------------------------------------------------------------- write


def apply_bump(plan: BumpPlan) -> None:
    """Check the new texts parse, then write both files atomically (all or nothing)."""
    write_texts(plan.texts)


def write_texts(texts: dict[Path, str]) -> None:
    """Check each new text parses as YAML, then write the files atomically together (all or
    nothing): the writer of `opset bump` and `opset new`."""
    for path, text in texts.items():
        _load(text, display_path(path))
    root = Path(_common_root(list(texts)))
    files = {
        path.resolve().relative_to(root).as_posix(): text.encode("utf-8") for path, text in texts.items()
    }
    writer.commit(root, writer.plan(root, files))


def _common_root(paths: list[Path]) -> Path:
    resolved = [p.resolve().parent for p in paths]
    root = resolved[0]
    while not all(p == root or root in p.parents for p in resolved):
        root = root.parent
    return root
