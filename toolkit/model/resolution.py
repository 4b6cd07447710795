"""THE versioning rule of ONNX (Versioning.md, "Operator versioning"), written once.

In opset `(domain, v)` an operator resolves to its version with the largest
`since_version <= v`, unless the operator was removed at or before `v`. A version is therefore
*in effect* from its own `since_version` until (excluding) the next version's `since_version`
or the operator's `removed_in`, whichever comes first.

Every caller — the registry, the protobuf and Markdown generators, the adapter chains of
`opset convert`, the runtime compatibility check — resolves through these functions.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from toolkit.model.spec import OperatorSpec, OpSchema


def removed_by(removed_in: int | None, opset_version: int) -> bool:
    """True when an operator removed in opset `removed_in` is gone at `opset_version`."""
    return removed_in is not None and opset_version >= removed_in


def index_at(since_versions: Sequence[int], removed_in: int | None, opset_version: int) -> int | None:
    """Position (in `since_versions`, ascending) of the version in effect at `opset_version`,
    or None when nothing is (too early, or removed at or before it)."""
    if removed_by(removed_in, opset_version):
        return None
    index = bisect.bisect_right(since_versions, opset_version) - 1
    return index if index >= 0 else None


def version_at(op: OperatorSpec, opset_version: int) -> OpSchema | None:
    """The version of `op` in effect in opset `opset_version` of its domain, or None."""
    index = index_at([v.since_version for v in op.versions], op.removed_in, opset_version)
    return None if index is None else op.versions[index]


def in_effect(op: OperatorSpec, since_version: int) -> tuple[int, int | None]:
    """`[from, until)` of the version introduced at `since_version`: until is the next version's
    since_version or the operator's removed_in (None: still in effect at every later opset)."""
    later = [v.since_version for v in op.versions if v.since_version > since_version]
    ends = [*later[:1], *([op.removed_in] if op.removed_in is not None else [])]
    return since_version, (min(ends) if ends else None)


def is_in_effect(op: OperatorSpec, since_version: int, opset_version: int) -> bool:
    start, until = in_effect(op, since_version)
    return start <= opset_version and (until is None or opset_version < until)


def chain(op: OperatorSpec, low: int, high: int) -> list[OpSchema]:
    """The versions that take effect in `(low, high]`, oldest first: the steps a node resolved at
    opset `low` passes through on its way to opset `high`."""
    return [v for v in op.versions if low < v.since_version <= high]


def inventory(operators: Iterable[OperatorSpec], opset_version: int) -> dict[str, OpSchema]:
    """Operator name -> version in effect at `opset_version`, sorted by name, for the operators
    of one domain."""
    out: dict[str, OpSchema] = {}
    for op in operators:
        schema = version_at(op, opset_version)
        if schema is not None:
            out[op.name] = schema
    return dict(sorted(out.items()))
