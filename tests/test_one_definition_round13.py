"""Issue #24, round 13: each thing defined once, so two copies cannot disagree.

- the generated package's name: one test (`model.output_names.package_problem`) that `opset init
  --package` and `python.package` of the project file both apply, so init never writes a setting
  that generate refuses;
- the generator kinds: one list (`generate.GENERATORS`), in run order;
- the protobuf function bodies: one bounded cache;
- the type_restriction step built in one place;
- the tools whose output a test checks (ruff, mypy, import-linter) pinned;
- every module of the toolkit named in docs/architecture.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main

DOMAIN = "domain: com.newco.audio\nopset_versions:\n  - {version: 1, ir_version: 9}\n"

# Names a generated package cannot take, one per kind of reason.
REFUSED = {
    "keyword": "class",
    "dunder": "__main__",
    "too-long": "a" * 300,
    "not-identifier": "9lives",
    "stdlib": "json",
}


@pytest.mark.parametrize("package", REFUSED.values(), ids=REFUSED.keys())
def test_init_refuses_what_the_project_file_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], package: str
) -> None:
    """`opset init --package class` (or 300 letters) exited 0 and wrote an opset.toml that
    `opset generate` then refused, or (for a keyword) generated a package no import can name."""
    assert main(["init", str(tmp_path / "repo"), "--domain", "com.newco.audio", "--package", package]) == 2
    init_err = capsys.readouterr().err
    assert f"--package {package!r} " in init_err and "hint: pass --package" in init_err
    assert not (tmp_path / "repo").exists()

    tree = tmp_path / "tree"
    (tree / "opsets" / "com.newco.audio").mkdir(parents=True)
    (tree / "opsets" / "com.newco.audio" / "domain.yaml").write_text(DOMAIN)
    (tree / "opset.toml").write_text(f'out = "generated"\n\n[python]\n  package = "{package}"\n')
    monkeypatch.chdir(tree)
    assert main(["generate"]) == 2
    err = capsys.readouterr().err
    # Located at the key of the sub-table, with the same reason init gave.
    assert err.startswith(f"opset.toml:4:3: error[PROJECT-SETTING]: `python.package` = {package!r} "), err
    reason = init_err.split(f"--package {package!r} ", 1)[1].split("\n", 1)[0]
    assert reason in err and "hint:" in err
    assert not (tree / "generated").exists()


def test_a_name_both_accept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A soft keyword imports fine (`import match`), so neither refuses it."""
    repo = tmp_path / "repo"
    assert main(["init", str(repo), "--domain", "com.newco.audio", "--package", "match", "-q"]) == 0
    monkeypatch.chdir(repo)
    assert main(["generate", "-q"]) == 0
    assert (repo / "generated" / "python" / "match" / "__init__.py").is_file()


