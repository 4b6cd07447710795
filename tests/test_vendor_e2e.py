"""A new vendor, end to end, in a temporary folder and a fresh virtual environment (issue 15).

The toolkit is installed from a copy of this checkout (a real wheel build: packaging mistakes
such as a template or schema missing from the wheel show here) into a venv made for the test.
Its third-party dependencies come from the test's own environment through a `.pth` line
(`--no-deps --no-build-isolation`, nothing downloaded), so the step costs seconds, not minutes.
Then, as the guide tells a vendor: `opset init` -> validate -> generate -> `pip install` the
generated package and import it -> build a model with its builders -> check-model -> mypy
--strict on code using the package -> `mkdocs build --strict` with the `opset` plugin -> the
real `pre-commit run --all-files` -> a breaking edit fails `opset diff --against HEAD` with
located errors. Each step's time is printed (`pytest -s`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOMAIN = "com.newco.audio"
PACKAGE = "com_newco_audio_ops"

pytest.importorskip("mkdocs")
pytest.importorskip("onnx")
pytest.importorskip("pre_commit")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)
# --no-build-isolation builds with the test environment's setuptools: it must write wheels itself
# (70.1+) or have `wheel` beside it (the test extras bring a recent one with grpcio-tools).
_setuptools = pytest.importorskip("setuptools")
if tuple(int(p) for p in _setuptools.__version__.split(".")[:2]) < (70, 1):
    pytest.importorskip("wheel")

USE_PACKAGE = f"""\
from {PACKAGE}.com_newco_audio.opset1 import Opset1
from {PACKAGE}._runtime import TensorValue


def louder(op: Opset1, x: str) -> TensorValue:
    return op.Gain(x, gain=2.0)


print(louder(Opset1(), "x"))
"""

BUILD_MODEL = f"""\
import onnx
from onnx import TensorProto, helper

from {PACKAGE}.com_newco_audio.opset1 import Opset1

op = Opset1()
y = op.Gain("x", gain=2.0)
graph = helper.make_graph(
    op.nodes,
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info(y, TensorProto.FLOAT, [2])],
)
model = helper.make_model(
    graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("{DOMAIN}", 1)], ir_version=9
)
onnx.save(model, "model.onnx")
bad = helper.make_node("Gain", ["x"], ["z"], domain="{DOMAIN}", gian=2.0)
model.graph.node.append(bad)
onnx.save(model, "bad.onnx")
"""


class Steps:
    def __init__(self) -> None:
        self.times: list[tuple[str, float]] = []

    def run(
        self, name: str, args: list[str], cwd: Path, env: dict[str, str], expect: int = 0
    ) -> subprocess.CompletedProcess[str]:
        start = time.perf_counter()
        result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        self.times.append((name, time.perf_counter() - start))
        assert result.returncode == expect, (
            f"{name}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
        return result


@pytest.fixture(scope="module")
def steps() -> Iterator[Steps]:
    recorded = Steps()
    yield recorded
    total = sum(t for _, t in recorded.times)
    print("\nvendor end-to-end, seconds per step:")
    for name, seconds in recorded.times:
        print(f"  {seconds:6.2f}  {name}")
    print(f"  {total:6.2f}  total")


def _fresh_venv(where: Path) -> Path:
    """A new venv whose own site-packages comes first; the test environment's packages are
    reachable after it (one `.pth` line), so the toolkit is the copy installed there."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(where)
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # The test environment's site-packages folders (not PYTHONPATH: that may hold a work tree's toolkit).
    shared = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]
    Path(purelib, "test-environment.pth").write_text("".join(f"{p}\n" for p in shared), encoding="utf-8")
    return python


def _checkout_copy(where: Path) -> Path:
    """What a wheel is built from, outside the work tree (a build writes build/ and egg-info)."""
    where.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, where / name)
    shutil.copytree(REPO / "toolkit", where / "toolkit", ignore=shutil.ignore_patterns("__pycache__"))
    return where


