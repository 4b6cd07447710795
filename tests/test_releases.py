"""The ONNX release table as data: the seeds' rows, onnx's VERSION_TABLE, lookups, RELEASE-* checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.checks.run import load_specs
from toolkit.model.spec import Release
from toolkit.registry.releases import (
    ONNX_DOMAIN_ALIASES,
    UnknownOpset,
    find_release,
    latest_opsets,
    load_releases,
    min_ir_version_for,
    onnx_releases,
    onnx_releases_file,
    opset_ir_versions,
    opset_version,
    release_for_opset,
    released_versions,
)

# The "Released Versions" table of the newest seed (002, through 1.20.0), transcribed:
# (release, IR version, ai.onnx, ai.onnx.ml, ai.onnx.training or None for "-").
SEED_TABLE = [
    ("1.0", 3, 1, 1, None),
    ("1.1", 3, 5, 1, None),
    ("1.1.2", 3, 6, 1, None),
    ("1.2", 3, 7, 1, None),
    ("1.3", 3, 8, 1, None),
    ("1.4.1", 4, 9, 1, None),
    ("1.5.0", 5, 10, 1, None),
    ("1.6.0", 6, 11, 2, None),
    ("1.7.0", 7, 12, 2, 1),
    ("1.8.0", 7, 13, 2, 1),
    ("1.8.1", 7, 13, 2, 1),
    ("1.9.0", 7, 14, 2, 1),
    ("1.10.0", 8, 15, 2, 1),
    ("1.10.1", 8, 15, 2, 1),
    ("1.10.2", 8, 15, 2, 1),
    ("1.11.0", 8, 16, 3, 1),
    ("1.12.0", 8, 17, 3, 1),
    ("1.13.0", 8, 18, 3, 1),
    ("1.13.1", 8, 18, 3, 1),
    ("1.14.0", 9, 19, 3, 1),
    ("1.14.1", 9, 19, 3, 1),
    ("1.15.0", 9, 20, 4, 1),
    ("1.16.0", 10, 21, 5, 1),
    ("1.16.1", 10, 21, 5, 1),
    ("1.16.2", 10, 21, 5, 1),
    ("1.17.0", 10, 22, 5, 1),
    ("1.18.0", 11, 23, 5, 1),
    ("1.19.0", 12, 24, 5, 1),
    ("1.19.1", 12, 24, 5, 1),
    ("1.20.0", 13, 25, 5, 1),
]


def _row(release: Release) -> tuple[str, int, int | None, int | None, int | None]:
    return (
        release.name,
        release.ir_version,
        opset_version(release, "ai.onnx"),
        opset_version(release, "ai.onnx.ml"),
        opset_version(release, "ai.onnx.training"),
    )


def test_every_seed_row_is_reproduced() -> None:
    rows = [_row(r) for r in onnx_releases()]
    assert rows[: len(SEED_TABLE)] == SEED_TABLE


def test_agrees_with_onnx_version_table() -> None:
    helper = pytest.importorskip("onnx.helper")
    expected = [
        (row[0], row[1], row[2], row[3], row[4] if len(row) > 4 else None) for row in helper.VERSION_TABLE
    ]
    assert [_row(r) for r in onnx_releases()] == expected
    assert onnx_releases()[-1].name == "1.23.0"


def test_lookups_agree_with_onnx_helpers() -> None:
    helper = pytest.importorskip("onnx.helper")
    table = opset_ir_versions(onnx_releases(), ONNX_DOMAIN_ALIASES)
    expected = {(("" if d == "ai.onnx" else d), v): ir for (d, v), ir in helper.OP_SET_ID_VERSION_MAP.items()}
    assert table == expected
    for (domain, version), _ir in sorted(helper.OP_SET_ID_VERSION_MAP.items()):
        for other in (None, ("ai.onnx.ml", 3), ("ai.onnx.ml", 5)):
            opsets = [(domain, version)] + ([other] if other else [])
            ids = [helper.make_opsetid(d, v) for d, v in opsets]
            assert min_ir_version_for(onnx_releases(), opsets, aliases=ONNX_DOMAIN_ALIASES) == (
                helper.find_min_ir_version_for(ids)
            )
    # Unknown opsets: onnx raises, or counts 3 when told to ignore them; so do we.
    with pytest.raises(ValueError):
        helper.find_min_ir_version_for([helper.make_opsetid("", 4)])
    with pytest.raises(UnknownOpset, match=r"no release ships opset ai\.onnx 4"):
        min_ir_version_for(onnx_releases(), {"": 4})
    ignored = min_ir_version_for(onnx_releases(), {"": 4, "com.acme": 1}, ignore_unknown=True)
    assert ignored == helper.find_min_ir_version_for(
        [helper.make_opsetid("", 4), helper.make_opsetid("com.acme", 1)], ignore_unknown=True
    )
    assert min_ir_version_for(onnx_releases(), []) == 3


def test_release_for_opset() -> None:
    releases = onnx_releases()
    assert release_for_opset(releases, "ai.onnx", 13).name == "1.8.0"  # type: ignore[union-attr]
    assert release_for_opset(releases, "", 28).name == "1.23.0"  # type: ignore[union-attr]
    assert release_for_opset(releases, "ai.onnx.ml", 4).name == "1.15.0"  # type: ignore[union-attr]
    assert release_for_opset(releases, "ai.onnx", 2) is None
    assert find_release(releases, "1.16.1").ir_version == 10  # type: ignore[union-attr]
    assert latest_opsets(releases) == {"": 28, "ai.onnx.ml": 5, "ai.onnx.training": 1}
    assert released_versions(releases, "ai.onnx.ml") == (1, 2, 3, 4, 5)


def test_imported_catalog_gets_the_table(onnx_catalog_dir: Path, onnx_registry) -> None:  # type: ignore[no-untyped-def]
    assert (onnx_catalog_dir / "releases.yaml").is_file()
    assert [_row(r) for r in onnx_registry.releases] == [_row(r) for r in onnx_releases()]
    assert not [d for d in onnx_registry.diagnostics if d.rule.startswith("RELEASE-")]


def test_table_trimmed_for_an_older_catalog(tmp_path: Path) -> None:
    data = onnx_releases_file({"ai.onnx": 25, "ai.onnx.ml": 5}, "# header\n")
    assert data.startswith(b"# header\n")
    (tmp_path / "releases.yaml").write_bytes(data)
    rows = load_releases(tmp_path / "releases.yaml")
    assert rows[-1].name == "1.20.1"
    assert len(rows) == 31


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


DOMAIN = """domain: com.example.rel
opset_versions:
  - {version: 1, ir_version: 8}
  - {version: 2, ir_version: 9}
