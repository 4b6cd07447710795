"""One set of flags (#25.5, #25.6): the shared options on every command, `--version`, did-you-mean,
shell completion, colour on a terminal, `generate --check` on a stale `.pb`, reserved domains.

Each test drives the real `opset` command (in-process through `toolkit.cli.main`, or as a
process where a terminal or a shell is part of what is tested)."""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from output_helpers import as_if_written
from output_helpers import cli as run

from toolkit.cli import build_parser, main

REPO = Path(__file__).resolve().parent.parent
OPSETS = REPO / "opsets"
ESC = "\x1b["
BAD_OPERATOR = "operator: Bad\ndomain: x.y\nversions:\n  - since_version: one\n"

SPEC_COMMANDS = (
    "validate",
    "show",
    "inventory",
    "generate",
    "diff",
    "bump",
    "new",
    "releases",
    "check-model",
    "compat",
    "convert",
    "test-runtime",
    "pre-commit",
)
REPORTING_COMMANDS = (
    "validate",
    "generate",
    "diff",
    "check-model",
    "compat",
    "model-diff",
    "convert",
    "test-runtime",
)


def opset(
    *argv: str, env: dict[str, str] | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def bad_tree(root: Path) -> Path:
    specs = root / "specs"
    specs.mkdir()
    (specs / "domain.yaml").write_text("domain: x.y\nopset_versions: [{version: 1, ir_version: 9}]\n")
    (specs / "Bad.yaml").write_text(BAD_OPERATOR)
    return specs


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for a in parser._actions for o in a.option_strings}


def commands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


# -- one set of flags --------------------------------------------------------------------------


def test_every_command_takes_the_shared_flags_from_one_definition() -> None:
    parsers = commands()
    for name in SPEC_COMMANDS:
        have = options(parsers[name])
        assert {"--specs", "--no-cache", "--max-example-bytes"} <= set(have), name
        assert have["--specs"].dest == "specs", name
    for name in REPORTING_COMMANDS:
        have = options(parsers[name])
        assert have["--output"] is have["-o"] and have["--output"].dest == "report_file", name
        assert {"text", "json", "github", "sarif", "junit"} <= set(have["--format"].choices or ()), name
    for name, parser in parsers.items():
        assert {"--quiet", "-q", "--color"} <= set(options(parser)), name
    # the old spellings are still read, and said to be old in the help
    convert = options(parsers["convert"])
    assert convert["--report"] is convert["--output"] and "deprecated" in (convert["--report"].help or "")
    assert "info" in (options(parsers["check-model"])["--fail-on"].choices or ())


def test_validate_takes_specs_and_positional_paths_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = bad_tree(tmp_path)
    for argv in (["validate", "--specs", str(specs)], ["validate", str(specs)]):
        code, _, err = run(capsys, *argv)
        assert code == 1
        # the path as the reader's working directory sees it (relative or absolute)
        assert "/specs/Bad.yaml:4:" in err and "error[" in err
    code, _, err = run(capsys, "validate", "--specs", str(tmp_path / "missing"))
    assert code == 2 and "--specs" in err and "no such file or directory" in err
    code, out, _ = run(capsys, "validate", "--no-cache", "--specs", str(OPSETS))
    assert code == 0 and "0 error(s)" in out


def test_quiet_is_global_before_or_after_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", "--specs", str(OPSETS))
    assert code == 0 and "operator versions" in out
    for argv in (("-q", "validate", "--specs", str(OPSETS)), ("validate", "--specs", str(OPSETS), "--quiet")):
        code, out, err = run(capsys, *argv)
        assert (code, out, err) == (0, "", ""), argv
    # --quiet never hides findings, nor a machine report
    code, out, _ = run(capsys, "--quiet", "validate", "--specs", str(OPSETS), "--format", "sarif")
    assert code == 0 and json.loads(out)["version"] == "2.1.0"


def test_global_color_option_before_the_command_finds_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = bad_tree(tmp_path)
    code, _, err = run(capsys, "--color", "never", "validate", "--specs", str(specs))
    assert code == 1 and "error[" in err and ESC not in err


# -- model tools ------------------------------------------------------------------------------


