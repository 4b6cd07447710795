"""Importing a generated opset module stays light (issue #17): one module holds a domain's opset
classes, and nothing imports `typing` at run time -- the runtime's NamedTuple stand-in makes the
same classes typing.NamedTuple makes (type checkers see typing's)."""

from __future__ import annotations

import importlib.util
import json
import keyword
import pydoc
import subprocess
import sys
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.generate.python import PACKAGE

REPO = Path(__file__).resolve().parent.parent
RUNTIME = REPO / "toolkit" / "generate" / "python" / "runtime.py"
GENERATED = REPO / "generated" / "python"  # the checked-in tree (test_generate keeps it current)
RECORDS = ("ParamInfo", "AttrInfo", "TypeConstraintInfo", "LightAttribute")


def _runtime(type_checking: bool = False) -> ModuleType:
    """runtime.py as a module; with `type_checking`, as a type checker reads it (TYPE_CHECKING true)."""
    source = RUNTIME.read_text(encoding="utf-8")
    if type_checking:
        assert source.count("\nTYPE_CHECKING = False\n") == 1
        source = source.replace("\nTYPE_CHECKING = False\n", "\nTYPE_CHECKING = True\n")
    module = ModuleType(f"runtime_view_{type_checking}")
    exec(compile(source, str(RUNTIME), "exec"), module.__dict__)
    return module


def _record_source(fields: list[tuple[str, object]], required: int, doc: str | None) -> str:
    lines = ["from __future__ import annotations", "", "class Rec(NamedTuple):"]
    if doc is not None:
        lines.append(f"    {doc!r}")
    for index, (name, default) in enumerate(fields):
        lines.append(f"    {name}: int" + ("" if index < required else f" = {default!r}"))
    if doc is None and not fields:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def _make(source: str, named_tuple: object) -> Any:
    namespace: dict[str, Any] = {"NamedTuple": named_tuple, "__name__": "records_under_test"}
    exec(compile(source, "<records>", "exec"), namespace)
    return namespace["Rec"]


FIELD = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))
DEFAULT = st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=4), st.tuples(st.integers(0, 3)))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(FIELD, DEFAULT), max_size=7, unique_by=lambda f: f[0]),
    st.integers(0, 7),
    st.one_of(st.none(), st.text(max_size=20)),
)
def test_named_tuple_stand_in_makes_what_typing_makes(
    fields: list[tuple[str, object]], required: int, doc: str | None
) -> None:
    source = _record_source(fields, min(required, len(fields)), doc)
    ours, theirs = _make(source, _runtime().NamedTuple), _make(source, typing.NamedTuple)
    assert issubclass(ours, tuple) and ours is not theirs
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "_fields", "_field_defaults"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    values = list(range(len(fields)))
    one, other = ours(*values), theirs(*values)
    assert one == other and repr(one) == repr(other) and one._asdict() == other._asdict()
    if fields:
        assert ours(*values[: min(required, len(fields))]) == theirs(*values[: min(required, len(fields))])
        assert one._replace(**{fields[0][0]: -1}) == other._replace(**{fields[0][0]: -1})


def test_named_tuple_stand_in_rejects_what_it_would_drop() -> None:
    stand_in = _runtime().NamedTuple
    with pytest.raises(TypeError, match="without a default follows"):
        _make("class Rec(NamedTuple):\n    a: int = 1\n    b: int\n", stand_in)
    with pytest.raises(TypeError, match=r"only fields and a docstring, not \['size'\]"):
        _make("class Rec(NamedTuple):\n    a: int\n    def size(self) -> int:\n        return 1\n", stand_in)


def test_runtime_records_are_what_a_type_checker_reads() -> None:
    """The records of the runtime equal typing.NamedTuple's classes of the same declarations."""
    ours, checked = _runtime(), _runtime(type_checking=True)
    assert "typing" not in vars(ours) and checked.NamedTuple is typing.NamedTuple
    for name in RECORDS:
        mine, theirs = getattr(ours, name), getattr(checked, name)
        assert (mine._fields, mine._field_defaults, mine.__doc__) == (
            theirs._fields,
            theirs._field_defaults,
            theirs.__doc__,
        ), name
    assert ours.ParamInfo("X", "T", doc="the input") == ("X", "T", "single", 1, True, "unknown", "the input")


IMPORT_ONE_OPSET = """
import json, sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
import {package}.org_example_abc.opset4 as opset4
after_import = sorted(set(sys.modules) - before)
y = opset4.Opset4().C("a", "b")  # a builder call imports its schema class
print(json.dumps({{"import": after_import, "call": sorted(set(sys.modules) - before)}}))
"""


def test_importing_an_opset_loads_one_module_of_classes_and_no_typing() -> None:
    done = subprocess.run(
        [sys.executable, "-S", "-B", "-c", IMPORT_ONE_OPSET.format(package=PACKAGE), str(GENERATED)],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = json.loads(done.stdout)
    ours = [m for m in loaded["import"] if m.split(".")[0] == PACKAGE]
    assert ours == sorted(
        f"{PACKAGE}{suffix}"
        for suffix in (
            "",
            "._runtime",
            ".org_example_abc",
            ".org_example_abc._opsets",
            ".org_example_abc.opset4",
        )
    )
    for phase in ("import", "call"):
        heavy = {"typing", "math", "dataclasses", "inspect", "enum", "onnx"} & set(loaded[phase])
        assert not heavy, (phase, heavy)


def test_opset_modules_re_export_the_classes_of_their_domain() -> None:
    sys.path.insert(0, str(GENERATED))
    sys.dont_write_bytecode, saved = True, sys.dont_write_bytecode
    try:
        domain = importlib.import_module(f"{PACKAGE}.org_example_abc")
        chain = importlib.import_module(f"{PACKAGE}.org_example_abc._opsets")
        for version in domain.OPSET_VERSIONS:
            module = importlib.import_module(f"{PACKAGE}.org_example_abc.opset{version}")
            cls = getattr(module, f"Opset{version}")
            assert cls is getattr(chain, f"Opset{version}") is domain.opset(version)
            assert module.__all__ == ["IR_VERSION", f"Opset{version}"] and module.IR_VERSION == cls.IR_VERSION
            assert module.__doc__ and module.__doc__.startswith(f"org.example.abc opset {version}: ")
        assert chain.__all__ == [f"Opset{v}" for v in domain.OPSET_VERSIONS]
        page = pydoc.render_doc(chain.Opset3)
        assert "Returns its input multiplied by `scale`." in page and "Sums any number of tensors" in page
    finally:
        sys.path.remove(str(GENERATED))
        sys.dont_write_bytecode = saved
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]
