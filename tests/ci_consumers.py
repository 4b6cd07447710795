"""The real consumers of the CI reports, fetched at test time from maintained packages (nothing
of theirs is committed here), and the documented rules we check reports against.

- SARIF: Microsoft's SARIF Multitool (npm `@microsoft/sarif-multitool`, MIT), run as
  `validate --rule-kind Gh;Sarif`: the SARIF SDK's own rules plus GitHub code scanning's upload
  rules. Its Linux package ships the SARIF 2.1.0 JSON schema (`sarif-2.1.0.json`), which we
  validate against with jsonschema.
- JUnit: the Jenkins xunit-plugin `junit-10.xsd` (MIT) as pytest's source distribution ships
  it (`testing/example_scripts/junit-10.xsd`, the schema pytest validates its own JUnit XML
  against), downloaded with pip; and the strict Ant JUnit schema's requirements, checked by
  `ant_junit_problems` (that XSD is in no maintained package).
- GitHub workflow commands: a parser written from GitHub's documented format and escaping
  (`::name key=value,key=value::data`; data escapes `%`, CR, LF; property values also `:` `,`).

Downloads go to a cache folder (`OPSET_TEST_TOOLS`, default ~/.cache/opset-toolkit-tests) so a
second run is offline. Without the registries (offline), the tests that need them are skipped,
except under CI (`CI` set), where that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

MULTITOOL = "@microsoft/sarif-multitool-linux"
MULTITOOL_VERSION = "5.7.0"
PYTEST_SDIST = "pytest==9.2.0"
JUNIT_XSD_MEMBER = "testing/example_scripts/junit-10.xsd"


def tools_dir() -> Path:
    root = Path(os.environ.get("OPSET_TEST_TOOLS") or Path.home() / ".cache" / "opset-toolkit-tests")
    root.mkdir(parents=True, exist_ok=True)
    return root


def _unavailable(what: str, detail: str) -> None:
    message = f"{what} could not be fetched: {detail.strip()[-400:]}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def sarif_multitool() -> Path:
    """The folder of the Linux SARIF Multitool package (the binary and the schema beside it)."""
    prefix = tools_dir() / f"sarif-multitool-{MULTITOOL_VERSION}"
    package = prefix / "node_modules" / "@microsoft" / "sarif-multitool-linux"
    if not (package / "Sarif.Multitool").is_file():
        if shutil.which("npm") is None:
            _unavailable("the SARIF Multitool", "npm is not installed")
        proc = subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--no-save",
                f"{MULTITOOL}@{MULTITOOL_VERSION}",
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if proc.returncode != 0 or not (package / "Sarif.Multitool").is_file():
            _unavailable("the SARIF Multitool", proc.stderr or proc.stdout)
    binary = package / "Sarif.Multitool"
    binary.chmod(binary.stat().st_mode | 0o100)  # npm may skip the package's chmod postinstall
    return package


def sarif_schema() -> dict[str, Any]:
    schema = json.loads((sarif_multitool() / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert "SARIF" in schema.get("title", "") and "2.1.0" in schema["title"]
    return schema  # type: ignore[no-any-return]


def multitool_validate(files: list[Path], out: Path) -> list[dict[str, Any]]:
    """The results of `Sarif.Multitool validate --rule-kind Gh;Sarif` over `files`: one per
    problem, each with ruleId, level and the formatted message."""
    binary = sarif_multitool() / "Sarif.Multitool"
    command = [str(binary), "validate", "--rule-kind", "Gh;Sarif", "-o", str(out), *map(str, files)]
    # Some SARIF rules try the network; without one (a network namespace) they give up at once.
    if (
        shutil.which("unshare")
        and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    ):
        command = ["unshare", "-n", *command]
    if out.exists():
        out.unlink()
    proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert out.is_file(), proc.stdout + proc.stderr
    log = json.loads(out.read_text(encoding="utf-8-sig"))
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"].get("rules", [])}
    found = []
    for result in run.get("results", []):
        rule = rules.get(result["ruleId"], {})
        template = rule.get("messageStrings", {}).get(result["message"].get("id", ""), {}).get("text", "")
        text = result["message"].get("text") or _format(template, result["message"].get("arguments", []))
        locations = result.get("locations") or [{}]
        uri = locations[0].get("physicalLocation", {}).get("artifactLocation", {}).get("uri", "")
        found.append(
            {
                "ruleId": result["ruleId"],
                "level": result.get("level", "warning"),
                "message": text,
                "file": uri.rsplit("/", 1)[-1],
            }
        )
    return found


def _format(template: str, arguments: list[str]) -> str:
    return re.sub(r"\{(\d+)\}", lambda m: arguments[int(m.group(1))], template)


def junit_xsd() -> Path:
    """The Jenkins xunit junit-10.xsd from pytest's sdist (pip download, cached)."""
    target = tools_dir() / "junit-10.xsd"
    if target.is_file():
        return target
    downloads = tools_dir() / "sdist"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-q",
            "-d",
            str(downloads),
            PYTEST_SDIST,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    archives = sorted(downloads.glob("pytest-*.tar.gz"))
    if not archives:
        _unavailable("pytest's source distribution", proc.stderr or proc.stdout)
    with tarfile.open(archives[-1]) as tar:
        member = next((m for m in tar.getmembers() if m.name.endswith(JUNIT_XSD_MEMBER)), None)
        assert member is not None, f"{archives[-1]} has no {JUNIT_XSD_MEMBER}"
        data = tar.extractfile(member)
        assert data is not None
        target.write_bytes(data.read())
    return target


