"""`opset model-diff`: the required model_version bump (Versioning.md, model versioning)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from toolkit.model import semver  # noqa: E402
from toolkit.onnx_bridge.model_diff import Bump, diff_models, widens  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def model(
    inputs: dict[str, tuple[int, list[int]]],
    outputs: dict[str, int],
    version: int = 0,
    defaults: tuple[str, ...] = (),
    op: str = "Identity",
) -> Any:
    ins = [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()]
    outs = [helper.make_tensor_value_info(n, t, None) for n, t in outputs.items()]
    first = next(iter(inputs))
    nodes = [helper.make_node(op, [first], [o]) for o in outputs]
    inits = [numpy_helper.from_array(__import__("numpy").zeros([1], "float32"), d) for d in defaults]
    m = helper.make_model(helper.make_graph(nodes, "g", ins, outs, initializer=inits))
    m.model_version = semver.to_int64(version)
    return m


F, I32, I64, S = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.STRING
V1 = semver.pack(1, 0, 0)


def bump(old: Any, new: Any) -> tuple[Bump, list[str]]:
    report = diff_models(old, new)
    return report.required, [c.rule for c in report.changes]


def test_bumps_follow_the_seed_rules() -> None:
    base = model({"x": (I32, [2])}, {"y": I32})
    assert bump(base, model({"x": (S, [2])}, {"y": I32})) == (Bump.MAJOR, ["MDIFF-TYPE-CHANGED"])
    assert bump(base, model({"x": (I64, [2])}, {"y": I32})) == (Bump.MINOR, ["MDIFF-TYPE-WIDENED"])
    assert bump(base, model({"x": (I32, [2]), "z": (F, [1])}, {"y": I32})) == (
        Bump.MAJOR,
        ["MDIFF-INPUT-ADDED"],
    )
    with_default = model({"x": (I32, [2]), "z": (F, [1])}, {"y": I32}, defaults=("z",))
    assert bump(base, with_default) == (Bump.MINOR, ["MDIFF-INPUT-ADDED-DEFAULT"])
    two = model({"x": (I32, [2])}, {"y": I32, "w": I32})
    assert bump(two, base) == (Bump.MAJOR, ["MDIFF-OUTPUT-REMOVED"])
    assert bump(base, model({"x": (I32, [2])}, {"y": I32}, op="Abs")) == (Bump.PATCH, ["MDIFF-BODY-CHANGED"])
    assert bump(base, model({"x": (I32, [2])}, {"y": I32})) == (Bump.NONE, [])
    assert bump(base, model({"x": (I32, [3])}, {"y": I32}))[0] is Bump.MAJOR
    relaxed = model({"x": (I32, [2])}, {"y": I32})
    relaxed.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    assert bump(base, relaxed) == (Bump.MINOR, ["MDIFF-SHAPE-RELAXED"])


def test_every_signature_rule_and_its_bump() -> None:
    """Each MDIFF-* change rule, emitted with the bump its catalog entry names (its category)."""
    from toolkit.model.rules import CATALOG
    from toolkit.onnx_bridge.model_diff import MDIFF_RULES

    base = model({"x": (I32, [2]), "z": (F, [1])}, {"y": I32}, defaults=("z",))
    plain = model({"x": (I32, [2]), "z": (F, [1])}, {"y": I32})
    seen: set[str] = set()

    def rules(old: Any, new: Any) -> list[str]:
        report = diff_models(old, new)
        for change in report.changes:
            known = CATALOG.get(change.rule)
            assert known is not None and known.category == change.bump.label, change
        seen.update(c.rule for c in report.changes)
        return [c.rule for c in report.changes]

    assert rules(base, plain) == ["MDIFF-INPUT-DEFAULT-REMOVED"]
    assert rules(plain, base) == ["MDIFF-INPUT-DEFAULT-ADDED"]
    assert rules(plain, model({"x": (I32, [2])}, {"y": I32})) == ["MDIFF-INPUT-REMOVED"]
    assert rules(base, model({"x": (I32, [2])}, {"y": I32})) == ["MDIFF-BODY-CHANGED"]  # callers never fed it
    assert rules(plain, model({"x": (I32, [2]), "z": (F, [1])}, {"y": I32, "w": I32})) == [
        "MDIFF-OUTPUT-ADDED"
    ]
    assert rules(plain, model({"x": (I32, [2, 2]), "z": (F, [1])}, {"y": I32})) == ["MDIFF-SHAPE-CHANGED"]
    for old, new in [
        (model({"x": (I32, [2])}, {"y": I32}), model({"x": (S, [2])}, {"y": I32})),
        (model({"x": (I32, [2])}, {"y": I32}), model({"x": (I64, [2])}, {"y": I32})),
        (model({"x": (I32, [2])}, {"y": I32}), plain),
        (model({"x": (I32, [2])}, {"y": I32}), base),
        (model({"x": (I32, [2])}, {"y": I32, "w": I32}), model({"x": (I32, [2])}, {"y": I32})),
        (model({"x": (I32, [2])}, {"y": I32}), model({"x": (I32, [2])}, {"y": I32}, op="Abs")),
        (model({"x": (I32, [2])}, {"y": I32}), model({"x": (I32, [])}, {"y": I32})),
    ]:
        rules(old, new)
    relaxed = model({"x": (I32, [2])}, {"y": I32})
    relaxed.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    rules(model({"x": (I32, [2])}, {"y": I32}), relaxed)
    assert seen == {r.id for r in MDIFF_RULES}


def test_widening() -> None:
    assert widens("tensor(float16)", "tensor(float)") and widens("tensor(int32)", "tensor(int64)")
    assert not widens("tensor(int64)", "tensor(int32)") and not widens("tensor(int32)", "tensor(string)")
    assert widens("seq(tensor(uint8))", "seq(tensor(int16))")


@pytest.mark.parametrize(
    ("old", "new", "ok"),
    [
        (V1, semver.pack(2, 0, 0), True),
        (V1, semver.pack(1, 1, 0), False),  # MINOR for a MAJOR change
        (V1, V1, False),
        (5, 6, True),  # simple numbers: any increase
        (5, 5, False),
        (V1, 7, False),  # SemVer back to a simple number
    ],
)
def test_version_check_for_a_major_change(old: int, new: int, ok: bool) -> None:
    report = diff_models(model({"x": (I32, [2])}, {"y": I32}, old), model({"x": (S, [2])}, {"y": I32}, new))
    assert report.required is Bump.MAJOR
    assert report.version_ok is ok, report.version_message


def test_reports_name_a_failed_version_check() -> None:
    from toolkit.reporting.model_diff import render

    report = diff_models(model({"x": (I32, [2])}, {"y": I32}, V1), model({"x": (S, [2])}, {"y": I32}, V1))
    text = render(report, "text")
    assert text.splitlines()[-1].startswith("error[MDIFF-VERSION]: ")
    assert '"version_ok": false' in render(report, "json")
    ok = diff_models(
        model({"x": (I32, [2])}, {"y": I32}, V1), model({"x": (S, [2])}, {"y": I32}, semver.pack(2, 0, 0))
    )
    assert render(ok, "text").splitlines()[-1].startswith("ok: ")


def test_version_check_for_a_minor_change() -> None:
    old = model({"x": (I32, [2])}, {"y": I32}, V1)
    assert diff_models(old, model({"x": (I64, [2])}, {"y": I32}, semver.pack(1, 1, 0))).version_ok
    assert not diff_models(old, model({"x": (I64, [2])}, {"y": I32}, semver.pack(1, 0, 1))).version_ok
    bigger = diff_models(old, model({"x": (I64, [2])}, {"y": I32}, semver.pack(2, 0, 0)))
    assert bigger.version_ok and "larger bump" in bigger.version_message


@pytest.mark.parametrize("signature_change", [False, True])
def test_scheme_switch_is_named_not_called_backwards(signature_change: bool) -> None:
    old_model = model({"x": (I32, [2])}, {"y": I32}, V1)
    new_input = (S, [2]) if signature_change else (I32, [2])
    to_simple = diff_models(old_model, model({"x": new_input}, {"y": I32}, 5))
    assert not to_simple.version_ok
    message = to_simple.version_message
    assert "from SemVer (1.0.0) to a simple number (5)" in message and "backwards" not in message
    assert ("MAJOR bump required" if signature_change else "no bump needed") in message
    to_semver = diff_models(model({"x": (I32, [2])}, {"y": I32}, 5), model({"x": new_input}, {"y": I32}, V1))
    assert to_semver.version_ok
    assert "from a simple number (5) to SemVer (1.0.0)" in to_semver.version_message
    # Same scheme, lower number: that one did go backwards.
    lower = diff_models(model({"x": (I32, [2])}, {"y": I32}, 6), model({"x": (I32, [2])}, {"y": I32}, 5))
    assert not lower.version_ok and lower.version_message == "model_version went backwards"
    unset = diff_models(old_model, model({"x": (I32, [2])}, {"y": I32}, 0))
    assert not unset.version_ok and unset.version_message == "NEW has no model_version; OLD has one"


def test_cli_model_diff(tmp_path: Path) -> None:
    old, new = tmp_path / "old.onnx", tmp_path / "new.onnx"
    onnx.save(model({"x": (I32, [2])}, {"y": I32}, V1), old)
    onnx.save(model({"x": (S, [2])}, {"y": I32}, semver.pack(1, 1, 0)), new)
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "model-diff", str(old), str(new)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 1
    assert "required bump: MAJOR" in done.stdout and "1.0.0 (0x0001000000000000)" in done.stdout
    assert "error[MDIFF-VERSION]: 1.0.0 -> 1.1.0 is a MINOR bump; MAJOR required" in done.stdout
    (tmp_path / "bad.onnx").write_bytes(b"\x00garbage")
    bad = subprocess.run(
        [sys.executable, "-m", "toolkit", "model-diff", str(old), str(tmp_path / "bad.onnx")],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
