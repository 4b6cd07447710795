"""How the model's frozen dataclasses are pickled: as their class and their field values.

Pickles travel only between this process and the toolkit's process pool (`toolkit.load.parallel`:
a worker sends back the operators it built), never to or from disk. For a dataclass with
`__slots__`, `dataclasses` pickles through a `__getstate__`/`__setstate__` that look the class's
fields up again for every object, on both sides; on the onnx catalog that was most of the cost of
sending a worker's half of the operators back. `Record.__reduce__` pickles an object as its class
and its field values (in `dataclasses.fields` order), and unpickling calls the class with them:
the dataclass's own `__init__`, so the object read back is built exactly as the loader builds one.
That needs a class whose every field is an `__init__` parameter and which has no
`__post_init__` (which would run a second time): checked when a class is first pickled.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

__all__ = ["Record"]


class Record:
    """The base of the model's frozen dataclasses (adds no field and no slot)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:
        cls = type(self)
        values = _READERS.get(cls) or _reader(cls)
        return cls, values(self)


# Per class, the function reading an instance's field values in the order `__init__` takes them.
_READERS: dict[type[Record], Callable[[Record], tuple[Any, ...]]] = {}


def _reader(cls: type[Record]) -> Callable[[Record], tuple[Any, ...]]:
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # every Record is a dataclass
    if hasattr(cls, "__post_init__") or not all(f.init for f in fields):
        raise TypeError(f"{cls.__name__} cannot be pickled as its field values: its __init__ does more")
    get = operator.attrgetter(*(f.name for f in fields))
    reader: Callable[[Record], tuple[Any, ...]] = (lambda record: (get(record),)) if len(fields) == 1 else get
    _READERS[cls] = reader
    return reader