def _model(tmp_path: Path, name: str, input_type: int, version: int) -> Path:
    onnx = pytest.importorskip("onnx")
    from onnx import helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", input_type, [1])],
        [helper.make_tensor_value_info("y", input_type, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.model_version = version
    path = tmp_path / name
    onnx.save(model, path)
    return path


def test_model_diff_reports_in_sarif_junit_and_github(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from onnx import TensorProto

    from toolkit.model.semver import pack

    old = _model(tmp_path, "v1.onnx", TensorProto.INT32, pack(1, 0, 0))
    new = _model(tmp_path, "v2.onnx", TensorProto.STRING, pack(1, 1, 0))  # MAJOR change, MINOR bump
    code, out, _ = run(capsys, "model-diff", str(old), str(new), "--format", "sarif")
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"MDIFF-TYPE-CHANGED", "MDIFF-VERSION"}
    assert {r["level"] for r in results} == {"warning", "error"}
    report = tmp_path / "diff.xml"
    code, out, _ = run(capsys, "model-diff", str(old), str(new), "--format", "junit", "-o", str(report))
    assert code == 1 and out == "" and "MDIFF-VERSION" in report.read_text()
    code, out, _ = run(capsys, "model-diff", str(old), str(new), "--format", "github")
    assert code == 1 and "::error " in out and "title=MDIFF-VERSION" in out and "v2.onnx" in out


def test_check_model_fail_on_info(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnx")
    model = REPO / "generated/backend_tests/com.acme.vision/node/test_roialignrotated_constant_map/model.onnx"
    base = ("check-model", str(model), "--specs", str(OPSETS))
    code, out, _ = run(capsys, *base)
    assert code == 0 and "info[MODEL-OP-EXPERIMENTAL]" in out
    code, out, _ = run(capsys, *base, "--fail-on", "info")
    assert code == 1 and "info[MODEL-OP-EXPERIMENTAL]" in out


def test_unknown_operator_names_the_closest_of_its_domain_and_opset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Reul", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    path = tmp_path / "typo.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    code, out, _ = run(capsys, "check-model", str(path))
    assert code == 1
    assert f"{path}:g/Reul/0: error[MODEL-OP-UNKNOWN]" in out
    assert "hint: did you mean Relu?" in out and "at opset 13" in out


def test_convert_out_output_and_the_old_spellings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from onnx import TensorProto

    source = _model(tmp_path, "m.onnx", TensorProto.FLOAT, 1)
    model, report = tmp_path / "out.onnx", tmp_path / "report.json"
    base = ("convert", str(source), "--to", "ai.onnx=14")
    code, out, err = run(capsys, *base, "--out", str(model), "--format", "json", "-o", str(report))
    assert code == 0 and out == "" and "deprecated" not in err
    assert model.read_bytes()[:2] and json.loads(report.read_text())["converted"] is True
    model.unlink()
    report.unlink()
    # the old spelling: -o named the model, --report the report file; read so, with a warning
    code, _, err = run(capsys, *base, "-o", str(model), "--format", "json", "--report", str(report))
    assert code == 0 and model.is_file() and json.loads(report.read_text())["converted"] is True
    assert "deprecated spelling of `--out OUT.onnx`" in err
    code, _, err = run(capsys, *base)
    assert code == 2 and "--out OUT.onnx" in err


def test_test_runtime_writes_its_report_to_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime")
    report = tmp_path / "runtime.json"
    code, out, _ = run(
        capsys, "test-runtime", "--specs", str(OPSETS), "--domain", "org.example.abc", "--format", "json",
        "--output", str(report),
    )  # fmt: skip
    assert out == "" and json.loads(report.read_text())
    assert code in (0, 1)


# -- version, did-you-mean, completion -------------------------------------------------------


def test_version_comes_from_the_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"opset-toolkit {metadata.version('opset-toolkit')}\n"


@pytest.mark.parametrize(
    ("typed", "meant"), [("valdate", "validate"), ("genrate", "generate"), ("difff", "diff")]
)
def test_a_mistyped_command_is_a_usage_error_naming_the_command(
    typed: str, meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, typed)
    assert code == 2 and out == ""
    assert f"unknown command '{typed}'" in err and f"did you mean `opset {meant}`" in err
    code, _, err = run(capsys, "-q", "zzzzzz")
    assert code == 2 and "`opset --help` lists the commands" in err


def test_bash_loads_the_completion_script_and_completes_commands_and_flags() -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    script = opset("completion", "bash")
    assert script.returncode == 0
    probe = (
        "source /dev/stdin && complete -p opset && COMP_WORDS=(opset valid) && COMP_CWORD=1 && _shtab_opset && "
        'echo "words: ${COMPREPLY[*]}" && COMP_WORDS=(opset validate --no-c) && COMP_CWORD=2 && _shtab_opset && '
        'echo "flags: ${COMPREPLY[*]}"'
    )
    done = subprocess.run(
        ["bash", "-c", probe], input=script.stdout, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "complete -o bashdefault -F _shtab_opset opset" in done.stdout
    assert "words: validate" in done.stdout and "flags: --no-cache" in done.stdout
    zsh, tcsh = opset("completion", "zsh"), opset("completion", "tcsh")
    assert zsh.returncode == 0 and "validate" in zsh.stdout and "--no-cache" in zsh.stdout
    assert tcsh.returncode == 0 and "validate" in tcsh.stdout  # shtab's tcsh: commands and choices
    assert opset("completion", "fish").returncode == 2


# -- colour ------------------------------------------------------------------------------------


def _on_a_terminal(argv: list[str], env: dict[str, str]) -> str:
    """What `opset argv` prints on a pseudo-terminal (stdout and stderr both)."""
    leader, follower = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(TERM="xterm", **env)
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkit", *argv], stdout=follower, stderr=follower, cwd=REPO, env=environ
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the command closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_only_and_never_with_no_color(tmp_path: Path) -> None:
    specs = bad_tree(tmp_path)
    argv = ["validate", "--specs", str(specs)]
    painted = _on_a_terminal(argv, {})
    assert f"{ESC}1;31merror{ESC}0m[" in painted and re.search(r"\x1b\[36m[A-Z][A-Z0-9-]+\x1b\[0m\]", painted)
    assert "Bad.yaml:4:" in painted
    assert ESC not in _on_a_terminal(argv, {"NO_COLOR": "1"})
    assert ESC not in _on_a_terminal([*argv, "--color", "never"], {})
    assert ESC in _on_a_terminal([*argv, "--color", "always"], {"NO_COLOR": "1"})  # the flag wins
    piped = opset(*argv)
    assert piped.returncode == 1 and "error[" in piped.stderr and ESC not in piped.stderr + piped.stdout
    forced = opset(*argv, env={"FORCE_COLOR": "1"})
    assert ESC in forced.stderr
    # a machine format is never coloured, whatever is asked
    sarif = opset(*argv, "--format", "sarif", "--color", "always")
    assert ESC not in sarif.stdout and json.loads(sarif.stdout)["version"] == "2.1.0"


# -- generate --check on a stale .pb -------------------------------------------------------------


def test_generate_check_shows_a_stale_pb_decoded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from toolkit.proto import opset_toolkit_pb2 as pb

    out = tmp_path / "gen"
    base = ["generate", "--specs", str(OPSETS), "--out", str(out), "--only", "proto", "--no-cache"]
    assert run(capsys, *base)[0] == 0
    document = out / "proto/org.example.abc/opset_2.pb"
    message = pb.OperatorSetProto.FromString(document.read_bytes())
    message.doc_string = "tampered \x1b]0;title\x07 doc"
    document.write_bytes(message.SerializeToString())
    (out / "proto/org.example.abc/opset_1.pb").write_bytes(b"\x00not a message")
    # as if an earlier run had written them: a binary output edited since is not opset's by its bytes
    as_if_written(out, "proto/org.example.abc/opset_2.pb", "proto/org.example.abc/opset_1.pb")
    code, stdout, _ = run(capsys, *base, "--check")
    assert code == 1
    assert f"--- a/{document} (decoded)" in stdout
    assert '-doc_string: "tampered \\033]0;title\\007 doc"' in stdout
    assert "Binary file" in stdout and "opset_1.pb differs (" in stdout
    assert not any(ord(c) < 32 and c not in "\n" for c in stdout)  # no raw byte reaches the terminal


# -- reserved domains --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "domain", ["ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training", "", "ai.onnx.anything"]
)
def test_init_refuses_onnx_reserved_domains(
    domain: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "repo"
    code, out, err = run(capsys, "init", str(target), "--domain", domain)
    assert code == 2 and out == ""
    assert "is reserved for ONNX's own operators" in err and "hint: pick a reverse-DNS domain" in err
    assert not target.exists()
    assert run(capsys, "init", str(target), "--domain", "ai.onnxfoo.audio", "-q") == (0, "", "")
