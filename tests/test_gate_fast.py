"""`opset diff`'s fast path (toolkit/compat/gate_fast.py: decode only the operators whose
digests differ) finds exactly what the plain gate finds on the fully loaded trees: same findings,
same locations, same order, under every built-in profile, on random edits of the shipped specs
(hypothesis); and it steps aside (None) where its reasoning does not hold."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from git_helpers import git as _git
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from toolkit.cli import main
from toolkit.compat import gate, gate_fast
from toolkit.compat.config import BUILTIN_PROFILES, GateConfig
from toolkit.compat.gate import GateResult, active_rules, run_gate
from toolkit.compat.gate_fast import differing_registries, run_gate_cached
from toolkit.load import cache, result_cache
from toolkit.load.result_cache_parts import fetch_parts
from toolkit.model.codec_digest import NO_DIGEST
from toolkit.model.diagnostics import SpecError
from toolkit.registry.core import cache_key, load_registry

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "opsets"
Doc = dict[str, Any]
Edit = Callable[[Doc], None]


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "")  # set, so that teardown restores it (--no-cache sets it)
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


def copy_specs(root: Path) -> Path:
    shutil.copytree(SPECS, root)
    return root


def operator_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.yaml") if p.name not in ("domain.yaml", "releases.yaml"))


def rewrite(path: Path, edit: Edit) -> None:
    doc = yaml.safe_load(path.read_text())
    edit(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))  # also moves every line of the file


# -- edits of one operator file (index picks the version) -------------------------------------


def _version(doc: Doc, index: int) -> Doc:
    versions: list[Doc] = doc["versions"]
    return versions[index % len(versions)]


def _attributes(doc: Doc, index: int) -> Doc:
    version = _version(doc, index)
    version.pop("examples", None)  # they would set the attribute as it was
    attrs = version.get("attributes")
    if not isinstance(attrs, dict):
        attrs = version["attributes"] = {}
    return attrs


def _attr_type(doc: Doc, index: int) -> None:
    attrs = _attributes(doc, index)
    if attrs:
        name = sorted(attrs)[index % len(attrs)]
        before = attrs[name].get("type") if isinstance(attrs[name], dict) else None
        attrs[name] = {"type": "int" if before != "int" else "float"}
    else:
        attrs["added"] = {"type": "int", "default": 7}


def _attr_added(doc: Doc, index: int) -> None:
    _attributes(doc, index)["fresh"] = {"type": "string", "default": "x"}


def _doc(doc: Doc, index: int) -> None:
    version = _version(doc, index)
    version["doc"] = str(version.get("doc", "")) + " Edited."


def _drop_version(doc: Doc, index: int) -> None:
    if len(doc["versions"]) > 1:
        doc["versions"].pop()


def _new_version(doc: Doc, index: int) -> None:
    since = int(doc["versions"][-1]["since_version"])
    doc["versions"].append(
        {"since_version": since + 1 + index % 2, "based_on": since, "doc": "A later version."}
    )
    doc.pop("removed_in", None)


def _removed_in(doc: Doc, index: int) -> None:
    doc["removed_in"] = int(doc["versions"][-1]["since_version"]) + 1


def _deprecated(doc: Doc, index: int) -> None:
    doc["versions"][-1]["deprecated"] = True
    if index % 2:
        doc.pop("replaced_by", None)


def _experimental(doc: Doc, index: int) -> None:
    _version(doc, index)["status"] = "experimental"


def _suppress(doc: Doc, index: int) -> None:
    _version(doc, index)["suppress"] = ["DOC-MISSING"]


def _reformat(doc: Doc, index: int) -> None:
    """No change of content: only the layout (and so every location) moves."""


OPERATOR_EDITS: dict[str, Callable[[Doc, int], None]] = {
    f.__name__.strip("_"): f
    for f in (
        _attr_type,
        _attr_added,
        _doc,
        _drop_version,
        _new_version,
        _removed_in,
        _deprecated,
        _experimental,
        _suppress,
        _reformat,
    )
}


def _type_set(doc: Doc, index: int) -> None:
    sets = doc.get("type_sets") or {}
    if sets:
        name = sorted(sets)[index % len(sets)]
        sets[name] = [*sets[name], "tensor(bfloat16)"] if index % 2 else sets[name][1:] or ["tensor(bool)"]


def _opset_added(doc: Doc, index: int) -> None:
    last = doc["opset_versions"][-1]
    doc["opset_versions"].append({"version": int(last["version"]) + 1, "ir_version": last["ir_version"]})


def _opset_ir(doc: Doc, index: int) -> None:
    opset = doc["opset_versions"][-1]
    opset["ir_version"] = int(opset["ir_version"]) + 1


def _opset_doc(doc: Doc, index: int) -> None:
    opset = doc["opset_versions"][index % len(doc["opset_versions"])]
    opset["doc"] = "Edited."


DOMAIN_EDITS: dict[str, Callable[[Doc, int], None]] = {
    "type_set": _type_set,
    "opset_added": _opset_added,
    "opset_ir": _opset_ir,
    "opset_doc": _opset_doc,
}

operator_edit = st.tuples(
    st.just("op"), st.sampled_from(sorted(OPERATOR_EDITS)), st.integers(0, 50), st.integers(0, 5)
)
domain_edit = st.tuples(
    st.just("domain"), st.sampled_from(sorted(DOMAIN_EDITS)), st.integers(0, 50), st.integers(0, 5)
)
delete_file = st.tuples(st.just("delete"), st.just(""), st.integers(0, 50), st.just(0))
edits = st.lists(st.one_of(operator_edit, operator_edit, domain_edit, delete_file), max_size=4)


def apply(root: Path, plan: list[tuple[str, str, int, int]]) -> None:
    files = operator_files(root)
    domains = sorted(root.rglob("domain.yaml"))
    for kind, name, which, index in plan:
        if kind == "op" and files:
            path = files[which % len(files)]
            if path.exists():
                rewrite(path, lambda doc, n=name, i=index: OPERATOR_EDITS[n](doc, i))
        elif kind == "domain":
            rewrite(domains[which % len(domains)], lambda doc, n=name, i=index: DOMAIN_EDITS[n](doc, i))
        elif kind == "delete" and files:
            files[which % len(files)].unlink(missing_ok=True)


def fast_gate(old: Path, new: Path, config: GateConfig | None = None) -> GateResult | None:
    return run_gate_cached(cache_key([new]), lambda: (cache_key([old]), "old"), config)


def assert_agrees(old: Path, new: Path) -> str:
    """Fill the cache with both trees, then: fast path == plain gate on the full registries,
    for every built-in profile (or both refuse, when a tree does not load). Says which."""
    try:
        old_registry, new_registry = load_registry([old]), load_registry([new])
    except SpecError:
        assert fast_gate(old, new) is None
        return "a tree does not load"
    for profile in BUILTIN_PROFILES.values():
        config = GateConfig(profile=profile)
        plain = run_gate(old_registry, new_registry, config, old_label="old")
        fast = fast_gate(old, new, config)
        assert fast == plain, profile.name
    return "compared"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(new_edits=edits, old_edits=st.lists(operator_edit, max_size=1))
def test_fast_gate_equals_plain_gate_on_random_edits(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, new_edits: Any, old_edits: Any
) -> None:
    work = tmp_path_factory.mktemp("edits")
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "")
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(work / "cache"))
    monkeypatch.chdir(work)
    old, new = copy_specs(work / "old"), copy_specs(work / "new")
    apply(old, old_edits)
    apply(new, old_edits + new_edits)  # an edit of the old tree is in the new one too
    event(assert_agrees(old, new))


def test_unchanged_operators_are_not_decoded(cache_dir: Path) -> None:
    old, new = copy_specs(Path("old")), copy_specs(Path("new"))
    rewrite(new / "org.example.abc" / "C.yaml", lambda doc: _attr_added(doc, 0))
    rewrite(new / "com.acme.vision" / "Blur.yaml", lambda doc: _reformat(doc, 0))  # lines move only
    load_registry([old]), load_registry([new])
    old_parts, new_parts = (fetch_parts(str(cache_key([p]))) for p in (old, new))
    assert old_parts is not None and new_parts is not None
    pair = differing_registries(old_parts, new_parts)
    assert pair is not None
    assert [(o.domain, o.name) for o in pair[1].specs.operators] == [("org.example.abc", "C")]
    assert [(o.domain, o.name) for o in pair[0].specs.operators] == [("org.example.abc", "C")]
    assert pair[1].specs.domains == new_parts.domains and pair[1].releases == new_parts.releases
    assert assert_agrees(old, new) == "compared"


def test_changed_type_set_decodes_its_domain_whole(cache_dir: Path) -> None:
    """TYPE-SET-CHANGED names every released user of a changed set, also a user whose expanded
    types stay the same (here `[@index_types, tensor(int16)]` when the set gains int16)."""
    old, new = copy_specs(Path("old")), copy_specs(Path("new"))

    def explicit_int16(doc: Doc) -> None:
        doc["versions"][0]["type_constraints"]["I"]["allowed"] = ["@index_types", "tensor(int16)"]

    def gains_int16(doc: Doc) -> None:
        doc["type_sets"]["index_types"].append("tensor(int16)")

    for root in (old, new):
        rewrite(root / "com.acme.vision" / "NonMaxSuppressionLite.yaml", explicit_int16)
    rewrite(new / "com.acme.vision" / "domain.yaml", gains_int16)
    load_registry([old]), load_registry([new])
    old_parts, new_parts = (fetch_parts(str(cache_key([p]))) for p in (old, new))
    assert old_parts is not None and new_parts is not None
    same = {o.name: o.digest for o in old_parts.operators} == {o.name: o.digest for o in new_parts.operators}
    assert same  # no operator's content changed...
    pair = differing_registries(old_parts, new_parts)
    assert pair is not None  # ...yet every operator of the domain is decoded
    assert {o.name for o in pair[0].specs.operators} == {
        p.stem for p in operator_files(old / "com.acme.vision")
    }
    result = fast_gate(old, new)
    assert result is not None
    (finding,) = [f for f in result.findings if f.rule == "TYPE-SET-CHANGED"]
    assert "com.acme.vision.NonMaxSuppressionLite:1" in finding.message
    assert assert_agrees(old, new) == "compared"


def test_nan_defaults_are_compared_by_decoding(cache_dir: Path) -> None:
    """nan != nan: the plain gate sees two unequal versions, so the fast path must decode them."""
    old, new = copy_specs(Path("old")), copy_specs(Path("new"))

    def nan_default(doc: Doc) -> None:
        _attributes(doc, 0)["ratio"] = {"type": "float", "default": math.nan}

    for root in (old, new):
        rewrite(root / "org.example.abc" / "B.yaml", nan_default)
    load_registry([old]), load_registry([new])
    parts = fetch_parts(str(cache_key([new])))
    assert parts is not None
    assert [o.digest for o in parts.operators if o.name == "B"] == [NO_DIGEST]
    assert assert_agrees(old, new) == "compared"


def test_steps_aside_without_cache_entries(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = copy_specs(Path("old")), copy_specs(Path("new"))
    assert fast_gate(old, new) is None  # nothing cached yet
    load_registry([old]), load_registry([new])
    assert fast_gate(old, new) is not None
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    assert fast_gate(old, new) is None


def test_a_whole_tree_rule_gets_both_trees_whole(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check of the `DiffContext` (how plugins were written before the pair handlers) may read
    any operator: the fast path decodes them all, and the rule sees every operator."""
    old, new = copy_specs(Path("old")), copy_specs(Path("new"))
    rewrite(new / "org.example.abc" / "C.yaml", lambda doc: _attr_added(doc, 0))
    load_registry([old]), load_registry([new])
    seen: list[int] = []

    def reads_every_operator(ctx: Any) -> Any:
        seen.append(len(ctx.new.specs.operators))
        return iter(())

    plugin = dataclasses.replace(active_rules(GateConfig())[0], id="X-PLUGIN", check=reads_every_operator)
    with monkeypatch.context() as patch:
        for module in (gate_fast, gate):
            patch.setattr(module, "active_rules", lambda config: [*active_rules(config), plugin])
        assert fast_gate(old, new) is not None
    assert seen == [len(operator_files(new))]


