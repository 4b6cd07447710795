"""The fast path of the `python` kind's templates (toolkit/generate/python/render_fast.py and
render_fast_package.py) writes what the Jinja2 templates (`jinja_render`, the definition) write:
template by template on random values (quotes, braces, backslashes, line breaks, non-ASCII, empty
lists, None and falsy flags), and file by file on whole registries (the imported onnx catalog,
the shipped specs, random spec trees with hostile names and odd defaults). A cold generate does
not import Jinja2 at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fuzz_specs import mutated_trees, render
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit import load_registry
from toolkit.generate.python import jinja_render, layout, render_fast
from toolkit.generate.python.builders import OpsetClass
from toolkit.generate.python.names import Distribution

REPO = Path(__file__).resolve().parent.parent
TEMPLATES = sorted(p.name for p in jinja_render.TEMPLATES.glob("*.j2"))

# What a template variable may hold: Jinja's syntax characters, quotes, backslashes, line breaks,
# whitespace, non-ASCII and astral text.
TEXT = st.lists(
    st.sampled_from([*'aZ_0 {}%#"\'\\\n\t\r|`é\u2028\U0001f600', "{{", "{%", "}}", "{#"]), max_size=12
).map("".join)
INT = st.integers(-3, 40)
LINES = st.lists(TEXT, max_size=3)


# --------------------------------------------------------------------------- per template


def _method(draw: st.DrawFn) -> tuple[Any, list[str], list[str]]:
    return (SimpleNamespace(docstring=draw(TEXT)), draw(LINES), draw(LINES))


@st.composite
def _opsets(draw: st.DrawFn) -> list[OpsetClass]:
    return [
        OpsetClass(
            draw(INT),
            draw(st.none() | INT),
            draw(INT),
            [_method(draw) for _ in range(draw(st.integers(0, 2)))],
        )
        for _ in range(draw(st.integers(0, 3)))
    ]


@st.composite
def _schema_classes(draw: st.DrawFn) -> list[Any]:
    classes = []
    for _ in range(draw(st.integers(0, 3))):
        schema = SimpleNamespace(
            domain=draw(TEXT),
            name=draw(TEXT),
            since_version=draw(INT),
            status=SimpleNamespace(value=draw(TEXT)),
            deprecated=draw(st.booleans()),
            min_input=draw(INT),
            max_input=draw(INT),
            min_output=draw(INT),
            max_output=draw(INT),
        )
        fields = [draw(st.lists(LINES, max_size=2)) for _ in range(4)]
        classes.append(
            SimpleNamespace(
                name=draw(TEXT),
                schema=schema,
                docstring=draw(TEXT),
                inputs=fields[0],
                outputs=fields[1],
                attributes=fields[2],
                constraints=fields[3],
                uses_math=draw(st.booleans()),
            )
        )
    return classes


@st.composite
def _schema_module_values(draw: st.DrawFn) -> dict[str, Any]:
    classes = draw(_schema_classes())
    fields = ("inputs", "outputs", "attributes", "type_constraints")
    return {
        "header": draw(TEXT),
        "op": SimpleNamespace(name=draw(TEXT)),
        "domain": draw(TEXT),
        "classes": classes,
        "doc_constants": draw(st.lists(st.tuples(TEXT, LINES), max_size=2)),
        "doc_of": {cls.name: draw(TEXT) for cls in classes},
        # "" is falsy: the template then writes the field itself
        "same_as": {(cls.name, f): draw(TEXT) for cls in classes for f in fields if draw(st.booleans())},
        "removed_in": draw(st.none() | INT),
        "replaced_by": draw(st.none() | TEXT),
    }


_DIST = st.builds(Distribution, package=TEXT, name=TEXT, version=TEXT)

VALUES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "opset_module.py.j2": st.fixed_dictionaries({"header": TEXT, "doc": TEXT, "version": INT, "ir_version": INT}),
    "opsets_module.py.j2": st.fixed_dictionaries(
        {
            "header": TEXT,
            "doc": TEXT,
            "domain": TEXT,
            "canonical": TEXT,
            "opsets": _opsets(),
            "runtime_names": st.lists(TEXT, max_size=3),
            "any_methods": st.booleans(),
            "needs_math": st.booleans(),
            "needs_any": st.booleans(),
        }
    ),
    "schema_module.py.j2": _schema_module_values(),
    "schemas_init.py.j2": st.fixed_dictionaries(
        {
            "header": TEXT,
            "domain": TEXT,
            "modules": st.lists(st.tuples(TEXT, TEXT), max_size=3),
            "classes": st.lists(st.tuples(TEXT, INT, TEXT, TEXT), max_size=3),
        }
    ),
    "domain_init.py.j2": st.fixed_dictionaries(
        {"header": TEXT, "doc": TEXT, "domain": TEXT, "canonical": TEXT, "versions": st.lists(INT, max_size=3)}
    ),
    "package_init.py.j2": st.fixed_dictionaries(
        {
            "header": TEXT,
            "package": TEXT,
            "domains": st.lists(st.tuples(TEXT, TEXT, TEXT), max_size=3),
            "releases": st.lists(LINES, max_size=3),
            "opset_irs": st.lists(st.tuples(st.tuples(TEXT, INT), INT), max_size=3),
            "min_ir": INT,
        }
    ),
    "pyproject.toml.j2": st.fixed_dictionaries({"spec": TEXT, "dist": _DIST}),
    "README.md.j2": st.fixed_dictionaries(
        {
            "spec": TEXT,
            "package": TEXT,
            "dist": _DIST,
            "releases": st.lists(st.tuples(TEXT, INT, st.lists(st.tuples(TEXT, INT), max_size=3)), max_size=3),
            "min_ir": INT,
            "domains": st.lists(st.tuples(TEXT, TEXT, st.lists(INT, min_size=1, max_size=3)), max_size=3),
        }
    ),
}


def test_every_template_has_a_fast_renderer() -> None:
    assert sorted(render_fast.RENDERERS) == TEMPLATES == sorted(VALUES)


@pytest.mark.parametrize("template", TEMPLATES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_renderer_writes_what_the_template_writes(template: str, data: st.DataObject) -> None:
    values = data.draw(VALUES[template])
    assert render_fast.render(template, values) == jinja_render.render(template, values)


# --------------------------------------------------------------------------- whole registries


@contextmanager
def _both_renderers(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """Every template the generator renders is rendered both ways and compared on the spot."""
    seen: set[str] = set()
    fast = layout._render

    def both(template: str, **values: object) -> bytes:
        seen.add(template)
        out = fast(template, **values)
        assert out == jinja_render.render(template, values).encode("utf-8"), template
        return out

    with monkeypatch.context() as patch:
        patch.setattr(layout, "_render", both)
        yield seen


def _plain_files(registry: Any, spec: str) -> dict[str, bytes]:
    """The files rendered with the templates (the definition) instead of the fast path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layout, "_render", lambda t, **v: jinja_render.render(t, v).encode("utf-8"))
        return layout.render_registry(registry, spec)