def junit_xsd_with_location(strict: Path) -> str:
    """The strict schema plus exactly the two attributes CI readers take a location from
    (`file`, `line` on `testcase`): everything else stays as strict as the original."""
    text = strict.read_text(encoding="utf-8")
    anchor = '<xs:attribute name="group" type="xs:string"/>\n        </xs:complexType>\n    </xs:element>\n\n    <xs:element name="testsuite">'
    assert anchor in text, "the junit-10.xsd layout changed; update the test"
    extra = (
        '<xs:attribute name="file" type="xs:string"/><xs:attribute name="line" type="xs:positiveInteger"/>'
    )
    return text.replace(anchor, extra + anchor, 1)


def ant_junit_problems(
    xml: str, extra_case_attributes: frozenset[str] = frozenset({"file", "line"})
) -> list[str]:
    """The strict Ant JUnit schema's requirements (the Apache Ant JUnit XML schema published by
    Windy Road, Apache-2.0; no maintained package ships it, so its rules are checked here rather
    than its text copied): `testsuites` without attributes holding `testsuite`s with the required
    name, package, id, timestamp (no zone), hostname, tests, failures, errors, time; children in
    the order properties, testcase*, system-out, system-err; each testcase with name, classname
    and time and at most one of skipped/error/failure, whose `type` is required."""
    import xml.etree.ElementTree as ET

    problems: list[str] = []
    root = ET.fromstring(xml)
    if root.tag != "testsuites" or root.attrib:
        problems.append(
            f"root: <{root.tag}> with {sorted(root.attrib)} (want <testsuites> without attributes)"
        )
    suite_required = {"name", "package", "id", "timestamp", "hostname", "tests", "failures", "errors", "time"}
    for n, suite in enumerate(root):
        where = f"testsuite[{n}]"
        if suite.tag != "testsuite":
            problems.append(f"{where}: <{suite.tag}>")
            continue
        attrs = set(suite.attrib)
        if suite_required - attrs or attrs - suite_required - {"skipped"}:
            problems.append(f"{where}: attributes {sorted(attrs)}")
        if not re.fullmatch(
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}", suite.get("timestamp", "")
        ):
            problems.append(f"{where}: timestamp {suite.get('timestamp')!r}")
        for key in ("tests", "failures", "errors", "id"):
            if not re.fullmatch(r"-?[0-9]+", suite.get(key, "")):
                problems.append(f"{where}: {key} {suite.get(key)!r} is not an int")
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", suite.get("time", "")):
            problems.append(f"{where}: time {suite.get('time')!r} is not a decimal")
        tags = [child.tag for child in suite]
        if (
            tags[:1] != ["properties"]
            or tags[-2:] != ["system-out", "system-err"]
            or set(tags[1:-2]) - {"testcase"}
        ):
            problems.append(f"{where}: children {tags}")
        for prop in suite.iterfind("properties/property"):
            if not prop.get("name") or "value" not in prop.attrib:
                problems.append(f"{where}: property {prop.attrib}")
        for i, case in enumerate(suite.iterfind("testcase")):
            here = f"{where}.testcase[{i}]"
            attrs = set(case.attrib) - extra_case_attributes
            if attrs != {"name", "classname", "time"}:
                problems.append(f"{here}: attributes {sorted(case.attrib)}")
            children = list(case)
            if len(children) > 1 or any(c.tag not in ("skipped", "error", "failure") for c in children):
                problems.append(f"{here}: children {[c.tag for c in children]}")
            for child in children:
                if child.tag != "skipped" and "type" not in child.attrib:
                    problems.append(f"{here}: <{child.tag}> without type")
                if set(child.attrib) - {"type", "message"}:
                    problems.append(f"{here}: <{child.tag}> attributes {sorted(child.attrib)}")
    return problems


