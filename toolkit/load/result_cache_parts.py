"""A cached LoadResult read in parts: the domains, releases and diagnostics decoded, each
operator left encoded beside its content digest until someone asks for it.

`opset diff`'s fast path (`toolkit.compat.gate_fast`) reads both trees this way and decodes
only the operators whose digests differ; decoding every operator is most of a warm diff on a
large catalog. Same entries, same checks as `toolkit.load.result_cache.fetch`: anything
unexpected is a miss (None).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from toolkit.load import cache, result_cache
from toolkit.load.parallel import gc_paused
from toolkit.model.codec import (
    domain_from_schema_document,
    operator_from_schema_message,
    read_schema_document,
)
from toolkit.model.diagnostics import Diagnostic
from toolkit.model.spec import DomainSpec, OperatorSpec, Release
from toolkit.proto import OperatorSchemaProto

__all__ = ["CachedOperator", "CachedParts", "fetch_parts"]


@dataclass(frozen=True, slots=True)
class CachedOperator:
    domain: str  # canonical
    name: str
    digest: str  # toolkit.model.codec_digest.NO_DIGEST: compare by decoding
    message: OperatorSchemaProto

    def decode(self) -> OperatorSpec:
        return operator_from_schema_message(self.domain, self.message)


@dataclass(frozen=True)
class CachedParts:
    domains: tuple[DomainSpec, ...]
    operators: tuple[CachedOperator, ...]  # in the order of the full result's SpecSet.operators
    releases: tuple[Release, ...]
    diagnostics: tuple[Diagnostic, ...]


def fetch_parts(key: str) -> CachedParts | None:
    """The entry stored under `key` (by `result_cache.store`), in parts; None when absent,
    stale, damaged or caching is off."""
    name = result_cache.entry_name(key)
    data = cache.read_entry(name)
    if data is None:
        return None
    try:
        with gc_paused(freeze=True):  # as result_cache.fetch: few objects, none of them cyclic
            return _parts(data, name)
    except (ValueError, TypeError, KeyError, IndexError, struct.error):
        return None  # protobuf's DecodeError is a ValueError


def _parts(data: bytes, key: str) -> CachedParts:
    header, documents = result_cache.split(data, key)
    digests = header["digests"]
    if not isinstance(digests, list) or len(digests) != len(documents):
        raise ValueError("digests do not match the documents")
    domains: list[DomainSpec] = []
    operators: list[CachedOperator] = []
    for raw, names in zip(documents, digests, strict=True):
        document = read_schema_document(raw)
        domain = domain_from_schema_document(document)
        domains.append(domain)
        if not isinstance(names, list) or len(names) != len(document.operators):
            raise ValueError("digests do not match the operators")
        for digest, message in zip(names, document.operators, strict=True):
            if not isinstance(digest, str):
                raise TypeError("digest")
            operators.append(CachedOperator(domain.name, message.name, digest, message))
    return CachedParts(
        domains=tuple(domains),
        operators=tuple(operators),
        releases=result_cache.header_releases(header),
        diagnostics=tuple(result_cache.header_diagnostics(header)),
    )
