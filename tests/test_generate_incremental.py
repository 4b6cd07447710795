"""Incremental generation (toolkit/generate/memo.py): a domain whose spec files did not change is
not rendered again by the kinds that render domain by domain (python, proto, docs), and the result is
byte for byte what a full run writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from output_helpers import as_if_written

from toolkit.generate import docs, proto_docs
from toolkit.generate.pipeline import generate_tree
from toolkit.generate.python import layout

REPO = Path(__file__).resolve().parent.parent


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "opsets", tmp_path / "opsets")
    return tmp_path


def _rendered(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Record which (kind, domain) pairs are rendered from here on."""
    calls: list[tuple[str, str]] = []
    real_python, real_proto, real_docs = layout.render_domain, proto_docs.render_domain, docs.domain_files

    def python(domain, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(("python", domain.name))
        return real_python(domain, *args, **kwargs)

    def proto(domain, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(("proto", domain.name))
        return real_proto(domain, *args, **kwargs)

    def docs_pages(registry, name, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(("docs", name))
        return real_docs(registry, name, *args, **kwargs)

    monkeypatch.setattr(layout, "render_domain", python)
    monkeypatch.setattr(docs, "domain_files", docs_pages)
    monkeypatch.setattr(proto_docs, "render_domain", proto)
    monkeypatch.setenv("OPSET_TOOLKIT_JOBS", "1")  # the calls are counted in this process
    return calls


def _edit_doc(work: Path) -> None:
    path = work / "opsets" / "org.example.abc" / "B.yaml"
    path.write_text(path.read_text().replace("doc: ", "doc: Edited. ", 1))


def _edit_domain(work: Path) -> None:
    path = work / "opsets" / "org.example.abc" / "domain.yaml"
    path.write_text(path.read_text() + "\n# a comment: new bytes, same specs\n")


@pytest.mark.parametrize("edit", [_edit_doc, _edit_domain])
def test_only_the_edited_domain_is_rendered_and_the_bytes_equal_a_full_run(
    work: Path, monkeypatch: pytest.MonkeyPatch, edit
) -> None:  # type: ignore[no-untyped-def]
    generate_tree(["opsets"], "gen")
    edit(work)
    calls = _rendered(monkeypatch)
    generate_tree(["opsets"], "gen")
    assert sorted(calls) == [
        ("docs", "org.example.abc"),
        ("proto", "org.example.abc"),
        ("python", "org.example.abc"),
    ]
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    generate_tree(["opsets"], "full")
    assert _tree(work / "gen") == _tree(work / "full")


def test_a_damaged_output_of_an_unchanged_domain_is_rendered_again(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate_tree(["opsets"], "gen")
    _edit_doc(work)  # so the run is not answered as a whole from the freshness record
    victim = next((work / "gen" / "proto" / "com.acme.vision").glob("opset_*.textproto"))
    victim.write_text("damaged")
    as_if_written(work / "gen", victim.relative_to(work / "gen").as_posix())  # opset's (a hand edit is not)
    calls = _rendered(monkeypatch)
    result = generate_tree(["opsets"], "gen")
    assert ("proto", "com.acme.vision") in calls and ("python", "com.acme.vision") not in calls
    assert ("docs", "com.acme.vision") not in calls
    assert victim.relative_to(work / "gen").as_posix() in [c.path for c in result.changes]
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    generate_tree(["opsets"], "full")
    assert _tree(work / "gen") == _tree(work / "full")


def test_without_the_cache_every_domain_is_rendered(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate_tree(["opsets"], "gen")
    _edit_doc(work)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    calls = _rendered(monkeypatch)
    generate_tree(["opsets"], "gen")
    assert {d for _, d in calls} == {"com.acme.vision", "org.example.abc"}