"""


def _rules(tmp_path: Path, releases: str) -> list[tuple[str, int]]:
    _write(tmp_path, {"com.example.rel/domain.yaml": DOMAIN, "releases.yaml": releases})
    result = load_specs([tmp_path])
    return sorted((d.rule, d.location.line) for d in result.diagnostics if d.rule.startswith("RELEASE-"))


def test_good_table_has_no_findings(tmp_path: Path) -> None:
    table = """releases:
  - {release: "1", ir_version: 8, opsets: {com.example.rel: 1, ai.onnx: 19}}
  - {release: "2", ir_version: 9, opsets: {com.example.rel: 2, ai.onnx: 21}}
"""
    assert _rules(tmp_path, table) == []


def test_release_checks(tmp_path: Path) -> None:
    table = """releases:
  - {release: "1", ir_version: 9, opsets: {com.example.rel: 2}}
  - {release: "2", ir_version: 8, opsets: {com.example.rel: 2}}
  - {release: "3", ir_version: 9, opsets: {com.example.rel: 1}}
  - {release: "3", ir_version: 9, opsets: {com.example.rel: 7}}
  - {release: "4", ir_version: 9, opsets: {ai.onnx: 99}}
"""
    assert _rules(tmp_path, table) == [
        ("RELEASE-DUPLICATE", 5),
        ("RELEASE-IR-ORDER", 3),
        ("RELEASE-IR-TOO-LOW", 3),
        ("RELEASE-OPSET-ORDER", 4),
        ("RELEASE-OPSET-UNKNOWN", 5),
    ]
    result = load_specs([tmp_path])
    text = "\n".join(d.format() for d in result.diagnostics)
    assert "releases.yaml:3:5: error[RELEASE-IR-ORDER]: release 2 has IR version 8, lower than 1's 9" in text
    assert "release 3 ships com.example.rel opset 7, which the domain does not define (it has 1, 2)" in text


def test_releases_command(capsys: pytest.CaptureFixture[str]) -> None:
    from toolkit.cli import main

    assert main(["releases", "--onnx", "--min-ir", "ai.onnx:13", "ai.onnx.ml:3"]) == 0
    assert capsys.readouterr().out == "8\n"
    assert main(["releases", "--onnx", "--release-for", "ai.onnx:21"]) == 0
    assert capsys.readouterr().out == "1.16.0\n"
    assert main(["releases", "--onnx", "--min-ir", "ai.onnx:4"]) == 2
    assert "no release ships opset ai.onnx 4" in capsys.readouterr().err
    assert main(["releases", "--onnx"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "1.0\tIR 3\tai.onnx 1, ai.onnx.ml 1" and len(lines) == 34