def test_a_package_derived_from_a_long_domain_is_refused_by_init(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --package the name comes from the domain, and is held to the same test (a
    domain whose own folder name fits, the package adding `_ops` to it)."""
    domain = f"com.{'a' * 244}.audio"  # 254 bytes: its folder fits, its package does not
    assert main(["init", str(tmp_path / "repo"), "--domain", domain]) == 2
    err = capsys.readouterr().err
    assert "(from --domain) is longer than 255 bytes" in err and "hint:" in err
    assert not (tmp_path / "repo").exists()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('[python]\npackage = "class"\n', "opset.toml:2:1"),
        ('spec_root = "opsets"\npython.package = "class"\n', "opset.toml:2:1"),
        ('spec_root = "opsets"\npython = {package = "class"}\n', "opset.toml:2:1"),  # its table
        ('[project]\nname = "x"\n[tool."opset-toolkit".python]\n\npackage = "class"\n', "pyproject.toml:5:1"),
    ],
)
def test_a_sub_table_key_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    (tmp_path / "opsets").mkdir()
    (tmp_path / where.split(":")[0]).write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 2
    assert capsys.readouterr().err.startswith(f"{where}: error[PROJECT-SETTING]: `python.package`")


# -- the generator kinds: one list, in run order ------------------------------------------------


def test_the_kinds_run_in_the_order_generators_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run order was a second list (`pipeline.KIND_ORDER`) beside `GENERATORS`; now it is
    `GENERATORS`' own order, costliest first, and a kind registered later runs after them."""
    from toolkit import generate
    from toolkit.generate.context import GenerateContext

    ran: list[str] = []

    def recorded(kind: str, inner: generate.Generator) -> generate.Generator:
        def run(registry: object, context: GenerateContext) -> dict[str, bytes]:
            ran.append(kind)
            return inner(registry, context)  # type: ignore[arg-type]

        return run  # type: ignore[return-value]

    for kind, inner in list(generate.GENERATORS.items()):
        monkeypatch.setitem(generate.GENERATORS, kind, recorded(kind, inner))
    monkeypatch.setitem(generate.GENERATORS, "aaa_plugin", recorded("aaa_plugin", lambda r, c: {}))
    monkeypatch.setenv("OPSET_TOOLKIT_JOBS", "1")  # one process: the order is the order run
    repo = Path(__file__).resolve().parent.parent
    out = tmp_path / "out"
    assert main(["generate", "--specs", str(repo / "opsets"), "--out", str(out), "--no-cache", "-q"]) == 0
    assert ran == list(generate.GENERATORS) == ["docs", "python", "proto", "backend_tests", "aaa_plugin"]
    assert generate.run_order(sorted(ran)) == ran


def test_each_kind_names_its_folder_once() -> None:
    """Each built-in kind's module spells its folder with one constant, the name it is
    registered under (the proto kind wrote the literal "proto")."""
    from toolkit.generate import GENERATORS, backend_tests, docs, proto_docs
    from toolkit.generate.python import names

    assert list(GENERATORS) == [docs.KIND, names.KIND, proto_docs.KIND, backend_tests.KIND]


# -- the protobuf function bodies: one cache, keyed by the schema, bounded -----------------------


def test_function_bodies_are_encoded_once_per_schema_in_a_bounded_cache(
    monkeypatch: pytest.MonkeyPatch, shipped_registry: object
) -> None:
    """They were cached twice: per domain by (name, since_version), and in a module-level dict
    keyed by the schema that was never cleared (a language server grew it forever)."""
    from toolkit.generate import proto_docs
    from toolkit.generate.proto_fragments import FragmentCache

    unbounded = proto_docs.render_registry(shipped_registry)  # type: ignore[arg-type]
    assert isinstance(proto_docs._FUNCTIONS, FragmentCache)  # the module's one cache
    assert 0 < len(proto_docs._FUNCTIONS) <= proto_docs.FUNCTION_MEMO_SIZE
    encoded: list[object] = []

    def counting(schema: object) -> object:
        encoded.append(schema)
        return proto_docs.encode_function(schema)  # type: ignore[arg-type]

    monkeypatch.setattr(proto_docs, "function_proto", counting)
    monkeypatch.setattr(proto_docs, "_FUNCTIONS", FragmentCache("functions", max_entries=64))
    first = proto_docs.render_registry(shipped_registry)  # type: ignore[arg-type]
    again = proto_docs.render_registry(shipped_registry)  # type: ignore[arg-type]
    assert first == again == unbounded
    assert encoded and len(encoded) == len(set(encoded))  # each body once, across both renders

    small = FragmentCache("functions", max_entries=1)
    monkeypatch.setattr(proto_docs, "_FUNCTIONS", small)
    assert proto_docs.render_registry(shipped_registry) == unbounded  # type: ignore[arg-type]
    assert len(small) == 1  # started over when full, never past its bound


# -- the type_restriction step: built in one place -----------------------------------------------


def test_type_restriction_steps_are_built_once() -> None:
    """`model.adapter_inverse` and `onnx_bridge.overlay` each built them (`_restrictions`)."""
    from toolkit.model.adapter_steps import type_restrictions
    from toolkit.model.spec import AdapterStep, Location
    from toolkit.onnx_bridge import overlay

    where = Location("Op.yaml", 3, 5)
    steps = type_restrictions({"T": ("tensor(int8)",), "A": ("tensor(bool)", "tensor(string)")}, where)
    assert steps == (
        AdapterStep("type_restriction", (("param", "A"), ("types", ("tensor(bool)", "tensor(string)")))),
        AdapterStep("type_restriction", (("param", "T"), ("types", ("tensor(int8)",)))),
    )
    assert {step.location for step in steps} == {where}
    assert not hasattr(overlay, "_restrictions")


# -- the tools a test runs are pinned ------------------------------------------------------------


def test_the_tools_the_tests_run_are_pinned() -> None:
    """`ruff format --check` (and ruff check, mypy --strict, lint-imports) run in the suite: with
    `>=` a new release turned CI red with no change. Pinned in the test extra, at the version the
    suite runs with."""
    import re
    import sys
    from importlib import metadata

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    repo = Path(__file__).resolve().parent.parent
    test_extra = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "test"
    ]
    pins = dict(
        found.groups()
        for found in (re.fullmatch(r"([A-Za-z0-9_.-]+)==([^;\s]+)", req) for req in test_extra)
        if found
    )
    for tool in (
        "ruff",
        "mypy",
        "import-linter",
        "grimp",
        "types-PyYAML",
        "types-protobuf",
        "types-jsonschema",
    ):
        assert tool in pins, f"{tool} is not pinned (==) in the test extra"
        try:
            installed = metadata.version(tool)
        except metadata.PackageNotFoundError:
            continue
        assert installed == pins[tool], f"{tool} {installed} installed, {pins[tool]} pinned"


# -- docs/architecture.md names every module ----------------------------------------------------


def test_the_architecture_page_names_every_module() -> None:
    """About 45 modules had drifted out of the module map (`compat/base_paths.py`,
    `model/type_renames.py`, `model/node_moves.py`, ...). Each module must be named, as
    `name.py` or `sub/name.py`, in its top-level package's entry of the list."""
    import re

    repo = Path(__file__).resolve().parent.parent
    text = (repo / "docs" / "architecture.md").read_text(encoding="utf-8")
    listing = text[text.index("The modules of each package:") : text.index("### How it is enforced")]
    named: dict[str, set[str]] = {}
    package = ""
    for line in listing.splitlines():
        entry = re.match(r"- \*\*`([a-z_]+)/`\*\*", line)
        if entry:
            package = entry.group(1)
        if package:
            named.setdefault(package, set()).update(re.findall(r"`(?:[a-z_]+/)*([a-z_0-9]+\.py)`", line))
    toolkit = repo / "toolkit"
    missing = sorted(
        rel.as_posix()
        for rel in (path.relative_to(toolkit) for path in toolkit.rglob("*.py"))
        if len(rel.parts) > 1
        and rel.parts[0] != "proto"  # generated bindings (tools/regen_proto.py)
        and rel.name != "__init__.py"
        and rel.name not in named.get(rel.parts[0], set())
    )
    assert not missing, f"docs/architecture.md does not name: {missing}"
