"""A `Report` as JUnit XML: one test case per finding, as Jenkins and GitLab show them.

    <testsuites>
      <testsuite name="opset diff" package="opset" id="0" timestamp=".." hostname=".."
                 tests=".." failures=".." errors=".." skipped="0" time="0">
        <properties><property name="..." value="..."/></properties>
        <testcase classname="opset.diff.ATTR-ADDED" name="ml/opsets/x/C.yaml:12:5 ..."
                  file="ml/opsets/x/C.yaml" line="12" time="0">
          <failure type="ATTR-ADDED" message="...">details</failure>
        </testcase>
        <system-out>summary</system-out><system-err/>
      </testsuite>
    </testsuites>

- A finding at or above the threshold is a `<failure>`; below it the case passes; an item that
  was not run (test-runtime's example without a kernel) is `<skipped message=...>`. A command
  whose items are tests of their own (test-runtime's examples) names each case itself. A load error
  or usage error (the command could not run, exit 2) is an `<error>`. A clean run is one passing
  case, so report viewers show the gate ran.
- `file` is the repository path (GitLab links it; Jenkins shows it); `line` the 1-based line.
  These two attributes are the only ones outside the strict (Ant / Jenkins xunit) schemas,
  which have no place for a location; everything else follows them: the attributes they
  require, `properties` first, suite-level `system-out`/`system-err` last.
- `timestamp` is `SOURCE_DATE_EPOCH` when set (reproducible output), else the current time.
"""

from __future__ import annotations

import os
import re
import time

from toolkit.model.diagnostics import escape, unicode_escaped
from toolkit.reporting.report import Item, Report

# xml.sax.saxutils would do, but importing it pulls in urllib/http/email (~25 ms per command).
_XML_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_XML_ATTR = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
)


# The code points XML 1.0 cannot carry, not even as a character reference: a report holding one
# is not well-formed, and a CI's JUnit reader drops it whole. Written visibly (`\\uXXXX`).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    return unicode_escaped(text, _NOT_XML).translate(_XML_TEXT)


def xml_attr(text: str) -> str:
    return '"' + unicode_escaped(text, _NOT_XML).translate(_XML_ATTR) + '"'


def _timestamp() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    seconds = int(epoch) if epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def _hostname() -> str:
    import socket  # only when a JUnit report is written

    try:
        return socket.gethostname() or "localhost"
    except OSError:
        return "localhost"


def _case(report: Report, item: Item) -> str:
    paths = report.repo()
    file = escape(paths.repo_path(item.place.file))  # one line of text, as `Place.label` shows it
    line = max(item.place.line, 1)
    classname, name = item.case or (
        f"opset.{report.command}.{item.rule}",
        f"{item.place.label(paths)} {item.rule}" + (f" {item.subject}" if item.subject else ""),
    )
    attrs = (
        f'classname={xml_attr(classname)} name={xml_attr(name)} file={xml_attr(file)} line="{line}" time="0"'
    )
    if item.skipped:
        return f"    <testcase {attrs}>\n      <skipped message={xml_attr(item.message)}/>\n    </testcase>"
    if not item.failing and not item.error:
        return f"    <testcase {attrs}/>"
    tag = "error" if item.error else "failure"
    body = xml_text(f"{item.place.label(paths)}: {item.severity.value}[{item.rule}]: {item.body(paths)}")
    return (
        f"    <testcase {attrs}>\n"
        f"      <{tag} type={xml_attr(item.rule)} message={xml_attr(item.message)}>{body}</{tag}>\n"
        "    </testcase>"
    )


def _usage_case(report: Report, message: str) -> str:
    name = f"opset {report.command}: usage error"
    return (
        f'    <testcase classname={xml_attr(f"opset.{report.command}")} name={xml_attr(name)} time="0">\n'
        f'      <error type="usage" message={xml_attr(message)}>{xml_text(message)}</error>\n'
        "    </testcase>"
    )


def render_junit(report: Report) -> str:
    cases = [_case(report, item) for item in report.items]
    cases += [_usage_case(report, message) for message in report.usage_errors]
    failures = sum(1 for item in report.items if item.failing and not item.error and not item.skipped)
    skipped = sum(1 for item in report.items if item.skipped)
    errors = sum(1 for item in report.items if item.error) + len(report.usage_errors)
    if not cases:
        name = f"opset {report.command}: no findings"
        cases.append(
            f'    <testcase classname={xml_attr(f"opset.{report.command}")} name={xml_attr(name)} time="0"/>'
        )
    suite = f"opset {report.command}"
    counts = f'tests="{len(cases)}" failures="{failures}" errors="{errors}"'
    properties = "".join(
        f"\n      <property name={xml_attr(k)} value={xml_attr(v)}/>"
        for k, v in sorted(report.properties.items())
    )
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<testsuites>",
        f'  <testsuite name={xml_attr(suite)} package="opset" id="0" timestamp="{_timestamp()}" '
        f'hostname={xml_attr(_hostname())} {counts} skipped="{skipped}" time="0">',
        f"    <properties>{properties}\n    </properties>" if properties else "    <properties/>",
        *cases,
        f"    <system-out>{xml_text(report.summary)}</system-out>",
        "    <system-err/>",
        "  </testsuite>",
        "</testsuites>",
    ]
    return "\n".join(lines) + "\n"
