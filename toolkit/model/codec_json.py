"""Adapter step arguments in the codec (`toolkit.model.codec`), one JSON text per argument:
tuples become JSON arrays, lists become ``{"$list": [...]}``, mappings become JSON objects
(wrapped as ``{"$dict": {...}}`` when they would be mistaken for such a tag). Pure functions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

__all__ = ["dump_argument", "load_argument"]

_TAGS = ("$list", "$dict")


def _encode(value: object) -> object:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if isinstance(value, list):
        return {"$list": [_encode(v) for v in value]}
    if isinstance(value, Mapping):
        encoded: dict[str, object] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"adapter argument mapping keys must be strings, got {key!r}")
            encoded[key] = _encode(item)
        if len(encoded) == 1 and next(iter(encoded)) in _TAGS:
            return {"$dict": encoded}
        return encoded
    raise TypeError(f"cannot encode adapter argument value {value!r} as JSON")


def _decode(value: object) -> object:
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key == "$list" and isinstance(inner, list):
                return [_decode(v) for v in inner]
            if key == "$dict" and isinstance(inner, dict):
                return {k: _decode(v) for k, v in inner.items()}
        return {k: _decode(v) for k, v in value.items()}
    return value


def dump_argument(value: object) -> str:
    """An adapter step argument as JSON text; TypeError for a value it cannot hold."""
    return json.dumps(_encode(value), ensure_ascii=False, separators=(",", ":"), allow_nan=True)


def load_argument(text: str) -> object:
    """Inverse of `dump_argument`."""
    return _decode(json.loads(text))
