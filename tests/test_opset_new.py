"""`opset new DOMAIN.OP`: the skeleton validates, generates and passes the gate at once; every
refusal exits 2 with a located message and writes nothing; the target never leaves its folder."""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest
from vision_copy import REPO, VISION, newest_opset

from toolkit import load_registry
from toolkit.cli import main

ABC = REPO / "opsets" / "org.example.abc"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The shipped vendor domain without a release table: every opset counts as released."""
    shutil.copytree(VISION, tmp_path / "specs" / "com.acme.vision")
    return tmp_path / "specs"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _added_lines(before: bytes, after: bytes) -> list[str]:
    a, b = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        assert tag in ("equal", "insert"), f"changed existing lines: {a[i1:i2]} -> {b[j1:j2]}"
        added += b[j1:j2] if tag == "insert" else []
    return added


def _refused(args: list[str], capsys: pytest.CaptureFixture[str], root: Path) -> str:
    """Run `opset new ...`, expect exit 2 and no file under `root` changed; the message."""
    capsys.readouterr()
    before = _files(root)
    assert main(["new", *args]) == 2
    assert _files(root) == before
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_new_operator_validates_generates_and_passes_the_gate(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "base"
    shutil.copytree(tree, base)
    domain_file = tree / "com.acme.vision" / "domain.yaml"
    before = domain_file.read_bytes()

    # the newest opset counts as released, so the open opset is the next, not declared yet.
    top = newest_opset(tree / "com.acme.vision")
    newest, line = top.version, top.line
    err = _refused(["com.acme.vision.Sharpen", "--specs", str(tree)], capsys, tmp_path)
    assert f"domain.yaml:{line}:5: opset version {newest + 1} of com.acme.vision is not declared" in err
    assert "hint: pass --add-opset" in err

    assert main(["new", "com.acme.vision.Sharpen", "--add-opset", "--specs", str(tree)]) == 0
    out = capsys.readouterr().out
    assert f"created com.acme.vision.Sharpen (since_version {newest + 1})" in out
    assert _added_lines(before, domain_file.read_bytes()) == [
        f"  - version: {newest + 1}\n",
        "    ir_version: 10\n",
    ]
    text = (tree / "com.acme.vision" / "Sharpen.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../schemas/operator.schema.json\n")

    assert main(["validate", str(tree)]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out
    schema = load_registry([tree], cache=False).get_schema("Sharpen", newest + 1, "com.acme.vision")
    assert [p.name for p in schema.inputs] == ["X"] and [p.name for p in schema.outputs] == ["Y"]
    assert schema.constraint_map["T"].allowed == ("tensor(float16)", "tensor(float)", "tensor(double)")
    gen = tmp_path / "generated"
    assert main(["generate", "--specs", str(tree), "--out", str(gen), "-q"]) == 0
    assert (gen / "python").rglob("Sharpen.py")
    assert "def Sharpen(" in next(gen.rglob("_opsets.py")).read_text(encoding="utf-8")
    # a new operator in a new opset is not a breaking change
    assert main(["diff", "--specs", str(tree), "--against", str(base), "--no-cache"]) == 0


def test_unreleased_and_since_pick_a_declared_opset(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    newest = newest_opset(tree / "com.acme.vision").version
    assert main(["new", "com.acme.vision.Sharpen", "--unreleased", "--specs", str(tree)]) == 0
    assert f"since_version: {newest}\n" in (tree / "com.acme.vision" / "Sharpen.yaml").read_text(
        encoding="utf-8"
    )
    # an opset that counts as released refuses a new operator, located at that opset version
    err = _refused(["com.acme.vision.Emboss", "--since", "2", "--specs", str(tree)], capsys, tree)
    assert "domain.yaml:15:5: opset 2 of com.acme.vision counts as released" in err
    assert "OPSET-OP-ADDED" in err and f"hint: pass --since {newest + 1} --add-opset" in err
    assert main(["validate", str(tree)]) == 0


def test_add_opset_to_a_flow_list_and_a_literal_type_list(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    shutil.copytree(ABC, specs / "org.example.abc")
    domain_file = specs / "org.example.abc" / "domain.yaml"
    # no type sets: `T` gets a literal list
    text = domain_file.read_text(encoding="utf-8").replace("type_sets:\n  numbers:", "x_numbers:")
    text = text.replace("x_numbers: [tensor(float), tensor(double), tensor(int32), tensor(int64)]\n", "")
    for op in ("A", "B", "C"):  # they used the type set
        path = specs / "org.example.abc" / f"{op}.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace('"@numbers"', "[tensor(float)]"), "utf-8")
    domain_file.write_text(text, encoding="utf-8")
    assert main(["validate", str(specs)]) == 0
    before = domain_file.read_bytes()
    assert main(["new", "org.example.abc.D", "--since", "5", "--add-opset", "--specs", str(specs)]) == 0
    assert _added_lines(before, domain_file.read_bytes()) == ["  - {version: 5, ir_version: 3}\n"]
    assert "T: {allowed: [tensor(float16), tensor(float), tensor(double)]" in (
        specs / "org.example.abc" / "D.yaml"
    ).read_text(encoding="utf-8")
    assert main(["validate", str(specs)]) == 0
    assert load_registry([specs], cache=False).get_schema("D", 5, "org.example.abc").since_version == 5


@pytest.mark.parametrize("name", ["null", "on", "true", "No", "inf"])
def test_names_yaml_would_read_as_other_values_are_quoted(
    tree: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if name == "inf":
        name = "_inf"  # not an identifier otherwise; still a word to keep plain
    assert main(["new", f"com.acme.vision.{name}", "--unreleased", "--specs", str(tree)]) == 0
    assert main(["validate", str(tree)]) == 0, capsys.readouterr()
    opset = newest_opset(tree / "com.acme.vision").version
    assert load_registry([tree], cache=False).get_schema(name, opset, "com.acme.vision").name == name


def test_refuses_an_existing_operator_in_any_letter_case(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for spelling in ("Blur", "blur", "BLUR"):
        err = _refused([f"com.acme.vision.{spelling}", "--unreleased", "--specs", str(tree)], capsys, tree)
        assert "Blur.yaml:2:1: operator com.acme.vision.Blur exists already" in err
        assert "hint: to change it, start a new version: opset bump com.acme.vision.Blur" in err


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("com.acme.vision.a/b", "a name, not a path"),
        ("com.acme.vision.a\\b", "a name, not a path"),
        ("com.acme.vision/../../x.Evil", "a name, not a path"),
        ("com.acme.vision.1A", "not a C identifier"),
        ("com.acme.vision.A-B", "not a C identifier"),
        ("com.acme.vision.Ä", "not a C identifier"),
    ],
)
def test_refuses_names_that_are_not_identifiers(
    tree: Path, tmp_path: Path, ref: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused([ref, "--unreleased", "--specs", str(tree)], capsys, tmp_path)
    assert why in err and "hint: operator names are C identifiers" in err


def test_refuses_an_unknown_domain_listing_the_known_ones(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(["com.acme.visoin.Sharpen", "--specs", str(tree)], capsys, tree)
    assert "no domain 'com.acme.visoin'" in err and "(known: com.acme.vision)" in err


def test_never_writes_through_a_planted_link(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.authoring.new import NewRefused, apply_new, plan_new

    outside = tmp_path / "outside.yaml"
    folder = tree / "com.acme.vision"
    # in the tree before the run: the loader reports the link, nothing is written
    os.symlink(outside, folder / "Sharpen.yaml")  # dangling: exists() says False
    assert main(["new", "com.acme.vision.Sharpen", "--unreleased", "--specs", str(tree)]) == 1
    assert "error[FILE-READ]" in capsys.readouterr().err
    assert not outside.exists()
    (folder / "Sharpen.yaml").unlink()
    # planted between plan and write, also in another letter case (one name on a case-insensitive disk)
    for name in ("Sharpen.yaml", "SHARPEN.yaml"):
        plan = plan_new([tree], "com.acme.vision", "Sharpen", unreleased=True)
        os.symlink(outside, folder / name)
        with pytest.raises(NewRefused, match="exists already; nothing written"):
            apply_new(plan)
        assert not outside.exists() and (folder / name).is_symlink()
        (folder / name).unlink()


def test_dry_run_writes_nothing(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _files(tree)
    assert main(["new", "com.acme.vision.Sharpen", "--add-opset", "--dry-run", "--specs", str(tree)]) == 0
    assert "(dry run: nothing written)" in capsys.readouterr().out
    assert _files(tree) == before


# -- the generated package of a new operator (#25.6) ---------------------------------------------

AMOUNT = "    attributes:\n      amount: {type: float, default: 1.0, doc: How much to sharpen.}\n"

PROBE = """
import importlib, json, sys, types
sys.path.insert(0, sys.argv[1])
pkg = importlib.import_module("opset_toolkit_generated")
names = ["opset_toolkit_generated"]
for domain in pkg.DOMAINS.values():
    base = f"opset_toolkit_generated.{domain}"
    dom = importlib.import_module(base)
    names += [base, f"{base}.schemas"]
    names += [f"{base}.opset{v}" for v in dom.OPSET_VERSIONS]
    names += [f"{base}.schemas.{m}" for m in importlib.import_module(f"{base}.schemas").OPERATORS.values()]
