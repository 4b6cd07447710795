"""Test helpers for output folders that `opset generate` wrote."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.load.manifest import MANIFEST, manifest_bytes

REPO = Path(__file__).resolve().parent.parent
DOMAINS = ("org.example.abc", "com.acme.vision")


def as_if_written(out: Path, *rels: str) -> None:
    """Record the files `rels` (relative to `out`, under a kind's folder) in the manifest with the
    digest of their current bytes, as if an earlier run had written them: a file whose bytes
    differ from its recorded digest is not opset's to replace or remove (`manifest.wrote`), so a
    test that simulates stale outputs by editing them records the edit here."""
    path = out / MANIFEST
    data = json.loads(path.read_text())
    for rel in rels:
        data["kinds"].setdefault(rel.split("/", 1)[0], {})[rel] = hashlib.sha256(
            (out / rel).read_bytes()
        ).hexdigest()
    path.write_bytes(manifest_bytes(data["kinds"]))  # in opset's own form


def project_with_specs(root: Path, toml: str = "") -> Path:
    """A project at `root` with the repository's example domains under `specs/` and an opset.toml
    (`spec_root = "specs"`, then `toml`)."""
    for domain in DOMAINS:
        shutil.copytree(REPO / "opsets" / domain, root / "specs" / domain)
    (root / "opset.toml").write_text('spec_root = "specs"\n' + toml)
    return root


def tree_state(root: Path) -> dict[str, str]:
    """Every entry under root: a file's sha256, a symlink's target, a folder's mark."""
    found: dict[str, str] = {}
    for dirpath, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[rel] = "dir"
            else:
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


# A located PROJECT-PATH-UNSAFE finding (a setting of the tree's project file at fault).
LOCATED = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error\[PROJECT-PATH-UNSAFE\]: ", re.M
)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`opset ARGV...` in this process (so the rules it emits are recorded: test_zz_rule_catalog):
    (exit code, stdout, stderr). Whatever the input, never a traceback or an internal error, and
    an exit code of 0, 1 or 2 (the guide's promise to every caller)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in out + err, out + err
    assert code in (0, 1, 2), (code, out + err)
    return code, out, err


def cli_text(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """`cli` with stdout and stderr as one text (stdout first)."""
    code, out, err = cli(capsys, *argv)
    return code, out + err


def run_generate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """`opset generate` of the docs and python kinds in-process, never from a cache: `cli_text`."""
    return cli_text(capsys, "generate", "--no-cache", "--only", "docs,python", *argv)