def test_cli_output_is_the_same_with_the_fast_path(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_specs(Path("old"))
    new = copy_specs(Path("new"))
    apply(new, [("op", "attr_type", 0, 0), ("op", "doc", 3, 1), ("domain", "type_set", 0, 1)])
    outputs = []
    for extra in ([], [], ["--no-cache"]):  # plain, filling the cache; the fast path; plain, no cache
        code = main(["diff", "--against", "old", "--specs", "new", "--format", "json", *extra])
        outputs.append((code, capsys.readouterr().out))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0][0] == 1


def test_cli_against_a_git_ref_uses_the_fast_path_too(
    cache_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = cache_dir.parent / "repo"
    copy_specs(root / "opsets")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "specs")
    apply(root / "opsets", [("op", "attr_added", 13, 1), ("op", "doc", 0, 0), ("domain", "type_set", 1, 1)])
    monkeypatch.chdir(root)
    answers: list[bool] = []
    plain = gate_fast.run_gate_cached

    def spy(*args: Any) -> GateResult | None:
        result = plain(*args)
        answers.append(result is not None)
        return result

    monkeypatch.setattr(gate_fast, "run_gate_cached", spy)
    outputs = []
    for extra in ([], [], ["--no-cache"]):  # plain, filling the cache; the fast path; plain, no cache
        code = main(["diff", "--against", "HEAD", "--format", "sarif", *extra])
        outputs.append((code, capsys.readouterr().out))
    assert answers == [False, True]
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0][0] == 1 and "the old tree: git ref HEAD at commit " in outputs[0][1]


def test_an_entry_whose_digests_do_not_match_is_a_miss(cache_dir: Path) -> None:
    old, new = copy_specs(Path("old")), copy_specs(Path("new"))
    load_registry([old]), load_registry([new])
    key = str(cache_key([new]))
    name = result_cache.entry_name(key)  # the entry also names the example files' budget
    data = cache.read_entry(name)
    assert data is not None
    header, documents = result_cache.split(data, name)
    header["digests"][0].pop()  # one operator short
    head = json.dumps(header).encode()
    cache.write_entry(name, b"".join([result_cache.MAGIC, len(head).to_bytes(4, "big"), head, *documents]))
    assert fetch_parts(key) is None
    assert result_cache.fetch(key) is not None  # the plain reader does not need them
    assert fast_gate(old, new) is None
