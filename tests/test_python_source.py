"""Source text of the Python generator (toolkit/generate/python/source.py), judged by Python's
own parser: every string literal and docstring reads back as the text it was made from, with
nothing unprintable left in the source; docstrings keep every character in order and stay within
the line width. Also `identifier`'s shortcut (an ASCII identifier needs no substitution) and the
per-domain `SourceMemo`, whose hits are what each operator version makes alone. Then the same
helpers on chosen texts, the brackets and the builder method they lay out, and the runtime module
copied into every package, which stands alone. The generated packages themselves:
tests/test_python_classes.py."""

from __future__ import annotations

import ast
import keyword
import math
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from python_classes_helpers import RUNTIME

from toolkit.generate.python import domain_package
from toolkit.generate.python.builders import body_lines, build_method, signature_lines
from toolkit.generate.python.schema_classes import build_schema_class
from toolkit.generate.python.source import (
    LINE,
    Bracket,
    SourceMemo,
    call_lines,
    docstring,
    py_literal,
    str_chunks,
    str_literal,
)
from toolkit.model.python_names import identifier
from toolkit.model.spec import (
    Attribute,
    AttrType,
    FormalParameter,
    OpSchema,
    ParamOption,
    TypeConstraint,
)

REPO = Path(__file__).resolve().parent.parent

# Printable text, the escapes the shortcut handles (line breaks, tabs, quotes, backslashes) and
# the characters only the plain path handles (controls, line/paragraph separators, NEL, astral).
TEXT = st.text(alphabet=st.sampled_from(list('ab é"\\\n\t\r\x00\x7f\x85\u2028\u2029\U0001f600')), max_size=20)


@settings(max_examples=500, deadline=None)
@given(TEXT | st.text(max_size=20))
def test_str_literal_reads_back_and_is_printable(text: str) -> None:
    literal = str_literal(text)
    assert ast.literal_eval(literal) == text
    assert literal.isprintable()  # no control, separator or NEL reaches the source as itself


@settings(max_examples=200, deadline=None)
@given(TEXT | st.text(max_size=200))
@example("000\x1b\x1b\x1b" + "\U00012544" * 8 + "0" * 14)  # halved once, a first half still too long
def test_chunks_read_back_as_the_text(text: str) -> None:
    chunks = str_chunks(text)
    assert ast.literal_eval("(" + " ".join(chunks) + ")") == text
    assert all("\n" not in chunk and chunk.isprintable() for chunk in chunks)
    # about 72 characters of source each; escapes may add a little before a piece is halved
    assert all(len(chunk) <= 72 + 24 or len(ast.literal_eval(chunk)) == 1 for chunk in chunks)


# --------------------------------------------------------------------------- shortcuts of the kind

