"""What a person reads from `opset generate --check`, and where the mkdocs plugin reads specs.

* A fresh output folder (or many new/removed files): each file is one line with its size, not its
  whole text; a changed file's diff is capped per file and in total, each cut saying how many
  lines it left out; the report formats still list every stale file; no control character of the
  tree's old bytes reaches the terminal.
* The mkdocs plugin checks a spec folder that comes from the tree's opset.toml (or the default
  `opsets/`) as the CLI and the language server do (`checked_spec_root`): out of the project or
  through a symlink, the build stops with the located PROJECT-PATH-UNSAFE message.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from output_helpers import as_if_written, tree_state

from toolkit.cli import main
from toolkit.generate.pipeline import DIFF_LINES_PER_FILE, REPORT_LINES

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"
ABC = OPSETS / "org.example.abc"


def _check(capsys: pytest.CaptureFixture[str], out: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["generate", "--specs", str(OPSETS), "--out", str(out), "--no-cache", "--check", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _generated(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


# --------------------------------------------------------------------------- generate --check


def test_a_fresh_output_folder_is_listed_by_name_and_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gen"
    code, text, err = _check(capsys, out)
    assert code == 1 and not out.exists()  # writes nothing, exit code unchanged
    assert "are stale; run `opset generate`" in err
    lines = text.splitlines()
    assert main(["generate", "--specs", str(OPSETS), "--out", str(out), "--no-cache", "-q"]) == 0
    capsys.readouterr()
    files = _generated(out)
    # one line per file, with its size: not its text (main printed ~9500 lines here)
    assert len(lines) == len(files) < REPORT_LINES
    for rel in files:
        assert f"would add {out}/{rel} ({(out / rel).stat().st_size} bytes)" in lines
    assert "do not edit" not in text and "+++" not in text


def _docs_generated(out: Path) -> Path:
    """`out` with the example specs' docs generated into it."""
    argv = ["generate", "--specs", str(OPSETS), "--out", str(out), "--no-cache", "-q", "--only", "docs"]
    assert main(argv) == 0
    return out


def test_a_changed_file_shows_a_capped_diff_and_a_removed_file_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _docs_generated(tmp_path / "gen")
    page = max((p for p in out.rglob("*.md")), key=lambda p: len(p.read_bytes().splitlines()))
    rel = page.relative_to(out).as_posix()
    lines = page.read_text().splitlines()
    assert len(lines) > DIFF_LINES_PER_FILE  # a page long enough for the cap to matter
    page.write_text("".join(f"{line} (edited)\n" for line in lines))
    (out / "docs" / "old.md").write_text("gone\n")
    as_if_written(out, rel, "docs/old.md")  # opset's outputs of older specs, not hand edits
    before = tree_state(tmp_path)
    code, text, _ = _check(capsys, out, "--only", "docs")
    assert code == 1 and tree_state(tmp_path) == before
    report = text.splitlines()
    assert f"would remove {out}/docs/old.md (5 bytes)" in report
    start = report.index(f"--- a/{out}/{rel}")
    diff = report[start:]
    shown = diff[:DIFF_LINES_PER_FILE]
    assert shown[1] == f"+++ b/{out}/{rel}" and any(line.startswith("-") for line in shown[2:])
    note = diff[DIFF_LINES_PER_FILE]
    full = 3 + 2 * len(lines)  # two headers, one hunk header, every line removed and added
    assert note == (
        f"... {full - DIFF_LINES_PER_FILE} more line(s) of this diff left out; `opset generate` writes them"
    )


