"""Fast path beside plain `pickle` for what a forked worker sends back (`toolkit.load.parallel`).

The model is made of frozen dataclasses with `__slots__`. Pickle saves and restores those through
the `__getstate__`/`__setstate__` that `dataclasses` adds to slotted classes, which look up the
class's fields once per object, on both sides; on a large tree that is most of the cost of
sending a worker's half back. Here such an object is saved as its class and its field values in
order, and restored by calling the class with them: the same object, since the class's
`__init__` only assigns its fields when it has no `__post_init__` and every field is an `__init__`
parameter. Any other object is pickled as pickle would.

`loads(dumps(x))` equals `pickle.loads(pickle.dumps(x))`, field by field and type by type
(tests/test_load_transfer.py checks it with hypothesis and on the onnx catalog).
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import pickle
from collections.abc import Callable
from operator import attrgetter
from typing import Any

Reducer = Callable[[Any], Any]  # an object -> what pickle's reduce protocol takes


def dumps(obj: object) -> bytes:
    """`obj` pickled, slotted dataclasses as (class, field values)."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dump(obj)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """What `dumps` pickled (it needs nothing but `pickle.loads`)."""
    return pickle.loads(data)  # from our own worker over a private pipe, never from disk


class _Reducers(dict[type, Reducer]):
    """copyreg's table, plus a reducer for each plain slotted dataclass, made on first sight."""

    def __init__(self) -> None:
        super().__init__()
        self.plain: set[type] = set()  # classes left to pickle's own way

    def __missing__(self, cls: type) -> Reducer:
        if cls not in self.plain:
            reducer = copyreg.dispatch_table.get(cls) or _field_reducer(cls)
            if reducer is not None:
                self[cls] = reducer
                return reducer
            self.plain.add(cls)
        raise KeyError(cls)  # how a dispatch table tells pickle to go its own way

    def get(self, cls: type, default: Any = None) -> Any:  # pickle.py's way (the C pickler indexes)
        try:
            return self[cls]
        except KeyError:
            return default


def _field_reducer(cls: type) -> Reducer | None:
    """(class, field values) for a slotted dataclass whose `__init__` (written by `dataclasses`:
    the model writes none of its own) does nothing but set every field; None for any other class."""
    if not (dataclasses.is_dataclass(cls) and "__slots__" in vars(cls)) or hasattr(cls, "__post_init__"):
        return None
    own = vars(cls)
    if "__reduce__" in own or "__reduce_ex__" in own or cls.__new__ is not object.__new__:
        return None
    fields = dataclasses.fields(cls)
    every = getattr(cls, "__dataclass_fields__", {})  # InitVar and ClassVar pseudo-fields too
    if not fields or len(every) != len(fields) or not all(f.init for f in fields):
        return None
    values = attrgetter(*(f.name for f in fields))
    if len(fields) == 1:
        return lambda obj: (obj.__class__, (values(obj),))
    return lambda obj: (obj.__class__, values(obj))


_REDUCERS = _Reducers()


class _Pickler(pickle.Pickler):
    dispatch_table = _REDUCERS
