"""The spec-rule catalog and the code that emits rule ids stay in step, and its page is current."""

from __future__ import annotations

import re
from pathlib import Path

from toolkit.load.spec_rules import SPEC_RULES, render_markdown

REPO = Path(__file__).resolve().parent.parent
EMITTERS = [
    "toolkit/load/loader.py",
    "toolkit/load/yamlsrc.py",
    "toolkit/checks/spec.py",
    "toolkit/checks/adapters.py",
    "toolkit/load/pbload.py",
    "toolkit/generate/mdsafe.py",
]


def emitted_rule_ids() -> set[str]:
    found: set[str] = set()
    for rel in EMITTERS:
        text = (REPO / rel).read_text(encoding="utf-8")
        found.update(
            re.findall(
                r'"((?:YAML|FILE|SCHEMA|NAME|TYPE|PARAM|ATTR|VERSION|OPSET|BASED|DOMAIN|REMOVED|DOC|ADAPTER|RELEASE|PB)-[A-Z0-9-]+)"',
                text,
            )
        )
    return found


def test_every_emitted_rule_is_documented() -> None:
    missing = emitted_rule_ids() - set(SPEC_RULES)
    assert not missing, f"add these to toolkit/spec_rules.py: {sorted(missing)}"


def test_corpus_rules_are_documented() -> None:
    corpus = REPO / "tests" / "bad_inputs"
    used = set(
        re.findall(
            r"expect:\s*([A-Z][A-Z0-9-]+)",
            "".join(p.read_text(encoding="utf-8", errors="replace") for p in corpus.rglob("*.y*ml")),
        )
    )
    assert used and used <= set(SPEC_RULES)


def test_rules_page_is_current() -> None:
    page = REPO / "docs" / "reference" / "spec-rules.md"
    assert page.read_text(encoding="utf-8") == render_markdown(), (
        'regenerate: python -c "from toolkit.load.spec_rules import render_markdown; '
        "open('docs/reference/spec-rules.md','w').write(render_markdown())\""
    )
