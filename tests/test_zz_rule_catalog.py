"""The one rule catalog is complete: every rule id the tool emits over the test corpora is
catalogued, every catalogued rule is emitted by at least one test, and `opset rules` and the
catalog page list every family.

The emitted ids are recorded while the whole suite runs (tests/rule_recorder.py), so the
completeness test runs last (this file sorts last) and only when the whole suite was collected.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rule_recorder

from toolkit.cli import main
from toolkit.model.rules import FAMILIES
from toolkit.reporting.catalog import all_rules

REPO = Path(__file__).resolve().parent.parent

# Rules whose emitter no in-process test can reach, with the reason. Keep this empty if you can.
NOT_EMITTED_IN_PROCESS: dict[str, str] = {}


def _whole_suite(config: pytest.Config) -> bool:
    """The session runs every test: no path, keyword, marker or deselection narrows it."""
    paths = {(Path(config.invocation_params.dir) / arg.split("::")[0]).resolve() for arg in config.args}
    return (
        paths <= {REPO, REPO / "tests"}
        and not getattr(config.option, "keyword", "")
        and not getattr(config.option, "markexpr", "")
        and not getattr(config.option, "deselect", None)
        and not getattr(config.option, "lf", False)  # absent under -p no:cacheprovider
    )


def test_every_family_has_rules_and_every_rule_a_doc_page(capsys: pytest.CaptureFixture[str]) -> None:
    rules = all_rules()
    assert {r.family for r in rules} == set(FAMILIES)
    for rule in rules:
        assert rule.summary.strip(), rule.id
        page = REPO / "docs" / (rule.page.rstrip("/") + ".md")
        assert page.is_file(), f"{rule.id}: {rule.page} is not a docs page"
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out
    for rule in rules:
        assert f"{rule.id} " in listed
    assert main(["rules", "model-attr-type"]) == 0
    assert capsys.readouterr().out.startswith("## MODEL-ATTR-TYPE")
    assert main(["rules", "--family", "mdiff", "--format", "json"]) == 0
    assert '"id": "MDIFF-INPUT-ADDED"' in capsys.readouterr().out


def test_every_emitted_rule_is_catalogued() -> None:
    known = {r.id for r in all_rules()}
    unknown = sorted(set(rule_recorder.EMITTED) - known)
    assert not unknown, f"emitted but not in the catalog: {unknown}"


def test_every_catalogued_rule_is_emitted_by_a_test(request: pytest.FixtureRequest) -> None:
    if not _whole_suite(request.config):
        pytest.skip("needs the whole suite in this session (it records what every test emits)")
    # Plugin rules registered by tests (e.g. the documented plugin example) are not built-ins.
    built_in = {r.id for r in all_rules() if r.check is None or r.check.__module__.startswith("toolkit.")}
    missing = sorted(built_in - set(rule_recorder.EMITTED) - set(NOT_EMITTED_IN_PROCESS))
    assert not missing, f"catalogued but no test makes the tool emit them: {missing}"
    print(
        f"{len(built_in)} catalogued rules, {len(set(rule_recorder.EMITTED))} distinct ids emitted by the suite"
    )
