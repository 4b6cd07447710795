"""Structural conformance of the generated Operators.md / Changelog.md with onnx's own generator.

`python -m onnx.defs.gen_doc` writes Operators.md, Changelog.md and their `-ml` twins into the
onnx source tree's `docs/` folder, located from the module's `__file__`. The test runs exactly its
`__main__` sequence in a subprocess with `__file__` pointing into a temp dir, then compares, for
every operator and every version: the versions, attribute names / types / defaults, inputs and
outputs with their tags and arity, and the type constraints.
"""

from __future__ import annotations

import ast
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolkit.generate.docs import render_docs
from toolkit.model.types import canonical_type

pytest.importorskip("onnx")

GEN_DOC = """
import os, sys, warnings
warnings.simplefilter("ignore")
import onnx.defs.gen_doc as gen_doc
root = os.path.abspath(sys.argv[1])
# gen_doc.main writes to <dirname^3(__file__)>/docs; point that at the temp dir.
gen_doc.__file__ = os.path.join(root, "onnx", "defs", "gen_doc.py")
os.makedirs(os.path.join(root, "docs"), exist_ok=True)
if gen_doc.ONNX_ML:
    gen_doc.main(gen_doc.Args("Operators-ml.md", "Changelog-ml.md"))
gen_doc.main(gen_doc.Args("Operators.md", "Changelog.md"))
"""

Key = tuple[str, str, int]  # (display domain, op, since_version)


def split_types(text: str) -> list[str]:
    """`tensor(float), map(int64, float)` -> two types (commas inside parentheses stay)."""
    out, depth, current = [], 0, ""
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        out.append(current.strip())
    return out


def _number(text: str) -> Any:
    text = text.strip().strip("()")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def same_default(ours: str, theirs: str) -> bool:
    """Our `default is `V`` against gen_doc's `default is V` (np.round(v, 5), lists of str)."""
    mine = ast.literal_eval(ours) if ours.startswith(("[", '"')) else _number(ours)
    if theirs.startswith("["):
        other: Any = [_number(v) for v in ast.literal_eval(theirs)]
    else:
        other = _number(theirs)
    if isinstance(mine, list) and isinstance(other, list):
        return len(mine) == len(other) and all(_close(a, b) for a, b in zip(mine, other, strict=True))
    return _close(mine, other)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)
    return str(a) == str(b)


# --------------------------------------------------------------------------- gen_doc side

ONNX_HEADING = re.compile(r'^### (?:<sub>experimental</sub> )?<a name="([^"]+)"></a>', re.M)
ONNX_ATTR = re.compile(r"<dt><tt>([^<]+)</tt> : ([a-z_ ]+?)(?: \((.*)\))?</dt>")
ONNX_PARAM = re.compile(r"<dt><tt>([^<]+)</tt>(?: \(([^)]*)\))? : (.+)</dt>")
ONNX_SECTION = re.compile(r"^#### (Attributes|Inputs|Outputs|Type Constraints)(.*)$", re.M)


def parse_onnx_body(body: str) -> dict[str, Any]:
    out: dict[str, Any] = {"deprecated": "has been deprecated" in body}
    for name, arity, text in _sections(body, ONNX_SECTION):
        if name == "Attributes":
            out[name] = [(n, t, _onnx_option(o or "")) for n, t, o in ONNX_ATTR.findall(text)]
        elif name in ("Inputs", "Outputs"):
            out[name] = [(n, tags or "", t) for n, tags, t in ONNX_PARAM.findall(text)]
            out[name + " arity"] = arity.strip().replace("&#8734;", "∞")
        else:
            # gen_doc prints onnx's schema spelling (`map(int64, float)`); ours is canonical
            # (`map(int64, tensor(float))`, toolkit.model.types): one type, compared canonically
            out[name] = [
                (n, [canonical_type(x) for x in split_types(t)]) for n, _tags, t in ONNX_PARAM.findall(text)
            ]
    return out


def _onnx_option(text: str) -> str:
    if text.startswith("default is "):
        return "default:" + text[len("default is ") :]
    return text or "optional"


def _sections(body: str, pattern: re.Pattern[str]) -> list[tuple[str, str, str]]:
    marks = list(pattern.finditer(body))
    return [
        (m.group(1), m.group(2), body[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(body)])
        for i, m in enumerate(marks)
    ]


def parse_onnx_changelog(text: str) -> dict[Key, dict[str, Any]]:
    out = {}
    heads = list(ONNX_HEADING.finditer(text))
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        body = text[head.end() : end].split("\n## ", 1)[0].split("\n# ", 1)[0]
        full, _, since = head.group(1).rpartition("-")
        domain, _, op = full.rpartition(".")
        out[(domain or "ai.onnx", op, int(since))] = parse_onnx_body(body)
    return out


ONNX_INDEX_ROW = re.compile(r'^\|(?:<sub>experimental</sub> )?<a href="#([^"]+)">[^|]*\|([^|]*)\|', re.M)


def parse_onnx_index(text: str) -> dict[tuple[str, str], list[int]]:
    out = {}
    for full, versions in ONNX_INDEX_ROW.findall(text):
        domain, _, op = full.rpartition(".")
        out[(domain or "ai.onnx", op)] = [int(v) for v in re.findall(r">(\d+)</a>", versions)]
    return out


# --------------------------------------------------------------------------- our side

OUR_HEADING = re.compile(r'^### <a id="([^"]+)"></a>', re.M)
OUR_SECTION = re.compile(r"^#### (Attributes|Inputs|Outputs|Type Constraints)(.*)$", re.M)
CELL_SPLIT = re.compile(r"(?<!\\) \| ")
CODE = re.compile(r"`([^`]+)`")


