"""CLI fuzzer: random valid spec trees and random damage to them, against the CLI's contract.

Each example (strategies in tests/fuzz_specs.py and tests/fuzz_mutations.py) writes a spec tree
to a temp folder and runs the CLI in-process (`toolkit.cli.main`): `validate`, `show` and
`inventory` on one operator, `diff` against the valid tree the mutation started from, and, when
validate passes, `generate` into a temp folder and an import of every module of the generated
Python package in a subprocess. The contract asserted on each run:

- exit status 0, 1 or 2 only (3 is "internal error");
- no `Traceback` and no `internal error` in the output;
- every line that looks like a diagnostic matches `path:line:col: severity[RULE]: message`, names
  a registered rule, and points into the spec tree, at a line the file has (a quoted name cannot
  forge a line);
- `diff` of a valid tree against itself exits 0;
- validate exit 1 prints at least one located error;
- validate exit 0 means generate exits 0 and the generated package imports;
- each example stays within the hypothesis deadline (DEADLINE_MS).

One test per mutation kind (fuzz_mutations.MUTATIONS). Violations of a class of bug still open when
this was written are recognised by KNOWN_FAILING (mutation + output signature): the example is
let through and the test ends as xfail naming the class; any other violation fails the test.
Fixed classes simply stop matching.

Budget. By default the whole file draws DEFAULT_TOTAL examples, derandomized (the same ones on
every run), so it is quick and deterministic in CI. A long, random run:

    OPSET_FUZZ_EXAMPLES=2000 python -m pytest -q tests/test_fuzz_cli.py

(N examples in total, spread over the kinds; add `-k huge_int` for one kind,
`-p no:cacheprovider` to keep the hypothesis database out of the way). With
`OPSET_FUZZ_LOG=/tmp/fuzz.jsonl` every contract violation is appended to that file as one JSON
line (kind, mutation, files, command, output) and the run goes on instead of stopping at the
first one, which is how to collect the distinct failure classes of a long run. A long run
shrinks failures to a minimal example; the default run does not (shrinking reruns the CLI
hundreds of times). `OPSET_FUZZ_DEADLINE_MS` changes the per-example deadline (default 10 s;
an example normally takes well under one second).

Memory: the inputs stay small (a few KiB per file, nesting at most a few thousand levels), the
generated-package import runs in a subprocess under a 2 GiB address-space limit, and special
files that could be read without end (FIFOs, /dev/zero) are tried only in a subprocess with a
time and memory limit (test_special_files_are_refused_in_bounded_time_and_memory).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from fuzz_mutations import MUTATIONS, mutated_trees
from fuzz_specs import FuzzCase
from hypothesis import HealthCheck, Phase, given, note, settings

from toolkit.cli import main
from toolkit.generate.python import PACKAGE
from toolkit.model.rules import CATALOG

DEFAULT_TOTAL = 48
LONG_TOTAL = int(os.environ.get("OPSET_FUZZ_EXAMPLES", "0") or 0)
PER_KIND = max(2, -(-(LONG_TOTAL or DEFAULT_TOTAL) // len(MUTATIONS)))
DEADLINE_MS = int(os.environ.get("OPSET_FUZZ_DEADLINE_MS", "10000"))
LOG = os.environ.get("OPSET_FUZZ_LOG", "")

# Violations of a class that is still open when this was written, recognised by the mutation and
# the output (never by the kind alone: anything else a kind breaks still fails). A test that
# meets one of these ends as xfail naming the class; once fixed, they stop matching and the test
# passes. Remove an entry when its class is fixed. The classes of issue #11 (RecursionError on
# deep nesting, raw names forging lines, out-of-range integers, NaN defaults, names colliding with
# the generated package, special files) were all fixed before this file was committed; a
# violation of any of them fails the test.
KNOWN_FAILING: dict[str, tuple[str, Callable[[FuzzCase, list[str], str, str], bool]]] = {
    # (a YAML syntax error at the end of a file was located past its last line: fixed)
}
KNOWN_SEEN: set[str] = set()

DIAG = re.compile(
    r"^(?P<path>\S.*?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info)\[(?P<rule>[A-Z0-9-]+)\]: "
)
LOOKS_LIKE_DIAG = re.compile(r"(error|warning|info)\[")

IMPORT_CHECK = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    pkg = importlib.import_module(sys.argv[1])
    for mod in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(mod.name)
    for domain, versions, ops in json.loads(sys.argv[2]):
        for version in versions:
            pkg.opset(domain, version)
        for op, since in ops:
            for version in since:
                pkg.schema(domain, op, version)
    """
)


