"""Example files from an untrusted spec tree: bounded memory (each file read once, a byte budget
per tree that only the invoker can raise) and never a file outside the spec tree (symlinks,
FIFOs, devices, folders, `..` and absolute paths). The hostile trees are built here."""

from __future__ import annotations

import contextlib
import io
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.load.discovery import discover, display_path
from toolkit.load.example_files import BUDGET_ENV
from toolkit.load.loader import load_files, read_specs

DOMAIN = "domain: com.test.ex\nopset_versions:\n  - {version: 1, ir_version: 9}\n"
MIB = 1024 * 1024


def _npy(path: Path, elements: int, *, sparse: bool = False, fill: float = 0.0) -> None:
    """A float32 `.npy` file; `sparse`: zeros as a hole (the file takes no disk space)."""
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({elements},), }}"
    header += " " * (-(len(header) + 11) % 64) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        if sparse:
            out.truncate(out.tell() + 4 * elements)
        else:
            out.write(struct.pack(f"<{elements}f", *([fill] * elements)))


def _operator(name: str, refs: list[str]) -> str:
    inputs = ", ".join(f"{{file: {ref}}}" for ref in refs)
    return textwrap.dedent(f"""\
        operator: {name}
        domain: com.test.ex
        versions:
          - since_version: 1
            doc: Passes its inputs on.
            inputs:
              - {{name: X, type: T, option: variadic}}
            outputs:
              - {{name: Y, type: T}}
            type_constraints:
              T: {{allowed: [tensor(float)]}}
            examples:
              - name: files
                inputs: [{inputs}]
                outputs: [{{file: {refs[0]}}}]
        """)


def _tree(root: Path, operators: dict[str, list[str]]) -> Path:
    folder = root / "specs" / "com.test.ex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "domain.yaml").write_text(DOMAIN)
    for name, refs in operators.items():
        (folder / f"{name}.yaml").write_text(_operator(name, refs))
    return root / "specs"


def _column_of(line: str, index: int) -> int:
    """The 1-based column of the `index`-th `{file:` mapping's value on `line`."""
    at = -1
    for _ in range(index + 1):
        at = line.index("{file: ", at + 1)
    return at + len("{file: ") + 1


def run_cli(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


# -- memory: the 24 x 16 MiB case, in a child process whose peak RSS is measured ---------------

_MEASURE = """\
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)
sys.stdout.write(proc.stdout + proc.stderr)
sys.stdout.write(f"\\nEXIT {proc.returncode} PEAK_KIB {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n")
"""


def _validate_measured(tree: Path, *flags: str, env: dict[str, str] | None = None) -> tuple[int, int, str]:
    """`opset validate` in a fresh process: (exit code, peak RSS in bytes, output)."""
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "toolkit", "validate", *flags, str(tree)]
    environment = {k: v for k, v in os.environ.items() if k != BUDGET_ENV}
    environment.update({"OPSET_TOOLKIT_NO_CACHE": "1", **(env or {})})
    proc = subprocess.run(command, capture_output=True, text=True, check=True, env=environment, timeout=150)
    output, _, last = proc.stdout.rpartition("\nEXIT ")
    code, _, peak = last.split()
    return int(code), int(peak) * 1024, output


