"""The spec rules in the catalog and the code that emits them stay in step, the bad-input corpus
makes every spec-family rule fire, and the rules page is current."""

from __future__ import annotations

import re
from pathlib import Path

from toolkit.checks.run import load_specs
from toolkit.checks.spec import CHECKED_FAMILIES, check_specs
from toolkit.model.rules import CATALOG
from toolkit.reporting.spec_rules import (
    SECTIONS,
    SPEC_FAMILIES,
    section_of,
    spec_rules,
)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "bad_inputs"
# Every module of the load and check layers may emit spec rule ids.
EMITTERS = sorted((REPO / "toolkit" / "load").rglob("*.py")) + sorted(
    (REPO / "toolkit" / "checks").rglob("*.py")
)
RULE_ID = re.compile(
    r'"((?:YAML|FILE|SCHEMA|NAME|TYPE|PARAM|ATTR|VERSION|OPSET|BASED|DOMAIN|REMOVED|DOC|ADAPTER|RELEASE|PB|FUNCTION)-[A-Z0-9-]+)"'
)


def emitted_rule_ids() -> set[str]:
    return {rule_id for path in EMITTERS for rule_id in RULE_ID.findall(path.read_text(encoding="utf-8"))}


def test_every_emitted_rule_is_in_the_catalog() -> None:
    ids = emitted_rule_ids()
    assert "VERSION-ORDER" in ids and "YAML-TAG" in ids  # the scan sees the emitters
    missing = ids - {r.id for r in spec_rules()}
    assert not missing, (
        f"register these (toolkit/load/rules.py or the emitting check module): {sorted(missing)}"
    )


def test_spec_rules_are_documented() -> None:
    for rule in spec_rules():
        assert rule.family in SPEC_FAMILIES
        assert rule.summary and rule.hint, rule.id
        if rule.family != "docs":  # DOC-* are described by the docs checks
            assert "**Why:**" in rule.doc, rule.id
            assert section_of(rule) in SECTIONS, rule.id


def test_corpus_rules_are_in_the_catalog() -> None:
    used = set(
        re.findall(
            r"expect:\s*([A-Z][A-Z0-9-]+)",
            "".join(p.read_text(encoding="utf-8", errors="replace") for p in CORPUS.rglob("*.y*ml")),
        )
    )
    assert used and used <= {r.id for r in spec_rules()}


def test_bad_input_corpus_emits_every_spec_family_rule() -> None:
    emitted = {
        d.rule
        for case in sorted(p for p in CORPUS.iterdir() if p.is_dir())
        for d in load_specs([case], jobs=1).diagnostics
    }
    spec_family = {r.id for r in CATALOG.family("spec")}
    assert spec_family, "no spec-family rules registered"
    assert not spec_family - emitted, f"add a tests/bad_inputs case for {sorted(spec_family - emitted)}"


def test_every_checked_family_runs_from_the_catalog() -> None:
    for family in CHECKED_FAMILIES:
        assert any(r.check is not None for r in CATALOG.family(family)), family


DOMAIN = """\
domain: com.test.quiet
opset_versions: [{version: 1, ir_version: 8}, {version: 2, ir_version: 8}, {version: 3, ir_version: 8}]
"""

VERSION = """\
  - since_version: {since}{suppress}
    inputs: [{{name: X, type: tensor(float)}}]
    outputs: [{{name: Y, type: tensor(float)}}]
    type_constraints:
      T: {{allowed: [tensor(float)]}}
"""
QUIET = "\n    suppress: [TYPE-PARAM-UNUSED]"
OPERATOR = "operator: Quiet\ndomain: com.test.quiet\nversions:\n" + "".join(
    VERSION.format(since=since, suppress=suppress) for since, suppress in ((1, QUIET), (2, QUIET), (3, ""))
)


def test_suppress_silences_a_rule_inside_its_own_version_only(tmp_path: Path) -> None:
    folder = tmp_path / "com.test.quiet"
    folder.mkdir()
    (folder / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    (folder / "Quiet.yaml").write_text(OPERATOR, encoding="utf-8")
    result = load_specs([tmp_path], jobs=1)
    unused = [d for d in check_specs(result.specs) if d.rule == "TYPE-PARAM-UNUSED"]
    # Versions 1 and 2 silence the rule for themselves; version 3 (lines 16-20) does not.
    assert [(Path(d.location.file).name, d.location.line) for d in unused] == [("Quiet.yaml", 20)]
