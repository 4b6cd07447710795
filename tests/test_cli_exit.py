"""The `opset` command (`toolkit.cli.run`) exits through the interpreter's own teardown, with the
collector off and what is alive frozen: what is registered at exit runs, everything printed or
written is flushed, the exit code is kept, and output nobody reads any more is dropped quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

RUN = "import sys; from toolkit.cli import run; sys.argv = ['opset', *sys.argv[1:]]; {setup}; run()"


def _opset(*args: str, setup: str = "pass") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUN.format(setup=setup), *args], capture_output=True, text=True, cwd=REPO
    )


def test_exit_codes_and_all_output_survive_the_exit() -> None:
    listed = _opset("rules")
    assert listed.returncode == 0
    in_process = subprocess.run(
        [sys.executable, "-c", "from toolkit.cli import main; raise SystemExit(main(['rules']))"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert listed.stdout == in_process.stdout and listed.stdout.count("\n") > 100
    usage = _opset("validate", "--no-such-option")
    assert usage.returncode == 2 and "unrecognized arguments" in usage.stderr
    findings = _opset("validate", "tests/bad_inputs/does-not-exist")
    assert findings.returncode in (1, 2) and findings.stderr


def test_functions_registered_at_exit_still_run() -> None:
    done = _opset("--version", setup="import atexit; atexit.register(print, 'cleaned up')")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "cleaned up"


def test_files_left_open_are_flushed_at_exit(tmp_path: Path) -> None:
    """Teardown is the interpreter's: a file a command (or a plugin) left open and unflushed is
    written out, as in any Python program (a bare `os._exit` would lose it)."""
    kept = tmp_path / "kept.txt"
    done = _opset("rules", setup=f"left_open = open({str(kept)!r}, 'w'); left_open.write('every byte')")
    assert done.returncode == 0
    assert kept.read_text() == "every byte"


def test_output_nobody_reads_is_dropped_quietly() -> None:
    """`opset rules | head -1`: the reader is gone before the command has printed everything."""
    setup = "import toolkit.cli.rules_command as r; r.run_rules = lambda a: (print('x' * 1_000_000), 0)[1]"
    process = subprocess.Popen(
        [sys.executable, "-c", RUN.format(setup=setup), "rules"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(1) == b"x"
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""  # no "Exception ignored ... BrokenPipeError"


def test_the_console_script_and_module_use_run() -> None:
    text = (REPO / "pyproject.toml").read_text()
    assert 'opset = "toolkit.cli:run"' in text
    assert "run()" in (REPO / "toolkit" / "__main__.py").read_text()


def test_an_os_error_without_a_file_name_reads_cleanly_and_sigint_is_130() -> None:
    """A nameless OSError (ENOSPC from a write) is `opset: error: <reason>`, not `: <reason>`;
    Ctrl-C is exit 130 with one line, as the exit-code contract in the README says."""
    nospace = "import errno, toolkit.cli.rules_command as r; r.run_rules = lambda a: (_ for _ in ()).throw(OSError(errno.ENOSPC, 'No space left on device'))"
    full = _opset("rules", setup=nospace)
    assert full.returncode == 2
    assert full.stderr == "opset: error: No space left on device\n"
    interrupted = _opset(
        "rules",
        setup="import toolkit.cli.rules_command as r; r.run_rules = lambda a: (_ for _ in ()).throw(KeyboardInterrupt())",
    )
    assert (interrupted.returncode, interrupted.stderr) == (130, "opset: interrupted\n")