@pytest.fixture(scope="module")
def zeros_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One operator naming one sparse 16 MiB `.npy` of zeros 24 times (23 inputs and the output)."""
    root = tmp_path_factory.mktemp("zeros")
    _npy(root / "specs" / "com.test.ex" / "data" / "z.npy", 16 * MIB // 4, sparse=True)
    return _tree(root, {"Big": ["data/z.npy"] * 23})


def test_24_references_to_16_mib_of_zeros_are_over_the_default_budget_in_bounded_memory(
    zeros_tree: Path,
) -> None:
    code, peak, output = _validate_measured(zeros_tree)
    assert code == 1, output
    # 16 MiB + 16 MiB + 16 MiB fit the 64 MiB budget (with the headers, not a fourth): the fourth
    # reference crosses it, and is the one reported, at its `file:` value
    line = (zeros_tree / "com.test.ex" / "Big.yaml").read_text().splitlines()[13]
    where = f"Big.yaml:14:{_column_of(line, 3)}: error[EXAMPLE-BUDGET]"
    assert where in output and "--max-example-bytes" in output and output.count("EXAMPLE-BUDGET") == 1, output
    assert peak < 1024 * MIB, f"peak RSS {peak / MIB:.0f} MiB"


def test_under_a_budget_the_invoker_raises_24_references_share_one_tensor_in_bounded_memory(
    zeros_tree: Path,
) -> None:
    code, peak, output = _validate_measured(zeros_tree, "--max-example-bytes", "512M")
    assert code == 0, output
    assert "0 error(s)" in output
    assert peak < 1024 * MIB, f"peak RSS {peak / MIB:.0f} MiB"
    code, peak, output = _validate_measured(zeros_tree, env={BUDGET_ENV: str(512 * MIB)})
    assert code == 0 and peak < 1024 * MIB, output


def test_references_share_one_tensor_object_with_copies_of_the_file(tmp_path: Path) -> None:
    data = tmp_path / "specs" / "com.test.ex" / "data"
    _npy(data / "a.npy", 1000, fill=1.5)
    (data / "copy.npy").write_bytes((data / "a.npy").read_bytes())  # same content, another inode
    tree = _tree(tmp_path, {"One": ["data/a.npy", "data/a.npy"], "Two": ["data/copy.npy"]})
    result = read_specs([tree], jobs=1)
    assert not result.errors, result.diagnostics
    tensors = [
        t for op in result.specs.operators for e in op.versions[0].examples for t in (*e.inputs, *e.outputs)
    ]
    assert len(tensors) == 5 and all(t is not None and t.data == (1.5,) * 1000 for t in tensors)
    assert len({id(t.data) for t in tensors if t is not None}) == 1  # one tuple, one set of floats
    assert {t.file for t in tensors if t is not None} == {"data/a.npy", "data/copy.npy"}


def test_the_budget_holds_per_tree_with_the_forked_reader_and_gives_the_same_diagnostics(
    tmp_path: Path,
) -> None:
    _npy(tmp_path / "specs" / "com.test.ex" / "data" / "x.npy", 4096)  # 16 KiB + header
    tree = _tree(tmp_path, {f"Op{n:03}": ["data/x.npy"] for n in range(70)})  # 140 references
    files = discover([tree])
    env = {BUDGET_ENV: str(1 * MIB)}
    with _env(env):
        sequential = load_files(files, display_path, roots=[tree])
        forked = load_files(files, display_path, workers=2, roots=[tree])
    budget = [d for d in sequential.diagnostics if d.rule == "EXAMPLE-BUDGET"]
    assert len(budget) == 1 and "Op031.yaml" in budget[0].location.file  # 32 x 16.1 KiB > 1 MiB
    assert [d.format() for d in forked.diagnostics] == [d.format() for d in sequential.diagnostics]
    assert forked.specs == sequential.specs


@contextlib.contextmanager
def _env(values: dict[str, str]):  # type: ignore[no-untyped-def]
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_the_tree_config_may_lower_the_budget_but_not_raise_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    _npy(tmp_path / "specs" / "com.test.ex" / "data" / "x.npy", 1024)  # 4 KiB + header
    tree = _tree(tmp_path, {"Op": ["data/x.npy"] * 3})
    monkeypatch.chdir(tmp_path)
    (tmp_path / "opset.toml").write_text("spec_root = 'specs'\nmax_example_bytes = 8192\n")
    code, output = run_cli(["validate", str(tree)])
    assert code == 1 and "error[EXAMPLE-BUDGET]" in output and "budget of 8192 bytes" in output, output
    # the invoker's flag cannot raise what the project file lowered: the tree is not trusted
    code, output = run_cli(["validate", "--max-example-bytes", "1G", str(tree)])
    assert code == 1 and "budget of 8192 bytes" in output, output
    # and the project file cannot raise the invoker's budget
    (tmp_path / "opset.toml").write_text("spec_root = 'specs'\nmax_example_bytes = 1073741824\n")
    code, output = run_cli(["validate", "--max-example-bytes", "10k", str(tree)])
    assert code == 1 and "budget of 10240 bytes" in output, output
    code, output = run_cli(["validate", str(tree)])
    assert code == 0, output


def test_a_bad_budget_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _npy(tmp_path / "specs" / "com.test.ex" / "data" / "x.npy", 4)
    tree = _tree(tmp_path, {"Op": ["data/x.npy"]})
    code, output = run_cli(["validate", "--max-example-bytes", "lots", str(tree)])
    assert code == 2 and "not a size" in output and "Traceback" not in output
    monkeypatch.setenv(BUDGET_ENV, "-3")
    code, output = run_cli(["validate", str(tree)])
    assert code == 2 and BUDGET_ENV in output and "Traceback" not in output


def test_a_lowered_budget_is_not_answered_from_the_load_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.model.diagnostics import SpecError
    from toolkit.registry.core import load_registry

    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    _npy(tmp_path / "specs" / "com.test.ex" / "data" / "x.npy", 1024)
    tree = _tree(tmp_path, {"Op": ["data/x.npy"] * 2})
    load_registry([tree])  # cached under the default budget
    monkeypatch.setenv(BUDGET_ENV, "5000")
    with pytest.raises(SpecError) as raised:
        load_registry([tree])
    assert any(d.rule == "EXAMPLE-BUDGET" for d in raised.value.diagnostics)


def test_the_load_cache_does_not_copy_shared_example_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.load import result_cache
    from toolkit.registry.core import cache_key, load_registry

    monkeypatch.setenv("OPSET_TOOLKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("OPSET_TOOLKIT_NO_CACHE", raising=False)
    _npy(tmp_path / "specs" / "com.test.ex" / "data" / "x.npy", 1 << 18)
    tree = _tree(tmp_path, {"Op": ["data/x.npy"] * 5})  # 6 references x 256 Ki elements
    load_registry([tree])
    assert result_cache.fetch(str(cache_key([tree]))) is None  # not stored: one copy per reference
    small = _tree(tmp_path / "small", {"Op": ["data/y.npy"]})
    _npy(small / "com.test.ex" / "data" / "y.npy", 8)
    load_registry([small])
    assert result_cache.fetch(str(cache_key([small]))) is not None  # small examples are cached


# -- never outside the spec tree ----------------------------------------------------------------


def _leak_case(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A tree whose one example names `ref`, made hostile in the way `kind` says."""
    outside = tmp_path / "secret.npy"
    _npy(outside, 3, fill=42.0)
    data = tmp_path / "specs" / "com.test.ex" / "ex"
    data.mkdir(parents=True)
    ref = "ex/leak.npy"
    if kind == "symlink":
        (data / "leak.npy").symlink_to(outside)
    elif kind == "chain":  # inside -> inside -> outside
        (data / "hop.npy").symlink_to(outside)
        (data / "leak.npy").symlink_to("hop.npy")
    elif kind == "folder":  # a folder on the way is the symlink
        (tmp_path / "elsewhere").mkdir()
        _npy(tmp_path / "elsewhere" / "leak.npy", 3, fill=42.0)
        data.rmdir()
        data.symlink_to(tmp_path / "elsewhere")
    elif kind == "dev-zero":
        (data / "leak.npy").symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(data / "leak.npy")
    elif kind == "directory":
        (data / "leak.npy").mkdir()
    elif kind == "dotdot":
        ref = "../../secret.npy"
    elif kind == "absolute":
        ref = str(outside)
    elif kind == "loop":
        (data / "leak.npy").symlink_to("leak.npy")
    return _tree(tmp_path, {"Leak": [ref]}), ref


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("symlink", "leads out of the spec tree"),
        ("chain", "leads out of the spec tree"),
        ("folder", "leads out of the spec tree"),
        ("dev-zero", "leads out of the spec tree"),
        ("fifo", "a FIFO"),
        ("directory", "a directory"),
        ("dotdot", "must be a relative"),
        ("absolute", "must be a relative"),
        ("loop", "cannot read example file"),
    ],
)
def test_an_example_file_outside_the_tree_or_not_a_regular_file_is_refused(
    tmp_path: Path, kind: str, says: str
) -> None:
    tree, _ = _leak_case(tmp_path, kind)
    proc = subprocess.run(  # a child with a deadline: a FIFO opened for reading would hang
        [sys.executable, "-m", "toolkit", "validate", str(tree)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "OPSET_TOOLKIT_NO_CACHE": "1"},
    )
    line = (tree / "com.test.ex" / "Leak.yaml").read_text().splitlines()[13]
    assert proc.returncode == 1, proc.stderr
    assert f"Leak.yaml:14:{_column_of(line, 0)}: error[EXAMPLE-FILE]" in proc.stderr, proc.stderr
    assert says in proc.stderr and "hint:" in proc.stderr and "Traceback" not in proc.stderr
    assert "42.0" not in proc.stdout + proc.stderr


def test_the_outside_values_never_reach_the_generated_docs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSET_TOOLKIT_NO_CACHE", "1")
    tree, _ = _leak_case(tmp_path, "symlink")
    out = tmp_path / "out"
    code, output = run_cli(["generate", "--specs", str(tree), "--out", str(out)])
    assert code == 1 and "EXAMPLE-FILE" in output, output
    assert not out.exists() or not any(
        "42.0" in p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()
    )


def test_a_symlink_that_stays_inside_the_tree_is_read(tmp_path: Path) -> None:
    shared = tmp_path / "specs" / "shared"
    _npy(shared / "x.npy", 3, fill=2.0)
    data = tmp_path / "specs" / "com.test.ex" / "ex"
    data.mkdir(parents=True)
    (data / "x.npy").symlink_to("../../shared/x.npy")
    tree = _tree(tmp_path, {"Op": ["ex/x.npy"]})
    result = read_specs([tree], jobs=1)
    assert not result.errors, result.diagnostics
    example = result.specs.operators[0].versions[0].examples[0]
    assert example.inputs[0] is not None and example.inputs[0].data == (2.0, 2.0, 2.0)