@pytest.fixture(scope="module", autouse=True)
def _no_caches() -> object:
    """The fuzzer must see the loader, not a cache entry of an earlier example."""
    old = os.environ.get("OPSET_TOOLKIT_NO_CACHE")
    os.environ["OPSET_TOOLKIT_NO_CACHE"] = "1"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(["rules"])  # imports and registers every rule family before the first deadline
    yield
    if old is None:
        os.environ.pop("OPSET_TOOLKIT_NO_CACHE", None)
    else:
        os.environ["OPSET_TOOLKIT_NO_CACHE"] = old


def write_tree(root: Path, files: dict[str, object]) -> None:
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, bytes):
            path.write_bytes(value)
        elif isinstance(value, tuple) and value[0] == "symlink":
            os.symlink(str(value[1]), path)
        elif isinstance(value, tuple) and value[0] == "dir":
            path.mkdir(exist_ok=True)
        elif isinstance(value, tuple) and value[0] == "unreadable":
            path.write_bytes(value[1])
            path.chmod(0)
        else:  # pragma: no cover
            raise TypeError(rel)


def unlock(root: Path) -> None:
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            if not p.is_symlink():
                p.chmod(stat.S_IRUSR | stat.S_IWUSR)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


class Violation(AssertionError):
    pass


def check_contract(argv: list[str], code: int, out: str, err: str, *roots: Path) -> None:
    """Raise Violation when one run of the CLI breaks the contract."""
    text = out + err
    if code not in (0, 1, 2):
        raise Violation(f"exit {code}")
    if "Traceback" in text:
        raise Violation("traceback in the output")
    if "internal error" in text:
        raise Violation("internal error")
    # Diagnostic lines: stderr always; stdout of validate (text) too. Other commands' stdout is
    # content (docs, tables) that may legitimately quote such words.
    lines = err.splitlines() + (out.splitlines() if argv[0] in ("validate", "diff") else [])
    # Lexical paths, no resolve(): a diagnostic may name a symlink loop.
    real_roots = tuple(os.path.abspath(root) + os.sep for root in roots)
    for line in lines:
        if not LOOKS_LIKE_DIAG.search(line) or line.startswith(" "):
            continue
        match = DIAG.match(line)
        if match is None:
            raise Violation(f"malformed diagnostic line: {line!r}")
        if match["rule"] not in CATALOG:
            raise Violation(f"diagnostic names an unregistered rule (forged line?): {line!r}")
        where = match["path"]
        if "\\" in where:  # an escaped path: cannot be looked up
            continue
        if not os.path.abspath(where).startswith(real_roots):
            raise Violation(f"diagnostic points outside the spec tree (forged line?): {line!r}")
        if os.path.isfile(where) and not os.path.islink(where):
            raw = Path(where).read_bytes()
            # Every byte sequence YAML may count as a line break, so this is an upper bound.
            breaks = sum(raw.count(b) for b in (b"\n", b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"))
            if not 1 <= int(match["line"]) <= breaks + 1 or int(match["col"]) < 1:
                raise Violation(f"diagnostic points past the end of its file ({breaks + 1} lines): {line!r}")
    if (
        argv[0] == "validate"
        and code == 1
        and not any((m := DIAG.match(line)) and m["sev"] == "error" for line in lines)
    ):
        raise Violation("validate exit 1 without a located error")


def declared(case: FuzzCase) -> list[list[object]]:
    """[domain, opset versions, [[operator, since versions]...]] as the files declare them after
    the mutation (the case's own record of what it drew may be stale by then)."""
    domains: dict[str, list[int]] = {}
    ops: dict[str, list[list[object]]] = {}
    for value in case.files.values():
        if not isinstance(value, bytes):
            continue
        try:
            data = yaml.safe_load(value)
            if "opset_versions" in data:
                domains[str(data["domain"])] = [row["version"] for row in data["opset_versions"]]
            elif "versions" in data and "operator" in data:
                since = [v["since_version"] for v in data["versions"]]
                ops.setdefault(str(data["domain"]), []).append([str(data["operator"]), since])
        except Exception:  # a file the loader must refuse (RecursionError included)
            continue
    return [[d, versions, ops.get(d, [])] for d, versions in domains.items()]


def import_generated(out_dir: Path, case: FuzzCase) -> tuple[int, str]:
    plan = declared(case)
    env = {**os.environ, "PYTHONPATH": str(out_dir / "python"), "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", IMPORT_CHECK, PACKAGE, json.dumps(plan)],
            env=env, capture_output=True, text=True, timeout=60, check=False,
            preexec_fn=_limit_memory if sys.platform == "linux" else None,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return -1, "import timed out"
    return proc.returncode, proc.stderr[-3000:]


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def describe(case: FuzzCase) -> str:
    shown = []
    for rel, value in sorted(case.files.items()):
        body = value[:1500].decode("utf-8", "backslashreplace") if isinstance(value, bytes) else repr(value)
        shown.append(f"--- {rel!r}\n{body}")
    return f"kind={case.kind} mutation={case.note}\n" + "\n".join(shown)


def record(case: FuzzCase, argv: list[str], problem: str, output: str) -> None:
    """Fail the example, or with OPSET_FUZZ_LOG log the violation and go on. A violation of a
    known open class (KNOWN_FAILING) is noted instead; the test ends as xfail."""
    known = [name for name, (_why, matches) in KNOWN_FAILING.items() if matches(case, argv, problem, output)]
    if known and not LOG:
        KNOWN_SEEN.update(known)
        return
    if not LOG:
        raise Violation(f"{' '.join(argv)}: {problem}\n{output[-3000:]}\n{describe(case)}")
    entry = {
        "kind": case.kind, "mutation": case.note, "argv": argv, "problem": problem,
        "output": output[-3000:], "files": {k: describe(FuzzCase(case.kind, {k: v}, {}, [])) for k, v in case.files.items()},
    }  # fmt: skip
    with open(LOG, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def check_location(case: FuzzCase, output: str) -> None:
    """The file's errors must include one at the line the mutation damaged (not `1:1`, not a byte
    offset on a second line)."""
    assert case.expect_line is not None
    rel, line = case.expect_line
    found = [
        m
        for m in map(DIAG.match, output.splitlines())
        if m and m["sev"] == "error" and m["path"].endswith(rel)
    ]
    if found and not any(int(m["line"]) == line for m in found):
        where = ", ".join(f"{m['line']}:{m['col']} {m['rule']}" for m in found)
        record(case, ["validate"], f"{rel}: the damage is on line {line}, errors point at {where}", output)


def run_and_check(case: FuzzCase, argv: list[str], *roots: Path) -> tuple[int, str, str] | None:
    try:
        code, out, err = run_cli(argv)
    except Exception as exc:  # main must not let anything escape
        record(case, argv, f"exception escaped main: {type(exc).__name__}: {exc}", "")
        return None
    try:
        check_contract(argv, code, out, err, *roots)
    except Violation as v:
        record(case, argv, str(v), out + err)
        return None
    return code, out, err


def exercise(case: FuzzCase) -> None:
    note(describe(case))
    with tempfile.TemporaryDirectory(prefix="opset-fuzz-") as tmp:
        root = Path(tmp) / "specs"
        out_dir = Path(tmp) / "out"
        root.mkdir()
        write_tree(root, case.files)
        try:
            _exercise(case, root, out_dir)
        finally:
            unlock(root)


def _exercise(case: FuzzCase, root: Path, out_dir: Path) -> None:
    validated = run_and_check(case, ["validate", str(root)], root)
    plan = declared(case)
    first = next(((d, ops[0]) for d, _v, ops in plan if ops), None)
    if first is not None and first[1][1]:
        domain, (name, since) = first[0], first[1]
        target = f"{domain}.{name}:{since[-1]}"
    else:
        domain, target = (plan[0][0] if plan else "com.x"), "com.x.Nothing"
    shown = run_and_check(case, ["show", "--no-cache", "--specs", str(root), target], root)
    listed = run_and_check(case, ["inventory", "--no-cache", "--specs", str(root), domain], root)
    # The breaking-change gate between the valid tree and its mutation (config pinned, so that
    # the repository's own pyproject.toml plays no part).
    old = root.parent / "old"
    write_tree(old, case.original)
    config = root.parent / "empty.toml"
    config.write_text("")
    argv = ["diff", "--no-cache", "--config", str(config), "--against", str(old), "--specs", str(root)]
    gate = run_and_check(case, argv, root, old)
    if case.kind == "valid" and gate is not None and gate[0] != 0:
        record(case, argv, f"diff of a valid tree against itself exited {gate[0]}", gate[1] + gate[2])
    if validated is not None and validated[0] == 1 and case.expect_line is not None:
        check_location(case, validated[1] + validated[2])
    if validated is None:
        return
    if validated[0] != 0:
        if case.kind == "valid":  # the strategy draws valid trees only: a rejection is a finding
            record(
                case,
                ["validate"],
                f"a valid tree is rejected (exit {validated[0]})",
                validated[1] + validated[2],
            )
        return
    argv = ["generate", "--no-cache", "--quiet", "--specs", str(root), "--out", str(out_dir)]
    generated = run_and_check(case, argv, root)
    if generated is None:
        return
    if generated[0] != 0:
        record(case, argv, f"validate passed but generate exited {generated[0]}", generated[1] + generated[2])
        return
    for name, result in (("show", shown), ("inventory", listed)):
        if result is not None and result[0] != 0:
            record(
                case, [name, target], f"validate passed but {name} exited {result[0]}", result[1] + result[2]
            )
    code, output = import_generated(out_dir, case)
    if code != 0:
        record(case, ["import", PACKAGE], "validate passed but the generated package does not import", output)


FUZZ_SETTINGS = settings(
    max_examples=PER_KIND,
    deadline=DEADLINE_MS,
    derandomize=not LONG_TOTAL,
    database=None if not LONG_TOTAL else settings.default.database,
    suppress_health_check=list(HealthCheck),
    # Shrinking reruns the CLI (and an import subprocess) hundreds of times; in CI the failing
    # example as drawn is reported instead. A long run shrinks to a minimal reproducer.
    phases=tuple(Phase) if LONG_TOTAL else tuple(p for p in Phase if p is not Phase.shrink),
    print_blob=True,
)


@pytest.mark.parametrize("kind", MUTATIONS)
def test_cli_contract_holds(kind: str) -> None:
    KNOWN_SEEN.clear()

    @FUZZ_SETTINGS
    @given(case=mutated_trees(kind))
    def check(case: FuzzCase) -> None:
        exercise(case)

    check()
    if KNOWN_SEEN:
        pytest.xfail("; ".join(KNOWN_FAILING[name][0] for name in sorted(KNOWN_SEEN)))


@pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="needs POSIX special files"
)
def test_special_files_are_refused_in_bounded_time_and_memory(tmp_path: Path) -> None:
    """Issue #11 class 2. Not in the hypothesis loop: a regression here would hang or kill the test
    process, so the CLI runs in a subprocess with a time and an address-space limit."""
    domain = tmp_path / "com.acme.special"
    domain.mkdir()
    (domain / "domain.yaml").write_text(
        "domain: com.acme.special\nopset_versions: [{version: 1, ir_version: 8}]\n"
    )
    os.mkfifo(domain / "Fifo.yaml")
    os.symlink("/dev/zero", domain / "Zero.yaml")
    os.symlink("/dev/urandom", domain / "Random.yaml")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "toolkit", "validate", str(tmp_path)],
            capture_output=True, text=True, timeout=10, check=False, env={**os.environ, "OPSET_TOOLKIT_NO_CACHE": "1"},
            preexec_fn=_limit_memory if sys.platform == "linux" else None,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("validate did not finish within 10 s")
    check_contract(["validate"], proc.returncode, proc.stdout, proc.stderr, tmp_path)
    assert proc.returncode == 1
    for name in ("Fifo.yaml", "Zero.yaml", "Random.yaml"):
        assert re.search(rf"{name}:\d+:\d+: error\[FILE-READ\]", proc.stderr), proc.stderr
