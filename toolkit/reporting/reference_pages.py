"""The documentation generated from the rule catalog: one table of what is generated where.

Each entry names a file of the repository's docs and how its generated text is made; a page is
either generated whole, or has one generated section (from its heading to the next heading of
the level above it) inside hand-written text. `opset rules --write-docs ROOT` rewrites them all
under ROOT; tests/test_reference_pages.py checks that the checked-in files are current.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolkit.compat.docs import RULES_PAGE_PATH, render_rules_page
from toolkit.compat.rules import all_rules as gate_rules
from toolkit.model.diagnostics import UsageError
from toolkit.reporting import spec_rules
from toolkit.reporting.catalog import CATALOG_PAGE_PATH, all_rules, render_catalog_page
from toolkit.reporting.model_check import render_rules_section

__all__ = ["REFERENCE_OUTPUTS", "WRITE_COMMAND", "ReferenceOutput", "current_text", "stale", "write_all"]

WRITE_COMMAND = "opset rules --write-docs ."


@dataclass(frozen=True)
class ReferenceOutput:
    path: str  # relative to the repository root
    render: Callable[[], str]
    section: str | None = None  # the heading line that starts the generated section, if not whole

    def merged(self, old: str) -> str:
        """The file's text with its generated part current (`old`: its text today)."""
        if self.section is None:
            return self.render()
        start = old.find(self.section + "\n")
        if start < 0:
            raise UsageError(
                f"{self.path} has no line '{self.section}': the generated section starts there\n"
                "  hint: put the heading back where the section belongs, then run the command again"
            )
        level = len(self.section) - len(self.section.lstrip("#"))
        end = old.find("\n" + "#" * (level - 1) + " ", start)
        tail = old[end + 1 :] if end >= 0 else ""
        return old[:start] + self.render().rstrip("\n") + "\n" + ("\n" + tail if tail else "")


REFERENCE_OUTPUTS = (
    ReferenceOutput(CATALOG_PAGE_PATH, lambda: render_catalog_page(all_rules())),
    ReferenceOutput(spec_rules.PAGE_PATH, spec_rules.render_markdown),
    ReferenceOutput(RULES_PAGE_PATH, lambda: render_rules_page(gate_rules())),
    ReferenceOutput("docs/guide/model-tools.md", render_rules_section, section="### Rules"),
)


def current_text(output: ReferenceOutput, root: Path) -> str:
    path = root / output.path
    old = path.read_text(encoding="utf-8") if output.section is not None else ""
    return output.merged(old)


def stale(root: Path) -> list[str]:
    """The outputs under `root` whose text is not what the catalog makes today."""
    return [
        o.path
        for o in REFERENCE_OUTPUTS
        if not (root / o.path).is_file()
        or (root / o.path).read_text(encoding="utf-8") != current_text(o, root)
    ]


def write_all(root: Path) -> list[str]:
    """Rewrite every output under `root` that is stale; the paths rewritten."""
    written = []
    for output in REFERENCE_OUTPUTS:
        path = root / output.path
        text = current_text(output, root)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(path)
            written.append(output.path)
    return written
