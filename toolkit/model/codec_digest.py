"""Content digests of encoded operators, source locations left out (the diff's fast path).

Two operators with the same digest encode to the same bytes once their `SourceLocation` fields
are gone, so every model field outside the locations is equal (`toolkit.model.codec` encodes
them all) and they compare equal as model objects: the dataclasses' equality ignores only
locations, `doc_literal` flags and examples, all of which the digest keeps or drops harmlessly
(kept fields can only make equal operators look different, never the reverse).

The one exception is NaN: `nan != nan`, so two operators with a NaN attribute default (or a NaN
adapter argument) are unequal as objects although their bytes agree. `may_be_unequal_to_itself`
finds them; they get no digest (`""`), which the fast path reads as "decode and compare".
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

from toolkit.model.examples import ExampleTensor, SparseTensorValue
from toolkit.model.spec import OperatorSpec

__all__ = ["NO_DIGEST", "digest_without_locations", "may_be_unequal_to_itself"]

NO_DIGEST = ""
_LOCATION = "SourceLocation"
# descriptor full name -> (location fields, singular message fields, repeated message fields)
_PLANS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _plan(descriptor: Any) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        locations, singles, repeated = [], [], []
        for field in descriptor.fields:
            if field.message_type is None:
                continue
            if field.message_type.name == _LOCATION:
                locations.append(field.name)
            elif field.is_repeated:
                repeated.append(field.name)
            else:
                singles.append(field.name)
        plan = _PLANS[descriptor.full_name] = (tuple(locations), tuple(singles), tuple(repeated))
    return plan


def _drop_locations(message: Any) -> None:
    locations, singles, repeated = _plan(message.DESCRIPTOR)
    for name in locations:
        message.ClearField(name)
    for name in singles:
        if message.HasField(name):
            _drop_locations(getattr(message, name))
    for name in repeated:
        for item in getattr(message, name):
            _drop_locations(item)


def digest_without_locations(message: Any) -> str:
    """Hex digest of `message` (any of our schema messages) serialised deterministically without
    its `SourceLocation` fields. Clears those fields in `message` itself: pass a message that is
    no longer needed (a copy costs as much as the digest)."""
    _drop_locations(message)
    data: bytes = message.SerializeToString(deterministic=True)
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _has_nan(value: object) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (tuple, list)):
        return any(_has_nan(v) for v in value)
    if isinstance(value, Mapping):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, ExampleTensor):
        return _has_nan(value.data)
    if isinstance(value, SparseTensorValue):
        return _has_nan(value.values.data)
    return False


def may_be_unequal_to_itself(spec: OperatorSpec) -> bool:
    """True when a compared field of `spec` holds a NaN (an attribute default, an adapter step
    argument): a decoded copy of it would not compare equal to another decoded copy."""
    for schema in spec.versions:
        if any(a.default is not None and _has_nan(a.default) for a in schema.attributes):
            return True
        adapter = schema.adapter
        if adapter is not None:
            steps = [*adapter.upgrade, *(adapter.downgrade or ())]
            if any(_has_nan(value) for step in steps for _, value in step.args):
                return True
    return False
