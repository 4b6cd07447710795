"""What a forked worker sends back (`toolkit.load.transfer`: slotted dataclasses pickled as their
class and field values) comes back as plain pickle would bring it: same values, field by field,
same types, same sharing between objects."""

from __future__ import annotations

import dataclasses
import enum
import pickle
from pathlib import Path
from typing import ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st
from test_codec import differences

from toolkit.load import transfer
from toolkit.load.discovery import discover, display_path
from toolkit.load.loader import load_files
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import Location


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True, slots=True)
class Leaf:
    value: object


@dataclasses.dataclass(frozen=True, slots=True)
class Pair:
    left: object
    right: object = None


@dataclasses.dataclass(frozen=True, slots=True)
class Checked:
    """Not restored by a call: its __post_init__ would run again."""

    text: str
    seen: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "seen", (*self.seen, self.text))


@dataclasses.dataclass(frozen=True, slots=True)
class Derived:
    """Not restored by a call: one field is no __init__ parameter."""

    base: int
    twice: int = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "twice", 2 * self.base)


@dataclasses.dataclass(frozen=True, slots=True)
class WithPseudoFields:
    """An InitVar is an __init__ parameter that is no field; a ClassVar is neither."""

    value: object
    scale: dataclasses.InitVar[int] = 1
    kind: ClassVar[str] = "pseudo"


@dataclasses.dataclass(frozen=True, slots=True)
class OwnReduce:
    value: int

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return OwnReduce, (self.value + 1,)


@dataclasses.dataclass(frozen=True)
class Unslotted:
    value: object


@dataclasses.dataclass(frozen=True, slots=True)
class Empty:
    pass


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.sampled_from(list(Colour))
    | st.builds(Location, st.text(max_size=3), st.integers(0, 9), st.integers(0, 9))
)


def _objects(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return (
        st.builds(Leaf, inner)
        | st.builds(Pair, inner, inner)
        | st.builds(Checked, st.text(max_size=3))
        | st.builds(Derived, st.integers(-5, 5))
        | st.builds(Unslotted, inner)
        | st.builds(WithPseudoFields, inner)
        | st.builds(OwnReduce, st.integers(-5, 5))
        | st.just(Empty())
        | st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    )


VALUES = st.recursive(SCALARS, _objects, max_leaves=12)


def _shared(value: object) -> object:
    """The same object twice, so the round trip must keep the sharing."""
    return [value, Pair(value, value)]


def _identities(value: object) -> list[int]:
    """For each object reached, the index of its first appearance (sharing made visible)."""
    seen: dict[int, int] = {}
    order: list[int] = []

    def walk(node: object) -> None:
        if isinstance(node, (str, int, float, bool, type(None), enum.Enum)):
            return
        order.append(seen.setdefault(id(node), len(seen)))
        if dataclasses.is_dataclass(node):
            for field in dataclasses.fields(node):
                walk(getattr(node, field.name))
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)

    walk(value)
    return order


@settings(max_examples=300, deadline=None)
@given(VALUES.map(_shared))
def test_round_trip_equals_plain_pickle(value: object) -> None:
    plain = pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    fast = transfer.loads(transfer.dumps(value))
    assert differences(plain, fast) == []
    assert repr(plain) == repr(fast)  # types included (differences compares values)
    assert _identities(plain) == _identities(fast)


def test_post_init_classes_are_not_called_again() -> None:
    checked = Checked("a")
    assert checked.seen == ("a",)
    assert transfer.loads(transfer.dumps(checked)).seen == ("a",)
    derived = Derived(3)
    assert transfer.loads(transfer.dumps(derived)).twice == 6


def test_diagnostics_are_not_escaped_twice() -> None:
    diagnostic = Diagnostic("X-Y", "a\nb \\ c", Location("f", 1, 1), "hint\\n")
    assert transfer.loads(transfer.dumps([diagnostic])) == [diagnostic]
    assert pickle.loads(pickle.dumps(diagnostic)) == diagnostic


def test_an_object_holding_itself_comes_back_holding_itself() -> None:
    loop = Leaf([])
    loop.value.append(loop)  # type: ignore[attr-defined]
    back = transfer.loads(transfer.dumps(loop))
    assert type(back) is Leaf and isinstance(back.value, list) and back.value[0] is back


def test_onnx_catalog_operators_round_trip(onnx_catalog_dir: Path) -> None:
    result = load_files(discover([onnx_catalog_dir]), display_path)
    operators = list(result.specs.operators)
    back = transfer.loads(transfer.dumps(operators))
    assert differences(operators, back) == []
    assert _identities(operators) == _identities(back)
    assert len(transfer.dumps(operators)) < len(pickle.dumps(operators, protocol=pickle.HIGHEST_PROTOCOL))