# Docstring text: words, runs of spaces, long words (wrapping), and everything that needs an
# escape or the plain path (backslashes, triple quotes, tabs, carriage returns, controls, NEL,
# line separators, a non-breaking space).
DOC_TEXT = st.lists(
    st.sampled_from(
        [
            *'ab é"\\\n\t\r\x00\x7f\x85\u2028\u00a0',
            "word ",
            "   ",
            '"""',
            "x" * 30,
            "- item ",
            "\n\n",
            "y" * 101,
        ]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(DOC_TEXT, st.sampled_from([0, 4, 8, 40]))
def test_docstring_reads_back_as_the_text_wrapped(text: str, indent: int) -> None:
    source = docstring(text, indent)
    pad = " " * indent
    tree = ast.parse(f"def f():\n{pad}{source}\n{pad}pass" if indent else f"{source}\n")
    read = ast.get_docstring(tree.body[0] if indent else tree, clean=False)
    assert read is not None
    # every character of the text, tabs expanded and line breaks normalised, in order; only
    # whitespace moves (wrapping), and an empty text says so
    raw = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    assert "".join(read.split()) == ("".join(raw.split()) or "(nodocumentation)")
    lines = source.split("\n")
    assert all(line.isprintable() for line in lines)
    assert all(len(line) <= LINE for line in lines[1:])
    memo = SourceMemo()  # a second docstring with the same lines reuses their wrapping
    assert docstring(text, indent, memo) == docstring(text, indent, memo) == source


def _reference_identifier(name: str, reserved: frozenset[str] = frozenset()) -> str:
    text = re.sub(r"\W", "_", name, flags=re.ASCII) or "_"
    if text[0].isdigit():
        text = f"_{text}"
    if text.startswith("__"):
        text = f"op{text}"
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in reserved:
        text = f"{text}_"
    return text


NAMES = st.lists(
    st.sampled_from(["a", "Z", "_", "0", "9", "-", ".", " ", "é", "ß", "class", "match", "get"]), max_size=6
)


@settings(max_examples=500, deadline=None)
@given(NAMES.map("".join) | st.text(max_size=8), st.sampled_from([frozenset(), frozenset({"get", "a_"})]))
def test_identifier_equals_the_substitution(name: str, reserved: frozenset[str]) -> None:
    expected = _reference_identifier(name, reserved)
    assert identifier(name, reserved) == expected
    assert identifier(name, list(reserved)) == expected  # any iterable of reserved names


def _attr_schema(since: int, default: object) -> OpSchema:
    return OpSchema(
        domain="org.example", name="Op", since_version=since, doc="An operator.",
        attributes=(Attribute("alpha", AttrType.FLOAT, doc="The alpha.", default=default),),  # type: ignore[arg-type]
    )  # fmt: skip


def test_memo_tells_equal_defaults_of_different_literals_apart() -> None:
    """1, 1.0 and True are equal (and -0.0 and 0.0): one memo must still write each as itself."""
    defaults: list[object] = [1, 1.0, True, 0.0, -0.0, (1,), (1.0,), math.inf, "1"]
    memo = SourceMemo()
    for since, default in enumerate(defaults, start=1):
        schema = _attr_schema(since, default)
        assert build_schema_class(schema, memo) == build_schema_class(schema)
        assert build_method(schema, "Op", "Op", memo) == build_method(schema, "Op", "Op")
        assert f"default={py_literal(default)}" in build_schema_class(schema, memo).attributes[0][0]


@pytest.mark.parametrize("which", ["onnx_registry", "shipped_registry"])
def test_memo_gives_what_each_version_makes_alone(which: str, request: pytest.FixtureRequest) -> None:
    registry = request.getfixturevalue(which)
    for domain in registry.domains():
        memo = SourceMemo()  # one per domain, as the generator uses it
        for op in registry.operators(domain):
            for schema in op.versions:
                assert build_schema_class(schema, memo) == build_schema_class(schema)
                assert build_method(schema, op.name, op.name, memo) == build_method(schema, op.name, op.name)


def test_str_literal_keeps_no_long_text_alive() -> None:
    """A long string (a hostile tree's doc) is quoted without being remembered; short ones are."""
    from toolkit.generate.python import source

    source._short_literal.cache_clear()
    long_text = 'a "quoted"\tline\n' * 100
    assert ast.literal_eval(source.str_literal(long_text)) == long_text
    assert source._short_literal.cache_info().currsize == 0
    assert ast.literal_eval(source.str_literal("Relu")) == "Relu"
    assert source._short_literal.cache_info().currsize == 1


# -- helpers of the generator ------------------------------------------------------------------

NASTY = 'He said """hi""" \\n and \\ backslash\ttab \x07bell \u2028sep "quoted"\n' + "word " * 40 + '"'


def test_docstring_escapes_and_wraps() -> None:
    source = f"def f() -> None:\n    {docstring(NASTY, 4)}\n"
    assert all(len(line) <= 100 for line in source.splitlines())
    assert not any(line != line.rstrip() for line in source.splitlines())
    namespace: dict[str, Any] = {}
    exec(compile(source, "<doc>", "exec"), namespace)
    doc = namespace["f"].__doc__
    assert 'He said """hi"""' in doc and "\\n and \\ backslash" in doc and "\x07bell" in doc
    assert doc.rstrip().endswith('"')
    assert docstring("", 0) == '"""(no documentation)\n"""'


@pytest.mark.parametrize(
    "value",
    [1, -3, 0.5, 1e-05, -math.inf, math.inf, "NOTSET", 'q"\\\n\x00é😀', (1, 2), (0.5,), ("a", "b\n"), ()],
)
def test_py_literal_round_trips(value: object) -> None:
    assert eval(py_literal(value), {"math": math}) == value


def test_py_literal_nan() -> None:
    assert math.isnan(eval(py_literal(math.nan), {"math": math}))


def test_str_chunks_are_lossless() -> None:
    chunks = str_chunks(NASTY * 3)
    assert "".join(eval(c) for c in chunks) == NASTY * 3
    assert all(len(c) <= 100 for c in chunks)


def test_identifiers() -> None:
    assert identifier("lambda") == "lambda_"
    assert identifier("2x") == "_2x"
    assert identifier("a-b.c") == "a_b_c"
    assert domain_package("") == "ai_onnx"
    assert domain_package("ai.onnx.preview.training") == "ai_onnx_preview_training"


def test_brackets_inline_and_explode() -> None:
    assert Bracket.tuple_of([]).inline() == "()"
    assert Bracket.tuple_of(["x"]).inline() == "(x,)"
    assert Bracket.tuple_of(["x", "y"]).inline() == "(x, y)"
    assert Bracket.dict_of(['"a": a']).inline() == '{"a": a}'
    assert Bracket.dict_of(['"a": a']).exploded("  ") == ["  {", '      "a": a,', "  },"]
    types = Bracket.tuple_of([f'"tensor(type_number_{i})"' for i in range(6)])
    lines = call_lines("TypeConstraintInfo", ['"T"', types], "")
    assert lines[:3] == ["TypeConstraintInfo(", '    "T",', "    ("], lines
    assert eval("\n".join(lines), {"TypeConstraintInfo": lambda *a: a}) == ("T", eval(types.inline()))
    assert call_lines("ParamInfo", ['"X"', '"T"'], "doc") == ['ParamInfo("X", "T", doc="doc")']


def _wide_schema() -> OpSchema:
    """An operator whose builder call cannot fit one line: many long attributes, a variadic input."""
    attrs = [Attribute(f"attribute_with_a_long_name_{i}", AttrType.INTS, default=(i,)) for i in range(4)]
    attrs += [
        Attribute("epsilon", AttrType.FLOAT, default=math.nan),
        Attribute("body", AttrType.GRAPH, required=True),
    ]
    return OpSchema(
        domain="org.example.wide",
        name="Wide",
        since_version=2,
        doc="A wide operator.",
        inputs=(FormalParameter("X", "T"), FormalParameter("rest", "T", option=ParamOption.VARIADIC)),
        outputs=(FormalParameter("Y", "T"), FormalParameter("Z", "seq(tensor(float))")),
        attributes=tuple(attrs),
        type_constraints=(TypeConstraint("T", ("tensor(float)",)),),
    )


def test_builder_method_is_laid_out_from_its_parts() -> None:
    method = build_method(_wide_schema(), "Wide", "Wide")
    assert method.uses_any
    # optional attributes default to None (left off the node), their spec default is in the docstring
    assert (
        "epsilon: float | None = None" in method.signature
        and "epsilon (default math.nan)" in method.docstring
    )
    assert method.value_kinds == {"TensorValue", "SequenceValue"}
    body = body_lines(method)
    assert body[0] == "        return self._many(" and "            {" in body  # the dict is spread
    source = "\n".join(["class Opset:", *signature_lines(method), f"        {method.docstring}", *body])
    assert all(len(line) <= 100 for line in source.splitlines())
    calls: list[tuple[object, ...]] = []

    class Base:
        def _many(self, *args: object) -> tuple[object, ...]:
            calls.append(args)
            return ()

    namespace: dict[str, Any] = {
        "Sequence": Sequence,
        "Any": Any,
        "math": math,
        "TensorValue": "TV",
        "SequenceValue": "SV",
        "_schema": lambda m, c: (m, c),
    }
    exec(
        compile(source.replace("class Opset:", "class Opset(Base):"), "<wide>", "exec"),
        {**namespace, "Base": Base},
        namespace,
    )
    namespace["Opset"]().Wide("x", "r1", "r2", body="g", _outputs=2)
    kinds, variadic, target, inputs, attributes, outputs, name = calls[0]
    assert (kinds, variadic, target, inputs, outputs, name) == (
        ("TV", "SV"),
        False,
        ("Wide", "Wide_2"),
        ("x", "r1", "r2"),
        2,
        None,
    )
    assert isinstance(attributes, dict) and attributes["body"] == "g" and attributes["epsilon"] is None
    assert attributes["attribute_with_a_long_name_3"] is None


# -- the runtime module --------------------------------------------------------------------------


def test_runtime_stands_alone() -> None:
    """The runtime imports only the standard library, and the toolkit never imports it."""
    tree = ast.parse(RUNTIME.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the runtime"
            imported.add((node.module or "").split(".")[0])
    stdlib = getattr(
        sys,
        "stdlib_module_names",
        {"__future__", "collections", "importlib", "math", "types", "typing", "warnings"},
    )
    assert imported and imported <= set(stdlib), imported - set(stdlib)
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('standalone_runtime', {str(RUNTIME)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('toolkit', 'onnx', 'yaml', 'jinja2')))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    users = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "toolkit").rglob("*.py"))
        if path != RUNTIME
        and re.search(r"python[.]runtime\b|from \S+python import runtime", path.read_text(encoding="utf-8"))
    ]
    assert not users, f"toolkit modules importing the generated package's runtime: {users}"


def test_generator_registry_imports_generators_on_use() -> None:
    code = (
        "import sys, toolkit.generate as g; "
        "print(sorted(m for m in sys.modules if m.startswith('toolkit.generate.') or m == 'jinja2'))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['toolkit.generate.context']"