# --------------------------------------------------------------------------- GitHub workflow commands

_COMMAND = re.compile(r"^::(?P<name>[a-z-]+)(?: (?P<props>[^:]*))?::(?P<data>.*)$")


def _unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _unescape_property(text: str) -> str:
    return (
        text.replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%")
    )


def parse_workflow_commands(output: str) -> list[dict[str, str]]:
    """Each `::command k=v,...::data` line as a dict (`command`, the properties, `message`);
    other lines are log output. Raises on a line that starts with `::` but does not parse."""
    commands = []
    for line in output.splitlines():
        if not line.startswith("::"):
            continue
        match = _COMMAND.match(line)
        assert match, f"not a workflow command: {line!r}"
        entry = {"command": match["name"], "message": _unescape_data(match["data"])}
        for prop in filter(None, (match["props"] or "").split(",")):
            key, eq, value = prop.partition("=")
            assert eq, f"property without '=' in {line!r}"
            entry[key] = _unescape_property(value)
        commands.append(entry)
    return commands


# --------------------------------------------------------------------------- GitHub's SARIF upload rules


def github_upload_problems(log: dict[str, Any], root: Path) -> list[str]:
    """GitHub code scanning's documented requirements for an uploaded SARIF file, checked here
    besides the Multitool's GH rules: ruleId and message text on every result, a physical
    location with a region (startLine) on every result, URIs relative to a uriBaseId that
    `originalUriBaseIds` defines (or absolute `file:` URIs), every result's rule in the driver
    with name, descriptions and help; relative URIs must name files that exist under the root."""
    problems: list[str] = []
    for r, run in enumerate(log["runs"]):
        driver = run["tool"]["driver"]
        rules = {rule["id"]: rule for rule in driver.get("rules", [])}
        bases = run.get("originalUriBaseIds", {})
        for rule in rules.values():
            for key in ("name", "shortDescription", "fullDescription", "help"):
                if not rule.get(key):
                    problems.append(f"rule {rule['id']}: no {key}")
        for i, result in enumerate(run.get("results", [])):
            where = f"runs[{r}].results[{i}]"
            if not result.get("ruleId"):
                problems.append(f"{where}: no ruleId")
            elif result["ruleId"] not in rules:
                problems.append(f"{where}: rule {result['ruleId']} not in the driver's rules")
            if not result.get("message", {}).get("text"):
                problems.append(f"{where}: no message.text")
            locations = result.get("locations") or []
            if not locations:
                problems.append(f"{where}: no location")
            for j, location in enumerate(locations + result.get("relatedLocations", [])):
                physical = location.get("physicalLocation")
                if physical is None:
                    problems.append(f"{where} location {j}: no physicalLocation")
                    continue
                if not physical.get("region", {}).get("startLine"):
                    problems.append(f"{where} location {j}: no region.startLine")
                artifact = physical["artifactLocation"]
                uri = artifact["uri"]
                if re.search(r"[^A-Za-z0-9\-._~/%:]", uri) or re.search(r"%(?![0-9A-F]{2})", uri):
                    problems.append(f"{where} location {j}: URI not RFC 3986 encoded: {uri}")
                base = artifact.get("uriBaseId")
                if base is None:
                    if not uri.startswith("file:///"):
                        problems.append(f"{where} location {j}: relative URI without uriBaseId: {uri}")
                elif base not in bases:
                    problems.append(f"{where} location {j}: uriBaseId {base} not in originalUriBaseIds")
                elif base == "%SRCROOT%" and j < len(locations):
                    from urllib.parse import unquote

                    if not (root / unquote(uri)).is_file():
                        problems.append(f"{where}: {uri} is not a file under the repository root")
    return problems
