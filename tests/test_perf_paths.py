"""The cold `opset generate` guard rail of #24, kept by mechanisms of the one path (no second
definition): a fresh load frozen out of the cyclic collector's sight, the model's dataclasses
pickled as their class and field values across the process pool, shape rules parsed once per
text. The outputs stay byte for byte those of the golden tests (`opset generate --check`)."""

from __future__ import annotations

import dataclasses
import gc
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_codec import differences

from toolkit.load.loader import read_specs
from toolkit.model import examples, spec, spec_base
from toolkit.model.record import Record
from toolkit.model.spec import Location, SpecSet
from toolkit.registry.core import load_registry
from toolkit.shapes.lang import parse

OPSETS = Path(__file__).resolve().parent.parent / "opsets"


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Objects a test freezes are handed back to the collector afterwards."""
    yield
    gc.unfreeze()


def test_fresh_load_is_frozen_out_of_the_collectors_sight(unfrozen: None) -> None:
    """A load without the cache leaves the catalog where the collector no longer walks it, as a
    cached load does: the generator kinds' collections (and the forked kind worker's) would walk
    every object of it again."""
    gc.unfreeze()
    registry = load_registry([OPSETS], cache=False)
    assert gc.get_freeze_count() > 0
    tracked = {id(obj) for obj in gc.get_objects()}
    operator = registry.specs.operators[0]
    assert id(operator) not in tracked
    assert id(operator.versions[0]) not in tracked


def _model_classes() -> list[type]:
    """The dataclasses the frozen model is made of, in the modules it is defined in."""
    return [
        value
        for module in (spec_base, spec, examples)
        for value in vars(module).values()
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__
    ]


def test_every_model_dataclass_pickles_as_its_class_and_field_values() -> None:
    """Derived from each class's fields, for every dataclass of the model (none left to
    dataclasses' per-object field lookups), and read back equal field by field, locations
    (compare=False fields) included."""
    classes = _model_classes()
    assert len(classes) >= 18
    assert [cls.__name__ for cls in classes if not issubclass(cls, Record)] == []
    where = Location("ops/X.yaml", 3, 7)
    assert where.__reduce__() == (Location, ("ops/X.yaml", 3, 7))
    specs = read_specs([OPSETS], jobs=1).specs
    back = pickle.loads(pickle.dumps(specs, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(back, SpecSet)
    assert differences(specs, back) == []


def test_a_record_whose_init_does_more_than_assign_its_fields_is_not_pickled_as_its_values() -> None:
    """Calling the class again would run `__post_init__` a second time (or miss an init=False
    field): such a class fails loudly instead of coming back different."""

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked(Record):
        value: int

        def __post_init__(self) -> None:
            if self.value < 0:
                raise ValueError("negative")

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived(Record):
        value: int
        twice: int = dataclasses.field(init=False, default=0)

    for obj in (Checked(1), Derived(2)):
        with pytest.raises(TypeError, match="cannot be pickled as its field values"):
            pickle.dumps(obj)


def test_a_shape_rule_is_parsed_once_per_text() -> None:
    """Versions inherit their rules: the same text gives the same (frozen) tree."""
    text = "broadcast(shape(A), shape(B))"
    assert parse(text) is parse(text)
    assert parse(text) == parse(text + " ")  # another text, another parse, an equal tree