runtime = importlib.import_module("opset_toolkit_generated._runtime")
stray = {}
for name in names:
    module = importlib.import_module(name)
    # an operator's schema module also holds the runtime's record classes its annotations name
    records = {"AttrInfo", "OpSchemaInfo", "ParamInfo", "TypeConstraintInfo"} if name.count(".") == 3 else set()
    extra = sorted(
        n for n in dir(module)
        if not n.startswith("_") and n not in module.__all__
        and not isinstance(getattr(module, n), types.ModuleType)  # a subpackage imported
        and not (n in records and getattr(module, n) is getattr(runtime, n))
    )
    if extra:
        stray[name] = extra
out = {"stray": stray, "modules": len(names)}
if len(sys.argv) > 2:
    op = pkg.opset("com.acme.vision", int(sys.argv[3]))()
    out["explicit"] = [(a.name, a.f) for a in op.Sharpen("x", amount=1.0).node.attribute]
    out["omitted"] = [a.name for a in op.Sharpen("x").node.attribute]
    out["other"] = [(a.name, a.f) for a in op.Sharpen("x", amount=2.5).node.attribute]
print(json.dumps(out))
"""


def _probe(python_dir: Path, *extra: str) -> dict[str, object]:
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(python_dir), *extra], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_generated_builder_keeps_an_attribute_passed_with_its_default(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")  # the node is an onnx.NodeProto (with `.f`)
    assert main(["new", "com.acme.vision.Sharpen", "--unreleased", "--specs", str(tree)]) == 0
    path = tree / "com.acme.vision" / "Sharpen.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    type_constraints:\n", AMOUNT + "    type_constraints:\n"), "utf-8")
    assert main(["validate", str(tree)]) == 0
    gen = tmp_path / "generated"
    assert main(["generate", "--specs", str(tree), "--out", str(gen), "--only", "python", "-q"]) == 0
    found = _probe(gen / "python", "build", str(newest_opset(tree / "com.acme.vision").version))
    assert found["explicit"] == [["amount", 1.0]]  # what the caller wrote, though it is the default
    assert found["omitted"] == []  # not passed: not on the node, the schema default applies
    assert found["other"] == [["amount", 2.5]]
    assert found["stray"] == {}


def test_checked_in_generated_package_exports_only_its_api() -> None:
    found = _probe(REPO / "generated" / "python")
    assert found["stray"] == {} and isinstance(found["modules"], int) and found["modules"] > 20