def test_the_whole_report_is_capped_and_the_json_report_is_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _docs_generated(tmp_path / "gen")
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    for rel in pages:
        (out / rel).write_text("".join(f"{n}\n" for n in range(DIFF_LINES_PER_FILE)))
    as_if_written(out, *pages)
    code, text, _ = _check(capsys, out, "--only", "docs")
    assert code == 1
    report = text.splitlines()
    assert len(report) == REPORT_LINES + 1
    assert report[-1].startswith("... ") and "more line(s) left out (" in report[-1]
    assert report[-1].endswith(
        "more file(s) not shown); `opset generate` writes them (`--format json` lists every stale file)"
    )
    code, text, _ = _check(capsys, out, "--only", "docs", "--format", "json")
    assert code == 1
    named = {d["message"].rsplit(" ", 2)[0] for d in json.loads(text)["diagnostics"]}
    assert len(pages) > 10 and {f"{out}/{rel}" for rel in pages} <= {os.path.abspath(n) for n in named}


def test_no_control_character_of_the_trees_bytes_reaches_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The old side of a diff is the tree's (a pull request's) bytes: a title-setting escape,
    a carriage return that overprints, a bidi override are shown escaped."""
    out = _docs_generated(tmp_path / "gen")
    page = out / "docs" / "index.md"
    page.write_text(page.read_text() + "x\x1b]0;pwned\x07 y\rz \u202e w\n")
    as_if_written(out, "docs/index.md")
    code, text, _ = _check(capsys, out, "--only", "docs")
    assert code == 1 and "-x\\x1b]0;pwned\\x07 y\\rz \\u202e w" in text
    assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in text)


# --------------------------------------------------------------------------- mkdocs plugin


def _mkdocs(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", str(site / "mkdocs.yml"), "-d", str(site / "site")],
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        timeout=120,
        cwd=site,
    )


def _site(repo: Path, spec_root: str | None) -> Path:
    """A repository with specs at its top (`opsets/`) and a docs site in `site/`, whose
    opset.toml says `spec_root` (None: no opset.toml)."""
    pytest.importorskip("mkdocs")
    (repo / ".git").mkdir(parents=True)
    shutil.copytree(ABC, repo / "opsets" / "org.example.abc")
    site = repo / "site"
    (site / "docs").mkdir(parents=True)
    (site / "docs" / "index.md").write_text("# Home\n")
    (site / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - opset\n")
    if spec_root is not None:
        (site / "opset.toml").write_text(f'spec_root = "{spec_root}"\n')
    return site


def test_mkdocs_refuses_a_spec_root_outside_the_project(tmp_path: Path) -> None:
    """`../opsets` is inside the repository (the plugin's own check lets it pass) but out of the
    project folder that opset.toml governs: the CLI refuses it, and so does the site now."""
    site = _site(tmp_path / "repo", "../opsets")
    before = tree_state(tmp_path)
    result = _mkdocs(site)
    assert result.returncode != 0, result.stderr[-2000:]
    assert (
        "opset.toml:1:1: error[PROJECT-PATH-UNSAFE]: `spec_root` = '../opsets' is outside the project folder"
        in (result.stderr)
    ), result.stderr[-2000:]
    assert "hint: write a folder of its own inside" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_state(tmp_path) == before  # no site written
    # the invoker's own choice (the `specs:` option of mkdocs.yml) still may name it
    (site / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - opset:\n      specs: ../opsets\n")
    result = _mkdocs(site)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (site / "site" / "reference" / "org.example.abc" / "ops" / "A" / "index.html").is_file()


def test_mkdocs_refuses_a_symlinked_default_spec_root(tmp_path: Path) -> None:
    """No opset.toml: the default `opsets/` beside mkdocs.yml is a symlink (to a folder inside the
    repository, which the plugin's own check lets pass): refused as the CLI refuses it."""
    site = _site(tmp_path / "repo", None)
    (site / "opsets").symlink_to(tmp_path / "repo" / "opsets")
    before = tree_state(tmp_path)
    result = _mkdocs(site)
    assert result.returncode != 0, result.stderr[-2000:]
    assert (
        "opsets is a symlink (to " in result.stderr
        and "opset does not read through symlinks" in result.stderr
    )
    assert "Traceback" not in result.stderr
    assert tree_state(tmp_path) == before