def test_a_new_vendor_end_to_end(tmp_path: Path, steps: Steps) -> None:
    env_dir = tmp_path / "venv"
    start = time.perf_counter()
    python = _fresh_venv(env_dir)
    steps.times.append(("python -m venv (fresh, no pip)", time.perf_counter() - start))
    bin_dir = python.parent
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "OPSET_DOCS_GENERATED")
    }
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        NO_MKDOCS_2_WARNING="1",
        GIT_AUTHOR_NAME="Vendor",
        GIT_AUTHOR_EMAIL="vendor@example.com",
        GIT_COMMITTER_NAME="Vendor",
        GIT_COMMITTER_EMAIL="vendor@example.com",
        MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"),
    )
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "-q",
        "--no-deps",
        "--no-build-isolation",
    ]
    steps.run(
        "pip install the toolkit (wheel of this checkout)",
        [*pip, str(_checkout_copy(tmp_path / "src"))],
        tmp_path,
        env,
    )
    where = steps.run(
        "the toolkit is the venv's copy",
        [str(python), "-c", "import toolkit; print(toolkit.__file__)"],
        tmp_path,
        env,
    )
    assert Path(where.stdout.strip()).is_relative_to(env_dir)
    opset = str(bin_dir / "opset")

    steps.run("opset init", [opset, "init", "vendor", "--domain", DOMAIN], tmp_path, env)
    repo = tmp_path / "vendor"
    steps.run("git init", ["git", "init", "-q", "-b", "main"], repo, env)
    out = steps.run("opset validate", [opset, "validate"], repo, env)
    assert "1 operator," in out.stdout and "0 error(s), 0 warning(s)" in out.stdout
    steps.run("opset schemas --check", [opset, "schemas", "--check"], repo, env)
    steps.run("opset generate", [opset, "generate"], repo, env)
    assert (repo / "generated" / "python" / PACKAGE / "py.typed").is_file()
    assert not (repo / "generated" / "docs" / "cli.md").exists()  # the toolkit's own pages stay out
    assert not (repo / "generated" / "docs" / "dsl.md").exists()

    steps.run("pip install ./generated/python", [*pip, "./generated/python"], repo, env)
    (tmp_path / "use.py").write_text(USE_PACKAGE, encoding="utf-8")
    used = steps.run("import the installed package", [str(python), str(tmp_path / "use.py")], tmp_path, env)
    assert used.stdout.strip() == "Gain_0_Y"
    metadata = "import importlib.metadata as m; d = m.distribution('com-newco-audio-ops'); print(d.version, *d.files)"
    shown = steps.run("the installed distribution", [str(python), "-c", metadata], tmp_path, env)
    assert shown.stdout.startswith("0.1.0 ") and f"{PACKAGE}/py.typed" in shown.stdout
    steps.run(
        "mypy --strict on code using the package",
        [str(python), "-m", "mypy", "--strict", "--no-incremental", str(tmp_path / "use.py")],
        tmp_path,
        env,
    )

    (repo / "build_model.py").write_text(BUILD_MODEL, encoding="utf-8")
    steps.run("build a model with the builders", [str(python), "build_model.py"], repo, env)
    (repo / "build_model.py").unlink()
    checked = steps.run("opset check-model (clean model)", [opset, "check-model", "model.onnx"], repo, env)
    assert "0 error(s)" in checked.stdout
    bad = steps.run(
        "opset check-model (bad attribute)", [opset, "check-model", "bad.onnx"], repo, env, expect=1
    )
    assert "gian" in bad.stdout + bad.stderr
    for name in ("model.onnx", "bad.onnx"):
        (repo / name).unlink()

    steps.run(
        "mkdocs build --strict (opset plugin)", [str(python), "-m", "mkdocs", "build", "--strict"], repo, env
    )
    site = repo / "site" / "reference"
    assert (site / DOMAIN / "ops" / "Gain" / "index.html").is_file()
    assert not (site / "cli").exists() and not (site / "dsl").exists()
    shutil.rmtree(repo / "site")

    steps.run("git add + commit", ["sh", "-c", "git add -A && git commit -q -m init"], repo, env)
    hooks = steps.run(
        "pre-commit run --all-files", [str(python), "-m", "pre_commit", "run", "--all-files"], repo, env
    )
    for hook in (
        "opset (validate + breaking-change gate)",
        "opset schemas --check",
        "opset generate --check",
    ):
        assert any(line.startswith(hook) and line.endswith("Passed") for line in hooks.stdout.splitlines()), (
            hooks.stdout
        )

    gain = repo / "opsets" / DOMAIN / "Gain.yaml"
    text = gain.read_text(encoding="utf-8")
    gain.write_text(text.replace("default: 1.0", "default: 2.0"), encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "default: 1.0" in row)
    gate = steps.run(
        "opset diff --against HEAD (breaking edit)", [opset, "diff", "--against", "HEAD"], repo, env, expect=1
    )
    report = gate.stdout + gate.stderr
    assert f"opsets/{DOMAIN}/Gain.yaml:{line}:" in report and "error[ATTR-DEFAULT-CHANGED]" in report, report
    stale = steps.run(
        "pre-commit fails on the edit",
        [str(python), "-m", "pre_commit", "run", "--all-files"],
        repo,
        env,
        expect=1,
    )
    assert "opset generate --check" in stale.stdout