def _rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith(("| Name ", "| Type parameter ")):
            rows.append(CELL_SPLIT.split(line[2:-2]))
    return rows


def parse_our_body(body: str, section: re.Pattern[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"deprecated": "has been deprecated" in body}
    for name, arity, text in _sections(body, section):
        rows = _rows(text)
        if name == "Attributes":
            out[name] = [(r[0].strip("`"), r[1], _our_option(r[2])) for r in rows]
        elif name in ("Inputs", "Outputs"):
            tags = [
                ", ".join(t for t in r[2].split(", ") if t and not t.startswith("at least")) for r in rows
            ]
            out[name] = [(r[0].strip("`"), tag, r[1].strip("`")) for r, tag in zip(rows, tags, strict=True)]
            out[name + " arity"] = arity.strip()
        else:
            out[name] = [(r[0].strip("`"), CODE.findall(r[1])) for r in rows]
    return out


def _our_option(text: str) -> str:
    if text.startswith("default is "):
        return "default:" + CODE.findall(text)[0]
    return text


def parse_our_changelog(domain: str, text: str) -> dict[Key, dict[str, Any]]:
    out = {}
    heads = [h for h in OUR_HEADING.finditer(text)]
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        body = text[head.end() : end].split("\n## ", 1)[0]
        op, _, since = head.group(1).rpartition("-")
        out[(domain, op, int(since))] = parse_our_body(body, OUR_SECTION)
    return out


OUR_INDEX_ROW = re.compile(r"^\| \[(\w+)\]\(#\w+\) \| (.*?) \| ", re.M)


def parse_our_index(domain: str, text: str) -> dict[tuple[str, str], list[int]]:
    return {
        (domain, op): [int(v) for v in re.findall(r"\[(\d+)\]\(Changelog", versions)]
        for op, versions in OUR_INDEX_ROW.findall(text)
    }


# --------------------------------------------------------------------------- the test


@pytest.fixture(scope="module")
def gen_doc_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gen_doc")
    subprocess.run([sys.executable, "-c", GEN_DOC, str(root)], check=True, capture_output=True, timeout=300)
    return root / "docs"


def compare_version(key: Key, ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    problems = []
    if theirs["deprecated"]:
        # gen_doc prints nothing but the Version section for deprecated versions.
        return [] if ours["deprecated"] else [f"{key}: gen_doc says deprecated, we do not"]
    for section in ("Attributes", "Inputs", "Outputs", "Type Constraints", "Inputs arity", "Outputs arity"):
        mine, other = (
            ours.get(section, [] if "arity" not in section else ""),
            theirs.get(section, [] if "arity" not in section else ""),
        )
        if section == "Attributes":
            same = len(mine) == len(other) and all(
                a[:2] == b[:2]
                and (
                    a[2] == b[2]
                    or (
                        a[2].startswith("default:")
                        and b[2].startswith("default:")
                        and same_default(a[2][8:], b[2][8:])
                    )
                )
                for a, b in zip(mine, other, strict=True)
            )
        else:
            same = mine == other
        if not same:
            problems.append(f"{key} {section}: ours {mine!r} != gen_doc {other!r}")
    return problems


@pytest.mark.report
def test_operators_and_changelog_match_gen_doc(onnx_registry: Any, gen_doc_output: Path) -> None:
    pages = render_docs(onnx_registry)
    theirs: dict[Key, dict[str, Any]] = {}
    their_index: dict[tuple[str, str], list[int]] = {}
    for stem in ("Changelog", "Changelog-ml"):
        theirs.update(parse_onnx_changelog((gen_doc_output / f"{stem}.md").read_text(encoding="utf-8")))
    for stem in ("Operators", "Operators-ml"):
        their_index.update(parse_onnx_index((gen_doc_output / f"{stem}.md").read_text(encoding="utf-8")))

    ours: dict[Key, dict[str, Any]] = {}
    our_index: dict[tuple[str, str], list[int]] = {}
    for domain in sorted({key[0] for key in theirs}):
        ours.update(parse_our_changelog(domain, pages[f"{domain}/Changelog.md"]))
        our_index.update(parse_our_index(domain, pages[f"{domain}/Operators.md"]))

    assert set(ours) == set(theirs), (sorted(set(ours) ^ set(theirs)))[:20]
    problems = [p for key in sorted(theirs) for p in compare_version(key, ours[key], theirs[key])]
    assert not problems, "\n".join(problems[:30])

    # Operators.md index: every operator gen_doc lists, with the same versions (newest first).
    # gen_doc groups an operator's versions by support level and keeps one group per name, so an
    # operator whose first versions were experimental (Upsample-1) loses them from its row; we
    # list every version. Those extra versions must be exactly the experimental ones.
    assert their_index, "gen_doc's operator index was not parsed"
    index_problems = []
    for (domain, op), versions in sorted(their_index.items()):
        mine = our_index.get((domain, op), [])
        extra = [v for v in mine if v not in versions]
        experimental = [v.since_version for v in onnx_registry.versions(op, domain) if v.experimental]
        if [v for v in mine if v in versions] != versions or any(v not in experimental for v in extra):
            index_problems.append(f"{op}: ours {mine} != gen_doc {versions}")
    assert not index_problems, "\n".join(index_problems[:30])
    operators = {key[:2] for key in theirs}
    compared = sum(1 for v in theirs.values() if not v["deprecated"])
    print(
        f"\ncompared {len(operators)} operators, {len(theirs)} operator versions "
        f"({compared} field by field), {len(their_index)} index rows with gen_doc"
    )
    assert len(operators) >= 200 and len(theirs) >= 600