@pytest.mark.parametrize("which", ["onnx_registry", "shipped_registry"])
def test_registry_files_equal_the_templates(which: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = request.getfixturevalue(which)
    with _both_renderers(monkeypatch) as seen:
        files = layout.render_registry(registry, "specs")
    assert seen == set(TEMPLATES)
    assert files == _plain_files(registry, "specs")


def _write(root: Path, files: dict[str, object]) -> None:
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        assert isinstance(value, bytes)
        path.write_bytes(value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(["valid", "hostile_identifiers", "weird_names", "attr_values", "nonfinite"]).flatmap(mutated_trees))
def test_random_spec_trees_render_as_the_templates(case: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("tree")
    _write(root, render(case).files)
    try:
        registry = load_registry([root], cache=False, strict=False)
        plain: dict[str, bytes] | Exception = _plain_files(registry, "specs")
    except Exception as exc:  # a damaged tree the generator refuses: so must the fast path
        plain = exc
    if isinstance(plain, Exception):
        with pytest.raises(type(plain)):
            layout.render_registry(registry, "specs")
    else:
        assert layout.render_registry(registry, "specs") == plain


# --------------------------------------------------------------------------- no Jinja2


def test_cold_generate_does_not_import_jinja2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    script = (
        "import sys\n"
        "from toolkit.cli import main\n"
        f"code = main(['generate', '--specs', {str(REPO / 'opsets')!r}, '--out', {str(out)!r}, '-q'])\n"
        "assert code == 0, code\n"
        "print('jinja2' in sys.modules)\n"
    )
    env = os.environ | {"OPSET_TOOLKIT_NO_CACHE": "1", "OPSET_TOOLKIT_JOBS": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
    assert (out / "python" / "README.md").is_file()
