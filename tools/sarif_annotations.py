"""SARIF report -> GitHub workflow annotations (`::error file=...,line=...::message`).

Used by action.yml when the SARIF report is not uploaded to code scanning (upload-sarif off, or
the upload failed, e.g. on a pull request from a fork without `security-events: write`), so the
findings of the one gate run still reach the pull request. Paths: a URI with a `uriBaseId` is
relative to the repository root already; one without is relative to the gate's working
directory (the second argument). Usage: python sarif_annotations.py REPORT.sarif [WORKDIR], with the Python opset-toolkit is installed in.
"""

from __future__ import annotations

import json
import posixpath
import sys
from urllib.parse import unquote

# The one escaping of workflow commands (the action runs this with the toolkit's own Python): a
# message from the tree cannot end its command and start another (`%0A::set-output ...`).
from toolkit.reporting.common import gh_data as _escape_data
from toolkit.reporting.common import gh_prop as _escape_property

LEVELS = {"error": "error", "warning": "warning", "note": "notice", "none": "notice"}


def annotations(report: dict[str, object], workdir: str = ".") -> list[str]:
    lines: list[str] = []
    for run in report.get("runs", []):  # type: ignore[union-attr]
        for result in run.get("results", []):
            level = LEVELS.get(result.get("level", "warning"), "warning")
            rule = result.get("ruleId", "")
            message = result.get("message", {}).get("text", "")
            props = []
            locations = result.get("locations") or []
            if locations:
                physical = locations[0].get("physicalLocation", {})
                artifact = physical.get("artifactLocation", {})
                path = unquote(artifact.get("uri", ""))
                if path and "uriBaseId" not in artifact and workdir not in ("", "."):
                    path = posixpath.normpath(posixpath.join(workdir, path))
                region = physical.get("region", {})
                if path:
                    props.append(f"file={_escape_property(path)}")
                if region.get("startLine"):
                    props.append(f"line={region['startLine']}")
                if region.get("startColumn"):
                    props.append(f"col={region['startColumn']}")
            props.append(f"title={_escape_property(rule or 'opset')}")
            lines.append(f"::{level} {','.join(props)}::{_escape_data(message)}")
    return lines


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: sarif_annotations.py REPORT.sarif [WORKDIR]", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as handle:
        report = json.load(handle)
    for line in annotations(report, argv[1] if len(argv) > 1 else "."):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
