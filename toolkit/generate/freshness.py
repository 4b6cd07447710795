"""Skip a generation whose inputs and outputs are unchanged since the run that wrote them.

After `opset generate` writes (or `--check` finds current) an output folder, a record goes into
the toolkit's cache (`toolkit.load.cache`): a digest of everything the outputs depend on, and the
digest of every file it left in the generated kinds' folders. The next run with the same digest
reads the output folder back; if it holds exactly those files with those digests, the outputs are
what a full run would write, and loading, checking and rendering are skipped. Any difference (a
spec file, the toolkit's code, the options, the Python version, an output file edited, added or
removed, an interrupted commit) falls back to the full run.

What the digest covers: each spec file's path and bytes (as the registry cache does), the toolkit
stamp (`toolkit.registry.core.toolkit_stamp`: every module, template and schema of the toolkit, and
the installed files of the libraries it depends on), the Python
version, the working directory (headers and diagnostics name paths relative to it), the selected
kinds, the source label, and whether the CLI reference page is generated. Data only: the record is
JSON, nothing in it is executed.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from stat import S_ISREG

from toolkit.load import cache
from toolkit.load.example_files import example_budget
from toolkit.load.files import MAX_FILE_BYTES, content_digest, read_regular_file
from toolkit.load.journal import JOURNAL, TMP_SUFFIX
from toolkit.load.manifest import MANIFEST
from toolkit.load.writer import FilesOnDisk
from toolkit.model.diagnostics import Diagnostic, diagnostic_from_json, diagnostic_to_json
from toolkit.registry.core import inputs_key, toolkit_stamp

__all__ = ["inputs_digest", "record", "recorded_outputs"]

FORMAT = "generate-record-2"
# A file whose mtime is this close to (or after) the moment it was recorded may have been
# rewritten within one timestamp tick with the same size ("racy" in git's terms): its content is
# compared by digest instead of trusting its stat.
RACY_NS = 2_000_000_000


def inputs_digest(
    spec_paths: Sequence[str | os.PathLike[str]], kinds: Sequence[str], source: str, with_cli: bool
) -> str:
    import hashlib  # imported on use: a cold run with the cache off hashes nothing

    budget = example_budget()  # which example files a load reads (as the load cache's entry says)
    digest = hashlib.sha256(
        json.dumps(
            [FORMAT, toolkit_stamp(), sys.version, os.getcwd(), sorted(kinds), source, with_cli, budget]
        ).encode()
    )
    # The spec files and the example files they name: the registry cache's own key of the inputs.
    digest.update(inputs_key(list(spec_paths)).encode())
    return digest.hexdigest()


def _entry(out: Path, kinds: Sequence[str]) -> str:
    import hashlib  # imported on use: a cold run with the cache off hashes nothing

    where = json.dumps([os.path.abspath(out), sorted(kinds)])
    return "generate-" + hashlib.sha256(where.encode()).hexdigest()[:40]


def _walk(out: Path, kinds: Sequence[str]) -> dict[str, os.stat_result] | None:
    """Every regular file under out/<kind>/, and the manifest, with its stat (None: an interrupted
    commit's leftovers or something that is not a regular file)."""
    if os.path.lexists(out / JOURNAL):
        return None
    found: dict[str, os.stat_result] = {}
    try:
        manifest = os.lstat(out / MANIFEST)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    else:
        if not S_ISREG(manifest.st_mode):
            return None
        found[MANIFEST] = manifest
    pending = [(str(out / kind), kind) for kind in kinds]
    while pending:
        folder, rel = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        except OSError:
            return None
        for entry in entries:
            path = f"{rel}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, path))
            elif entry.name.endswith(TMP_SUFFIX) or not entry.is_file(follow_symlinks=False):
                return None
            else:
                found[path] = entry.stat(follow_symlinks=False)
    return found


def recorded_outputs(
    out: Path, kinds: Sequence[str], digest: str
) -> tuple[FilesOnDisk, tuple[Diagnostic, ...]] | None:
    """(the output files, the load's warnings) when `out` holds exactly what the recorded run for
    inputs `digest` left there, else None."""
    if not cache.enabled():
        return None
    raw = cache.read_entry(_entry(out, kinds))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        if data.get("format") != FORMAT or data.get("inputs") != digest:
            return None
        expected: dict[str, list[object]] = data["outputs"]
        recorded_ns = int(data["recorded_ns"])
        diagnostics = tuple(diagnostic_from_json(d) for d in data["diagnostics"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # an unreadable record only costs the full run
    found = _walk(out, kinds)
    if found is None or found.keys() != expected.keys():
        return None
    for path, stat in found.items():
        size, mtime_ns, sha = expected[path]
        if stat.st_size != size:
            return None
        if stat.st_mtime_ns != mtime_ns or stat.st_mtime_ns >= recorded_ns - RACY_NS:
            try:
                content = read_regular_file(out / path, MAX_FILE_BYTES)
            except OSError:
                return None
            if content_digest(content) != sha:
                return None
    return FilesOnDisk(out, [path for path in found if path != MANIFEST]), diagnostics


def previous_units(out: Path, kinds: Sequence[str]) -> dict[str, dict[str, object]]:
    """The incremental units (`toolkit.generate.memo`) the last recorded run of `out` left, whatever
    its inputs were ({} when there is no readable record)."""
    if not cache.enabled():
        return {}
    raw = cache.read_entry(_entry(out, kinds))
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
        units = data.get("units", {}) if data.get("format") == FORMAT else {}
    except (ValueError, AttributeError):
        return {}
    return (
        {k: v for k, v in units.items() if isinstance(k, str) and isinstance(v, dict)}
        if isinstance(units, dict)
        else {}
    )


def record(
    out: Path,
    kinds: Sequence[str],
    digest: str,
    file_digests: Mapping[str, str],
    diagnostics: Sequence[Diagnostic],
    units: Mapping[str, object] | None = None,
) -> None:
    """Remember that `out` holds the files of `file_digests` ({path: `load.files.content_digest`}) for inputs
    `digest` (call right after it does)."""
    if not cache.enabled():
        return
    recorded_ns = time.time_ns()
    outputs: dict[str, list[object]] = {}
    for path, sha in sorted(file_digests.items()):
        try:
            stat = os.stat(out / path, follow_symlinks=False)
        except OSError:
            return
        outputs[path] = [stat.st_size, stat.st_mtime_ns, sha]
    data = {
        "format": FORMAT,
        "inputs": digest,
        "recorded_ns": recorded_ns,
        "outputs": outputs,
        "diagnostics": [diagnostic_to_json(d) for d in diagnostics],
        "units": dict(units or {}),
    }
    cache.write_entry(_entry(out, kinds), json.dumps(data, sort_keys=True).encode())
