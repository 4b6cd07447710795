"""Issue #11, classes 5b, 6, 7, 8c: what `validate` passes, `generate` writes and the generated
package imports and runs.

- spec names equal to the generated package's own names (`get`, `versions`, `importlib`, `math`,
  keywords, dunder names, builtins, OpsetBase members, runtime names) build working code;
- NaN and infinite float defaults are written as `math.*` and round-trip;
- a generator failure is a located GEN-FAILED diagnostic, and nothing is written;
- the release table's `doc` is on the releases page (and survives the load cache).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolkit.checks.run import load_specs
from toolkit.cli import main
from toolkit.generate import proto_docs
from toolkit.generate.pipeline import GeneratorError, generate_tree
from toolkit.generate.python import domain_package as generator_domain_package
from toolkit.model.python_names import domain_package, identifier
from toolkit.registry.core import load_registry

HOSTILE_OPS = (
    "get", "versions", "importlib", "math", "annotations", "OPERATORS", "CLASSES", "OpSchemaInfo",
    "__init__", "__class__", "__name__", "__pycache__", "__x", "_one", "_count", "nodes", "mro",
    "DOMAIN", "class", "match", "_", "int", "str", "tuple", "sorted", "type", "KeyError",
    "Sequence", "Any", "ClassVar", "TensorValue", "Value", "get_",  # "Get": OUTPUT-NAME-CLASH with "get"
)  # fmt: skip

# Imports the generated package, then for every operator: its schema class by spec name, and its
# builder (found by the operator name in the method's docstring) called with its required inputs.
EXERCISE = textwrap.dedent(
    """\
    import importlib, inspect, json, sys
    sys.path.insert(0, sys.argv[1])
    import opset_toolkit_generated as g
    report = {}
    for dname, pkg in g.DOMAINS.items():
        schemas = importlib.import_module(f"opset_toolkit_generated.{pkg}.schemas")
        domain = g.domain(dname)
        for version in domain.OPSET_VERSIONS:
            cls = g.opset(dname, version)
            builder = cls()
            methods = {}
            for name, member in {n: m for k in reversed(cls.__mro__) for n, m in vars(k).items()}.items():
                doc = getattr(member, "__doc__", None) or ""
                for line in doc.splitlines():
                    if ", since_version" in line:
                        methods[line.strip().split(", since_version")[0].rsplit(".", 1)[1]] = name
            for op in schemas.OPERATORS:
                since = schemas.versions(op)[-1]
                schema = g.schema(dname, op, since)
                method = getattr(builder, methods[op])
                params = inspect.signature(method).parameters.values()
                count = sum(1 for p in params if p.kind is p.POSITIONAL_ONLY and p.default is p.empty)
                value = method(*["x"] * count)
                value = value[0] if isinstance(value, tuple) else value
                defaults = {a.name: repr(a.default) for a in schema.attributes}
                node_attrs = {a.name: a for a in value.node.attribute}
                report[op] = {
                    "schema_name": schema.name,
                    "op_type": value.node.op_type,
                    "method": methods[op],
                    "defaults": defaults,
                    "signature": {
                        p.name: repr(p.default) for p in params if p.kind is p.KEYWORD_ONLY
                    },
                    "node": sorted(node_attrs),
                }
    print(json.dumps(report))
    """
)


def _write_specs(root: Path, ops: tuple[str, ...]) -> Path:
    domain = root / "com.x"
    domain.mkdir(parents=True)
    (domain / "domain.yaml").write_text(
        "domain: com.x\ndoc: Hostile names.\nopset_versions:\n  - {version: 1, ir_version: 9}\n",
        encoding="utf-8",
    )
    for op in ops:
        (domain / f"{op}.yaml").write_text(
            textwrap.dedent(
                f"""\
                operator: {op}
                domain: com.x
                versions:
                  - since_version: 1
                    doc: An operator with a hostile name.
                    inputs:
                      - {{name: TensorValue, type: tensor(float), doc: An input named like a runtime class.}}
                      - {{name: _schema, type: tensor(float), doc: An input named like the schema loader.}}
                    outputs:
                      - {{name: Y, type: tensor(float), doc: Out.}}
                    attributes:
                      pos: {{type: float, default: .inf, doc: Positive infinity.}}
                      neg: {{type: float, default: -.inf, doc: Negative infinity.}}
                      nan: {{type: float, default: .nan, doc: Not a number.}}
                      many: {{type: floats, default: [.nan, -.inf, 1.5], doc: A list of them.}}
                      self: {{type: int, default: 1, doc: Named like the method's first parameter.}}
                      self_: {{type: int, default: 2, doc: Named like self once renamed.}}
                      __y: {{type: int, default: 3, doc: A name Python would mangle.}}
                      Value: {{type: int, default: 4, doc: Named like a runtime class.}}
                """
            ),
            encoding="utf-8",
        )
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, object]]]:
    root = tmp_path_factory.mktemp("h11")
    specs = _write_specs(root / "specs", HOSTILE_OPS)
    result = load_specs([specs])
    assert not result.errors, [d.format() for d in result.errors]
    out = root / "generated"
    generate_tree([specs], out, registry=load_registry([specs], cache=False), source="specs")
    script = root / "exercise.py"
    script.write_text(EXERCISE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(out / "python")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return out, json.loads(done.stdout)


def test_every_hostile_name_builds_and_finds_its_schema(
    hostile: tuple[Path, dict[str, dict[str, object]]],
) -> None:
    _, report = hostile
    assert sorted(report) == sorted(HOSTILE_OPS)
    for op, found in report.items():
        assert found["schema_name"] == op
        assert found["op_type"] == op


def test_internal_names_are_out_of_reach(hostile: tuple[Path, dict[str, dict[str, object]]]) -> None:
    out, report = hostile
    schemas = out / "python/opset_toolkit_generated/com_x/schemas"
    modules = {p.stem for p in schemas.glob("*.py")}
    assert {"get_", "versions_", "importlib_", "op__init__", "op__pycache__", "op__class__"} <= modules
    assert not {"get", "versions", "importlib", "tuple", "__name__"} & modules
    assert report["nodes"]["method"] == "nodes_"
    assert report["math"]["method"] == "math_"
    assert report["__init__"]["method"] == "op__init__"
    assert report["_one"]["method"] == "_one_"
    assert report["class"]["method"] == "class_"
    signature = report["get"]["signature"]
    assert isinstance(signature, dict)
    assert {"self_", "self__", "op__y", "Value_"} <= set(signature)


def test_nan_and_infinite_defaults_round_trip(hostile: tuple[Path, dict[str, dict[str, object]]]) -> None:
    _, report = hostile
    for found in report.values():
        assert found["defaults"] == {
            "pos": "inf", "neg": "-inf", "nan": "nan", "many": "(nan, -inf, 1.5)",
            "self": "1", "self_": "2", "__y": "3", "Value": "4",
        }  # fmt: skip
        signature = found["signature"]
        assert isinstance(signature, dict)
        # the builders' keyword defaults are None (left off the node: the schema default applies)
        assert (signature["pos"], signature["neg"], signature["nan"], signature["many"]) == ("None",) * 4


def test_generated_hostile_package_passes_ruff(hostile: tuple[Path, dict[str, dict[str, object]]]) -> None:
    out, _ = hostile
    ruff = Path(sys.executable).parent / "ruff"
    if not ruff.exists():
        pytest.skip("ruff is not installed beside the interpreter")
    done = subprocess.run(
        [str(ruff), "check", "--no-cache", str(out / "python")],
        cwd=Path(__file__).resolve().parent.parent,  # the repository's ruff settings
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_naming_rule() -> None:
    assert identifier("__init__") == "op__init__"
    assert identifier("get", {"get"}) == "get_"
    assert identifier("class") == "class_"
    assert identifier("2x") == "_2x"
    assert math.isinf(float("inf"))
    # the generator and the DOMAIN-PACKAGE check use one function
    assert generator_domain_package is domain_package
    assert domain_package("com.acme-vision") == domain_package("com.acme.vision") == "com_acme_vision"
    assert domain_package("") == "ai_onnx"
    assert domain_package("opset.ir-version") == "opset_ir_version_"  # a name of the package's __init__


def test_domains_sharing_a_package_fail_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("com.acme.vision", "com.acme-vision"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "domain.yaml").write_text(
            f"domain: {name}\nopset_versions:\n  - {{version: 1, ir_version: 9}}\n", encoding="utf-8"
        )
    assert main(["validate", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"com\.acme\.vision/domain\.yaml:1:1: error\[DOMAIN-PACKAGE\]: ", err), err
    out = tmp_path / "gen"
    assert main(["generate", "--specs", str(tmp_path), "--out", str(out), "--no-cache"]) == 1
    assert "DOMAIN-PACKAGE" in capsys.readouterr().err
    assert not out.exists()


# -- class 5b: generator failures are located -------------------------------------------------

OPSETS = Path(__file__).resolve().parent.parent / "opsets"


def test_proto_failure_names_the_operator_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = proto_docs.schema_set_document

    def failing(domain, operators):  # type: ignore[no-untyped-def]
        if any(op.name == "Blur" for op in operators):
            raise ValueError("Value out of range: 99999999999999999999")
        return real(domain, operators)

    monkeypatch.setattr(proto_docs, "schema_set_document", failing)
    out = tmp_path / "gen"
    code = main(["generate", "--specs", str(OPSETS), "--out", str(out), "--only", "proto", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 1
    first = err.splitlines()[0]
    assert re.match(
        r"^\S*com\.acme\.vision/Blur\.yaml:\d+:\d+: error\[GEN-FAILED\]: generator 'proto' failed on "
        r"the protobuf schema of com\.acme\.vision\.Blur:1: ValueError: Value out of range",
        first,
    ), err
    assert "hint: nothing was written" in err
    assert not out.exists()


def test_failure_outside_any_block_is_located_at_the_spec_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit import generate

    def broken(registry: object, context: object) -> dict[str, bytes]:
        raise KeyError("x")

    monkeypatch.setitem(generate.GENERATORS, "proto", broken)
    with pytest.raises(GeneratorError) as raised:
        generate_tree([OPSETS], tmp_path / "gen", kinds=["proto"], cache=False)
    diagnostic = raised.value.diagnostic
    assert diagnostic is not None and diagnostic.rule == "GEN-FAILED"
    assert (diagnostic.location.file, diagnostic.location.line, diagnostic.location.column) == (
        str(OPSETS),
        1,
        1,
    )
    assert re.fullmatch(
        r"\S+:1:1: error\[GEN-FAILED\]: generator 'proto' failed: KeyError: 'x'",
        diagnostic.format().split("\n")[0],
    )


# -- class 8c: the release table's doc ---------------------------------------------------------


def test_release_table_doc_is_on_the_releases_page(tmp_path: Path) -> None:
    domain = tmp_path / "com.x"
    domain.mkdir()
    (domain / "domain.yaml").write_text(
        "domain: com.x\nopset_versions:\n  - {version: 1, ir_version: 9}\n", encoding="utf-8"
    )
    (tmp_path / "releases.yaml").write_text(
        "doc: |\n  Our releases; see *the notes*.\n\n  # Heading inside\nreleases:\n"
        "  - {release: r1, ir_version: 9, opsets: {com.x: 1}}\n",
        encoding="utf-8",
    )
    for cache in (False, True, True):  # cold, then filling and reading the result cache
        registry = load_registry([tmp_path], cache=cache)
        assert registry.releases[0].doc.startswith("Our releases")
        files = generate_tree(
            [tmp_path], tmp_path / "gen", kinds=["docs"], registry=registry, check=True
        ).files
        page = files["docs/releases.md"].decode("utf-8")
        assert "Our releases; see *the notes*." in page
        assert page.index("Our releases") < page.index("| Release |")
        assert "\n# Heading inside" not in page  # demoted below the page title
